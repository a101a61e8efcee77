/* sr-ctl-settings.c: get, set, reset, exclude and include
 *
 * Every change goes through policyd (SetSetting, ResetSetting,
 * SetAppExcluded), never
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

/* What a command that changes something did, for --json: an object
 * opened with its "command"; the caller adds the rest and ends it. */
static void
json_begin (SrJson     *json,
            GString    *out,
            const char *command)
{
  sr_json_init (json, out);
  sr_json_begin_object (json);
  sr_json_key (json, "command");
  sr_json_string (json, command);
}

int
sr_ctl_cmd_get (SrCtl  *ctl,
                int     argc,
                char  **argv)
{
  gboolean json = FALSE;
  gboolean gvariant = FALSE;
  const GOptionEntry entries[] = {
    { "gvariant", 0, 0, G_OPTION_ARG_NONE, &gvariant,
      "Print the value as gsettings does ('always', ['org.example.App'])", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("KEY");
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  const SrCtlKey *key;
  gboolean locked = FALSE;
  int status;

  g_option_context_set_summary (context,
    "Print a setting's value in force (an administrator's lock or system\n"
    "default included): always, true, 30; a list one item a line. With\n"
    "--gvariant as gsettings prints it, which \"set\" reads back.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return sr_ctl_usage_error ("get", "“get” takes one setting key");
  if (json && gvariant)
    return sr_ctl_usage_error ("get", "--json and --gvariant are two different forms: give one");
  key = sr_ctl_key_lookup (argv[1], &error);
  if (key == NULL)
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    {
      /* What the service will read, said to be so: the value is the
       * answer, and the exit status 0. */
      g_autoptr(SrCtlLocalSettings) local = sr_ctl_local_settings_new ();

      value = local != NULL ? sr_ctl_local_settings_get (local, key, &locked) : NULL;
      if (value == NULL)
        return sr_ctl_fail (error);
      g_printerr ("session-restore-ctl: read from the settings; the service is %s\n",
                  ctl->untrusted ? "not trusted" : "not running");
    }
  else
    {
      value = sr_policy_client_dup_value (ctl->client, key->key);
      locked = sr_policy_client_is_locked (ctl->client, key->key);
    }
  if (value == NULL)
    {
      g_set_error (&error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "The service did not tell the value of “%s”", key->key);
      return sr_ctl_fail (error);
    }
  if (json)
    {
      SrJson writer;

      sr_json_init (&writer, out);
      sr_json_begin_object (&writer);
      sr_json_key (&writer, "key");
      sr_json_string (&writer, key->key);
      sr_ctl_key_json_fields (&writer, value, locked);
      sr_json_end_object (&writer);
    }
  else
    {
      g_autofree char *text = gvariant ? g_variant_print (value, FALSE) : sr_ctl_value_plain (value);

      /* An empty list is no line at all. */
      if (*text != '\0' || gvariant)
        g_string_append_printf (out, "%s\n", text);
    }
  sr_ctl_print (out);
  return SR_CTL_EXIT_OK;
}

/* What "gsettings reset" does, through the service: polkit and the
 * administrator's locks apply, and the switch resets with GNOME's. */
int
sr_ctl_cmd_reset (SrCtl  *ctl,
                  int     argc,
                  char  **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Say what was done in JSON (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("KEY");
  g_autoptr(GError) error = NULL;
  const SrCtlKey *key;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Put a setting back to its default (the administrator's, where the system\n"
    "sets one) through the service, so that the administrator's locks and polkit\n"
    "apply. Resetting \"enabled\" resets GNOME's own switch with it.");
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return sr_ctl_usage_error ("reset", "“reset” takes one setting key");
  key = sr_ctl_key_lookup (argv[1], &error);
  if (key == NULL)
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);
  if (sr_policy_client_get_version (ctl->client) < 3)
    {
      g_set_error (&error, SR_ERROR, SR_ERROR_FAILED,
                   "The running service (interface version %u) cannot reset a setting; "
                   "version 3 can. Nothing was changed.",
                   sr_policy_client_get_version (ctl->client));
      return sr_ctl_fail (error);
    }
  if (!sr_policy_client_reset_setting_sync (ctl->client, key->key, sr_ctl_call_flags (ctl),
                                            NULL, &error))
    return sr_ctl_fail (error);
  if (json)
    {
      g_autoptr(GString) out = g_string_new (NULL);
      SrJson writer;

      json_begin (&writer, out, "reset");
      sr_json_key (&writer, "key");
      sr_json_string (&writer, key->key);
      sr_json_end_object (&writer);
      sr_ctl_print (out);
    }
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
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Say what was done in JSON (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("KEY VALUE");
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) value = NULL;
  const SrCtlKey *key;
  const char *args[3] = { NULL, NULL, NULL };   /* key, value: the arguments but one "--" */
  guint n_args = 0;
  gboolean dashes = FALSE;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context,
    "Change a setting through the service, so that the administrator's locks\n"
    "and polkit apply. VALUE is parsed as gsettings parses it: true, 7, -1, ask,\n"
    "\"['org.example.App']\".");
  /* Options would make "set max-age-days -1" an unknown option "-1"; like
   * gsettings, "set" takes none but --help and --json (before "--"), and
   * everything else is its key and value. */
  if (wants_help (argc, argv) && !sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  for (int i = 1; i < argc; i++)
    if (!dashes && g_str_equal (argv[i], "--json"))
      json = TRUE;
    else if (!dashes && g_str_equal (argv[i], "--"))
      dashes = TRUE;
    else
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
  if (json)
    {
      g_autoptr(GString) out = g_string_new (NULL);
      SrJson writer;

      json_begin (&writer, out, "set");
      sr_json_key (&writer, "key");
      sr_json_string (&writer, key->key);
      sr_json_key (&writer, "value");
      sr_json_variant (&writer, value);
      sr_json_end_object (&writer);
      sr_ctl_print (out);
    }
  return SR_CTL_EXIT_OK;
}

/* For an app that was excluded already, the call forgets nothing (only a
 * newly excluded app's saved sessions are cleared): say what there is.
 * Saved sessions may be there all the same, written by an owner that did
 * not ask; without the right to list them, nothing is claimed. */
static void
print_already_excluded (SrCtl      *ctl,
                        const char *app_id,
                        gboolean    by_admin)
{
  const char *who = by_admin ? " by the administrator" : "";
  char *wanted[] = { (char *) app_id, NULL };
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GArray) rows = NULL;
  const SrCtlStoredApp *row;

  apps = sr_policy_client_list_stored_state_sync (ctl->client, SR_CALL_FLAGS_NONE, NULL, NULL);
  if (apps == NULL)
    {
      g_print ("%s: already excluded%s\n", app_id, who);
      return;
    }
  rows = sr_ctl_stored_apps (ctl, apps, wanted);
  row = &g_array_index (rows, SrCtlStoredApp, 0);
  if (!row->stored)
    g_print ("%s: already excluded%s; it has no saved sessions\n", app_id, who);
  else
    {
      g_autofree char *size = g_format_size (row->bytes);
      g_print ("%s: already excluded%s, but it has saved sessions (%s) that it wrote "
               "without asking; “session-restore-ctl clear %s” clears them\n",
               app_id, who, size, app_id);
    }
}

/* "exclude" and "include" are one command with two names. */
int
sr_ctl_cmd_exclude (SrCtl  *ctl,
                    int     argc,
                    char  **argv)
{
  gboolean exclude = g_str_equal (argv[0], "exclude");
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Say what was done in JSON (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("APP…");
  g_autoptr(GHashTable) unknown = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  SrJson writer;
  int status;

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_summary (context, exclude
    ? "Opt apps out of save and restore. Their saved sessions are cleared."
    : "Opt apps back in to save and restore.");
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc < 2)
    return sr_ctl_usage_error (argv[0], "“%s” takes one or more app ids", argv[0]);
  if (!sr_ctl_validate_app_ids (argv + 1, &error))
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);
  /* Before excluding, which clears what they saved. */
  unknown = sr_ctl_unknown_apps (ctl, argv + 1);
  json_begin (&writer, out, argv[0]);
  sr_json_key (&writer, "apps");
  sr_json_begin_array (&writer);

  for (int i = 1; i < argc; i++)
    {
      const char *result;
      /* Read before the call, which changes them. */
      gboolean by_user = g_strv_contains (sr_policy_client_get_excluded_apps (ctl->client),
                                          argv[i]);
      gboolean by_admin = g_strv_contains (sr_policy_client_get_admin_excluded_apps (ctl->client),
                                           argv[i]);

      if (!sr_policy_client_set_app_excluded_sync (ctl->client, argv[i], exclude,
                                                   sr_ctl_call_flags (ctl), NULL, &error))
        return sr_ctl_fail (error);
      if (exclude)
        result = by_user ? "already-excluded"
               : by_admin ? "already-excluded-by-administrator" : "excluded";
      else
        result = by_admin ? "still-excluded-by-administrator"
               : by_user ? "included" : "not-excluded";
      if (json)
        {
          sr_ctl_json_app_result (&writer, argv[i], result, unknown);
          sr_ctl_warn_unknown_app (unknown, argv[i]);
          continue;
        }
      if (exclude && (by_user || by_admin))
        print_already_excluded (ctl, argv[i], by_admin && !by_user);
      else if (exclude)
        g_print ("%s: excluded; its saved sessions were cleared\n", argv[i]);
      else if (by_admin)
        g_print ("%s: included by you, but still excluded by the administrator\n", argv[i]);
      else if (!by_user)
        g_print ("%s was not excluded\n", argv[i]);
      else
        g_print ("%s: included\n", argv[i]);
      sr_ctl_warn_unknown_app (unknown, argv[i]);
    }
  sr_json_end_array (&writer);
  sr_json_end_object (&writer);
  if (json)
    sr_ctl_print (out);
  return SR_CTL_EXIT_OK;
}
