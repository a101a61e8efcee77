/* sr-session-prepare.c: PrepareSession, the settings applied to the
 * session manager's record before login
 *
 * On GNOME, gnome-session 51 decides restores itself and consults nobody;
 * what the settings say reaches it only through its record, between
 * logout and the next login (sr-store-prepare.c says what is taken away,
 * and how). session-restore-ctl talks only to policyd, and policyd has
 * everything that takes: the settings, the crash-loop guard, the clear
 * points, retention, and the stores with their confined removal. So it
 * is a method of policyd's, which session-restore-ctl session prepare
 * calls, from session-restore-prepare.service at login.
 *
 * Who may call it. Host processes of the user, without polkit:
 * - it applies only what the settings and the clear points already say
 *   (set by the user through polkit's "configure" and "clear", or by the
 *   administrator): it takes no argument, and its caller decides nothing,
 *   so an authorization would authorize nothing that was not authorized
 *   when the settings were changed. It is the removal retention and the
 *   opt-outs make anyway, at a time the session manager cannot undo it;
 * - it runs at login, from a systemd user unit, before the session, when
 *   no polkit agent can ask anyone anything: an "auth_self" default would
 *   fail it there, or a site's rule would have to allow it everywhere;
 * - "clear" (Clear) defaults to "yes" for the user anyway; a host process
 *   of the user can delete these files without asking anybody.
 * Sandboxed callers may not (the gate's NotAllowed, as for every method
 * but the three of the hot path): an app has no business with other apps'
 * saved sessions.
 *
 * It refuses (Failed) while the owner of what it rewrites runs, because
 * that owner would write its memory back: gnome-session, while it owns
 * org.gnome.SessionManager, and the compositor (mutter, or GNOME Shell,
 * which is mutter), while it owns org.gnome.Mutter.DisplayConfig.
 * session-restore-portal takes org.gnome.SessionManager too, on desktops
 * without a session manager of their own, and keeps its own record, not
 * gnome-session's: an owner whose program is the portal backend's is not
 * a running gnome-session. Programs are told apart by their executable,
 * as sr-peer.c tells policyd's and the panel's (SR_PORTAL_EXECUTABLE
 * names another for tests).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-session-prepare"

#include "config.h"

#include "sr-error.h"
#include "sr-peer.h"
#include "sr-process.h"
#include "sr-session-prepare.h"

#define BUS_CALL_TIMEOUT_MS 5000

/* What each owner rewrites from memory, and whether the portal backend
 * may be the one holding its name. */
static const struct {
  const char *name;
  const char *owner;
  const char *what;
  gboolean portal_may_own;
} owners[] = {
  { "org.gnome.SessionManager", "gnome-session", "its record of open apps", TRUE },
  { "org.gnome.Mutter.DisplayConfig", "The compositor", "its window positions", FALSE },
};

typedef struct {
  SrDecisionContext ctx;    /* its policy referenced */
  GDBusConnection *bus;     /* (owned) */
} Rules;

static void
rules_free (Rules *rules)
{
  sr_policy_unref (rules->ctx.policy);
  g_object_unref (rules->bus);
  g_free (rules);
}

static SrPrepareApp
judge_app (const char  *app_id,
           const char **out_why,
           gpointer     user_data)
{
  Rules *rules = user_data;

  return sr_decide_prepare_app (&rules->ctx, app_id, out_why);
}

static const char *
judge_instance (const char *app_id,
                gint64      saved_at,
                gpointer    user_data)
{
  Rules *rules = user_data;

  return sr_decide_prepare_instance (&rules->ctx, app_id, saved_at);
}

static GVariant *
ask_bus (GDBusConnection  *bus,
         const char       *method,
         const char       *name,
         const char       *reply_type,
         GError          **error)
{
  return g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                      "org.freedesktop.DBus", method, g_variant_new ("(s)", name),
                                      G_VARIANT_TYPE (reply_type), G_DBUS_CALL_FLAGS_NONE,
                                      BUS_CALL_TIMEOUT_MS, NULL, error);
}

/* Whether owners[@i] is stopped (or its name is the portal backend's).
 * On the store worker's thread: GDBus's sync calls may be made from any
 * thread. */
static gboolean
check_owner (GDBusConnection  *bus,
             guint             i,
             GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GVariant) owner_reply = NULL;
  g_autoptr(GVariant) pid_reply = NULL;
  g_autofree char *executable = NULL;
  const char *unique_name;
  guint32 pid;

  owner_reply = ask_bus (bus, "GetNameOwner", owners[i].name, "(s)", &local_error);
  if (g_error_matches (local_error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER))
    return TRUE;
  if (owner_reply == NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "Could not ask the bus whether %s is running: %s; nothing was changed",
                   owners[i].name, local_error->message);
      return FALSE;
    }
  g_variant_get (owner_reply, "(&s)", &unique_name);
  pid_reply = ask_bus (bus, "GetConnectionUnixProcessID", unique_name, "(u)", &local_error);
  if (pid_reply == NULL)
    {
      /* Gone meanwhile: stopped. */
      if (g_error_matches (local_error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER))
        return TRUE;
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "Could not ask the bus which process owns %s: %s; nothing was changed",
                   owners[i].name, local_error->message);
      return FALSE;
    }
  g_variant_get (pid_reply, "(u)", &pid);
  executable = sr_process_read_executable (pid, NULL);
  if (owners[i].portal_may_own && executable != NULL &&
      g_str_equal (executable, sr_peer_expected_executable ("SR_PORTAL_EXECUTABLE",
                                                            SR_PORTAL_EXECUTABLE)))
    return TRUE;

  g_set_error (error, SR_ERROR, SR_ERROR_FAILED,
               "%s is running (process %u, %s, owns %s), and would write %s back from memory: "
               "nothing was changed. Prepare the session after logout, before the next login "
               "(session-restore-prepare.service does)",
               owners[i].owner, pid, executable != NULL ? executable : "a program that cannot be read",
               owners[i].name, owners[i].what);
  return FALSE;
}

static gboolean
check_owners (gpointer   user_data,
              GError   **error)
{
  Rules *rules = user_data;

  for (guint i = 0; i < G_N_ELEMENTS (owners); i++)
    if (!check_owner (rules->bus, i, error))
      return FALSE;
  return TRUE;
}

static void
log_report (GVariant *report)
{
  g_autoptr(GVariant) instances = g_variant_lookup_value (report, "instances",
                                                          G_VARIANT_TYPE ("a(sss)"));
  guint32 files = 0;
  GVariantIter iter;
  const char *app_id, *instance_id, *why;

  g_variant_lookup (report, "files", "u", &files);
  g_variant_iter_init (&iter, instances);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &app_id, &instance_id, &why))
    g_message ("Session prepared: %s's instance %s will not come back (%s)", app_id, instance_id,
               why);
  if (files > 0)
    g_message ("Session prepared: %u saved session %s removed", files,
               files == 1 ? "file" : "files");
}

static void
on_prepared_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) report = sr_store_worker_finish (SR_STORE_WORKER (source), result, &error);

  if (report == NULL)
    {
      if (error->domain != SR_ERROR)
        {
          g_autoptr(GError) failed = g_error_new (SR_ERROR, SR_ERROR_FAILED,
                                                  "Could not prepare the session: %s",
                                                  error->message);
          g_dbus_method_invocation_return_gerror (invocation, failed);
          return;
        }
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  log_report (report);
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(@a{sv})", report));
}

void
sr_session_prepare (SrStoreWorker           *stores,
                    const SrDecisionContext *ctx,
                    GDBusConnection         *bus,
                    GDBusMethodInvocation   *invocation)
{
  SrPrepareRules *prepare_rules = g_new0 (SrPrepareRules, 1);
  Rules *rules = g_new0 (Rules, 1);

  rules->ctx = *ctx;
  rules->ctx.policy = sr_policy_ref (ctx->policy);
  rules->ctx.login_answer = NULL;
  rules->bus = g_object_ref (bus);

  *prepare_rules = (SrPrepareRules) {
    .off = !ctx->policy->enabled,
    .judge_app = judge_app,
    .judge_instance = judge_instance,
    .check_owners = check_owners,
    .user_data = rules,
    .destroy = (GDestroyNotify) rules_free,
  };
  sr_store_worker_prepare_async (stores, prepare_rules, on_prepared_cb,
                                 g_object_ref (invocation));
}
