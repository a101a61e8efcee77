/* sr-ctl-session.c: "session end", for desktops that tell nobody
 *
 * The one command that talks to session-restore-portal instead of policyd.
 * A desktop that neither stops the backend's systemd unit with
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

#define PORTAL_BUS_NAME "org.freedesktop.impl.portal.SessionRestore"
#define PORTAL_CONTROL_PATH "/org/gnome/SessionRestore/Portal"
#define PORTAL_CONTROL_IFACE "org.gnome.SessionRestore.Portal"
/* The backend waits up to 3 s for the apps, then writes its record. */
#define END_SESSION_TIMEOUT_MS 30000

int
sr_ctl_cmd_session (SrCtl  *ctl,
                    int     argc,
                    char  **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("end");
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariant) reply = NULL;
  int status;

  g_option_context_set_summary (context,
    "End the desktop session for session-restore-portal: every app registered\n"
    "with it is asked to save, and the open ones are recorded, to be reopened\n"
    "at the next login where the settings allow. For the logout hook of a\n"
    "desktop whose session manager does not stop graphical-session.target.");
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc < 2)
    return sr_ctl_usage_error ("session", "Say what the session does: “session end”");
  if (argc > 2 || !g_str_equal (argv[1], "end"))
    return sr_ctl_usage_error ("session", "“session” takes one argument: “end”");

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
