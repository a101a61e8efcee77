/* sr-ctl-monitor.c: print changes to settings, locks and stored state as
 * policyd announces them, until interrupted
 *
 * One line per change, flushed at once, so that a script reading a pipe
 * sees each as it happens:
 *   KEY: VALUE          a setting changed (value as gsettings prints it)
 *   locked: KEY         the administrator locked a setting
 *   unlocked: KEY       and unlocked it
 *   cleared: APP…       stored state was cleared ("cleared: all" for all)
 *   service: stopped    the service left the bus
 *   service: running    it is back
 *
 * A new owner of the name is verified as sr_ctl_connect() verifies the
 * first: if it is not to be trusted, nothing it says is printed, and the
 * monitor ends with exit status 6.
 *
 * A setting is printed when its value differs from the last one printed
 * (or read at the start): a service that comes back announces all its
 * properties, and only those that changed meanwhile are news.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <glib-unix.h>
#include <stdio.h>

#include "sr-bus.h"
#include "sr-ctl.h"
#include "sr-ctl-keys.h"
#include "sr-ctl-output.h"
#include "sr-error.h"

typedef struct {
  SrCtl *ctl;          /* (unowned) */
  GMainLoop *loop;     /* (owned) */
  GStrv locked;        /* (owned): the locks last seen, to print what changed */
  GHashTable *values;  /* (owned) property name → GVariant: the values last seen */
  int status;          /* the exit status, once the loop ends */
} Monitor;

/* The service changed hands: nothing is printed from a new owner that is
 * not to be trusted, and monitoring ends (exit 6). */
static gboolean
owner_trusted (Monitor *monitor)
{
  g_autoptr(GError) error = NULL;

  if (sr_ctl_trust_owner (monitor->ctl, &error))
    return TRUE;
  if (monitor->status == SR_CTL_EXIT_OK)
    monitor->status = sr_ctl_fail (error);
  g_main_loop_quit (monitor->loop);
  return FALSE;
}

static void
emit (const char *format,
      ...) G_GNUC_PRINTF (1, 2);

static void
emit (const char *format,
      ...)
{
  va_list args;

  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  putchar ('\n');
  fflush (stdout);
}

static void
update_locks (Monitor  *monitor,
              GVariant *value)
{
  g_autofree const char **now = g_variant_get_strv (value, NULL);

  for (guint i = 0; now[i] != NULL; i++)
    if (monitor->locked == NULL || !g_strv_contains ((const char *const *) monitor->locked, now[i]))
      {
        g_autofree char *shown = sr_ctl_escape (now[i]);
        emit ("locked: %s", shown);
      }
  for (guint i = 0; monitor->locked != NULL && monitor->locked[i] != NULL; i++)
    if (!g_strv_contains (now, monitor->locked[i]))
      {
        g_autofree char *shown = sr_ctl_escape (monitor->locked[i]);
        emit ("unlocked: %s", shown);
      }
  g_strfreev (monitor->locked);
  monitor->locked = g_variant_dup_strv (value, NULL);
}

/* Whether @value is what @property was last seen as; remembers it. */
static gboolean
is_known (Monitor    *monitor,
          const char *property,
          GVariant   *value)
{
  GVariant *last = g_hash_table_lookup (monitor->values, property);

  if (last != NULL && g_variant_equal (last, value))
    return TRUE;
  g_hash_table_replace (monitor->values, g_strdup (property), g_variant_ref (value));
  return FALSE;
}

static void
remember_values (Monitor    *monitor,
                 GDBusProxy *proxy)
{
  g_auto(GStrv) names = g_dbus_proxy_get_cached_property_names (proxy);

  for (guint i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autoptr(GVariant) value = g_dbus_proxy_get_cached_property (proxy, names[i]);

      if (value != NULL)
        is_known (monitor, names[i], value);
    }
}

static void
on_proxy_properties_changed_cb (GDBusProxy         *proxy,
                                GVariant           *changed,
                                const char *const  *invalidated,
                                gpointer            user_data)
{
  Monitor *monitor = user_data;
  GVariantIter iter;
  const char *property;
  GVariant *value;

  if (!owner_trusted (monitor))
    return;
  /* Invalidated properties come back with their values in a later
   * emission (G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES). */
  g_variant_iter_init (&iter, changed);
  while (g_variant_iter_next (&iter, "{&sv}", &property, &value))
    {
      const SrCtlKey *key = sr_ctl_key_for_property (property);

      if (g_str_equal (property, "LockedSettings") &&
          g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
        update_locks (monitor, value);
      else if (key != NULL && !is_known (monitor, property, value))
        {
          g_autofree char *text = g_variant_print (value, FALSE);
          emit ("%s: %s", key->key, text);
        }
      g_variant_unref (value);
    }
}

static void
on_proxy_stored_state_cleared_cb (SrDBusPolicy      *proxy,
                                  const char *const *app_ids,
                                  gpointer           user_data)
{
  g_autofree char *joined = NULL;
  g_autofree char *shown = NULL;

  if (!owner_trusted (user_data))
    return;
  if (app_ids == NULL || app_ids[0] == NULL)
    {
      emit ("cleared: all");
      return;
    }
  joined = g_strjoinv (" ", (char **) app_ids);
  shown = sr_ctl_escape (joined);
  emit ("cleared: %s", shown);
}

static void
on_proxy_name_owner_notify_cb (GObject    *proxy,
                               GParamSpec *pspec,
                               gpointer    user_data)
{
  Monitor *monitor = user_data;
  g_autofree char *owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (proxy));

  if (!owner_trusted (monitor))
    return;
  emit ("service: %s", owner != NULL ? "running" : "stopped");
  if (owner != NULL)
    {
      const char *const *locked = sr_dbus_policy_get_locked_settings (SR_DBUS_POLICY (proxy));
      const char *const none[] = { NULL };
      g_autoptr(GVariant) value = g_variant_ref_sink (g_variant_new_strv (locked != NULL ? locked : none, -1));
      update_locks (monitor, value);
    }
}

static gboolean
on_signal_cb (gpointer user_data)
{
  Monitor *monitor = user_data;

  g_main_loop_quit (monitor->loop);
  return G_SOURCE_CONTINUE;
}

int
sr_ctl_cmd_monitor (SrCtl  *ctl,
                    int     argc,
                    char  **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  Monitor monitor = { ctl, NULL, NULL, NULL, SR_CTL_EXIT_OK };
  guint sigint, sigterm;
  int status;

  g_option_context_set_summary (context,
    "Print each change of a setting, a lock or stored state as it happens,\n"
    "until interrupted (Ctrl+C).");
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc > 1)
    return sr_ctl_usage_error ("monitor", "“monitor” takes no arguments");

  if (!sr_ctl_connect (ctl, G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES, &error))
    return sr_ctl_fail (error);

  monitor.loop = g_main_loop_new (NULL, FALSE);
  monitor.locked = g_strdupv ((char **) sr_dbus_policy_get_locked_settings (ctl->proxy));
  monitor.values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_variant_unref);
  remember_values (&monitor, G_DBUS_PROXY (ctl->proxy));
  g_signal_connect (ctl->proxy, "g-properties-changed",
                    G_CALLBACK (on_proxy_properties_changed_cb), &monitor);
  g_signal_connect (ctl->proxy, "stored-state-cleared",
                    G_CALLBACK (on_proxy_stored_state_cleared_cb), &monitor);
  g_signal_connect (ctl->proxy, "notify::g-name-owner",
                    G_CALLBACK (on_proxy_name_owner_notify_cb), &monitor);
  sigint = g_unix_signal_add (SIGINT, on_signal_cb, &monitor);
  sigterm = g_unix_signal_add (SIGTERM, on_signal_cb, &monitor);

  /* The match rules were added before the proxy loaded its properties, so
   * from here on nothing is missed; scripts and tests may wait for this. */
  g_printerr ("Watching %s; press Ctrl+C to stop.\n", SR_BUS_NAME);

  g_main_loop_run (monitor.loop);

  g_source_remove (sigint);
  g_source_remove (sigterm);
  g_signal_handlers_disconnect_by_data (ctl->proxy, &monitor);
  g_main_loop_unref (monitor.loop);
  g_strfreev (monitor.locked);
  g_hash_table_unref (monitor.values);
  return monitor.status;
}
