/* sr-ctl-session.c: "session end", for desktops that tell nobody, and
 * "session prepare", for GNOME before login
 *
 * "session prepare" has policyd apply the settings to gnome-session's
 * record and the compositor's window positions, which gnome-session and
 * mutter read at login and write back from memory while they run
 * (PrepareSession, policyd/sr-session-prepare.c): from
 * session-restore-prepare.service, between logout and the next login.
 *
 * "session end" is the one command that talks to session-restore-portal
 * instead of policyd. A desktop that neither stops the backend's systemd unit with
 * graphical-session.target nor has logind announce a shutdown runs it from
 * its logout hook: the backend then asks every registered app to save (up
 * to 3 s) and records which are open, to reopen them at the next login
 * (EndSession, data/org.gnome.SessionRestore.Portal.xml). The backend is
 * not started for it: one not running has no app to save.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include "sr-ctl.h"
#include "sr-ctl-output.h"

#define PORTAL_BUS_NAME "org.freedesktop.impl.portal.SessionRestore"
#define PORTAL_CONTROL_PATH "/org/gnome/SessionRestore/Portal"
#define PORTAL_CONTROL_IFACE "org.gnome.SessionRestore.Portal"
/* The backend waits up to 3 s for the apps, then writes its record. */
#define END_SESSION_TIMEOUT_MS 30000

/* The report's why, for people. */
static const char *
describe_why (const char *why)
{
  static const struct { const char *why; const char *text; } whys[] = {
    { "disabled", "saving is off" },
    { "excluded", "excluded" },
    { "crash-loop", "crashed; held back by the crash-loop guard" },
    { "cleared", "cleared" },
    { "expired", "older than max-age-days" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (whys); i++)
    if (g_str_equal (whys[i].why, why))
      return whys[i].text;
  return why;
}

static void
print_prepared (SrCtl    *ctl,
                GVariant *report,
                gboolean  failed)
{
  const char *headers[] = { "APP", "INSTANCE", "WHY", NULL };
  g_autoptr(SrCtlTable) table = sr_ctl_table_new (3, headers);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GVariant) instances = g_variant_lookup_value (report, "instances",
                                                          G_VARIANT_TYPE ("a(sss)"));
  g_autofree const char **records = NULL;
  guint32 files = 0;
  guint64 bytes = 0;
  gsize n_instances = instances != NULL ? g_variant_n_children (instances) : 0;
  GVariantIter iter;
  const char *app_id, *instance_id, *why;

  g_variant_lookup (report, "records", "^a&s", &records);
  g_variant_lookup (report, "files", "u", &files);
  g_variant_lookup (report, "bytes", "t", &bytes);
  if (n_instances == 0 && files == 0)
    {
      /* What could not be read may not agree: only the errors say. */
      g_string_append (out, failed ? "Nothing was changed.\n"
                                   : "Nothing to change: what the next login reopens already "
                                     "agrees with the settings.\n");
      sr_ctl_print (out);
      return;
    }
  if (instances != NULL)
    {
      g_variant_iter_init (&iter, instances);
      while (g_variant_iter_next (&iter, "(&s&s&s)", &app_id, &instance_id, &why))
        {
          char **cells = g_new0 (char *, 4);

          cells[0] = sr_ctl_escape (app_id);
          cells[1] = sr_ctl_escape (instance_id);
          cells[2] = sr_ctl_escape (describe_why (why));
          sr_ctl_table_add (table, cells);
        }
    }
  if (n_instances > 0)
    {
      sr_ctl_table_print (table, ctl->color, out);
      g_string_append_printf (out, "%" G_GSIZE_FORMAT " app %s will not come back at the next "
                              "login", n_instances, n_instances == 1 ? "instance" : "instances");
      if (records != NULL && records[0] != NULL)
        g_string_append_printf (out, " (%u %s rewritten)", g_strv_length ((char **) records),
                                g_strv_length ((char **) records) == 1 ? "record" : "records");
      g_string_append (out, ".\n");
    }
  if (files > 0)
    {
      g_autofree char *size = g_format_size (bytes);
      g_string_append_printf (out, "Removed %u saved session %s (%s).\n", files,
                              files == 1 ? "file" : "files", size);
    }
  sr_ctl_print (out);
}

static int
session_prepare (SrCtl *ctl)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) report = NULL;
  g_autofree const char **errors = NULL;

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);
  report = sr_policy_client_prepare_session_sync (ctl->client, NULL, &error);
  if (report == NULL)
    return sr_ctl_fail (error);
  g_variant_lookup (report, "errors", "^a&s", &errors);
  print_prepared (ctl, report, errors != NULL && errors[0] != NULL);

  /* What could not be read or changed is left as it was: a script (and
   * the unit) should hear of it. */
  if (errors != NULL && errors[0] != NULL)
    {
      for (guint i = 0; errors[i] != NULL; i++)
        {
          g_autofree char *shown = sr_ctl_escape (errors[i]);
          g_printerr ("session-restore-ctl: left as it was: %s\n", shown);
        }
      return SR_CTL_EXIT_FAILED;
    }
  return SR_CTL_EXIT_OK;
}

static int
session_end (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (bus != NULL)
    reply = g_dbus_connection_call_sync (bus, PORTAL_BUS_NAME, PORTAL_CONTROL_PATH,
                                         PORTAL_CONTROL_IFACE, "EndSession", NULL,
                                         G_VARIANT_TYPE_UNIT, G_DBUS_CALL_FLAGS_NO_AUTO_START,
                                         END_SESSION_TIMEOUT_MS, NULL, &error);
  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN))
    {
      g_print ("session-restore-portal is not running: no app to save.\n");
      return SR_CTL_EXIT_OK;
    }
  if (reply == NULL)
    return sr_ctl_fail (error);
  g_print ("Ended: the open apps are recorded for the next login.\n");
  return SR_CTL_EXIT_OK;
}

int
sr_ctl_cmd_session (SrCtl  *ctl,
                    int     argc,
                    char  **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("end|prepare");
  int status;

  g_option_context_set_summary (context,
    "end: end the desktop session for session-restore-portal: every app registered\n"
    "with it is asked to save, and the open ones are recorded, to be reopened\n"
    "at the next login where the settings allow. For the logout hook of a\n"
    "desktop whose session manager does not stop graphical-session.target.\n"
    "\n"
    "prepare: apply the settings to what GNOME reopens at the next login:\n"
    "gnome-session's record loses the apps excluded (all of them when saving\n"
    "is off), the crashed instances of apps the crash-loop guard holds back,\n"
    "and what was cleared or is older than max-age-days, with their saved\n"
    "sessions; the compositor's window positions go when saving is off. For\n"
    "the time between logout and the next login (session-restore-prepare.service\n"
    "runs it): it fails, changing nothing, while gnome-session runs.");
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc < 2)
    return sr_ctl_usage_error ("session", "Say what the session does: “session end” or "
                               "“session prepare”");
  if (argc > 2 || !(g_str_equal (argv[1], "end") || g_str_equal (argv[1], "prepare")))
    return sr_ctl_usage_error ("session", "“session” takes one argument: “end” or “prepare”");
  if (g_str_equal (argv[1], "prepare"))
    return session_prepare (ctl);
  return session_end ();
}
