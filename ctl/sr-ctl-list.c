/* sr-ctl-list.c: list, stored state per app as a table or as JSON
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <time.h>

#include "sr-ctl.h"
#include "sr-ctl-json.h"
#include "sr-ctl-output.h"
#include "sr-ctl-stored.h"

/* UTC, to the second, as in 2026-12-03T14:58:30Z; gmtime_r() rather than
 * GDateTime, whose formatting is a fifth of a large listing's cost. */
static gboolean
format_iso8601 (gint64  usec,
                char   *buffer,
                gsize   size)
{
  time_t seconds = usec / G_USEC_PER_SEC;
  struct tm tm;

  if (gmtime_r (&seconds, &tm) == NULL)
    return FALSE;
  return strftime (buffer, size, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0;
}

/* "errors": store name → what could not be read in it; {} when nothing. */
static void
write_json_errors (SrJson   *json,
                   GVariant *errors)
{
  GVariantIter stores;
  const char *store;
  GVariant *messages;

  sr_json_key (json, "errors");
  sr_json_begin_object (json);
  if (errors != NULL)
    {
      g_variant_iter_init (&stores, errors);
      while (g_variant_iter_next (&stores, "{&s@as}", &store, &messages))
        {
          sr_json_key (json, store);
          sr_json_begin_array (json);
          for (gsize i = 0; i < g_variant_n_children (messages); i++)
            {
              g_autoptr(GVariant) message = g_variant_get_child_value (messages, i);
              sr_json_string (json, g_variant_get_string (message, NULL));
            }
          sr_json_end_array (json);
          g_variant_unref (messages);
        }
    }
  sr_json_end_object (json);
}

static gboolean
row_is (const SrCtlStoredApp *row,
        const char           *state)
{
  return row->stored && row->state != NULL && g_str_equal (row->state, state);
}

static void
write_json (GArray   *rows,
            GVariant *errors,
            GString  *out)
{
  char iso[64];
  SrJson json;
  guint64 total_bytes = 0, total_entries = 0;
  guint total_apps = 0, total_expired = 0, total_cleared = 0;

  sr_json_init (&json, out);
  sr_json_begin_object (&json);
  sr_json_key (&json, "apps");
  sr_json_begin_array (&json);
  for (guint i = 0; i < rows->len; i++)
    {
      SrCtlStoredApp *row = &g_array_index (rows, SrCtlStoredApp, i);

      total_bytes += row->bytes;
      total_entries += row->entries;
      total_apps += row->stored ? 1 : 0;
      total_expired += row_is (row, "expired");
      total_cleared += row_is (row, "cleared");

      sr_json_begin_object (&json);
      sr_json_key (&json, "app_id");
      sr_json_string (&json, row->app_id);
      sr_json_key (&json, "stored");
      sr_json_bool (&json, row->stored);
      sr_json_key (&json, "bytes");
      sr_json_uint (&json, row->bytes);
      sr_json_key (&json, "entries");
      sr_json_uint (&json, row->entries);
      sr_json_key (&json, "windows");
      if (row->has_windows)
        sr_json_uint (&json, row->windows);
      else
        sr_json_null (&json);
      sr_json_key (&json, "stores");
      sr_json_begin_array (&json);
      for (gsize s = 0; row->stores != NULL && s < g_variant_n_children (row->stores); s++)
        {
          g_autoptr(GVariant) store = g_variant_get_child_value (row->stores, s);
          sr_json_string (&json, g_variant_get_string (store, NULL));
        }
      sr_json_end_array (&json);
      sr_json_key (&json, "last_saved");
      if (row->has_last_saved && format_iso8601 (row->last_saved, iso, sizeof iso))
        sr_json_string (&json, iso);
      else
        sr_json_null (&json);
      sr_json_key (&json, "last_saved_usec");
      if (row->has_last_saved)
        sr_json_int (&json, row->last_saved);
      else
        sr_json_null (&json);
      sr_json_key (&json, "excluded");
      sr_json_bool (&json, row->excluded || row->admin_excluded);
      sr_json_key (&json, "admin_excluded");
      sr_json_bool (&json, row->admin_excluded);
      sr_json_key (&json, "state");
      if (row->state != NULL)
        sr_json_string (&json, row->state);
      else
        sr_json_null (&json);
      sr_json_key (&json, "at_login");
      if (row->at_login >= 0)
        sr_json_bool (&json, row->at_login);
      else
        sr_json_null (&json);
      sr_json_key (&json, "crash_loop");
      if (row->crash_loop >= 0)
        sr_json_bool (&json, row->crash_loop);
      else
        sr_json_null (&json);
      sr_json_end_object (&json);
    }
  sr_json_end_array (&json);
  sr_json_key (&json, "total");
  sr_json_begin_object (&json);
  sr_json_key (&json, "apps");
  sr_json_uint (&json, total_apps);
  sr_json_key (&json, "bytes");
  sr_json_uint (&json, total_bytes);
  sr_json_key (&json, "entries");
  sr_json_uint (&json, total_entries);
  sr_json_key (&json, "expired");
  sr_json_uint (&json, total_expired);
  sr_json_key (&json, "cleared");
  sr_json_uint (&json, total_cleared);
  sr_json_end_object (&json);
  write_json_errors (&json, errors);
  sr_json_end_object (&json);
}

static char *
row_notes (const SrCtlStoredApp *row,
           gboolean      color)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new ();
  g_autofree char *joined = NULL;

  if (!row->stored)
    g_ptr_array_add (notes, "no saved sessions");
  if (row->admin_excluded)
    g_ptr_array_add (notes, "excluded by the administrator");
  else if (row->excluded)
    g_ptr_array_add (notes, "excluded");
  if (row_is (row, "expired"))
    g_ptr_array_add (notes, "too old to be restored");
  else if (row_is (row, "cleared"))
    g_ptr_array_add (notes, "cleared, will not be restored");
  if (row->crash_loop == 1)
    g_ptr_array_add (notes, "held back: crash loop");
  if (row->at_login == 1)
    g_ptr_array_add (notes, "reopens at login");
  g_ptr_array_add (notes, NULL);
  joined = g_strjoinv (", ", (char **) notes->pdata);
  if (row->stored && !row->excluded && !row->admin_excluded && row->crash_loop != 1 &&
      (row->state == NULL || g_str_equal (row->state, "valid")))
    return g_steal_pointer (&joined);
  return sr_ctl_styled (color && *joined != '\0', SR_CTL_STYLE_WARN, joined);
}

static void
write_table (SrCtl   *ctl,
             GArray  *rows,
             GString *out)
{
  const char *headers[] = { "APP", "SIZE", "WINDOWS", "LAST SAVED", "STORES", "NOTES", NULL };
  g_autoptr(SrCtlTable) table = sr_ctl_table_new (6, headers);
  guint64 total = 0;
  guint apps = 0, expired = 0, cleared = 0;

  for (guint i = 0; i < rows->len; i++)
    {
      SrCtlStoredApp *row = &g_array_index (rows, SrCtlStoredApp, i);
      char **cells = g_new0 (char *, 7);

      cells[0] = sr_ctl_escape (row->app_id);
      cells[1] = row->stored ? g_format_size (row->bytes) : g_strdup ("-");
      cells[2] = row->has_windows ? g_strdup_printf ("%u", row->windows) : g_strdup ("-");
      cells[3] = row->has_last_saved ? sr_ctl_format_time (row->last_saved) : g_strdup ("-");
      /* A store's name is a file name, which may hold anything but "/". */
      {
        g_autofree const char **names = row->stores != NULL ? g_variant_get_strv (row->stores, NULL) : NULL;
        g_autofree char *stores = names != NULL ? g_strjoinv (",", (char **) names) : NULL;
        cells[4] = stores != NULL ? sr_ctl_escape (stores) : g_strdup ("-");
      }
      cells[5] = row_notes (row, ctl->color);
      sr_ctl_table_add (table, cells);
      total += row->bytes;
      apps += row->stored ? 1 : 0;
      expired += row_is (row, "expired");
      cleared += row_is (row, "cleared");
    }
  if (rows->len == 0)
    {
      g_string_append (out, "No saved sessions.\n");
      return;
    }
  sr_ctl_table_print (table, ctl->color, out);
  {
    g_autofree char *totals = sr_ctl_stored_totals (apps, expired, cleared, total, TRUE);
    g_string_append_printf (out, "%s\n", totals);
  }
}

/* volatile: a store that is never read back would be optimized away. */
static GVariant *volatile kept_until_exit;   /* (owned) (nullable): see sr_ctl_cmd_list() */

int
sr_ctl_cmd_list (SrCtl  *ctl,
                 int     argc,
                 char  **argv)
{
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("[APP…]");
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GVariant) errors = NULL;
  g_autoptr(GString) out = NULL;
  int status;

  g_option_context_set_summary (context,
    "List saved sessions per app: size, windows, last save, stores, and whether\n"
    "the app is excluded, its saved sessions expired or held back by the crash-loop guard.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (!sr_ctl_validate_app_ids (argv + 1, &error))
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);
  apps = sr_policy_client_list_stored_state_sync (ctl->client, sr_ctl_call_flags (ctl), NULL,
                                                  &error);
  if (apps == NULL)
    return sr_ctl_fail (error);

  {
    rows = sr_ctl_stored_apps (ctl, apps, argc > 1 ? argv + 1 : NULL);
    errors = sr_ctl_stored_errors (apps);
    /* A listing of a thousand apps makes some 400 KB of JSON. */
    out = g_string_sized_new (256 + rows->len * 384);
    if (json)
      write_json (rows, errors, out);
    else
      write_table (ctl, rows, out);
    sr_ctl_print (out);
    /* The rows borrow from the reply: free them first. */
    g_clear_pointer (&rows, g_array_unref);
  }
  /* A listing that could not read everything is printed, and the exit
   * status says it is not whole, as for a clear that left files. */
  if (errors != NULL)
    {
      sr_ctl_stored_print_errors (errors);
      status = SR_CTL_EXIT_FAILED;
    }
  else
    status = SR_CTL_EXIT_OK;
  /* Left for the exit to reclaim: the process ends here, and releasing
   * the reply's tens of thousands of values one by one costs as much as
   * GDBus spent building them (half of the tool's own time on a listing
   * of a thousand apps). Kept reachable, so leak checkers see no leak. */
  kept_until_exit = g_steal_pointer (&apps);
  return status;
}
