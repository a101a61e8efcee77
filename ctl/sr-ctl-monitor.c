/* sr-ctl-monitor.c: print changes to settings, locks and stored state as
 * policyd announces them, until interrupted
 *
 * One line per change, flushed at once, so that a script reading a pipe
 * sees each as it happens:
 *   KEY: VALUE          a setting changed (value as "get" prints it, a
 *                       list as "a, b"; "KEY:" for an empty one)
 *   locked: KEY         the administrator locked a setting
 *   unlocked: KEY       and unlocked it
 *   cleared: APP…       stored state was cleared ("cleared: all" for all)
 *   service: stopped    the service left the bus
 *   service: running    it is back
 *
 * With --json, one JSON object a line instead (session-restore-ctl(1)):
 *   {"event": "setting", "key": KEY, "value": VALUE}
 *   {"event": "locked", "key": KEY}, {"event": "unlocked", "key": KEY}
 *   {"event": "cleared", "apps": [APP…]}   ("apps": null for all)
 *   {"event": "service", "state": "stopped" | "running"}
 *
 * A new owner of the name is verified (by libsessionrestore) as the first
 * was: if it is not to be trusted, nothing it says is printed, and the
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
#include "sr-ctl-json.h"
#include "sr-ctl-keys.h"
#include "sr-ctl-output.h"
#include "sr-error.h"

typedef struct {
  SrCtl *ctl;          /* (unowned) */
  GMainLoop *loop;     /* (owned) */
  GStrv locked;        /* (owned): the locks last seen, to print what changed */
  GHashTable *values;  /* (owned) key → GVariant: the values last seen */
  int status;          /* the exit status, once the loop ends */
  gboolean json;       /* one JSON object a line */
} Monitor;

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

/* One event as a line of JSON: "event", and @key with the string @text. */
static void
emit_json (const char *event,
           const char *key,
           const char *text)
{
  g_autoptr(GString) out = g_string_new (NULL);
  SrJson json;

  sr_json_init_compact (&json, out);
  sr_json_begin_object (&json);
  sr_json_key (&json, "event");
  sr_json_string (&json, event);
  sr_json_key (&json, key);
  sr_json_string (&json, text);
  sr_json_end_object (&json);
  sr_ctl_print (out);
}

static void
emit_lock (Monitor    *monitor,
           gboolean    locked,
           const char *key)
{
  g_autofree char *shown = NULL;

  if (monitor->json)
    {
      emit_json (locked ? "locked" : "unlocked", "key", key);
      return;
    }
  shown = sr_ctl_escape (key);
  emit ("%s: %s", locked ? "locked" : "unlocked", shown);
}

static void
emit_service (Monitor    *monitor,
              const char *state)
{
  if (monitor->json)
    emit_json ("service", "state", state);
  else
    emit ("service: %s", state);
}

static void
update_locks (Monitor  *monitor,
              GVariant *value)
{
  g_autofree const char **now = g_variant_get_strv (value, NULL);

  for (guint i = 0; now[i] != NULL; i++)
    if (monitor->locked == NULL || !g_strv_contains ((const char *const *) monitor->locked, now[i]))
      emit_lock (monitor, TRUE, now[i]);
  for (guint i = 0; monitor->locked != NULL && monitor->locked[i] != NULL; i++)
    if (!g_strv_contains (now, monitor->locked[i]))
      emit_lock (monitor, FALSE, monitor->locked[i]);
  g_strfreev (monitor->locked);
  monitor->locked = g_variant_dup_strv (value, NULL);
}

/* Whether @value is what @key was last seen as; remembers it. */
static gboolean
is_known (Monitor    *monitor,
          const char *key,
          GVariant   *value)
{
  GVariant *last = g_hash_table_lookup (monitor->values, key);

  if (last != NULL && g_variant_equal (last, value))
    return TRUE;
  g_hash_table_replace (monitor->values, g_strdup (key), g_variant_ref (value));
  return FALSE;
}

static void
remember_values (Monitor *monitor)
{
  guint n_keys;
  const SrCtlKey *keys = sr_ctl_keys (&n_keys);

  for (guint i = 0; i < n_keys; i++)
    {
      g_autoptr(GVariant) value = sr_policy_client_dup_value (monitor->ctl->client, keys[i].key);

      if (value != NULL)
        is_known (monitor, keys[i].key, value);
    }
}

static void
update_locks_from_client (Monitor *monitor)
{
  g_autoptr(GVariant) value = sr_policy_client_dup_value (monitor->ctl->client,
                                                          "locked-settings");

  if (value != NULL)
    update_locks (monitor, value);
}

/* The service changed hands: the library verified the new owner. One
 * that is not to be trusted ends monitoring (exit 6), and nothing it said
 * was taken. */
static void
on_service_state_changed (Monitor *monitor)
{
  g_autoptr(GError) error = NULL;

  switch (sr_policy_client_get_service_state (monitor->ctl->client))
    {
    case SR_SERVICE_STATE_RUNNING:
      emit_service (monitor, "running");
      update_locks_from_client (monitor);
      break;
    case SR_SERVICE_STATE_MISSING:
      emit_service (monitor, "stopped");
      break;
    case SR_SERVICE_STATE_UNTRUSTED:
      sr_ctl_trust_owner (monitor->ctl, &error);
      if (monitor->status == SR_CTL_EXIT_OK)
        monitor->status = sr_ctl_fail (error);
      g_main_loop_quit (monitor->loop);
      break;
    case SR_SERVICE_STATE_UNKNOWN:
    default:
      break;   /* being verified */
    }
}

/* Only what the trusted service announced reaches here: a setting is
 * printed when it differs from what was last printed. */
static void
on_client_notify_cb (SrPolicyClient *client,
                     GParamSpec     *pspec,
                     gpointer        user_data)
{
  Monitor *monitor = user_data;
  const char *name = g_param_spec_get_name (pspec);
  const SrCtlKey *key;
  g_autoptr(GVariant) value = NULL;

  if (g_str_equal (name, "service-state"))
    {
      on_service_state_changed (monitor);
      return;
    }
  if (sr_policy_client_get_service_state (client) != SR_SERVICE_STATE_RUNNING)
    return;
  if (g_str_equal (name, "locked-settings"))
    {
      update_locks_from_client (monitor);
      return;
    }
  key = sr_ctl_key_lookup (name, NULL);
  value = key != NULL ? sr_policy_client_dup_value (client, key->key) : NULL;
  if (value == NULL || is_known (monitor, key->key, value))
    return;
  if (monitor->json)
    {
      g_autoptr(GString) out = g_string_new (NULL);
      SrJson json;

      sr_json_init_compact (&json, out);
      sr_json_begin_object (&json);
      sr_json_key (&json, "event");
      sr_json_string (&json, "setting");
      sr_json_key (&json, "key");
      sr_json_string (&json, key->key);
      sr_json_key (&json, "value");
      sr_json_variant (&json, value);
      sr_json_end_object (&json);
      sr_ctl_print (out);
    }
  else
    {
      g_autofree char *text = sr_ctl_value_inline (value, "");
      emit ("%s:%s%s", key->key, *text != '\0' ? " " : "", text);
    }
}

static void
on_stored_state_cleared_cb (SrPolicyClient *client,
                            char          **app_ids,
                            gpointer        user_data)
{
  Monitor *monitor = user_data;
  g_autofree char *joined = NULL;
  g_autofree char *shown = NULL;

  if (monitor->json)
    {
      g_autoptr(GString) out = g_string_new (NULL);
      SrJson json;

      sr_json_init_compact (&json, out);
      sr_json_begin_object (&json);
      sr_json_key (&json, "event");
      sr_json_string (&json, "cleared");
      sr_json_key (&json, "apps");
      if (app_ids == NULL || app_ids[0] == NULL)
        sr_json_null (&json);
      else
        {
          sr_json_begin_array (&json);
          for (guint i = 0; app_ids[i] != NULL; i++)
            sr_json_string (&json, app_ids[i]);
          sr_json_end_array (&json);
        }
      sr_json_end_object (&json);
      sr_ctl_print (out);
      return;
    }
  if (app_ids == NULL || app_ids[0] == NULL)
    {
      emit ("cleared: all");
      return;
    }
  joined = g_strjoinv (" ", app_ids);
  shown = sr_ctl_escape (joined);
  emit ("cleared: %s", shown);
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
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json,
      "One JSON object a line (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  Monitor monitor = { ctl, NULL, NULL, NULL, SR_CTL_EXIT_OK, FALSE };
  guint sigint, sigterm;
  int status;

  g_option_context_set_summary (context,
    "Print each change of a setting, a lock or saved sessions as it happens,\n"
    "until interrupted (Ctrl+C).");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc > 1)
    return sr_ctl_usage_error ("monitor", "“monitor” takes no arguments");

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);

  monitor.json = json;
  monitor.loop = g_main_loop_new (NULL, FALSE);
  monitor.locked = g_strdupv ((char **) sr_policy_client_get_locked_settings (ctl->client));
  monitor.values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_variant_unref);
  remember_values (&monitor);
  g_signal_connect (ctl->client, "notify", G_CALLBACK (on_client_notify_cb), &monitor);
  g_signal_connect (ctl->client, "stored-state-cleared",
                    G_CALLBACK (on_stored_state_cleared_cb), &monitor);
  sigint = g_unix_signal_add (SIGINT, on_signal_cb, &monitor);
  sigterm = g_unix_signal_add (SIGTERM, on_signal_cb, &monitor);

  /* The match rules were added before the client read the properties, so
   * from here on nothing is missed; scripts and tests may wait for this. */
  g_printerr ("Watching %s; press Ctrl+C to stop.\n", SR_BUS_NAME);

  g_main_loop_run (monitor.loop);

  g_source_remove (sigint);
  g_source_remove (sigterm);
  g_signal_handlers_disconnect_by_data (ctl->client, &monitor);
  g_main_loop_unref (monitor.loop);
  g_strfreev (monitor.locked);
  g_hash_table_unref (monitor.values);
  return monitor.status;
}
