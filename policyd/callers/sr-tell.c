/* sr-tell.c: signals about apps, sent to each caller, never broadcast
 *
 * Every connection on the bus could read a broadcast, and a signal about
 * apps names them, which a sandboxed app may not learn. So such a signal
 * (StoredStateCleared, CrashGuardChanged) goes to each connection that
 * has called policyd: a host caller gets the list, a sandboxed one only
 * its own app, and only when its app is among them (or the empty list,
 * "every app", when it is about every app). Consumers call policyd anyway
 * (CheckSave, CheckRestore, NoteExit), and the panel reads the
 * properties, which is what makes them known.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-caller"

#include "config.h"

#include "sr-bus.h"
#include "sr-tell.h"

static void
send_apps (GDBusConnection    *bus,
           const char         *destination,
           const char         *signal_name,
           const char * const *apps,
           gssize              n_apps)
{
  g_autoptr(GError) error = NULL;

  if (!g_dbus_connection_emit_signal (bus, destination, SR_OBJECT_PATH, SR_INTERFACE_NAME,
                                      signal_name,
                                      g_variant_new ("(@as)", g_variant_new_strv (apps, n_apps)),
                                      &error))
    g_debug ("Could not send %s to %s: %s", signal_name, destination, error->message);
}

/* @apps: NULL or empty for every app. */
void
sr_tell_callers (SrCallerCache      *callers,
                 GDBusConnection    *bus,
                 const char         *signal_name,
                 const char * const *apps)
{
  g_autoptr(GPtrArray) all_callers = sr_caller_cache_dup_all (callers);
  gboolean all = apps == NULL || apps[0] == NULL;

  for (guint i = 0; i < all_callers->len; i++)
    {
      const SrCaller *caller = all_callers->pdata[i];

      if (caller->kind == SR_CALLER_HOST)
        send_apps (bus, caller->sender, signal_name, all ? NULL : apps, all ? 0 : -1);
      else if (all)
        send_apps (bus, caller->sender, signal_name, NULL, 0);
      else if (g_strv_contains (apps, caller->app_id))
        {
          const char *own[] = { caller->app_id, NULL };
          send_apps (bus, caller->sender, signal_name, own, -1);
        }
    }
}
