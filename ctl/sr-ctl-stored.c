/* sr-ctl-stored.c: what ListStoredState tells per app, decoded once
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <string.h>

#include "sr-ctl-json.h"
#include "sr-ctl-output.h"
#include "sr-ctl-stored.h"

static void
app_row_clear (SrCtlStoredApp *row)
{
  g_clear_pointer (&row->stores, g_variant_unref);
}

/* One pass over the app's a{sv}, not one g_variant_lookup() per key:
 * each lookup walks the dictionary and unpacks its entries again, which
 * on a listing of a thousand apps cost more than the D-Bus round trip.
 * Keys of unexpected types are ignored, as unknown keys are. */
static void
app_row_fill (SrCtlStoredApp *row,
              GVariant       *info)
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
GArray *
sr_ctl_stored_apps (SrCtl     *ctl,
                    GVariant  *apps,
                    char     **wanted)
{
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (SrCtlStoredApp));
  const char *const *excluded = sr_policy_client_get_excluded_apps (ctl->client);
  const char *const *admin = sr_policy_client_get_admin_excluded_apps (ctl->client);
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

      /* The row of the stores that could not be read: sr_ctl_stored_errors(). */
      if (*app_id == '\0')
        continue;
      if (wanted == NULL || g_strv_contains ((const char *const *) wanted, app_id))
        {
          g_autoptr(GVariant) info = g_variant_get_child_value (app, 1);
          SrCtlStoredApp row = { .app_id = app_id, .at_login = -1, .crash_loop = -1 };

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
          SrCtlStoredApp row = { .app_id = wanted[i], .at_login = -1, .crash_loop = -1 };
          g_array_append_val (rows, row);
          g_hash_table_add (seen, wanted[i]);
        }
    }
  for (guint i = 0; i < rows->len; i++)
    {
      SrCtlStoredApp *row = &g_array_index (rows, SrCtlStoredApp, i);
      row->excluded = excluded != NULL && g_strv_contains (excluded, row->app_id);
      row->admin_excluded = admin != NULL && g_strv_contains (admin, row->app_id);
    }
  return rows;
}

/* What the listing @apps could not read: its row with the app id "", whose
 * "errors" is an a{sas}, store name → messages. NULL when it read all. */
GVariant *
sr_ctl_stored_errors (GVariant *apps)
{
  gsize n_apps = g_variant_n_children (apps);
  g_autoptr(GVariant) last = n_apps > 0 ? g_variant_get_child_value (apps, n_apps - 1) : NULL;
  g_autoptr(GVariant) id = last != NULL ? g_variant_get_child_value (last, 0) : NULL;
  g_autoptr(GVariant) info = NULL;
  g_autoptr(GVariant) errors = NULL;

  /* The service puts it last. */
  if (id == NULL || *g_variant_get_string (id, NULL) != '\0')
    return NULL;
  info = g_variant_get_child_value (last, 1);
  errors = g_variant_lookup_value (info, "errors", G_VARIANT_TYPE ("a{sas}"));
  return errors != NULL && g_variant_n_children (errors) > 0 ? g_steal_pointer (&errors) : NULL;
}

/* Prints what @errors (from sr_ctl_stored_errors()) names, one line each,
 * on standard error. */
void
sr_ctl_stored_print_errors (GVariant *errors)
{
  GVariantIter stores;
  const char *store;
  GVariant *messages;

  g_variant_iter_init (&stores, errors);
  while (g_variant_iter_next (&stores, "{&s@as}", &store, &messages))
    {
      g_autofree const char **lines = g_variant_get_strv (messages, NULL);

      g_autofree char *store_shown = sr_ctl_escape (store);

      /* Store names and file names come from the disk: escaped. */
      for (guint i = 0; lines[i] != NULL; i++)
        {
          g_autofree char *shown = sr_ctl_escape (lines[i]);

          g_printerr ("session-restore-ctl: not listed (store %s): %s\n", store_shown, shown);
        }
      g_variant_unref (messages);
    }
}

/* "3 saved sessions (12 kB), 1 too old to be restored": one saved session
 * per app, as the panel's main page counts them and in its words, so that
 * the totals agree with the rows' notes. @noun: FALSE after a label that
 * names them already ("Saved sessions:   3 (12 kB)"). */
char *
sr_ctl_stored_totals (guint    saved,
                      guint    expired,
                      guint    cleared,
                      guint64  bytes,
                      gboolean noun)
{
  g_autofree char *size = g_format_size (bytes);
  GString *totals = g_string_new (NULL);

  g_string_append_printf (totals, "%u", saved);
  if (noun)
    g_string_append (totals, saved == 1 ? " saved session" : " saved sessions");
  g_string_append_printf (totals, " (%s)", size);
  if (expired > 0)
    g_string_append_printf (totals, ", %u too old to be restored", expired);
  if (cleared > 0)
    g_string_append_printf (totals, ", %u cleared, will not be restored", cleared);
  return g_string_free (totals, FALSE);
}

/* Whether the app of @app_id is installed: a desktop file of that name in
 * the applications folder of a data directory ($XDG_DATA_HOME, then
 * $XDG_DATA_DIRS), or exported by Flatpak (the user's installation, then
 * the system's), where Flatpak's own data directories are not listed. */
gboolean
sr_ctl_app_installed (const char *app_id)
{
  g_autofree char *name = g_strconcat (app_id, ".desktop", NULL);
  const char *const *system = g_get_system_data_dirs ();
  g_autoptr(GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);

  g_ptr_array_add (dirs, g_strdup (g_get_user_data_dir ()));
  for (guint i = 0; system[i] != NULL; i++)
    g_ptr_array_add (dirs, g_strdup (system[i]));
  g_ptr_array_add (dirs, g_build_filename (g_get_user_data_dir (), "flatpak", "exports", "share",
                                           NULL));
  g_ptr_array_add (dirs, g_strdup ("/var/lib/flatpak/exports/share"));
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (g_ptr_array_index (dirs, i), "applications",
                                                name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return TRUE;
    }
  return FALSE;
}

/* Before a command acts on the apps named on its command line (each a
 * valid app id): those that are not installed and have nothing saved,
 * most likely mistyped ids, of which it warns (sr_ctl_warn_unknown_app())
 * once it has done what was asked. None when the service will not list
 * (polkit) or could not read every store: nothing is claimed. */
GHashTable *
sr_ctl_unknown_apps (SrCtl  *ctl,
                     char  **app_ids)
{
  GHashTable *unknown = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GVariant) apps = NULL;
  g_autoptr(GVariant) unread = NULL;
  g_autoptr(GArray) rows = NULL;

  apps = sr_policy_client_list_stored_state_sync (ctl->client, SR_CALL_FLAGS_NONE, NULL, NULL);
  if (apps == NULL)
    return unknown;
  unread = sr_ctl_stored_errors (apps);
  if (unread != NULL)
    return unknown;
  rows = sr_ctl_stored_apps (ctl, apps, app_ids);
  for (guint i = 0; i < rows->len; i++)
    {
      const SrCtlStoredApp *row = &g_array_index (rows, SrCtlStoredApp, i);

      if (!row->stored && !sr_ctl_app_installed (row->app_id))
        g_hash_table_add (unknown, g_strdup (row->app_id));
    }
  return unknown;
}

/* On standard error, after the command's own line: an error stays one
 * line, so it is said only of what was done. */
void
sr_ctl_warn_unknown_app (GHashTable *unknown,
                         const char *app_id)
{
  if (g_hash_table_contains (unknown, app_id))
    g_printerr ("session-restore-ctl: warning: no app “%s” is installed, and it has "
                "no saved sessions; is the app id right?\n", app_id);
}

/* One app of the "apps" of exclude, include or allow-recovery --json:
 * what was done (@result) and whether it was warned of. */
void
sr_ctl_json_app_result (SrJson     *json,
                        const char *app_id,
                        const char *result,
                        GHashTable *unknown)
{
  sr_json_begin_object (json);
  sr_json_key (json, "app_id");
  sr_json_string (json, app_id);
  sr_json_key (json, "result");
  sr_json_string (json, result);
  sr_json_key (json, "installed");
  sr_json_bool (json, sr_ctl_app_installed (app_id));
  sr_json_key (json, "unknown");
  sr_json_bool (json, g_hash_table_contains (unknown, app_id));
  sr_json_end_object (json);
}
