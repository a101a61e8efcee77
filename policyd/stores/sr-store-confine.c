/* sr-store-confine.c: where a store may be, and what a user's drop-in may
 * declare
 *
 * Retention and Clear delete what a store's pattern matches, so a drop-in
 * decides what policyd deletes. For every drop-in (its pattern ends in
 * literal text: sr-store-dropin.c):
 * - the directory is not policyd's own state ($XDG_STATE_HOME/session-
 *   restore: a store there deleted the clear points, and a Clear was undone
 *   at the next start) nor below it; the walk also skips that directory
 *   when {app} or a path spelled otherwise leads there (sr-store-walk.c);
 * - the directory is reached from its base without following a link: the
 *   base is the longest of $HOME, the $XDG_*_HOME directories and
 *   ~/.var/app that holds it (those may be links: people move ~/.local or
 *   ~/.var to another disk), or "/" for a directory outside them all; a
 *   link anywhere below the base (a link in $XDG_STATE_HOME led Clear into
 *   ~/Documents) makes the walk skip the store with a warning.
 *
 * The user's own drop-ins ($XDG_CONFIG_HOME/session-restore/stores.d) can
 * be written by anything running as the user, a host program a sandboxed
 * app tricked included. They may declare only what policyd can check
 * before it deletes:
 * - Kind=files with Format=gtk, or Kind=entries with Format=gnome-session;
 *   a file of a user's files store is removed only when it reads as GTK
 *   state ("Directory=$XDG_DATA_HOME/{app}", "Pattern=*.keyring" deleted
 *   ~/.local/share/keyrings/login.keyring), and an entries file is only
 *   ever rewritten without the cleared apps' entries;
 * - no whole-file stores: those are removed unread, by the system's
 *   drop-ins only;
 * - a directory inside $XDG_STATE_HOME, $XDG_DATA_HOME or ~/.var/app
 *   (issue 13: "Directory=$HOME", "Pattern=*" deleted an old ~/Thesis.odt
 *   at start-up).
 * The distribution's and the administrator's ($datadir, /etc) may also
 * declare whole-file stores and files stores without a format, anywhere
 * but policyd's own state.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-store-confine"

#include "config.h"

#include <gio/gio.h>

#include "sr-state-file.h"
#include "sr-store-confine.h"

/* @path without "." components, repeated or trailing slashes: as
 * g_canonicalize_filename(), which keeps a leading "//" (POSIX leaves it to
 * the system; on Linux it is "/"). */
static char *
canonical_path (const char *path)
{
  g_autofree char *canonical = g_canonicalize_filename (path, "/");

  if (g_str_has_prefix (canonical, "//"))
    return g_strdup (canonical + 1);
  return g_steal_pointer (&canonical);
}

/* Whether @path is @base or below it; both absolute and canonical. */
static gboolean
path_is_within (const char *path,
                const char *base)
{
  gsize len = strlen (base);

  if (g_str_equal (base, "/"))
    return TRUE;
  return strncmp (path, base, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* The directories from which a store's root is reached following links
 * (see the top of this file), canonical. */
static GPtrArray *
link_bases (void)
{
  g_autoptr(GPtrArray) bases = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *flatpak_apps = g_build_filename (g_get_home_dir (), ".var", "app", NULL);
  const char *dirs[] = {
    g_get_home_dir (), g_get_user_state_dir (), g_get_user_data_dir (),
    g_get_user_config_dir (), g_get_user_cache_dir (), flatpak_apps,
  };

  for (gsize i = 0; i < G_N_ELEMENTS (dirs); i++)
    if (dirs[i] != NULL && g_path_is_absolute (dirs[i]))
      g_ptr_array_add (bases, canonical_path (dirs[i]));
  return g_steal_pointer (&bases);
}

static char *
find_base (const char *root)
{
  g_autoptr(GPtrArray) bases = link_bases ();
  const char *longest = "/";

  for (guint i = 0; i < bases->len; i++)
    if (path_is_within (root, bases->pdata[i]) && strlen (bases->pdata[i]) > strlen (longest))
      longest = bases->pdata[i];
  return g_strdup (longest);
}

/* The root relative to the base: "" when they are the same. */
const char *
sr_store_root_below_base (const SrStore *store)
{
  const char *below = store->root + strlen (store->base);

  while (*below == '/')
    below++;
  return below;
}

/* No drop-in may reach policyd's own state. */
static gboolean
check_not_own_state (const char  *root,
                     GError     **error)
{
  /* No name: the directory itself. */
  g_autofree char *own_dir = sr_state_file_path (NULL);
  g_autofree char *own = canonical_path (own_dir);

  if (!path_is_within (root, own))
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
               "Directory: “%s” is policyd's own state (clear points, crash counters): "
               "no store may be there", root);
  return FALSE;
}

/* A user drop-in's root must be inside one of the user's state
 * directories; a base that is $HOME or above it (XDG_STATE_HOME=$HOME)
 * confines nothing and does not count. */
static gboolean
check_user_root (const char  *root,
                 GError     **error)
{
  g_autofree char *home = canonical_path (g_get_home_dir ());
  g_autofree char *flatpak_apps = g_build_filename (home, ".var", "app", NULL);
  const char *bases[] = { g_get_user_state_dir (), g_get_user_data_dir (), flatpak_apps };

  for (gsize i = 0; i < G_N_ELEMENTS (bases); i++)
    {
      g_autofree char *base = NULL;

      if (bases[i] == NULL || !g_path_is_absolute (bases[i]))
        continue;
      base = canonical_path (bases[i]);
      if (path_is_within (home, base))
        continue;
      if (path_is_within (root, base))
        return TRUE;
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
               "Directory: “%s” is outside the user's state directories: a user's "
               "drop-in may only name stores inside $XDG_STATE_HOME, $XDG_DATA_HOME "
               "or $HOME/.var/app", root);
  return FALSE;
}

/* What only the system's drop-ins may declare (see the top of this file). */
static gboolean
check_user_store (const SrStore  *store,
                  GError        **error)
{
  if (store->kind == SR_STORE_WHOLE_FILE)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                           "Kind: a user's drop-in may not declare a whole-file store "
                           "(its files are removed unread); only the system's may");
      return FALSE;
    }
  if (store->kind == SR_STORE_FILES && store->format != SR_STORE_FORMAT_GTK)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                           "Format: a user's files store needs Format=gtk: only files "
                           "that read as GTK state are removed");
      return FALSE;
    }
  return check_user_root (store->root, error);
}

/* Makes @store's root canonical and finds its base; refuses a root of "/",
 * in policyd's own state, or one its origin may not declare. */
gboolean
sr_store_confine (SrStore  *store,
                  GError  **error)
{
  g_autofree char *root = canonical_path (store->root);

  g_free (store->root);
  store->root = g_steal_pointer (&root);
  if (g_str_equal (store->root, "/"))
    {
      g_set_error_literal (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                           "Directory: the root may not be /");
      return FALSE;
    }
  g_free (store->base);
  store->base = find_base (store->root);
  if (!check_not_own_state (store->root, error))
    return FALSE;
  return store->origin != SR_STORE_ORIGIN_USER || check_user_store (store, error);
}
