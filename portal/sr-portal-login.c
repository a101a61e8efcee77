/* sr-portal-login.c: reopening at login the apps open at the session's end
 *
 * session-restore-portal --login asks the running backend (Login) to do
 * this once per login. policyd is asked about every app at once, with
 * "interactive", so that "Ask every time" shows one prompt for all; the
 * allowed ones are launched from their desktop files (GIO uses D-Bus
 * activation for DBusActivatable apps), and their instances are marked so
 * that their Register gets RESTORE. State policyd will not restore because
 * it was cleared, opted out or expired is discarded; state merely not
 * reopened now (the user said no, or "Do not restore") stays for a LAUNCH.
 * A mark no app claims within REOPEN_CLAIM_S (the app failed to start,
 * or does not register) is dropped, so that a later launch by hand is a
 * LAUNCH, not a RESTORE with a prompt.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-login"

#include "config.h"

#include <gio/gdesktopappinfo.h>

#include "sr-portal.h"

/* How long an app the login reopened has to register as reopened. */
#define REOPEN_CLAIM_S 120

typedef struct {
  SrPortal *self;     /* (unowned) */
  guint pending;
  guint launched;
} Login;

typedef struct {
  GTask *task;        /* (owned) */
  char *app_id;       /* (owned) */
} AppCheck;

/* The transient scope an app is launched in, as desktops name them
 * (app-<launcher>-<app id>-<pid>.scope): the frontend identifies a host
 * app by its scope, and one left in the backend's own cgroup would be
 * taken for the backend, unidentified, and get PRISTINE. A '-' in the
 * app id is escaped as systemd escapes it. */
static char *
scope_name (const char *app_id,
            GPid        pid)
{
  GString *name = g_string_new ("app-sessionrestore-");

  for (const char *p = app_id; *p != '\0'; p++)
    {
      if (*p == '-')
        g_string_append (name, "\\x2d");
      else
        g_string_append_c (name, *p);
    }
  g_string_append_printf (name, "-%d.scope", (int) pid);
  return g_string_free (name, FALSE);
}

typedef struct {
  GDBusConnection *bus;     /* (unowned) */
  const char *app_id;
} Launch;

/* The desktop file Flatpak exports for @app_id, in one of the data
 * directories of Flatpak's installations (…/flatpak/exports/share), not
 * a host desktop file that has the same name. */
static GDesktopAppInfo *
flatpak_export (const char *app_id)
{
  const char * const *dirs = g_get_system_data_dirs ();
  g_autofree char *name = g_strconcat (app_id, ".desktop", NULL);

  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autofree char *path = NULL;
      g_autofree char *exported_for = NULL;
      g_autoptr(GDesktopAppInfo) info = NULL;

      if (!g_str_has_suffix (dirs[i], "/flatpak/exports/share") &&
          !g_str_has_suffix (dirs[i], "/flatpak/exports/share/"))
        continue;
      path = g_build_filename (dirs[i], "applications", name, NULL);
      info = g_desktop_app_info_new_from_filename (path);
      exported_for = info != NULL ? g_desktop_app_info_get_string (info, "X-Flatpak") : NULL;
      if (g_strcmp0 (exported_for, app_id) == 0)
        return g_steal_pointer (&info);
    }
  return NULL;
}

static void
scoped (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  g_autofree char *app_id = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                                             &error);

  /* Without a systemd user manager no desktop has scopes to tell apps by. */
  if (reply == NULL)
    g_debug ("%s runs without a scope of its own: %s", app_id, error->message);
}

/* Once the app is forked: the user's systemd puts it into a scope of its
 * own, as the desktops' launchers do, without waiting (GLib returns the
 * child only once it has run its program). An app takes far longer to
 * reach the frontend than this round trip. */
static void
put_in_scope (GDesktopAppInfo *info,
              GPid             pid,
              gpointer         user_data)
{
  Launch *launch = user_data;
  g_autofree char *unit = scope_name (launch->app_id, pid);
  GVariantBuilder props;
  guint32 pids[1] = { (guint32) pid };

  g_variant_builder_init (&props, G_VARIANT_TYPE ("a(sv)"));
  g_variant_builder_add (&props, "(sv)", "PIDs",
                         g_variant_new_fixed_array (G_VARIANT_TYPE_UINT32, pids, 1, sizeof pids[0]));
  g_variant_builder_add (&props, "(sv)", "CollectMode", g_variant_new_string ("inactive-or-failed"));
  g_dbus_connection_call (launch->bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                          "org.freedesktop.systemd1.Manager", "StartTransientUnit",
                          g_variant_new ("(ssa(sv)a(sa(sv)))", unit, "fail", &props, NULL),
                          G_VARIANT_TYPE ("(o)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, 5000, NULL,
                          scoped, g_strdup (launch->app_id));
}

static gboolean
launch (GDBusConnection *bus,
        const char      *app_id,
        gboolean         flatpak)
{
  g_autofree char *desktop_id = g_strconcat (app_id, ".desktop", NULL);
  g_autoptr(GDesktopAppInfo) info = NULL;
  g_autoptr(GAppLaunchContext) context = NULL;
  g_autoptr(GError) error = NULL;
  Launch launch = { bus, app_id };

  info = flatpak ? flatpak_export (app_id) : g_desktop_app_info_new (desktop_id);
  if (info == NULL)
    {
      g_warning ("Not reopening %s: no desktop file %s%s", app_id, desktop_id,
                 flatpak ? " exported by Flatpak" : "");
      return FALSE;
    }
  /* A Flatpak's desktop file with a host app's id runs the Flatpak, not
   * the app that registered. */
  if (!flatpak && g_desktop_app_info_has_key (info, "X-Flatpak"))
    {
      g_warning ("Not reopening %s: %s is a Flatpak app's, and %s did not register from a sandbox",
                 app_id, g_desktop_app_info_get_filename (info), app_id);
      return FALSE;
    }
  context = g_app_launch_context_new ();
  if (!g_desktop_app_info_launch_uris_as_manager (info, NULL, context, G_SPAWN_SEARCH_PATH,
                                                  NULL, NULL, put_in_scope, &launch, &error))
    {
      g_warning ("Could not reopen %s: %s", app_id, error->message);
      return FALSE;
    }
  return TRUE;
}

/* Without SrPortal.lock: spawning, or GIO's D-Bus activation of the app,
 * may wait for GDBus's worker thread, which may be waiting for the lock
 * (sr-portal.h). */
static gboolean
relaunch (SrPortal   *self,
          const char *app_id)
{
  SrApp *app = g_hash_table_lookup (self->apps, app_id);
  gboolean flatpak = app != NULL && app->origin == SR_APP_ORIGIN_FLATPAK;
  gboolean launched;

  sr_portal_unlocked_begin (self);
  launched = launch (self->bus, app_id, flatpak);
  sr_portal_unlocked_end (self);
  return launched;
}

static void
apply (SrPortal        *self,
       Login           *login,
       const char      *app_id,
       SrPortalVerdict  verdict)
{
  SrApp *app = g_hash_table_lookup (self->apps, app_id);

  if (app == NULL)
    return;   /* cleared meanwhile */
  for (guint i = 0; i < app->instances->len;)
    {
      SrInstance *instance = g_ptr_array_index (app->instances, i);

      if (!instance->at_session_end || instance->crashed || instance->live != NULL)
        {
          i++;
          continue;
        }
      instance->at_session_end = FALSE;
      if (verdict == SR_PORTAL_VERDICT_RESTORE)
        {
          g_autofree char *id = g_strdup (instance->id);
          gboolean launched;

          /* Marked first: the app may register before launch() returns. */
          instance->reopened = TRUE;
          launched = relaunch (self, app_id);
          login->launched += launched;
          /* Register may have taken it, or a clear removed it, meanwhile. */
          app = g_hash_table_lookup (self->apps, app_id);
          instance = app != NULL ? sr_portal_app_find_instance (app, id) : NULL;
          if (instance != NULL && !launched)
            instance->reopened = FALSE;
          if (app == NULL)
            return;
          i = 0;   /* the list may have changed: the done ones are skipped */
          continue;
        }
      else if (verdict == SR_PORTAL_VERDICT_DISCARD)
        {
          sr_portal_app_discard (app, instance->id);
          sr_portal_app_remove_instance (app, instance);
          continue;
        }
      i++;
    }
}

/* The login's marks that no app claimed are dropped. */
void
sr_portal_login_forget_marks (SrPortal *self)
{
  GHashTableIter iter;
  SrApp *app;
  guint dropped = 0;

  g_clear_handle_id (&self->reopened_timeout_id, g_source_remove);
  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    for (guint i = 0; i < app->instances->len; i++)
      {
        SrInstance *instance = g_ptr_array_index (app->instances, i);
        if (instance->reopened && instance->live == NULL)
          {
            instance->reopened = FALSE;
            dropped++;
          }
      }
  if (dropped > 0)
    g_message ("%u apps reopened at login never registered: their next launch is a launch",
               dropped);
}

static gboolean
claims_due (gpointer user_data)
{
  SrPortal *self = user_data;

  self->reopened_timeout_id = 0;
  sr_portal_login_forget_marks (self);
  return G_SOURCE_REMOVE;
}

static guint
reopen_claim_ms (void)
{
#if SR_TEST_BUILD
  const char *test_ms = g_getenv ("SR_PORTAL_REOPEN_CLAIM_MS");

  if (test_ms != NULL)
    return (guint) g_ascii_strtoull (test_ms, NULL, 10);
#endif
  return REOPEN_CLAIM_S * 1000;
}

static void
login_done (SrPortal *self,
            GTask    *task)
{
  Login *login = g_task_get_task_data (task);

  self->ending = FALSE;
  if (login->launched > 0)
    {
      g_clear_handle_id (&self->reopened_timeout_id, g_source_remove);
      self->reopened_timeout_id = g_timeout_add (reopen_claim_ms (), claims_due, self);
    }
  sr_portal_record_save (self);
  g_task_return_boolean (task, TRUE);
}

static void
checked (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  AppCheck *check = user_data;
  Login *login = g_task_get_task_data (check->task);
  g_autofree char *why = NULL;
  SrPortalVerdict verdict = sr_portal_policy_check_finish (login->self->policy, result, &why);

  g_message ("Login: %s %s (%s)", verdict == SR_PORTAL_VERDICT_RESTORE ? "reopening" : "not reopening",
             check->app_id, why);
  apply (login->self, login, check->app_id, verdict);
  if (--login->pending == 0)
    login_done (login->self, check->task);
  g_object_unref (check->task);
  g_free (check->app_id);
  g_free (check);
}

void
sr_portal_login_async (SrPortal            *self,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, callback, user_data);
  Login *login = g_new0 (Login, 1);
  GHashTableIter iter;
  SrApp *app;

  login->self = self;
  g_task_set_task_data (task, login, g_free);
  g_task_set_source_tag (task, sr_portal_login_async);
  /* A new desktop session has begun, whatever the last one left. */
  self->ending = FALSE;
  g_clear_handle_id (&self->ending_timeout_id, g_source_remove);

  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    {
      gint64 saved_at = 0;
      gboolean reopen = FALSE;
      AppCheck *check;

      for (guint i = 0; i < app->instances->len; i++)
        {
          SrInstance *instance = g_ptr_array_index (app->instances, i);
          if (instance->at_session_end && !instance->crashed && instance->live == NULL)
            {
              reopen = TRUE;
              saved_at = MAX (saved_at, instance->saved_at);
            }
        }
      if (!reopen)
        continue;
      check = g_new0 (AppCheck, 1);
      check->task = g_object_ref (task);
      check->app_id = g_strdup (app->app_id);
      login->pending++;
      sr_portal_policy_check_async (self->policy, app->app_id, SR_RESTORE_REASON_RESTORE, saved_at,
                                    TRUE, checked, check);
    }
  if (login->pending == 0)
    login_done (self, task);
}

gboolean
sr_portal_login_finish (SrPortal      *self,
                        GAsyncResult  *result,
                        GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
