/* sr-store-walk.c: listing and removing what a store holds
 *
 * Everything below a store's root is reached through directory fds with
 * openat()/unlinkat() and O_NOFOLLOW: a symbolic link is never followed,
 * so nothing outside the root can be read or removed, whatever the files
 * inside it are renamed to meanwhile. Only regular files whose names match
 * the store's pattern are touched. A file that cannot be read or does not
 * parse is reported and skipped; nothing here gives up on a whole store
 * for one bad file. A file of per-app entries loses an app by a rewrite
 * (sr-store-file.c) that starts over when its owner saves it meanwhile.
 *
 * Listing looks into GTK state files to count their windows. Reading and
 * checking one costs several times what listing it does, so a listing of
 * one store looks into at most LIST_GTK_FILES files of at most
 * LIST_GTK_MAX_SIZE bytes each, LIST_GTK_BYTES in all: a user's few hundred
 * files are all counted, and a tree of ten thousand is still listed
 * quickly. An app whose files were not all counted gets no window count.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-store-walk"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>

#include "sr-app-id.h"
#include "sr-fd.h"
#include "sr-format-gnome-session.h"
#include "sr-format-gtk.h"
#include "sr-store-file.h"
#include "sr-store-walk.h"

#define LIST_GTK_MAX_SIZE (64 * 1024)
#define LIST_GTK_FILES 1000
#define LIST_GTK_BYTES (4 * 1024 * 1024)
/* How often a session file is read again when its owner saved it while
 * it was being rewritten, and the pause before each new try (times the
 * tries so far): a few hundredths of a second in all. */
#define REWRITE_ATTEMPTS 10
#define REWRITE_BACKOFF_USEC 1000

/* What add_usage() is told about an entry's windows. */
#define WINDOWS_NOT_COUNTED -1   /* a GTK state file that was not looked into */
#define WINDOWS_NONE        -2   /* not a GTK state file */

void
sr_app_usage_free (SrAppUsage *usage)
{
  g_ptr_array_unref (usage->stores);
  g_free (usage);
}

void
sr_store_report_init (SrStoreReport *report)
{
  *report = (SrStoreReport) {
    .errors = g_ptr_array_new_with_free_func (g_free),
    .apps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
  };
}

void
sr_store_report_clear (SrStoreReport *report)
{
  g_clear_pointer (&report->errors, g_ptr_array_unref);
  g_clear_pointer (&report->apps, g_hash_table_unref);
}

static gint64
mtime_usec (const struct stat *st)
{
  return (gint64) st->st_mtim.tv_sec * G_USEC_PER_SEC + st->st_mtim.tv_nsec / 1000;
}

static void G_GNUC_PRINTF (2, 3)
add_error (GPtrArray  *errors,
           const char *format,
           ...)
{
  va_list args;
  char *message;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_debug ("%s", message);
  g_ptr_array_add (errors, message);
}

/* Opens @name below @dir_fd as a directory, never through a link.
 * Returns -1 with errno ENOENT (and no message) when it does not exist. */
static int
open_dir_at (int         dir_fd,
             const char *name,
             const char *shown_path,
             GPtrArray  *errors)
{
  int fd = openat (dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0 && errno != ENOENT)
    {
      int saved_errno = errno;
      add_error (errors, "%s: %s", shown_path,
                 saved_errno == ELOOP || saved_errno == ENOTDIR ?
                 "a symbolic link or not a directory; not followed" :
                 g_strerror (saved_errno));
      errno = saved_errno;
    }
  return fd;
}

/* The root's parents are the user's own directories and may be links; the
 * root itself may not. */
static int
open_root (const SrStore *store,
           GPtrArray     *errors)
{
  g_autofree char *parent = g_path_get_dirname (store->root);
  g_autofree char *base = g_path_get_basename (store->root);
  g_auto(SrFd) parent_fd = open (parent, O_PATH | O_DIRECTORY | O_CLOEXEC);

  if (parent_fd < 0)
    {
      if (errno != ENOENT)
        add_error (errors, "%s: %s", parent, g_strerror (errno));
      return -1;
    }
  return open_dir_at (parent_fd, base, store->root, errors);
}

/* Follows @relative ("a/b", or "" for @dir_fd itself) one component at a
 * time. */
static int
open_relative (int         dir_fd,
               const char *relative,
               const char *shown_base,
               GPtrArray  *errors)
{
  g_auto(GStrv) parts = g_strsplit (relative, "/", -1);
  g_autofree char *shown = NULL;
  g_auto(SrFd) fd = fcntl (dir_fd, F_DUPFD_CLOEXEC, 3);

  for (guint i = 0; fd >= 0 && parts[i] != NULL; i++)
    {
      int next;
      char *shown_next;

      if (*parts[i] == '\0')
        continue;
      shown_next = g_build_filename (shown != NULL ? shown : shown_base, parts[i], NULL);
      g_free (shown);
      shown = shown_next;
      next = open_dir_at (fd, parts[i], shown, errors);
      sr_fd_close (fd);
      fd = next;
    }
  return sr_fd_steal (&fd);
}

/* Called with each name in a directory; callbacks match the name before
 * they stat it, so that a directory shared with other stores costs a
 * readdir, not a stat per foreign file. */
typedef void (*EntryFunc) (int         dir_fd,
                           const char *dir_path,
                           const char *name,
                           gpointer    user_data);

/* FALSE when the entry went away meanwhile. Never follows a link. */
static gboolean
stat_entry (int          dir_fd,
            const char  *name,
            struct stat *st)
{
  return fstatat (dir_fd, name, st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* @hidden: the names that start with a dot (and only those), else the
 * others. */
static void
foreach_entry_named (int         dir_fd,
                     const char *dir_path,
                     GPtrArray  *errors,
                     gboolean    hidden,
                     EntryFunc   func,
                     gpointer    user_data)
{
  g_auto(SrFd) fd = openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fd >= 0 ? fdopendir (fd) : NULL;
  struct dirent *entry;

  if (dir == NULL)
    {
      add_error (errors, "%s: %s", dir_path, g_strerror (errno));
      return;
    }
  /* The stream owns it now. */
  fd = -1;

  while ((errno = 0, entry = readdir (dir)) != NULL)
    {
      if ((entry->d_name[0] == '.') == hidden)
        func (dir_fd, dir_path, entry->d_name, user_data);
    }
  if (errno != 0)
    add_error (errors, "%s: %s", dir_path, g_strerror (errno));
  closedir (dir);
}

static void
foreach_entry (int         dir_fd,
               const char *dir_path,
               GPtrArray  *errors,
               EntryFunc   func,
               gpointer    user_data)
{
  foreach_entry_named (dir_fd, dir_path, errors, FALSE, func, user_data);
}

/* -- What one pass over a store does with each file ---------------------- */

typedef struct {
  const SrStore *store;
  const char *dir_app;          /* app id named by the directory, or NULL */
  GHashTable *usage;            /* listing: app id → SrAppUsage */
  GHashTable *apps;             /* removing: which apps; NULL for all */
  gint64 older_than;
  SrStoreReport *report;        /* removing */
  GPtrArray *errors;
  guint gtk_files_left;         /* listing: what may still be read */
  guint64 gtk_bytes_left;
} Pass;

/* @windows: a count, WINDOWS_NOT_COUNTED or WINDOWS_NONE. */
static void
add_usage (Pass       *pass,
           const char *app_id,
           guint       entries,
           guint64     bytes,
           gint64      saved,
           gint64      windows)
{
  SrAppUsage *usage = g_hash_table_lookup (pass->usage, app_id);

  if (usage == NULL)
    {
      usage = g_new0 (SrAppUsage, 1);
      usage->stores = g_ptr_array_new ();
      g_hash_table_insert (pass->usage, g_strdup (app_id), usage);
    }
  usage->entries += entries;
  usage->bytes += bytes;
  usage->last_saved = MAX (usage->last_saved, saved);
  if (windows >= 0)
    usage->windows = (guint) MIN ((guint64) usage->windows + windows, G_MAXUINT);
  if (windows != WINDOWS_NONE)
    usage->gtk_files++;
  if (windows == WINDOWS_NOT_COUNTED)
    usage->gtk_files_not_counted++;
  if (pass->store->format == SR_STORE_FORMAT_GNOME_SESSION)
    usage->at_login = TRUE;
  if (!g_ptr_array_find_with_equal_func (usage->stores, pass->store->name, g_str_equal, NULL))
    g_ptr_array_add (usage->stores, pass->store->name);
}

static gboolean
should_remove (Pass              *pass,
               const char        *app_id,
               const struct stat *st)
{
  if (pass->apps != NULL && (app_id == NULL || !g_hash_table_contains (pass->apps, app_id)))
    return FALSE;
  return pass->older_than == 0 || mtime_usec (st) < pass->older_than;
}

static void
remove_file (Pass              *pass,
             int                dir_fd,
             const char        *dir_path,
             const char        *name,
             const struct stat *st,
             const char        *app_id)
{
  if (unlinkat (dir_fd, name, 0) != 0)
    {
      if (errno != ENOENT)
        add_error (pass->errors, "%s/%s: %s", dir_path, name, g_strerror (errno));
      return;
    }
  pass->report->entries++;
  pass->report->bytes += st->st_size;
  if (app_id != NULL)
    g_hash_table_add (pass->report->apps, g_strdup (app_id));
}

/* The windows in a GTK state file, WINDOWS_NOT_COUNTED when it is too
 * large, over the listing's budget or does not parse, WINDOWS_NONE when
 * the store is not GTK's. */
static gint64
count_windows (Pass              *pass,
               int                dir_fd,
               const char        *dir_path,
               const char        *name,
               const struct stat *st)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  struct stat now;
  guint windows;

  if (pass->store->format != SR_STORE_FORMAT_GTK)
    return WINDOWS_NONE;
  if (st->st_size > LIST_GTK_MAX_SIZE || (guint64) st->st_size > pass->gtk_bytes_left ||
      pass->gtk_files_left == 0)
    return WINDOWS_NOT_COUNTED;

  bytes = sr_store_file_read (dir_fd, name, LIST_GTK_MAX_SIZE, &now, NULL, &error);
  if (bytes == NULL)
    {
      /* Gone since it was listed is no news. */
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        add_error (pass->errors, "%s/%s: %s; its windows are not counted", dir_path, name,
                   error->message);
      return WINDOWS_NOT_COUNTED;
    }
  pass->gtk_files_left--;
  pass->gtk_bytes_left -= MIN (g_bytes_get_size (bytes), pass->gtk_bytes_left);
  if (!sr_format_gtk_parse (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                           &windows, &error))
    {
      add_error (pass->errors, "%s/%s %s; its windows are not counted", dir_path, name,
                 error->message);
      return WINDOWS_NOT_COUNTED;
    }
  return windows;
}

static void
on_file_entry (int         dir_fd,
               const char *dir_path,
               const char *name,
               gpointer    user_data)
{
  Pass *pass = user_data;
  g_autofree char *app_id = NULL;
  struct stat stat_buf, *st = &stat_buf;
  const char *app;

  if (!sr_store_match (pass->store, name, &app_id))
    return;
  app = app_id != NULL ? app_id : pass->dir_app;
  if (app_id != NULL && pass->dir_app != NULL && !g_str_equal (app_id, pass->dir_app))
    return;
  if (!stat_entry (dir_fd, name, st))
    return;

  if (!S_ISREG (st->st_mode))
    {
      if (pass->report != NULL && should_remove (pass, app, st))
        add_error (pass->errors, "%s/%s: not a regular file; left alone", dir_path, name);
      return;
    }

  if (pass->usage != NULL)
    {
      if (app != NULL)
        add_usage (pass, app, 1, st->st_size, mtime_usec (st),
                   count_windows (pass, dir_fd, dir_path, name, st));
    }
  else if (should_remove (pass, app, st) &&
           (app != NULL || pass->store->kind == SR_STORE_WHOLE_FILE))
    remove_file (pass, dir_fd, dir_path, name, st, app);
}

/* -- gnome-session files --------------------------------------------------- */

/* @out_fd: (out) (optional): the file read, still open. */
static GVariant *
read_session_file (int                dir_fd,
                   const char        *path,
                   const char        *name,
                   struct stat       *st,
                   int               *out_fd,
                   GPtrArray         *errors)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GVariant *state;

  bytes = sr_store_file_read (dir_fd, name, SR_FORMAT_GNOME_SESSION_MAX_SIZE, st, out_fd, &error);
  if (bytes == NULL)
    {
      add_error (errors, "%s: %s", path, error->message);
      return NULL;
    }

  state = sr_format_gnome_session_parse (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                  &error);
  if (state == NULL)
    add_error (errors, "%s %s; skipped", path, error->message);
  return state;
}

static void
on_session_usage_cb (const char *app_id,
                     guint       entries,
                     guint64     bytes,
                     gpointer    user_data)
{
  Pass *pass = user_data;

  add_usage (pass, app_id, entries, bytes, pass->older_than, WINDOWS_NONE);
}

/* Removes the entries of the pass's apps from the session file @name,
 * starting over from the owner's file each time the owner saved it
 * meanwhile (sr_store_file_replace()); after REWRITE_ATTEMPTS it gives up
 * and says so. */
static void
remove_session_entries (Pass       *pass,
                        int         dir_fd,
                        const char *path,
                        const char *name)
{
  for (guint attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++)
    {
      g_auto(SrFd) read_fd = -1;
      g_autoptr(GVariant) state = NULL;
      g_autoptr(GVariant) without = NULL;
      g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(GError) error = NULL;
      struct stat st;
      guint entries;
      guint64 bytes;

      /* Gone meanwhile: nothing left to remove. */
      if (attempt > 0 && !stat_entry (dir_fd, name, &st) && errno == ENOENT)
        return;
      state = read_session_file (dir_fd, path, name, &st, &read_fd, pass->errors);
      if (state == NULL)
        return;
      if (pass->older_than != 0 && mtime_usec (&st) >= pass->older_than)
        return;
      without = sr_format_gnome_session_without (state, pass->apps, &entries, &bytes, apps);
      if (without == NULL)
        return;

      switch (sr_store_file_replace (dir_fd, name, read_fd, &st, without, &error))
        {
        case SR_STORE_FILE_REPLACED:
          pass->report->entries += entries;
          pass->report->bytes += bytes;
          for (guint i = 0; i < apps->len; i++)
            g_hash_table_add (pass->report->apps, g_strdup (apps->pdata[i]));
          return;
        case SR_STORE_FILE_FAILED:
          add_error (pass->errors, "%s: %s", path, error->message);
          return;
        case SR_STORE_FILE_CHANGED:
        default:
          g_debug ("%s: its owner saved it meanwhile; starting over", path);
          /* An owner saving in a burst: let it finish. */
          g_usleep (attempt * REWRITE_BACKOFF_USEC);
          break;
        }
    }
  add_error (pass->errors, "%s: its owner saved it again each time it was about to be "
             "rewritten (%u times); left as it was", path, (guint) REWRITE_ATTEMPTS);
}

static void
on_session_entry (int         dir_fd,
                  const char *dir_path,
                  const char *name,
                  gpointer    user_data)
{
  Pass *pass = user_data;
  g_autofree char *path = NULL;
  g_autoptr(GVariant) state = NULL;
  struct stat st;
  gint64 saved;

  /* read_session_file() opens it without following links and checks that
   * it is a regular file. */
  if (!sr_store_match (pass->store, name, NULL))
    return;

  path = g_build_filename (dir_path, name, NULL);
  if (pass->usage == NULL)
    {
      remove_session_entries (pass, dir_fd, path, name);
      return;
    }

  state = read_session_file (dir_fd, path, name, &st, NULL, pass->errors);
  if (state == NULL)
    return;
  /* Per-app times are not in the file: its own time stands for all. */
  saved = pass->older_than;
  pass->older_than = mtime_usec (&st);
  sr_format_gnome_session_foreach_app (state, on_session_usage_cb, pass);
  pass->older_than = saved;
}

/* A temporary copy a kill during an earlier rewrite left (sr-store-file.c):
 * nobody's, and never renamed in now. */
static void
on_leftover_entry (int         dir_fd,
                   const char *dir_path,
                   const char *name,
                   gpointer    user_data)
{
  Pass *pass = user_data;
  struct stat st;

  if (!sr_store_file_is_leftover (pass->store, name) || !stat_entry (dir_fd, name, &st) ||
      !S_ISREG (st.st_mode))
    return;
  if (unlinkat (dir_fd, name, 0) != 0)
    {
      if (errno != ENOENT)
        add_error (pass->errors, "%s/%s: %s", dir_path, name, g_strerror (errno));
      return;
    }
  g_message ("Removed %s/%s, left by an interrupted rewrite", dir_path, name);
  pass->report->bytes += st.st_size;
}

/* -- One pass over a whole store ------------------------------------------- */

static void
collect_app_dir (int         dir_fd,
                 const char *dir_path,
                 const char *name,
                 gpointer    user_data)
{
  GPtrArray *apps = user_data;
  struct stat st;

  /* A link here is reported when it is opened (open_dir_at). */
  if (sr_app_id_validate (name, NULL) && stat_entry (dir_fd, name, &st) &&
      (S_ISDIR (st.st_mode) || S_ISLNK (st.st_mode)))
    g_ptr_array_add (apps, g_strdup (name));
}

static void
run_pass (Pass *pass)
{
  const SrStore *store = pass->store;
  g_auto(SrFd) root_fd = open_root (store, pass->errors);

  if (root_fd < 0)
    return;

  if (store->kind == SR_STORE_ENTRIES)
    {
      foreach_entry (root_fd, store->root, pass->errors, on_session_entry, pass);
      /* Any removal takes what a kill during an earlier rewrite left. */
      if (pass->report != NULL)
        foreach_entry_named (root_fd, store->root, pass->errors, TRUE, on_leftover_entry, pass);
    }
  else if (store->app_subdir == NULL)
    foreach_entry (root_fd, store->root, pass->errors, on_file_entry, pass);
  else
    {
      g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func (g_free);

      /* Clearing some apps opens just their directories; anything else
       * looks at every directory named like an app. */
      if (pass->apps != NULL)
        {
          GHashTableIter iter;
          gpointer app;

          g_hash_table_iter_init (&iter, pass->apps);
          while (g_hash_table_iter_next (&iter, &app, NULL))
            g_ptr_array_add (apps, g_strdup (app));
        }
      else
        foreach_entry (root_fd, store->root, pass->errors, collect_app_dir, apps);

      for (guint i = 0; i < apps->len; i++)
        {
          const char *app = apps->pdata[i];
          g_autofree char *app_path = g_build_filename (store->root, app, NULL);
          g_autofree char *dir_path = g_build_filename (app_path, store->app_subdir, NULL);
          g_auto(SrFd) app_fd = open_dir_at (root_fd, app, app_path, pass->errors);
          g_auto(SrFd) dir_fd = app_fd >= 0 ? open_relative (app_fd, store->app_subdir,
                                                             app_path, pass->errors) : -1;

          if (dir_fd >= 0)
            {
              pass->dir_app = app;
              foreach_entry (dir_fd, dir_path, pass->errors, on_file_entry, pass);
              pass->dir_app = NULL;
            }
        }
    }
}

void
sr_store_walk_list (const SrStore *store,
               GHashTable    *usage,
               GPtrArray     *errors)
{
  Pass pass = {
    .store = store,
    .usage = usage,
    .errors = errors,
    .gtk_files_left = LIST_GTK_FILES,
    .gtk_bytes_left = LIST_GTK_BYTES,
  };

  run_pass (&pass);
}

void
sr_store_walk_remove (const SrStore *store,
                 GHashTable    *apps,
                 gint64         older_than,
                 SrStoreReport *report)
{
  Pass pass = {
    .store = store,
    .apps = apps,
    .older_than = older_than,
    .report = report,
    .errors = report->errors,
  };

  /* A whole-file store holds every app at once: only "everything" (or
   * age) removes it. */
  if (store->kind == SR_STORE_WHOLE_FILE && apps != NULL)
    return;
  run_pass (&pass);
}

/* At start-up: the temporary files a kill during a rewrite left in
 * @store (sr-store-file.c), even when nothing else is removed. */
void
sr_store_walk_remove_leftovers (const SrStore *store,
                                SrStoreReport *report)
{
  Pass pass = {
    .store = store,
    .report = report,
    .errors = report->errors,
  };
  g_auto(SrFd) root_fd = -1;

  if (store->kind != SR_STORE_ENTRIES)
    return;
  root_fd = open_root (store, report->errors);
  if (root_fd >= 0)
    foreach_entry_named (root_fd, store->root, report->errors, TRUE, on_leftover_entry, &pass);
}
