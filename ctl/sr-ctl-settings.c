/* sr-ctl-settings.c: status, get, set, exclude and include
 *
 * Every change goes through policyd (SetSetting, SetAppExcluded), never
 * straight to dconf, so that locks and polkit apply as they do to the
 * panel.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <string.h>

#include "sr-bus.h"
#include "sr-ctl.h"
#include "sr-ctl-keys.h"
#include "sr-ctl-output.h"
#include "sr-ctl-stored.h"
#include "sr-error.h"

/* The value as gsettings prints it, so that "set KEY "$(get KEY)"" holds. */
static char *
key_value_text (SrCtl          *ctl,
                const SrCtlKey *key)
{
  g_autoptr(GVariant) value = sr_policy_client_dup_value (ctl->client, key->key);
  if (value == NULL)
    return NULL;
  return g_variant_print (value, FALSE);
}

static void
append_service_line (SrCtl   *ctl,
                     GString *out)
{
  const char *owner = sr_policy_client_get_service_owner (ctl->client);
  g_autoptr(GVariant) pid = NULL;
  g_autofree char *running = sr_ctl_styled (ctl->color, SR_CTL_STYLE_GOOD, "running");

  pid = g_dbus_connection_call_sync (sr_policy_client_get_connection (ctl->client),
                                     "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                     "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                     g_variant_new ("(s)", owner), G_VARIANT_TYPE ("(u)"),
                                     G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  g_string_append_printf (out, "Service:          %s (%s", running, owner);
  if (pid != NULL)
    {
      guint32 value;
      g_variant_get (pid, "(u)", &value);
      g_string_append_printf (out, ", pid %u", value);
    }
  g_string_append_printf (out, ", interface version %u)\n",
                          sr_policy_client_get_version (ctl->client));
}

/* "Consumers" (a(sx): program, last call in µs) is newer than this tool's
 * interface description: read it when the service has it, else say
 * nothing rather than guess. A sandboxed caller is named "flatpak/APP_ID"
 * or "snap/APP_ID" (no executable's name has a "/"): shown as what it
 * is, "APP_ID (flatpak app)". */
static void
append_consumers_line (SrCtl   *ctl,
                       GString *out)
{
  GVariant *consumers = sr_policy_client_get_consumers (ctl->client);
  GVariantIter iter;
  const char *program;
  gint64 last;
  gboolean first = TRUE;

  if (consumers == NULL || !g_variant_is_of_type (consumers, G_VARIANT_TYPE ("a(sx)")))
    return;
  g_string_append (out, "Used by:          ");
  g_variant_iter_init (&iter, consumers);
  while (g_variant_iter_next (&iter, "(&sx)", &program, &last))
    {
      g_autofree char *ago = sr_ctl_format_ago (last);
      g_autofree char *shown = NULL;
      const char *slash = strchr (program, '/');

      if (slash != NULL)
        {
          g_autofree char *kind = g_strndup (program, slash - program);
          g_autofree char *kind_shown = sr_ctl_escape (kind);

          shown = sr_ctl_escape (slash + 1);
          g_string_append_printf (out, "%s%s (%s app, %s)", first ? "" : ", ", shown,
                                  kind_shown, ago);
        }
      else
        {
          shown = sr_ctl_escape (program);
          g_string_append_printf (out, "%s%s (%s)", first ? "" : ", ", shown, ago);
        }
      first = FALSE;
    }
  if (first)
    g_string_append (out, "nothing has asked it yet");
  g_string_append_c (out, '\n');
}

/* Not being allowed to list is no reason to fail "status": it says so. */
static void
append_stored_line (SrCtl   *ctl,
                    GString *out)
{
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *size = NULL;
  g_autoptr(GVariant) unread = NULL;
  GVariantIter iter;
  GVariant *info;
  const char *app_id;
  guint64 total = 0;
  gsize n = 0;

  apps = sr_policy_client_list_stored_state_sync (ctl->client, SR_CALL_FLAGS_NONE, NULL, &error);
  if (apps == NULL)
    {
      g_autofree char *message = NULL;

      message = sr_ctl_escape (error->message);
      g_string_append_printf (out, "Saved sessions:   not shown (%s)\n", message);
      return;
    }
  g_variant_iter_init (&iter, apps);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &app_id, &info))
    {
      guint64 bytes = 0;
      g_variant_lookup (info, "bytes", "t", &bytes);
      total += bytes;
      /* The row of the stores that could not be read is no app. */
      n += *app_id != '\0' ? 1 : 0;
      g_variant_unref (info);
    }
  unread = sr_ctl_stored_errors (apps);
  size = g_format_size (total);
  g_string_append_printf (out, "Saved sessions:   %" G_GSIZE_FORMAT " %s, %s%s\n",
                          n, n == 1 ? "app" : "apps", size,
                          unread != NULL ? " (some could not be read: see “list”)" : "");
}

int
sr_ctl_cmd_status (SrCtl  *ctl,
                   int     argc,
                   char  **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(SrCtlTable) table = NULL;
  g_autoptr(GError) error = NULL;
  const char *headers[] = { "SETTING", "VALUE", "", NULL };
  const SrCtlKey *keys;
  guint n_keys;
  int status;

  g_option_context_set_summary (context,
    "Show every setting and whether the administrator locked it, how much is\n"
    "stored, whether the service runs and which programs consult it.");
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc > 1)
    return sr_ctl_usage_error ("status", "“status” takes no arguments");

  if (!sr_ctl_connect (ctl, &error))
    {
      g_print ("Service:          %s\n", ctl->untrusted ? "not trusted" : "not running");
      return sr_ctl_fail (error);
    }

  append_service_line (ctl, out);
  append_consumers_line (ctl, out);
  append_stored_line (ctl, out);
  g_string_append_c (out, '\n');

  table = sr_ctl_table_new (3, headers);
  keys = sr_ctl_keys (&n_keys);
  for (guint i = 0; i < n_keys; i++)
    {
      g_autofree char *value = key_value_text (ctl, &keys[i]);
      char **cells = g_new0 (char *, 4);

      cells[0] = g_strdup (keys[i].key);
      cells[1] = value != NULL ? g_steal_pointer (&value) : g_strdup ("?");
      cells[2] = sr_policy_client_is_locked (ctl->client, keys[i].key)
                   ? sr_ctl_styled (ctl->color, SR_CTL_STYLE_WARN, "locked by the administrator")
                   : g_strdup ("");
      sr_ctl_table_add (table, cells);
    }
  sr_ctl_table_print (table, ctl->color, out);
  sr_ctl_print (out);
  return SR_CTL_EXIT_OK;
}

int
sr_ctl_cmd_get (SrCtl  *ctl,
                int     argc,
                char  **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("KEY");
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;
  const SrCtlKey *key;
  int status;

  g_option_context_set_summary (context,
    "Print a setting's value as gsettings prints it (the effective value:\n"
    "an administrator's lock or system default included).");
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return sr_ctl_usage_error ("get", "“get” takes one setting key");
  key = sr_ctl_key_lookup (argv[1], &error);
  if (key == NULL)
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);
  value = key_value_text (ctl, key);
  if (value == NULL)
    {
      g_set_error (&error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "The service did not tell the value of “%s”", key->key);
      return sr_ctl_fail (error);
    }
  g_print ("%s\n", value);
  return SR_CTL_EXIT_OK;
}

static gboolean
wants_help (int    argc,
            char **argv)
{
  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--help") || g_str_equal (argv[i], "-h") ||
        g_str_equal (argv[i], "-?") || g_str_equal (argv[i], "--help-all"))
      return TRUE;
  return FALSE;
}

int
sr_ctl_cmd_set (SrCtl  *ctl,
                int     argc,
                char  **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new ("KEY VALUE");
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) value = NULL;
  const SrCtlKey *key;
  const char *args[3] = { NULL, NULL, NULL };   /* key, value: the arguments but one "--" */
  guint n_args = 0;
  int status;

  g_option_context_set_summary (context,
    "Change a setting through the service, so that the administrator's locks\n"
    "and polkit apply. VALUE is parsed as gsettings parses it: true, 7, -1, ask,\n"
    "\"['org.example.App']\".");
  /* Options would make "set max-age-days -1" an unknown option "-1"; like
   * gsettings, "set" takes none but --help, and everything else is its
   * key and value. */
  if (wants_help (argc, argv) && !sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  for (int i = 1; i < argc; i++)
    if (!g_str_equal (argv[i], "--") || g_strv_contains (args, "--"))
      {
        if (n_args < 2)
          args[n_args] = argv[i];
        n_args++;
      }
  if (n_args != 2)
    return sr_ctl_usage_error ("set", "“set” takes a setting key and a value");
  key = sr_ctl_key_lookup (args[0], &error);
  if (key == NULL)
    return sr_ctl_fail (error);
  value = sr_ctl_key_parse (key, args[1], &error);
  if (value == NULL)
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);
  if (!sr_policy_client_set_setting_sync (ctl->client, key->key, value, sr_ctl_call_flags (ctl),
                                          NULL, &error))
    return sr_ctl_fail (error);
  return SR_CTL_EXIT_OK;
}

/* "exclude" and "include" are one command with two names. */
int
sr_ctl_cmd_exclude (SrCtl  *ctl,
                    int     argc,
                    char  **argv)
{
  gboolean exclude = g_str_equal (argv[0], "exclude");
  g_autoptr(GOptionContext) context = g_option_context_new ("APP…");
  g_autoptr(GError) error = NULL;
  const char *const *admin;
  int status;

  g_option_context_set_summary (context, exclude
    ? "Opt apps out of save and restore. Their saved state is forgotten."
    : "Opt apps back in to save and restore.");
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc < 2)
    return sr_ctl_usage_error (argv[0], "“%s” takes one or more app ids", argv[0]);
  if (!sr_ctl_validate_app_ids (argv + 1, &error))
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);
  admin = sr_policy_client_get_admin_excluded_apps (ctl->client);

  for (int i = 1; i < argc; i++)
    {
      if (!sr_policy_client_set_app_excluded_sync (ctl->client, argv[i], exclude,
                                                   sr_ctl_call_flags (ctl), NULL, &error))
        return sr_ctl_fail (error);
      if (exclude)
        g_print ("%s: excluded; its saved state was forgotten\n", argv[i]);
      else if (g_strv_contains (admin, argv[i]))
        g_print ("%s: included by you, but still excluded by the administrator\n", argv[i]);
      else
        g_print ("%s: included\n", argv[i]);
    }
  return SR_CTL_EXIT_OK;
}
