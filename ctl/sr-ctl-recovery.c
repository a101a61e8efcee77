/* sr-ctl-recovery.c: allow-recovery (once reset-crash-guard), what the
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

#include "sr-bus.h"
#include "sr-ctl.h"
#include "sr-ctl-output.h"
#include "sr-ctl-stored.h"

/* The service says which apps ResetCrashGuard released (CrashGuardChanged,
 * since version 4), after its reply. */
static void
on_crash_guard_changed_cb (SrPolicyClient  *client,
                           char           **app_ids,
                           gpointer         user_data)
{
  GHashTable *released = user_data;

  for (guint i = 0; app_ids != NULL && app_ids[i] != NULL; i++)
    g_hash_table_add (released, g_strdup (app_ids[i]));
}

/* Waits for what the service sent before it answers a call made now: a
 * signal it emitted after a reply comes before its next reply from the
 * same loop (its properties are; the bus library answers Peer.Ping
 * itself, maybe sooner). */
static void
round_trip (SrCtl *ctl)
{
  g_autoptr(GVariant) reply = NULL;

  reply = g_dbus_connection_call_sync (sr_policy_client_get_connection (ctl->client),
                                       sr_policy_client_get_service_owner (ctl->client),
                                       SR_OBJECT_PATH, "org.freedesktop.DBus.Properties", "Get",
                                       g_variant_new ("(ss)", SR_INTERFACE_NAME, "Version"), NULL,
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

int
sr_ctl_cmd_allow_recovery (SrCtl  *ctl,
                           int     argc,
                           char  **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Say what was done in JSON (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("APP…");
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  SrJson writer;
  g_autoptr(GHashTable) released = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) unknown = NULL;
  gboolean tells;
  gulong handler;
  int status;

  g_option_context_set_summary (context,
    "Forget the crashes counted for apps, so that their saved sessions are\n"
    "restored after their next crash again: what the app's Allow Recovery\n"
    "button does for an app held back after repeated crashes.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc < 2)
    return sr_ctl_usage_error (argv[0], "“%s” takes one or more app ids", argv[0]);
  if (!sr_ctl_validate_app_ids (argv + 1, &error))
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);
  unknown = sr_ctl_unknown_apps (ctl, argv + 1);
  tells = sr_policy_client_get_version (ctl->client) >= 4;
  sr_json_init (&writer, out);
  sr_json_begin_object (&writer);
  sr_json_key (&writer, "command");
  sr_json_string (&writer, "allow-recovery");
  sr_json_key (&writer, "apps");
  sr_json_begin_array (&writer);
  handler = g_signal_connect (ctl->client, "crash-guard-changed",
                              G_CALLBACK (on_crash_guard_changed_cb), released);
  for (int i = 1; i < argc; i++)
    {
      if (!sr_policy_client_reset_crash_guard_sync (ctl->client, argv[i], sr_ctl_call_flags (ctl),
                                                    NULL, &error))
        {
          g_signal_handler_disconnect (ctl->client, handler);
          return sr_ctl_fail (error);
        }
      if (tells)
        round_trip (ctl);
      if (json)
        sr_ctl_json_app_result (&writer, argv[i],
                                !tells ? "reset" : g_hash_table_contains (released, argv[i])
                                  ? "released" : "not-held", unknown);
      else if (tells && !g_hash_table_contains (released, argv[i]))
        g_print ("%s was not held back; its crashes are no longer counted\n", argv[i]);
      else
        g_print ("%s: its crashes are no longer counted; its saved sessions may be restored "
                 "after a crash again\n", argv[i]);
      sr_ctl_warn_unknown_app (unknown, argv[i]);
    }
  g_signal_handler_disconnect (ctl->client, handler);
  sr_json_end_array (&writer);
  sr_json_end_object (&writer);
  if (json)
    sr_ctl_print (out);
  return SR_CTL_EXIT_OK;
}
