/* sr-ctl-status.c: status, the service, its consumers, the saved sessions
 * and every setting, as text or as JSON
 *
 * What each part says is gathered once (StatusFacts) and then written in
 * either form, so that the text and the JSON cannot tell different
 * stories.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <string.h>

#include "sr-ctl.h"
#include "sr-ctl-json.h"
#include "sr-ctl-keys.h"
#include "sr-ctl-output.h"
#include "sr-ctl-stored.h"

typedef struct {
  const char *owner;        /* (unowned): the client's */
  gboolean has_pid;
  guint32 pid;
  GVariant *consumers;      /* (unowned) (nullable): a(sx), when the service says */
  guint apps;               /* with saved sessions */
  guint expired;            /* of those, too old to be restored */
  guint cleared;            /* of those, saved before a clear point */
  guint64 bytes;
  gboolean complete;        /* the listing read every store */
  char *not_listed;         /* (owned) (nullable): why the listing was refused */
} StatusFacts;

static void
status_facts_clear (StatusFacts *facts)
{
  g_clear_pointer (&facts->not_listed, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (StatusFacts, status_facts_clear)

/* Not being allowed to list is no reason to fail "status": it says so. */
static void
gather (SrCtl       *ctl,
        StatusFacts *facts)
{
  g_autoptr(GVariant) pid = NULL;
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GVariant) unread = NULL;
  g_autoptr(GError) error = NULL;
  GVariant *consumers = sr_policy_client_get_consumers (ctl->client);
  GVariantIter iter;
  GVariant *info;
  const char *app_id;

  facts->owner = sr_policy_client_get_service_owner (ctl->client);
  pid = g_dbus_connection_call_sync (sr_policy_client_get_connection (ctl->client),
                                     "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                     g_variant_new ("(s)", facts->owner), G_VARIANT_TYPE ("(u)"),
                                     G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  if (pid != NULL)
    {
      facts->has_pid = TRUE;
      g_variant_get (pid, "(u)", &facts->pid);
    }
  /* "Consumers" is newer than this tool's interface description: read it
   * when the service has it, else say nothing rather than guess. */
  if (consumers != NULL && g_variant_is_of_type (consumers, G_VARIANT_TYPE ("a(sx)")))
    facts->consumers = consumers;

  apps = sr_policy_client_list_stored_state_sync (ctl->client, SR_CALL_FLAGS_NONE, NULL, &error);
  if (apps == NULL)
    {
      facts->not_listed = g_strdup (error->message);
      return;
    }
  g_variant_iter_init (&iter, apps);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &app_id, &info))
    {
      guint64 bytes = 0;
      const char *state = "";
      g_variant_lookup (info, "bytes", "t", &bytes);
      g_variant_lookup (info, "state", "&s", &state);
      facts->bytes += bytes;
      facts->expired += g_str_equal (state, "expired");
      facts->cleared += g_str_equal (state, "cleared");
      /* The row of the stores that could not be read is no app. */
      facts->apps += *app_id != '\0' ? 1 : 0;
      g_variant_unref (info);
    }
  unread = sr_ctl_stored_errors (apps);
  facts->complete = unread == NULL;
}

/* A consumer is named "flatpak/APP_ID" or "snap/APP_ID" when sandboxed
 * (no executable's name has a "/"): split into the program and the kind
 * of sandbox, NULL for a host program. */
static char *
consumer_sandbox (const char  *name,
                  const char **out_program)
{
  const char *slash = strchr (name, '/');

  *out_program = slash != NULL ? slash + 1 : name;
  return slash != NULL ? g_strndup (name, slash - name) : NULL;
}

static void
append_consumers_line (const StatusFacts *facts,
                       GString           *out)
{
  GVariantIter iter;
  const char *name;
  gint64 last;
  gboolean first = TRUE;

  if (facts->consumers == NULL)
    return;
  g_string_append (out, "Used by:          ");
  g_variant_iter_init (&iter, facts->consumers);
  while (g_variant_iter_next (&iter, "(&sx)", &name, &last))
    {
      const char *program;
      g_autofree char *sandbox = consumer_sandbox (name, &program);
      g_autofree char *ago = sr_ctl_format_ago (last);
      g_autofree char *shown = sr_ctl_escape (program);

      if (sandbox != NULL)
        {
          g_autofree char *sandbox_shown = sr_ctl_escape (sandbox);
          g_string_append_printf (out, "%s%s (%s app, %s)", first ? "" : ", ", shown,
                                  sandbox_shown, ago);
        }
      else
        g_string_append_printf (out, "%s%s (%s)", first ? "" : ", ", shown, ago);
      first = FALSE;
    }
  if (first)
    g_string_append (out, "nothing has asked it yet");
  g_string_append_c (out, '\n');
}

/* A setting's value in force, and its lock: the service's, or with @local
 * (the service is not there) GSettings'. NULL when neither tells. */
static GVariant *
setting_value (SrCtl              *ctl,
               SrCtlLocalSettings *local,
               const SrCtlKey     *key,
               gboolean           *out_locked)
{
  if (local != NULL)
    return sr_ctl_local_settings_get (local, key, out_locked);
  *out_locked = sr_policy_client_is_locked (ctl->client, key->key);
  return sr_policy_client_dup_value (ctl->client, key->key);
}

static void
append_settings_table (SrCtl              *ctl,
                       SrCtlLocalSettings *local,
                       GString            *out)
{
  const char *headers[] = { "SETTING", "VALUE", "", NULL };
  g_autoptr(SrCtlTable) table = sr_ctl_table_new (3, headers);
  const SrCtlKey *keys;
  guint n_keys;

  keys = sr_ctl_keys (&n_keys);
  for (guint i = 0; i < n_keys; i++)
    {
      gboolean locked = FALSE;
      g_autoptr(GVariant) value = setting_value (ctl, local, &keys[i], &locked);
      char **cells = g_new0 (char *, 4);

      cells[0] = g_strdup (keys[i].key);
      /* As "get" prints it, a list on one line. */
      cells[1] = value != NULL ? sr_ctl_value_inline (value, "(none)") : g_strdup ("?");
      cells[2] = locked
                   ? sr_ctl_styled (ctl->color, SR_CTL_STYLE_WARN, "locked by the administrator")
                   : g_strdup ("");
      sr_ctl_table_add (table, cells);
    }
  sr_ctl_table_print (table, ctl->color, out);
}

static void
write_text (SrCtl             *ctl,
            const StatusFacts *facts,
            GString           *out)
{
  g_autofree char *running = sr_ctl_styled (ctl->color, SR_CTL_STYLE_GOOD, "running");

  g_string_append_printf (out, "Service:          %s (%s", running, facts->owner);
  if (facts->has_pid)
    g_string_append_printf (out, ", pid %u", facts->pid);
  g_string_append_printf (out, ", interface version %u)\n",
                          sr_policy_client_get_version (ctl->client));
  append_consumers_line (facts, out);
  if (facts->not_listed != NULL)
    {
      g_autofree char *message = sr_ctl_escape (facts->not_listed);
      g_string_append_printf (out, "Saved sessions:   not shown (%s)\n", message);
    }
  else
    {
      g_autofree char *totals = sr_ctl_stored_totals (facts->apps, facts->expired, facts->cleared,
                                                      facts->bytes, FALSE);
      g_string_append_printf (out, "Saved sessions:   %s%s\n", totals,
                              facts->complete ? "" : " (some could not be read: see “list”)");
    }
  g_string_append_c (out, '\n');
  append_settings_table (ctl, NULL, out);
}

/* Without the service (or with one not to trust): what it will read. */
static void
write_text_without_service (SrCtl              *ctl,
                            SrCtlLocalSettings *local,
                            GString            *out)
{
  const char *state = ctl->untrusted ? "not trusted" : "not running";

  g_string_printf (out, "Service:          %s\n", state);
  if (local == NULL)
    return;
  g_string_append_printf (out, "Settings:         read from the settings; the service is %s\n\n",
                          state);
  append_settings_table (ctl, local, out);
}

static void
write_json_settings (SrCtl              *ctl,
                     SrCtlLocalSettings *local,
                     SrJson             *json)
{
  const SrCtlKey *keys;
  guint n_keys;

  sr_json_key (json, "settings");
  sr_json_begin_object (json);
  keys = sr_ctl_keys (&n_keys);
  for (guint i = 0; i < n_keys; i++)
    {
      gboolean locked = FALSE;
      g_autoptr(GVariant) value = setting_value (ctl, local, &keys[i], &locked);

      sr_json_key (json, keys[i].key);
      sr_json_begin_object (json);
      sr_ctl_key_json_fields (json, value, locked);
      sr_json_end_object (json);
    }
  sr_json_end_object (json);
}

static void
write_json_time (SrJson     *json,
                 const char *key,
                 gint64      usec)
{
  g_autoptr(GDateTime) when = g_date_time_new_from_unix_utc (usec / G_USEC_PER_SEC);
  g_autofree char *iso = when != NULL ? g_date_time_format (when, "%Y-%m-%dT%H:%M:%SZ") : NULL;
  g_autofree char *usec_key = g_strconcat (key, "_usec", NULL);

  sr_json_key (json, key);
  if (iso != NULL)
    sr_json_string (json, iso);
  else
    sr_json_null (json);
  sr_json_key (json, usec_key);
  sr_json_int (json, usec);
}

static void
write_json_consumers (const StatusFacts *facts,
                      SrJson            *json)
{
  GVariantIter iter;
  const char *name;
  gint64 last;

  sr_json_key (json, "consumers");
  if (facts->consumers == NULL)
    {
      sr_json_null (json);
      return;
    }
  sr_json_begin_array (json);
  g_variant_iter_init (&iter, facts->consumers);
  while (g_variant_iter_next (&iter, "(&sx)", &name, &last))
    {
      const char *program;
      g_autofree char *sandbox = consumer_sandbox (name, &program);

      sr_json_begin_object (json);
      sr_json_key (json, "program");
      sr_json_string (json, program);
      sr_json_key (json, "sandbox");
      if (sandbox != NULL)
        sr_json_string (json, sandbox);
      else
        sr_json_null (json);
      write_json_time (json, "last_asked", last);
      sr_json_end_object (json);
    }
  sr_json_end_array (json);
}

/* Counted, or null with why they could not be: never a guess. */
static void
write_json_saved_sessions (const StatusFacts *facts,
                           SrJson            *json)
{
  gboolean listed = facts->not_listed == NULL;

  sr_json_key (json, "saved_sessions");
  sr_json_begin_object (json);
  sr_json_key (json, "apps");
  listed ? sr_json_uint (json, facts->apps) : sr_json_null (json);
  sr_json_key (json, "bytes");
  listed ? sr_json_uint (json, facts->bytes) : sr_json_null (json);
  sr_json_key (json, "expired");
  listed ? sr_json_uint (json, facts->expired) : sr_json_null (json);
  sr_json_key (json, "cleared");
  listed ? sr_json_uint (json, facts->cleared) : sr_json_null (json);
  sr_json_key (json, "complete");
  listed ? sr_json_bool (json, facts->complete) : sr_json_null (json);
  sr_json_key (json, "not_shown");
  listed ? sr_json_null (json) : sr_json_string (json, facts->not_listed);
  sr_json_end_object (json);
}

/* @facts NULL: the service is not there (or not to be trusted); then the
 * settings are @local's, GSettings' (NULL: the schema is not installed). */
static void
write_json (SrCtl              *ctl,
            const StatusFacts  *facts,
            SrCtlLocalSettings *local,
            GString            *out)
{
  SrJson json;

  sr_json_init (&json, out);
  sr_json_begin_object (&json);
  sr_json_key (&json, "service");
  sr_json_begin_object (&json);
  sr_json_key (&json, "state");
  sr_json_string (&json, facts != NULL ? "running" : ctl->untrusted ? "untrusted" : "missing");
  sr_json_key (&json, "bus_name");
  if (facts != NULL)
    sr_json_string (&json, facts->owner);
  else
    sr_json_null (&json);
  sr_json_key (&json, "pid");
  if (facts != NULL && facts->has_pid)
    sr_json_uint (&json, facts->pid);
  else
    sr_json_null (&json);
  sr_json_key (&json, "version");
  if (facts != NULL)
    sr_json_uint (&json, sr_policy_client_get_version (ctl->client));
  else
    sr_json_null (&json);
  sr_json_end_object (&json);
  if (facts == NULL)
    {
      sr_json_key (&json, "settings_from");
      if (local != NULL)
        {
          sr_json_string (&json, "settings");
          write_json_settings (ctl, local, &json);
        }
      else
        sr_json_null (&json);
      sr_json_end_object (&json);
      return;
    }

  write_json_consumers (facts, &json);

  write_json_saved_sessions (facts, &json);

  sr_json_key (&json, "settings_from");
  sr_json_string (&json, "service");
  write_json_settings (ctl, NULL, &json);
  sr_json_end_object (&json);
}

int
sr_ctl_cmd_status (SrCtl  *ctl,
                   int     argc,
                   char  **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_auto(StatusFacts) facts = { 0 };
  int status;

  g_option_context_set_summary (context,
    "Show every setting and whether the administrator locked it, how many apps\n"
    "have saved sessions, whether the service runs and which programs consult\n"
    "it. This is what session-restore-ctl shows when given no command.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc > 1)
    return sr_ctl_usage_error ("status", "“status” takes no arguments");

  if (!sr_ctl_connect (ctl, &error))
    {
      g_autoptr(SrCtlLocalSettings) local = sr_ctl_local_settings_new ();

      if (json)
        write_json (ctl, NULL, local, out);
      else
        write_text_without_service (ctl, local, out);
      sr_ctl_print (out);
      return sr_ctl_fail (error);
    }

  gather (ctl, &facts);
  if (json)
    write_json (ctl, &facts, NULL, out);
  else
    write_text (ctl, &facts, out);
  sr_ctl_print (out);
  return SR_CTL_EXIT_OK;
}
