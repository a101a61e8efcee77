/* sr-store-dropin.c: where apps' state is stored, from *.store drop-ins
 *
 * A drop-in is a key file:
 *
 *   [Store]
 *   Description=GTK app state
 *   Kind=files                      (files, entries or whole-file)
 *   Directory=$XDG_STATE_HOME       ($HOME and $XDG_*_HOME are expanded;
 *                                    one component may be {app})
 *   Pattern={app}@*.state           (a file name: {app} is the app id,
 *                                    * any run of characters but "/")
 *   Format=gtk                      (the files' format: gtk for files,
 *                                    where it is optional but in a user's
 *                                    drop-in, and where it also asks of
 *                                    {app} an id GTK can name a file
 *                                    after, one with a dot;
 *                                    gnome-session for entries, where it
 *                                    is required)
 *
 * Drop-ins are read from the system directories first and the user's last;
 * a later file of the same name replaces an earlier one. One that does not
 * parse (a NUL byte anywhere, or a control character in a value, is
 * refused: either would name another path or pattern than the one that
 * reads), is not a regular file (a FIFO is not waited on) or is larger than
 * SR_STORE_DROPIN_MAX_SIZE is reported and skipped; the others still
 * count.
 *
 * Retention and Clear delete what a store's pattern matches, so a drop-in
 * decides what policyd deletes: every pattern must end in literal text
 * ("{app}@*.state", "session.gvdb"; not "*" or "{app}*"), and where a
 * store may be, and what a user's drop-in may declare, is
 * sr-store-confine.c's to say.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-store-dropin"

#include "config.h"

#include <gio/gio.h>

#include "sr-app-id.h"
#include "sr-format-gtk.h"
#include "sr-pattern.h"
#include "sr-store-confine.h"
#include "sr-store-dropin.h"
#include "sr-store-file.h"

/* A drop-in is a few lines; a larger one is refused unread. */
#define SR_STORE_DROPIN_MAX_SIZE (64 * 1024)

void
sr_store_free (SrStore *store)
{
  g_free (store->name);
  g_free (store->description);
  g_free (store->base);
  g_free (store->root);
  g_free (store->app_subdir);
  g_free (store->pattern);
  g_clear_pointer (&store->matcher, sr_pattern_free);
  g_free (store);
}

static const char *
expand_variable (const char *name)
{
  if (g_str_equal (name, "HOME"))
    return g_get_home_dir ();
  if (g_str_equal (name, "XDG_STATE_HOME"))
    return g_get_user_state_dir ();
  if (g_str_equal (name, "XDG_DATA_HOME"))
    return g_get_user_data_dir ();
  if (g_str_equal (name, "XDG_CONFIG_HOME"))
    return g_get_user_config_dir ();
  if (g_str_equal (name, "XDG_CACHE_HOME"))
    return g_get_user_cache_dir ();
  return NULL;
}

/* Expands $VARIABLES; the result must be absolute and free of "." and ".."
 * components so that the root is exactly what it says. */
static char *
expand_directory (const char  *directory,
                  GError     **error)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_auto(GStrv) parts = NULL;

  for (const char *p = directory; *p != '\0';)
    {
      if (*p == '$')
        {
          gsize len = strspn (p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
          g_autofree char *name = g_strndup (p + 1, len);
          const char *value = expand_variable (name);

          if (value == NULL)
            {
              g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                           "Directory: unknown variable $%s", name);
              return NULL;
            }
          g_string_append (out, value);
          p += 1 + len;
        }
      else
        g_string_append_c (out, *p++);
    }

  if (!g_path_is_absolute (out->str))
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "Directory: “%s” is not absolute", out->str);
      return NULL;
    }
  parts = g_strsplit (out->str, "/", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
      {
        g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                     "Directory: “%s” has a “.” or “..” component", out->str);
        return NULL;
      }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* A [Store] key's value into @out_value; NULL there when an @optional key
 * is absent. g_key_file_get_string() returns a string even when it also
 * sets an error (for an invalid escape sequence): a failure here. */
static gboolean
get_value (GKeyFile    *file,
           const char  *key,
           gboolean     optional,
           char       **out_value,
           GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *raw = g_key_file_get_value (file, "Store", key, NULL);
  g_autofree char *value = NULL;
  gsize backslashes = 0;

  /* GLib 2.74 sets its GError twice (a warning, and a leak) when a value
   * with an invalid escape also ends in a lone backslash; refuse those
   * before it unescapes. Found by fuzz-store. */
  for (gsize n = raw != NULL ? strlen (raw) : 0; n > 0 && raw[n - 1] == '\\'; n--)
    backslashes++;
  if (backslashes % 2 == 1)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "%s: the value ends with an escape character", key);
      return FALSE;
    }

  value = g_key_file_get_string (file, "Store", key, &local_error);
  if (local_error != NULL &&
      !(optional && g_error_matches (local_error, G_KEY_FILE_ERROR,
                                     G_KEY_FILE_ERROR_KEY_NOT_FOUND)))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  /* A tab or a line break (\t, \n) would make a path or a pattern that
   * is not the one written out plainly: refused, as any other control
   * character. */
  for (const char *c = local_error == NULL ? value : ""; *c != '\0'; c++)
    if (g_ascii_iscntrl (*c))
      {
        g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                     "%s: the value holds a control character (0x%02x)", key, (guchar) *c);
        return FALSE;
      }
  *out_value = local_error == NULL ? g_steal_pointer (&value) : NULL;
  return TRUE;
}

/* What a store's files hold, from Format=; each kind has its own. */
static gboolean
parse_format (SrStore     *store,
              const char  *kind,
              const char  *format,
              GError     **error)
{
  switch (store->kind)
    {
    case SR_STORE_FILES:
      if (format == NULL)
        store->format = SR_STORE_FORMAT_NONE;
      else if (g_str_equal (format, "gtk"))
        store->format = SR_STORE_FORMAT_GTK;
      else
        break;
      return TRUE;
    case SR_STORE_ENTRIES:
      if (g_strcmp0 (format, "gnome-session") != 0)
        break;
      store->format = SR_STORE_FORMAT_GNOME_SESSION;
      return TRUE;
    case SR_STORE_WHOLE_FILE:
    default:
      if (format != NULL)
        break;
      store->format = SR_STORE_FORMAT_NONE;
      return TRUE;
    }

  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
               "Format: “%s” is not a known format for Kind=%s (known: %s)",
               format ? format : "", kind,
               store->kind == SR_STORE_FILES ? "gtk, or no Format" :
               store->kind == SR_STORE_ENTRIES ? "gnome-session" : "no Format");
  return FALSE;
}

/* @name: the drop-in's file name without ".store". */
SrStore *
sr_store_load_key_file (GKeyFile       *file,
                        const char     *name,
                        SrStoreOrigin   origin,
                        GError        **error)
{
  g_autoptr(SrStore) store = g_new0 (SrStore, 1);
  g_autofree char *kind = NULL;
  g_autofree char *directory = NULL;
  g_autofree char *expanded = NULL;
  g_autofree char *format = NULL;
  const char *at;
  gboolean pattern_has_app;

  store->name = g_strdup (name);
  store->origin = origin;
  if (!get_value (file, "Description", TRUE, &store->description, error) ||
      !get_value (file, "Kind", FALSE, &kind, error) ||
      !get_value (file, "Directory", FALSE, &directory, error) ||
      !get_value (file, "Pattern", FALSE, &store->pattern, error) ||
      !get_value (file, "Format", TRUE, &format, error))
    return NULL;
  if (store->description == NULL)
    store->description = g_strdup (store->name);

  if (g_str_equal (kind, "files"))
    store->kind = SR_STORE_FILES;
  else if (g_str_equal (kind, "entries"))
    store->kind = SR_STORE_ENTRIES;
  else if (g_str_equal (kind, "whole-file"))
    store->kind = SR_STORE_WHOLE_FILE;
  else
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "Kind: “%s” is not files, entries or whole-file", kind);
      return NULL;
    }

  if (!parse_format (store, kind, format, error))
    return NULL;

  if (*store->pattern == '\0' || strchr (store->pattern, '/') != NULL)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "Pattern: “%s” must be a non-empty file name", store->pattern);
      return NULL;
    }
  store->matcher = sr_pattern_new (store->pattern, error);
  if (store->matcher == NULL)
    return NULL;
  pattern_has_app = sr_pattern_has_app (store->matcher);
  if (!sr_pattern_ends_in_text (store->matcher))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                   "Pattern: “%s” must end in literal text (like “{app}@*.state”): "
                   "it would match every file name", store->pattern);
      return NULL;
    }

  expanded = expand_directory (directory, error);
  if (expanded == NULL)
    return NULL;

  /* Split at the {app} component, if any. */
  at = strstr (expanded, "/{app}");
  if (at != NULL && (at[6] == '/' || at[6] == '\0') && strstr (at + 6, "{app}") == NULL &&
      g_strstr_len (expanded, at - expanded, "{app}") == NULL)
    {
      store->root = g_strndup (expanded, at - expanded);
      store->app_subdir = g_strdup (at[6] == '/' ? at + 7 : "");
    }
  else if (strstr (expanded, "{app}") != NULL)
    {
      g_set_error_literal (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                           "Directory: {app} must be one whole component, once");
      return NULL;
    }
  else
    store->root = g_steal_pointer (&expanded);

  if (store->kind == SR_STORE_WHOLE_FILE && (pattern_has_app || store->app_subdir != NULL))
    {
      g_set_error_literal (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                           "A whole-file store holds no app: {app} is not allowed");
      return NULL;
    }
  if (store->kind == SR_STORE_FILES && !pattern_has_app && store->app_subdir == NULL)
    {
      g_set_error_literal (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                           "A files store needs {app} in Directory or Pattern");
      return NULL;
    }
  if (store->kind == SR_STORE_ENTRIES && (pattern_has_app || store->app_subdir != NULL))
    {
      g_set_error_literal (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                           "An entries store names its apps inside the file: {app} is not allowed");
      return NULL;
    }
  if (!sr_store_confine (store, error))
    return NULL;

  return g_steal_pointer (&store);
}

SrStore *
sr_store_load_file (const char     *path,
                    SrStoreOrigin   origin,
                    GError        **error)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autofree char *basename = g_path_get_basename (path);
  gsize len = strlen (basename);
  g_autoptr(GBytes) bytes = NULL;
  gsize size;
  const char *data;
  const char *nul;

  if (g_str_has_suffix (basename, ".store"))
    len -= strlen (".store");
  basename[len] = '\0';

  /* Anything running as the user writes its drop-ins: a FIFO there held
   * the store worker in open() for good, and a file of a million comment
   * lines made GKeyFile hundreds of MiB of lists. */
  bytes = sr_store_file_read_path (path, SR_STORE_DROPIN_MAX_SIZE, error);
  if (bytes == NULL)
    return NULL;
  data = g_bytes_get_data (bytes, &size);
  /* GKeyFile keeps each line as a C string: a NUL byte in a value cut it
   * short there, and "Directory=$XDG_STATE_HOME\0/notes" named the whole
   * of the state directory. */
  nul = data != NULL ? memchr (data, '\0', size) : NULL;
  if (nul != NULL)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE,
                   "a NUL byte at offset %" G_GSIZE_FORMAT, (gsize) (nul - data));
      return NULL;
    }
  if (!g_key_file_load_from_data (file, data != NULL ? data : "", size, G_KEY_FILE_NONE, error))
    return NULL;
  return sr_store_load_key_file (file, basename, origin, error);
}

/* Matches a file name; for patterns with {app}, the app id must be valid,
 * and for GTK's files one GTK can have named a file after
 * (sr_format_gtk_app_id_is_valid(): "gnome-session@gnome.state" is no
 * app's, whatever "{app}@*.state" says). */
gboolean
sr_store_match (const SrStore  *store,
                const char     *file_name,
                char          **out_app_id)
{
  g_autofree char *app_id = NULL;

  /* A name from readdir() is any bytes; one that is not UTF-8 is none of
   * ours (and the regular expressions once used here were undefined on
   * it: "A@\xed\xa0\x80.state" matched). */
  if (file_name[0] == '.' || !g_utf8_validate (file_name, -1, NULL) ||
      !sr_pattern_match (store->matcher, file_name, &app_id))
    return FALSE;
  if (app_id != NULL && !sr_app_id_validate (app_id, NULL))
    return FALSE;
  if (app_id != NULL && store->format == SR_STORE_FORMAT_GTK &&
      !sr_format_gtk_app_id_is_valid (app_id))
    return FALSE;
  if (out_app_id != NULL)
    *out_app_id = g_steal_pointer (&app_id);
  return TRUE;
}

/* The system's directories, then the user's, from
 * *@out_first_user_dir on. */
char **
sr_store_default_dirs (guint *out_first_user_dir)
{
  g_autoptr(GStrvBuilder) dirs = g_strv_builder_new ();
  g_autofree char *system = g_build_filename (DATADIR, "session-restore", "stores.d", NULL);
  g_autofree char *admin = g_build_filename (SYSCONFDIR, "session-restore", "stores.d", NULL);
  g_autofree char *user = g_build_filename (g_get_user_config_dir (), "session-restore",
                                            "stores.d", NULL);
#if SR_TEST_BUILD
  /* The tests, and tools/run, give the shipped drop-ins as the system's
   * without installing them. Only a build with the tests reads this: an
   * installed policyd would let whatever can set the session's environment
   * (~/.config/environment.d) make its own drop-ins the system's. */
  const char *test_system = g_getenv ("SR_SYSTEM_STORES_DIR");

  if (test_system != NULL && *test_system != '\0')
    {
      g_free (system);
      system = g_strdup (test_system);
    }
#endif

  g_strv_builder_add_many (dirs, system, admin, user, NULL);
  *out_first_user_dir = 2;
  return g_strv_builder_end (dirs);
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  const SrStore *sa = *(SrStore * const *) a;
  const SrStore *sb = *(SrStore * const *) b;
  return strcmp (sa->name, sb->name);
}

typedef struct {
  char *path;
  SrStoreOrigin origin;
} DropIn;

static void
drop_in_free (DropIn *drop_in)
{
  g_free (drop_in->path);
  g_free (drop_in);
}

/* Loads the drop-ins of @dirs, later directories winning by file name;
 * those of @dirs[@first_user_dir] and after are the user's (confined). */
GPtrArray *
sr_store_load_dirs (const char * const *dirs,
                    guint               first_user_dir)
{
  g_autoptr(GHashTable) by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) drop_in_free);
  g_autoptr(GPtrArray) stores = g_ptr_array_new_with_free_func ((GDestroyNotify) sr_store_free);
  GHashTableIter iter;
  gpointer name, value;

  for (guint i = 0; dirs[i] != NULL; i++)
    {
      g_autoptr(GDir) dir = g_dir_open (dirs[i], 0, NULL);
      const char *entry;

      while (dir != NULL && (entry = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (entry, ".store") && entry[0] != '.')
          {
            DropIn *drop_in = g_new0 (DropIn, 1);

            drop_in->path = g_build_filename (dirs[i], entry, NULL);
            drop_in->origin = i >= first_user_dir ? SR_STORE_ORIGIN_USER : SR_STORE_ORIGIN_SYSTEM;
            g_hash_table_replace (by_name, g_strdup (entry), drop_in);
          }
    }

  g_hash_table_iter_init (&iter, by_name);
  while (g_hash_table_iter_next (&iter, &name, &value))
    {
      const DropIn *drop_in = value;
      g_autoptr(GError) error = NULL;
      SrStore *store = sr_store_load_file (drop_in->path, drop_in->origin, &error);

      /* A refused drop-in (one that would let retention or Clear delete
       * what is not app state) is said loudly: its store is not cleared. */
      if (store == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
        g_warning ("Refusing the %s store drop-in %s: %s",
                   drop_in->origin == SR_STORE_ORIGIN_USER ? "user's" : "system",
                   drop_in->path, error->message);
      else if (store == NULL)
        g_warning ("Ignoring the store drop-in %s: %s", drop_in->path, error->message);
      else
        g_ptr_array_add (stores, store);
    }

  g_ptr_array_sort (stores, compare_names);
  return g_steal_pointer (&stores);
}
