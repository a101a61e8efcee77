/* sr-installed-apps.c: the installed apps and the programs' names, read off the main thread
 *
 * Reading every desktop file takes a while with thousands of them, so it
 * is done on a worker thread. It gives the apps the Apps page lists and
 * the names of the programs that consult policyd ("Used by").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <string.h>

#include <gio/gdesktopappinfo.h>

#include "sr-app-id.h"
#include "sr-installed-apps.h"

void
sr_installed_apps_free (SrInstalledApps *apps)
{
  g_ptr_array_unref (apps->app_ids);
  g_ptr_array_unref (apps->infos);
  g_hash_table_unref (apps->programs);
  g_free (apps);
}

static gboolean
is_below (const char *path,
          const char *dir)
{
  gsize length = strlen (dir);

  return strncmp (path, dir, length) == 0 && path[length] == '/';
}

/* How a desktop file's directory ranks, as for ids: the user's data
 * directory first, then the system's in their order. */
static guint
desktop_file_rank (GAppInfo *info)
{
  const char *path = G_IS_DESKTOP_APP_INFO (info) ?
                     g_desktop_app_info_get_filename (G_DESKTOP_APP_INFO (info)) : NULL;
  const char * const *system = g_get_system_data_dirs ();
  guint i;

  if (path == NULL)
    return G_MAXUINT;
  if (is_below (path, g_get_user_data_dir ()))
    return 0;
  for (i = 0; system[i] != NULL; i++)
    if (is_below (path, system[i]))
      return i + 1;
  return i + 1;
}

/* The programs that consult policyd are named by their executables
 * (gnome-shell); most have a desktop file, often hidden (NoDisplay), whose
 * Name a person knows ("GNOME Shell"). Of several desktop files of one
 * executable, the one of the directory that ranks first names it, as it
 * would win for an id; @ranks: executable → its rank so far. */
static void
add_program_name (GHashTable *programs,
                  GHashTable *ranks,
                  GAppInfo   *info)
{
  const char *executable = g_app_info_get_executable (info);
  g_autofree char *base = executable != NULL ? g_path_get_basename (executable) : NULL;
  gpointer known;
  guint rank;

  if (base == NULL)
    return;
  rank = desktop_file_rank (info);
  if (g_hash_table_lookup_extended (ranks, base, NULL, &known) && GPOINTER_TO_UINT (known) <= rank)
    return;
  g_hash_table_insert (ranks, g_strdup (base), GUINT_TO_POINTER (rank));
  g_hash_table_insert (programs, g_steal_pointer (&base),
                       g_strdup (g_app_info_get_display_name (info)));
}

/* An app shown in menus, by the id policyd would take for it (firefox-esr
 * and vlc too); NULL for the others. */
static char *
dup_listed_app_id (GAppInfo *info)
{
  const char *id = g_app_info_get_id (info);
  g_autofree char *app_id = NULL;

  if (!g_app_info_should_show (info) || id == NULL || !g_str_has_suffix (id, ".desktop"))
    return NULL;
  app_id = g_strndup (id, strlen (id) - strlen (".desktop"));
  return sr_app_id_validate (app_id, NULL) ? g_steal_pointer (&app_id) : NULL;
}

static void
read_thread (GTask        *task,
             gpointer      source,
             gpointer      task_data,
             GCancellable *cancellable)
{
  SrInstalledApps *read = g_new0 (SrInstalledApps, 1);
  g_autolist(GAppInfo) infos = g_app_info_get_all ();
  g_autoptr(GHashTable) ranks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  read->app_ids = g_ptr_array_new_with_free_func (g_free);
  read->infos = g_ptr_array_new_with_free_func (g_object_unref);
  read->programs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (GList *l = infos; l != NULL; l = l->next)
    {
      char *app_id = dup_listed_app_id (l->data);

      if (app_id != NULL)
        {
          g_ptr_array_add (read->app_ids, app_id);
          g_ptr_array_add (read->infos, g_object_ref (l->data));
        }
      add_program_name (read->programs, ranks, l->data);
    }
  g_debug ("installed apps read: %u listed of %u", read->app_ids->len, g_list_length (infos));
  g_task_return_pointer (task, read, (GDestroyNotify) sr_installed_apps_free);
}

void
sr_installed_apps_read_async (GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, sr_installed_apps_read_async);
  g_task_run_in_thread (task, read_thread);
}

SrInstalledApps *
sr_installed_apps_read_finish (GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
