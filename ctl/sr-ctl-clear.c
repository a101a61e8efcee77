/* sr-ctl-clear.c: clear: clears saved sessions and says what went
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "sr-ctl.h"
#include "sr-ctl-json.h"
#include "sr-ctl-output.h"
#include "sr-ctl-stored.h"

static gboolean
confirm (SrCtl  *ctl,
         char  **app_ids)
{
  g_autoptr(GVariant) apps = NULL;
  g_autofree char *what = NULL;
  char answer[64];

  /* Best effort: a caller polkit refuses a listing may still clear. */
  apps = sr_policy_client_list_stored_state_sync (ctl->client, SR_CALL_FLAGS_NONE, NULL, NULL);
  if (apps != NULL)
    {
      g_autoptr(GArray) rows = sr_ctl_stored_apps (ctl, apps, app_ids);
      guint64 bytes = 0;
      guint n = 0;
      g_autofree char *size = NULL;

      for (guint i = 0; i < rows->len; i++)
        {
          bytes += g_array_index (rows, SrCtlStoredApp, i).bytes;
          n += g_array_index (rows, SrCtlStoredApp, i).stored ? 1 : 0;
        }
      size = g_format_size (bytes);
      what = g_strdup_printf (" (%u %s, %s)", n, n == 1 ? "app" : "apps", size);
    }

  /* On stderr, like rm -i: stdout may be a file that wants the report only. */
  if (app_ids == NULL)
    g_printerr ("Clear the saved sessions of all apps%s, and the window positions "
                "the compositor keeps? [y/N] ", what != NULL ? what : "");
  else
    {
      g_autofree char *names = g_strjoinv (", ", app_ids);
      g_printerr ("Clear the saved sessions of %s%s? [y/N] ", names, what != NULL ? what : "");
    }
  if (fgets (answer, sizeof answer, stdin) == NULL)
    return FALSE;
  return answer[0] == 'y' || answer[0] == 'Y';
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* The names of the stores in @stores (nullable), the report's "stores",
 * into @names, sorted; borrowed from @stores. */
static void
add_store_names (GPtrArray *names,
                 GVariant  *stores)
{
  GVariantIter iter;
  const char *name;

  if (stores == NULL)
    return;
  g_variant_iter_init (&iter, stores);
  while (g_variant_iter_next (&iter, "{&sv}", &name, NULL))
    g_ptr_array_add (names, (gpointer) name);
  g_ptr_array_sort (names, compare_names);
}

static void
print_report (SrCtl    *ctl,
              GVariant *report)
{
  const char *headers[] = { "STORE", "REMOVED", "SIZE", NULL };
  g_autoptr(SrCtlTable) table = sr_ctl_table_new (3, headers);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GVariant) stores = NULL;
  g_autofree const char **apps = NULL;
  g_autofree char *size = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  guint32 entries = 0;
  guint64 bytes = 0;
  guint n_apps;

  g_variant_lookup (report, "apps", "^a&s", &apps);
  g_variant_lookup (report, "entries", "u", &entries);
  g_variant_lookup (report, "bytes", "t", &bytes);
  stores = g_variant_lookup_value (report, "stores", G_VARIANT_TYPE_VARDICT);

  add_store_names (names, stores);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = *(const char **) &names->pdata[i];
      g_autoptr(GVariant) store = g_variant_lookup_value (stores, name, G_VARIANT_TYPE_VARDICT);
      guint32 store_entries = 0;
      guint64 store_bytes = 0;
      char **cells = g_new0 (char *, 4);

      g_variant_lookup (store, "entries", "u", &store_entries);
      g_variant_lookup (store, "bytes", "t", &store_bytes);
      /* What was removed: stores that held nothing of these apps are noise. */
      if (store_entries == 0)
        {
          g_free (cells);
          continue;
        }
      cells[0] = sr_ctl_escape (name);
      cells[1] = g_strdup_printf ("%u %s", store_entries, store_entries == 1 ? "entry" : "entries");
      cells[2] = g_format_size (store_bytes);
      sr_ctl_table_add (table, cells);
    }
  size = g_format_size (bytes);
  n_apps = apps != NULL ? g_strv_length ((char **) apps) : 0;
  if (entries == 0)
    g_string_append (out, "There were no saved sessions.\n");
  else
    {
      sr_ctl_table_print (table, ctl->color, out);
      g_string_append_printf (out, "Removed %u %s (%s)", entries,
                              entries == 1 ? "entry" : "entries", size);
      if (n_apps > 0)
        g_string_append_printf (out, " of %u %s", n_apps, n_apps == 1 ? "app" : "apps");
      g_string_append (out, ".\n");
    }
  sr_ctl_print (out);
}

/* The report as --json says it: what was asked, what went, per store,
 * and what could not be removed. */
static void
print_json_report (char     **app_ids,
                   GVariant  *report)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GVariant) stores = g_variant_lookup_value (report, "stores", G_VARIANT_TYPE_VARDICT);
  g_autofree const char **apps = NULL;
  g_autofree const char **errors = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  guint32 entries = 0;
  guint64 bytes = 0;
  SrJson json;

  g_variant_lookup (report, "apps", "^a&s", &apps);
  g_variant_lookup (report, "entries", "u", &entries);
  g_variant_lookup (report, "bytes", "t", &bytes);
  g_variant_lookup (report, "errors", "^a&s", &errors);

  sr_json_init (&json, out);
  sr_json_begin_object (&json);
  sr_json_key (&json, "command");
  sr_json_string (&json, "clear");
  sr_json_key (&json, "all");
  sr_json_bool (&json, app_ids == NULL);
  sr_json_key (&json, "apps");
  sr_json_begin_array (&json);
  for (guint i = 0; apps != NULL && apps[i] != NULL; i++)
    sr_json_string (&json, apps[i]);
  sr_json_end_array (&json);
  sr_json_key (&json, "entries");
  sr_json_uint (&json, entries);
  sr_json_key (&json, "bytes");
  sr_json_uint (&json, bytes);
  sr_json_key (&json, "stores");
  sr_json_begin_object (&json);
  add_store_names (names, stores);
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = names->pdata[i];
      g_autoptr(GVariant) store = g_variant_lookup_value (stores, name, G_VARIANT_TYPE_VARDICT);
      guint32 store_entries = 0;
      guint64 store_bytes = 0;

      g_variant_lookup (store, "entries", "u", &store_entries);
      g_variant_lookup (store, "bytes", "t", &store_bytes);
      sr_json_key (&json, name);
      sr_json_begin_object (&json);
      sr_json_key (&json, "entries");
      sr_json_uint (&json, store_entries);
      sr_json_key (&json, "bytes");
      sr_json_uint (&json, store_bytes);
      sr_json_end_object (&json);
    }
  sr_json_end_object (&json);
  sr_json_key (&json, "errors");
  sr_json_begin_array (&json);
  for (guint i = 0; errors != NULL && errors[i] != NULL; i++)
    sr_json_string (&json, errors[i]);
  sr_json_end_array (&json);
  sr_json_end_object (&json);
  sr_ctl_print (out);
}

int
sr_ctl_cmd_clear (SrCtl  *ctl,
                  int     argc,
                  char  **argv)
{
  gboolean yes = FALSE;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "yes", 'y', 0, G_OPTION_ARG_NONE, &yes, "Do not ask first", NULL },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Say what was done in JSON (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("[APP…]");
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) report = NULL;
  g_autofree const char **errors = NULL;
  char **app_ids;
  int status;

  g_option_context_set_summary (context,
    "Clear the saved sessions of the named apps, or of everything (the compositor's\n"
    "window store included) when none is named. On a terminal it asks first.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  app_ids = argc > 1 ? argv + 1 : NULL;
  if (!sr_ctl_validate_app_ids (app_ids, &error))
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);

  if (!yes && isatty (STDIN_FILENO) && !confirm (ctl, app_ids))
    {
      g_printerr ("Nothing was cleared.\n");
      return SR_CTL_EXIT_OK;
    }

  report = sr_policy_client_clear_sync (ctl->client, (const char * const *) app_ids,
                                        sr_ctl_call_flags (ctl), NULL, &error);
  if (report == NULL)
    return sr_ctl_fail (error);
  if (json)
    print_json_report (app_ids, report);
  else
    print_report (ctl, report);

  /* The clear point holds even when a file could not be removed, but a
   * script should hear that something is left behind. */
  g_variant_lookup (report, "errors", "^a&s", &errors);
  if (errors != NULL && errors[0] != NULL)
    {
      for (guint i = 0; errors[i] != NULL; i++)
        {
          g_autofree char *shown = sr_ctl_escape (errors[i]);
          g_printerr ("session-restore-ctl: not removed: %s\n", shown);
        }
      return SR_CTL_EXIT_FAILED;
    }
  return SR_CTL_EXIT_OK;
}
