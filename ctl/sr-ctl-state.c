/* sr-ctl-state.c: list and clear stored state
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "sr-ctl.h"
#include "sr-ctl-json.h"
#include "sr-ctl-output.h"
#include "sr-error.h"

/* One app of a listing. The strings are borrowed from the reply, which
 * holds them whether it is serialized or not, and outlives the rows. */
typedef struct {
  const char *app_id;
  gboolean stored;            /* FALSE: named on the command line, nothing stored */
  guint64 bytes;
  guint32 entries;
  gboolean has_windows;
  guint32 windows;
  gboolean has_last_saved;
  gint64 last_saved;
  GVariant *stores;           /* (owned) (nullable): as */
  const char *state;          /* (nullable): older services do not say */
  int at_login;               /* -1: the service does not say */
  int crash_loop;             /* -1: the service does not say */
  gboolean excluded;          /* by the user */
  gboolean admin_excluded;
} AppRow;

static void
app_row_clear (AppRow *row)
{
  g_clear_pointer (&row->stores, g_variant_unref);
}

/* One pass over the app's a{sv}, not one g_variant_lookup() per key:
 * each lookup walks the dictionary and unpacks its entries again, which
 * on a listing of a thousand apps cost more than the D-Bus round trip.
 * Keys of unexpected types are ignored, as unknown keys are. */
static void
app_row_fill (AppRow     *row,
              GVariant   *info)
{
  gsize n = g_variant_n_children (info);

  row->stored = TRUE;
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (info, i);
      g_autoptr(GVariant) boxed = g_variant_get_child_value (entry, 1);
      g_autoptr(GVariant) value = g_variant_get_variant (boxed);
      g_autoptr(GVariant) name = g_variant_get_child_value (entry, 0);
      const char *key = g_variant_get_string (name, NULL);
      const char *type = g_variant_get_type_string (value);

      if (strcmp (key, "bytes") == 0 && strcmp (type, "t") == 0)
        row->bytes = g_variant_get_uint64 (value);
      else if (strcmp (key, "entries") == 0 && strcmp (type, "u") == 0)
        row->entries = g_variant_get_uint32 (value);
      else if (strcmp (key, "windows") == 0 && strcmp (type, "u") == 0)
        {
          row->has_windows = TRUE;
          row->windows = g_variant_get_uint32 (value);
        }
      else if (strcmp (key, "last-saved") == 0 && strcmp (type, "x") == 0)
        {
          row->has_last_saved = TRUE;
          row->last_saved = g_variant_get_int64 (value);
        }
      else if (strcmp (key, "stores") == 0 && strcmp (type, "as") == 0)
        row->stores = g_variant_ref (value);
      else if (strcmp (key, "state") == 0 && strcmp (type, "s") == 0)
        row->state = g_variant_get_string (value, NULL);
      else if (strcmp (key, "at-login") == 0 && strcmp (type, "b") == 0)
        row->at_login = g_variant_get_boolean (value);
      else if (strcmp (key, "crash-loop") == 0 && strcmp (type, "b") == 0)
        row->crash_loop = g_variant_get_boolean (value);
    }
}

/* The reply, in the service's order (by app id), restricted to the named
 * apps when there are any; a named app with nothing stored gets an empty
 * row, so that a script asking about it gets an answer. */
static GArray *
build_rows (SrCtl     *ctl,
            GVariant  *apps,
            char     **wanted)
{
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (AppRow));
  const char *const *excluded = sr_dbus_policy_get_excluded_apps (ctl->proxy);
  const char *const *admin = sr_dbus_policy_get_admin_excluded_apps (ctl->proxy);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  gsize n_apps = g_variant_n_children (apps);

  g_array_set_clear_func (rows, (GDestroyNotify) app_row_clear);
  /* Children by index: g_variant_iter_next() parses its format string for
   * every app. */
  for (gsize i = 0; i < n_apps; i++)
    {
      g_autoptr(GVariant) app = g_variant_get_child_value (apps, i);
      g_autoptr(GVariant) id = g_variant_get_child_value (app, 0);
      const char *app_id = g_variant_get_string (id, NULL);

      if (wanted == NULL || g_strv_contains ((const char *const *) wanted, app_id))
        {
          g_autoptr(GVariant) info = g_variant_get_child_value (app, 1);
          AppRow row = { .app_id = app_id, .at_login = -1, .crash_loop = -1 };

          app_row_fill (&row, info);
          g_array_append_val (rows, row);
          if (wanted != NULL)
            g_hash_table_add (seen, (gpointer) app_id);
        }
    }
  for (guint i = 0; wanted != NULL && wanted[i] != NULL; i++)
    {
      if (!g_hash_table_contains (seen, wanted[i]))
        {
          AppRow row = { .app_id = wanted[i], .at_login = -1, .crash_loop = -1 };
          g_array_append_val (rows, row);
          g_hash_table_add (seen, wanted[i]);
        }
    }
  for (guint i = 0; i < rows->len; i++)
    {
      AppRow *row = &g_array_index (rows, AppRow, i);
      row->excluded = excluded != NULL && g_strv_contains (excluded, row->app_id);
      row->admin_excluded = admin != NULL && g_strv_contains (admin, row->app_id);
    }
  return rows;
}

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

static void
write_json (GArray  *rows,
            GString *out)
{
  char iso[64];
  SrJson json;
  guint64 total_bytes = 0, total_entries = 0;
  guint total_apps = 0;

  sr_json_init (&json, out);
  sr_json_begin_object (&json);
  sr_json_key (&json, "apps");
  sr_json_begin_array (&json);
  for (guint i = 0; i < rows->len; i++)
    {
      AppRow *row = &g_array_index (rows, AppRow, i);

      total_bytes += row->bytes;
      total_entries += row->entries;
      total_apps += row->stored ? 1 : 0;

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
  sr_json_end_object (&json);
  sr_json_end_object (&json);
}

static char *
row_notes (const AppRow *row,
           gboolean      color)
{
  g_autoptr(GPtrArray) notes = g_ptr_array_new ();
  g_autofree char *joined = NULL;

  if (!row->stored)
    g_ptr_array_add (notes, "nothing stored");
  if (row->admin_excluded)
    g_ptr_array_add (notes, "excluded by the administrator");
  else if (row->excluded)
    g_ptr_array_add (notes, "excluded");
  if (row->state != NULL && g_str_equal (row->state, "expired"))
    g_ptr_array_add (notes, "expired");
  else if (row->state != NULL && g_str_equal (row->state, "cleared"))
    g_ptr_array_add (notes, "cleared");
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
  guint apps = 0;

  for (guint i = 0; i < rows->len; i++)
    {
      AppRow *row = &g_array_index (rows, AppRow, i);
      char **cells = g_new0 (char *, 7);

      cells[0] = g_strdup (row->app_id);
      cells[1] = row->stored ? g_format_size (row->bytes) : g_strdup ("-");
      cells[2] = row->has_windows ? g_strdup_printf ("%u", row->windows) : g_strdup ("-");
      cells[3] = row->has_last_saved ? sr_ctl_format_time (row->last_saved) : g_strdup ("-");
      /* A store's name is a file name, which may hold anything but "/". */
      {
        g_autofree const char **names = row->stores != NULL ? g_variant_get_strv (row->stores, NULL) : NULL;
        g_autofree char *stores = names != NULL ? g_strjoinv (",", (char **) names) : NULL;
        cells[4] = stores != NULL ? g_strescape (stores, "\"\\") : g_strdup ("-");
      }
      cells[5] = row_notes (row, ctl->color);
      sr_ctl_table_add (table, cells);
      total += row->bytes;
      apps += row->stored ? 1 : 0;
    }
  if (rows->len == 0)
    {
      g_string_append (out, "Nothing is stored.\n");
      return;
    }
  sr_ctl_table_print (table, ctl->color, out);
  {
    g_autofree char *size = g_format_size (total);
    g_string_append_printf (out, "%u %s, %s\n", apps, apps == 1 ? "app" : "apps", size);
  }
}

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
  g_autoptr(GString) out = NULL;
  int status;

  g_option_context_set_summary (context,
    "List stored state per app: size, windows, last save, stores, and whether\n"
    "the app is excluded, its state expired or held back by the crash-loop guard.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (!sr_ctl_validate_app_ids (argv + 1, &error))
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS, &error))
    return sr_ctl_fail (error);
  apps = sr_ctl_call (ctl, "ListStoredState", NULL, G_VARIANT_TYPE ("(a(sa{sv}))"), &error);
  if (apps == NULL)
    return sr_ctl_fail (error);

  {
    g_autoptr(GVariant) list = g_variant_get_child_value (apps, 0);
    rows = build_rows (ctl, list, argc > 1 ? argv + 1 : NULL);
    /* A reply of a thousand apps makes some 250 KiB of JSON. */
    out = g_string_sized_new (256 + rows->len * 384);
    if (json)
      write_json (rows, out);
    else
      write_table (ctl, rows, out);
    sr_ctl_print (out);
    /* The rows borrow from the reply: free them first. */
    g_clear_pointer (&rows, g_array_unref);
  }
  /* Left for the exit to reclaim: the process ends here, and releasing
   * the reply's tens of thousands of values one by one costs as much as
   * GDBus spent building them (half of the tool's own time on a listing
   * of a thousand apps). */
  (void) g_steal_pointer (&apps);
  return SR_CTL_EXIT_OK;
}

/* -- clear --------------------------------------------------------------- */

static gboolean
confirm (SrCtl  *ctl,
         char  **app_ids)
{
  g_autoptr(GVariant) apps = NULL;
  g_autofree char *what = NULL;
  char answer[64];

  /* Best effort: a caller polkit refuses a listing may still clear. */
  if (sr_dbus_policy_call_list_stored_state_sync (ctl->proxy, &apps, NULL, NULL))
    {
      g_autoptr(GArray) rows = build_rows (ctl, apps, app_ids);
      guint64 bytes = 0;
      guint n = 0;
      g_autofree char *size = NULL;

      for (guint i = 0; i < rows->len; i++)
        {
          bytes += g_array_index (rows, AppRow, i).bytes;
          n += g_array_index (rows, AppRow, i).stored ? 1 : 0;
        }
      size = g_format_size (bytes);
      what = g_strdup_printf (" (%u %s, %s)", n, n == 1 ? "app" : "apps", size);
    }

  if (app_ids == NULL)
    g_print ("Forget the saved sessions of all apps%s, and the window positions "
             "the compositor keeps? [y/N] ", what != NULL ? what : "");
  else
    {
      g_autofree char *names = g_strjoinv (", ", app_ids);
      g_print ("Forget the saved sessions of %s%s? [y/N] ", names, what != NULL ? what : "");
    }
  fflush (stdout);
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

  if (stores != NULL)
    {
      GVariantIter iter;
      const char *name;
      g_variant_iter_init (&iter, stores);
      while (g_variant_iter_next (&iter, "{&sv}", &name, NULL))
        g_ptr_array_add (names, (gpointer) name);
      g_ptr_array_sort (names, compare_names);
    }
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
      cells[0] = g_strdup (name);
      cells[1] = g_strdup_printf ("%u %s", store_entries, store_entries == 1 ? "entry" : "entries");
      cells[2] = g_format_size (store_bytes);
      sr_ctl_table_add (table, cells);
    }
  size = g_format_size (bytes);
  n_apps = apps != NULL ? g_strv_length ((char **) apps) : 0;
  if (entries == 0)
    g_string_append (out, "Nothing was stored.\n");
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

int
sr_ctl_cmd_clear (SrCtl  *ctl,
                  int     argc,
                  char  **argv)
{
  gboolean yes = FALSE;
  const GOptionEntry entries[] = {
    { "yes", 'y', 0, G_OPTION_ARG_NONE, &yes, "Do not ask first", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("[APP…]");
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) report = NULL;
  g_autofree const char **errors = NULL;
  char **app_ids;
  int status;

  g_option_context_set_summary (context,
    "Forget the stored state of the named apps, or of everything (the compositor's\n"
    "window store included) when none is named. On a terminal it asks first.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  app_ids = argc > 1 ? argv + 1 : NULL;
  if (!sr_ctl_validate_app_ids (app_ids, &error))
    return sr_ctl_fail (error);

  if (!sr_ctl_connect (ctl, G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS, &error))
    return sr_ctl_fail (error);

  if (!yes && isatty (STDIN_FILENO) && !confirm (ctl, app_ids))
    {
      g_printerr ("Nothing was cleared.\n");
      return SR_CTL_EXIT_OK;
    }

  reply = sr_ctl_call (ctl, "Clear",
                       g_variant_new ("(^as)", app_ids != NULL ? app_ids : (char *[]) { NULL }),
                       G_VARIANT_TYPE ("(a{sv})"), &error);
  if (reply == NULL)
    return sr_ctl_fail (error);
  report = g_variant_get_child_value (reply, 0);
  print_report (ctl, report);

  /* The clear point holds even when a file could not be removed, but a
   * script should hear that something is left behind. */
  g_variant_lookup (report, "errors", "^a&s", &errors);
  if (errors != NULL && errors[0] != NULL)
    {
      for (guint i = 0; errors[i] != NULL; i++)
        g_printerr ("session-restore-ctl: not removed: %s\n", errors[i]);
      return SR_CTL_EXIT_FAILED;
    }
  return SR_CTL_EXIT_OK;
}
