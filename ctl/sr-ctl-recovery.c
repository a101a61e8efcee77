/* sr-ctl-recovery.c: reset-crash-guard (or allow-recovery), what the
 * panel's Allow Recovery button does
 *
 * The crash-loop guard holds an app's saved sessions back after it
 * crashed crash-loop-threshold times within crash-loop-window seconds;
 * ResetCrashGuard (polkit "configure"), the window passing, or a clean
 * exit after a start without them (as the consumer that started it
 * reports, never the app itself) releases it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include "sr-ctl.h"

int
sr_ctl_cmd_reset_crash_guard (SrCtl  *ctl,
                              int     argc,
                              char  **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("APP…");
  g_autoptr(GError) error = NULL;
  int status;

  g_option_context_set_summary (context,
    "Forget the crashes counted for apps, so that their saved sessions are\n"
    "restored after their next crash again: what the app's Allow Recovery\n"
    "button does for an app held back after repeated crashes.");
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc < 2)
    return sr_ctl_usage_error (argv[0], "“%s” takes one or more app ids", argv[0]);
  if (!sr_ctl_validate_app_ids (argv + 1, &error))
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);
  for (int i = 1; i < argc; i++)
    {
      if (!sr_policy_client_reset_crash_guard_sync (ctl->client, argv[i], sr_ctl_call_flags (ctl),
                                                    NULL, &error))
        return sr_ctl_fail (error);
      g_print ("%s: its crashes are no longer counted; its saved sessions may be restored after a crash again\n",
               argv[i]);
    }
  return SR_CTL_EXIT_OK;
}
