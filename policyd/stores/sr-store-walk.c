/* sr-store-walk.c: listing and removing what a store holds
 *
 * A store's root is reached from its base (sr-store-dropin.c), and
 * everything from there on through directory fds with openat()/unlinkat()
 * and O_NOFOLLOW: a symbolic link below the base is never followed, so
 * nothing outside the root can be read or removed, whatever the files
 * inside it are renamed to meanwhile; a link on the way to the root skips
 * the store, with an error. Only regular files whose names match the
 * store's pattern are touched, a user's store's only when they read as GTK
 * state, and never anything in policyd's own state directory. A file that
 * cannot be read or does not parse is reported and skipped; nothing here
 * gives up on a whole store for one bad file. A file of per-app entries
 * loses an app by a rewrite (sr-store-file.c) that starts over when its
 * owner saves it meanwhile.
 *
 * Listing looks into GTK state files to count their windows. Reading and
 * checking one costs several times what listing it does, so a listing
 * looks into at most LIST_GTK_APP_FILES files (LIST_GTK_APP_BYTES) of each
 * app, of at most LIST_GTK_MAX_SIZE bytes each, and into at most
 * LIST_GTK_FILES (LIST_GTK_BYTES) of one store: a user's few hundred files
 * are all counted, a tree of ten thousand is still listed quickly, and one
 * app with a thousand files (a Flatpak app writes its own directory) costs
 * the others nothing: it used to spend the store's whole budget. An app
 * whose files were not all counted gets no window count.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-store-walk"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>

#include "sr-app-id.h"
#include "sr-fd.h"
#include "sr-format-gnome-session.h"
#include "sr-format-gtk.h"
#include "sr-state-file.h"
#include "sr-store-confine.h"
#include "sr-store-file.h"
#include "sr-store-walk.h"

#define LIST_GTK_MAX_SIZE (64 * 1024)
#define LIST_GTK_APP_FILES 64
#define LIST_GTK_APP_BYTES (1024 * 1024)
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

/* The last second of the year 9999, UTC: later than any real save. */
#define FILE_TIME_MAX_SEC G_GINT64_CONSTANT (253402300799)

/* A file's time in µs, taken as between 1970 and FILE_TIME_MAX_SEC: it is
 * whatever the file's writer set (tmpfs and btrfs keep any 64-bit
 * second), and a second past the year 294,246 overflows in µs, which made
 * a file saved "in the future" look older than any limit (purged as
 * expired, listed as cleared). */
static gint64
mtime_usec (const struct stat *st)
{
  gint64 seconds = CLAMP ((gint64) st->st_mtim.tv_sec, 0, FILE_TIME_MAX_SEC);

  return seconds * G_USEC_PER_SEC + CLAMP (st->st_mtim.tv_nsec, 0, 999999999) / 1000;
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

/* The store's base may be a link (the user's own layout); nothing below
 * it on the way to the root may (sr-store-dropin.c). Opened to read, not
 * O_PATH: the root's fd is fsync()ed after a rewrite in it. */
static int
open_root (const SrStore *store,
           GPtrArray     *errors)
{
  g_auto(SrFd) base_fd = open (store->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (base_fd < 0)
    {
      if (errno != ENOENT)
        add_error (errors, "%s: %s", store->base, g_strerror (errno));
      return -1;
    }
  return open_relative (base_fd, sr_store_root_below_base (store), store->base, errors);
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
  const SrStoreRewrite *rewrite; /* rewriting session files */
  GPtrArray *errors;
  guint gtk_files_left;         /* listing: what may still be read */
  guint64 gtk_bytes_left;
  gboolean has_own_state;       /* policyd's state directory exists... */
  struct stat own_state;        /* ...and is this one */
} Pass;

/* Whether @fd is policyd's own state directory, which no store may reach,
 * whichever {app} or spelling of a path led there (sr-store-dropin.c). */
static gboolean
is_own_state (Pass       *pass,
              int         fd,
              const char *shown_path)
{
  struct stat st;

  if (!pass->has_own_state || fstat (fd, &st) != 0 ||
      st.st_dev != pass->own_state.st_dev || st.st_ino != pass->own_state.st_ino)
    return FALSE;
  add_error (pass->errors, "%s: policyd's own state, which no store may hold; left alone",
             shown_path);
  return TRUE;
}

static void
note_own_state (Pass *pass)
{
  g_autofree char *own_state = sr_state_file_path (NULL);

  pass->has_own_state = stat (own_state, &pass->own_state) == 0;
}

static SrAppUsage *
lookup_usage (Pass       *pass,
              const char *app_id)
{
  SrAppUsage *usage = g_hash_table_lookup (pass->usage, app_id);

  if (usage == NULL)
    {
      usage = g_new0 (SrAppUsage, 1);
      usage->stores = g_ptr_array_new ();
      g_hash_table_insert (pass->usage, g_strdup (app_id), usage);
    }
  return usage;
}

/* @saved: when the app itself saved this, 0 when not known; @written:
 * when the file that holds it was written. @windows: a count,
 * WINDOWS_NOT_COUNTED or WINDOWS_NONE. */
static void
add_usage (Pass       *pass,
           SrAppUsage *usage,
           guint       entries,
           guint64     bytes,
           gint64      saved,
           gint64      written,
           gint64      windows)
{
  usage->entries += entries;
  usage->bytes += bytes;
  usage->last_saved = MAX (usage->last_saved, saved);
  usage->last_written = MAX (usage->last_written, written);
  if (windows >= 0)
    usage->windows = (guint) MIN ((guint64) usage->windows + windows, G_MAXUINT);
  if (windows != WINDOWS_NONE)
    usage->gtk_files++;
  if (windows == WINDOWS_NOT_COUNTED)
    usage->gtk_files_not_counted++;
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
               SrAppUsage        *usage,
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
      pass->gtk_files_left == 0 || usage->gtk_files_read >= LIST_GTK_APP_FILES ||
      usage->gtk_bytes_read + st->st_size > LIST_GTK_APP_BYTES)
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
  usage->gtk_files_read++;
  usage->gtk_bytes_read += g_bytes_get_size (bytes);
  if (!sr_format_gtk_parse (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                           &windows, &error))
    {
      add_error (pass->errors, "%s/%s %s; its windows are not counted", dir_path, name,
                 error->message);
      return WINDOWS_NOT_COUNTED;
    }
  return windows;
}

/* A user's store removes a file only when it reads as GTK state, the one
 * format a user's files store may have (sr-store-dropin.c): anything
 * running as the user can write such a drop-in, and name a directory with
 * other files in it. */
static gboolean
reads_as_store_format (Pass       *pass,
                       int         dir_fd,
                       const char *dir_path,
                       const char *name)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  struct stat was_read, now;

  if (pass->store->origin != SR_STORE_ORIGIN_USER)
    return TRUE;

  bytes = sr_store_file_read (dir_fd, name, SR_FORMAT_GTK_MAX_SIZE, &was_read, NULL, &error);
  if (bytes == NULL)
    {
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        add_error (pass->errors, "%s/%s: %s; left alone", dir_path, name, error->message);
      return FALSE;
    }
  if (!sr_format_gtk_parse (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL,
                            &error))
    {
      add_error (pass->errors, "%s/%s %s; left alone: a user's store removes GTK state only",
                 dir_path, name, error->message);
      return FALSE;
    }
  /* What was read is what goes, unless it was replaced just now. */
  return stat_entry (dir_fd, name, &now) && now.st_dev == was_read.st_dev &&
         now.st_ino == was_read.st_ino;
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
      SrAppUsage *usage = app != NULL ? lookup_usage (pass, app) : NULL;

      if (usage != NULL)
        add_usage (pass, usage, 1, st->st_size, mtime_usec (st), mtime_usec (st),
                   count_windows (pass, usage, dir_fd, dir_path, name, st));
    }
  else if (should_remove (pass, app, st) &&
           (app != NULL || pass->store->kind == SR_STORE_WHOLE_FILE) &&
           reads_as_store_format (pass, dir_fd, dir_path, name))
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

/* The session file's time (in pass->older_than while it is listed) is
 * when any of its apps last changed, not this one: the app's own time is
 * its instances' "saved-at", where the format has it. */
static void
on_session_usage_cb (const char *app_id,
                     guint       entries,
                     guint64     bytes,
                     gboolean    reopens,
                     gint64      saved_at,
                     gpointer    user_data)
{
  Pass *pass = user_data;
  SrAppUsage *usage = lookup_usage (pass, app_id);

  add_usage (pass, usage, entries, bytes, MIN (saved_at, pass->older_than), pass->older_than,
             WINDOWS_NONE);
  usage->at_login |= reopens;
}

/* What one attempt at rewriting a session file makes of it (@state, read
 * from the file @st describes): the new contents, or NULL to leave it as
 * it is. Called again, from the owner's new file, each time the owner
 * saved it meanwhile. */
typedef GVariant *(*RewriteFunc) (Pass              *pass,
                                  const char        *path,
                                  GVariant          *state,
                                  const struct stat *st,
                                  gpointer           user_data);

/* Rewrites the session file @name as @rewrite says, starting over from
 * the owner's file each time the owner saved it meanwhile
 * (sr_store_file_replace()); after REWRITE_ATTEMPTS it gives up and says
 * so. Returns TRUE when the file was replaced. */
static gboolean
rewrite_session_file (Pass        *pass,
                      int          dir_fd,
                      const char  *path,
                      const char  *name,
                      RewriteFunc  rewrite,
                      gpointer     user_data)
{
  for (guint attempt = 0; attempt < REWRITE_ATTEMPTS; attempt++)
    {
      g_auto(SrFd) read_fd = -1;
      g_autoptr(GVariant) state = NULL;
      g_autoptr(GVariant) contents = NULL;
      g_autoptr(GError) error = NULL;
      struct stat st;

      /* Gone meanwhile: nothing left to rewrite. */
      if (attempt > 0 && !stat_entry (dir_fd, name, &st) && errno == ENOENT)
        return FALSE;
      state = read_session_file (dir_fd, path, name, &st, &read_fd, pass->errors);
      if (state == NULL)
        return FALSE;
      contents = rewrite (pass, path, state, &st, user_data);
      if (contents == NULL)
        return FALSE;

      switch (sr_store_file_replace (dir_fd, name, read_fd, &st, contents, &error))
        {
        case SR_STORE_FILE_REPLACED:
          return TRUE;
        case SR_STORE_FILE_FAILED:
          add_error (pass->errors, "%s: %s", path, error->message);
          return FALSE;
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
  return FALSE;
}

/* What a removal of entries took, attempt by attempt. */
typedef struct {
  guint entries;
  guint64 bytes;
  GPtrArray *apps;          /* (owned) */
} Removal;

/* A RewriteFunc: the file without the entries of the pass's apps.
 * Retention takes the apps whose own saves are older than its limit,
 * whatever the file's time: a file many apps share is written whenever
 * any of them saves, and would keep a stale entry forever. */
static GVariant *
without_entries (Pass              *pass,
                 const char        *path,
                 GVariant          *state,
                 const struct stat *st,
                 gpointer           user_data)
{
  Removal *removal = user_data;
  g_autoptr(GHashTable) expired = NULL;

  g_ptr_array_set_size (removal->apps, 0);
  if (pass->older_than != 0)
    expired = sr_format_gnome_session_saved_before (state, pass->older_than, mtime_usec (st),
                                                    pass->apps);
  return sr_format_gnome_session_without (state, expired != NULL ? expired : pass->apps,
                                          &removal->entries, &removal->bytes, removal->apps);
}

/* Removes the entries of the pass's apps from the session file @name. */
static void
remove_session_entries (Pass       *pass,
                        int         dir_fd,
                        const char *path,
                        const char *name)
{
  Removal removal = { .apps = g_ptr_array_new_with_free_func (g_free) };

  if (rewrite_session_file (pass, dir_fd, path, name, without_entries, &removal))
    {
      pass->report->entries += removal.entries;
      pass->report->bytes += removal.bytes;
      for (guint i = 0; i < removal.apps->len; i++)
        g_hash_table_add (pass->report->apps, g_strdup (removal.apps->pdata[i]));
    }
  g_ptr_array_unref (removal.apps);
}

/* A RewriteFunc: what session prepare's SrStoreRewrite makes of it. */
static GVariant *
rewrite_as_asked (Pass              *pass,
                  const char        *path,
                  GVariant          *state,
                  const struct stat *st,
                  gpointer           user_data)
{
  const SrStoreRewrite *rewrite = user_data;

  return rewrite->rewrite (path, state, mtime_usec (st), pass->errors, rewrite->user_data);
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
  if (pass->rewrite != NULL)
    {
      if (rewrite_session_file (pass, dir_fd, path, name, rewrite_as_asked,
                                (gpointer) pass->rewrite))
        pass->rewrite->rewritten (path, pass->rewrite->user_data);
      return;
    }
  if (pass->usage == NULL)
    {
      remove_session_entries (pass, dir_fd, path, name);
      return;
    }

  state = read_session_file (dir_fd, path, name, &st, NULL, pass->errors);
  if (state == NULL)
    return;
  /* The file's time, for on_session_usage_cb(). */
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
  note_own_state (pass);
  if (is_own_state (pass, root_fd, store->root))
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

          if (dir_fd >= 0 && !is_own_state (pass, app_fd, app_path) &&
              (*store->app_subdir == '\0' || !is_own_state (pass, dir_fd, dir_path)))
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

/* At session prepare (sr-store-prepare.c): each session file of @store, a
 * store of entries, rewritten as @rewrite says. */
void
sr_store_walk_rewrite (const SrStore        *store,
                       const SrStoreRewrite *rewrite,
                       GPtrArray            *errors)
{
  Pass pass = {
    .store = store,
    .rewrite = rewrite,
    .errors = errors,
  };

  if (store->kind == SR_STORE_ENTRIES)
    run_pass (&pass);
}

/* -- One instance's files -------------------------------------------------- */

/* Whether @instance_id can be part of a file name as it is: what session
 * managers hand out (gnome-session: ten hex digits; GTK without one:
 * "fallback"), nothing that could name another directory or file. */
static gboolean
instance_id_is_plain (const char *instance_id)
{
  gsize length = strlen (instance_id);

  if (length == 0 || length > 255 || instance_id[0] == '.')
    return FALSE;
  for (const char *p = instance_id; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '_' && *p != '-' && *p != '+')
      return FALSE;
  return TRUE;
}

/* The name of the file @store keeps one instance of an app in: its
 * pattern with {app} the app id and its one "*" the instance id. NULL when
 * the store cannot name one (no "*", or more than one; no app in its
 * directory or pattern) or the name would not be the app's. */
static char *
instance_file_name (const SrStore *store,
                    const char    *app_id,
                    const char    *instance_id)
{
  const char *star = strchr (store->pattern, '*');
  g_autoptr(GString) name = NULL;
  g_autofree char *matched = NULL;

  if (star == NULL || strchr (star + 1, '*') != NULL || !instance_id_is_plain (instance_id) ||
      !sr_app_id_validate (app_id, NULL))
    return NULL;
  name = g_string_new_len (store->pattern, star - store->pattern);
  g_string_append (name, instance_id);
  g_string_append (name, star + 1);
  if (g_string_replace (name, "{app}", app_id, 0) == 0 && store->app_subdir == NULL)
    return NULL;
  if (!sr_store_match (store, name->str, &matched) ||
      (matched != NULL && !g_str_equal (matched, app_id)))
    return NULL;
  return g_string_free (g_steal_pointer (&name), FALSE);
}

/* The directory that holds @app_id's files in @store, or -1 (an error
 * noted, but for one that does not exist). */
static int
open_app_dir (Pass        *pass,
              const char  *app_id,
              char       **out_dir_path)
{
  const SrStore *store = pass->store;
  g_auto(SrFd) root_fd = open_root (store, pass->errors);
  g_auto(SrFd) app_fd = -1;
  g_auto(SrFd) dir_fd = -1;
  g_autofree char *app_path = NULL;
  g_autofree char *dir_path = NULL;

  if (root_fd < 0)
    return -1;
  note_own_state (pass);
  if (is_own_state (pass, root_fd, store->root))
    return -1;
  if (store->app_subdir == NULL)
    {
      *out_dir_path = g_strdup (store->root);
      return sr_fd_steal (&root_fd);
    }

  app_path = g_build_filename (store->root, app_id, NULL);
  dir_path = g_build_filename (app_path, store->app_subdir, NULL);
  app_fd = open_dir_at (root_fd, app_id, app_path, pass->errors);
  if (app_fd < 0 || is_own_state (pass, app_fd, app_path))
    return -1;
  dir_fd = open_relative (app_fd, store->app_subdir, app_path, pass->errors);
  if (dir_fd < 0 || (*store->app_subdir != '\0' && is_own_state (pass, dir_fd, dir_path)))
    return -1;
  *out_dir_path = g_steal_pointer (&dir_path);
  return sr_fd_steal (&dir_fd);
}

/* When one instance of an app last saved into @store, a store of files:
 * the modification time (µs since the epoch) of its file there, 0 when it
 * has none (or the store names none). */
gint64
sr_store_walk_instance_time (const SrStore *store,
                             const char    *app_id,
                             const char    *instance_id,
                             GPtrArray     *errors)
{
  Pass pass = { .store = store, .errors = errors };
  g_autofree char *name = NULL;
  g_autofree char *dir_path = NULL;
  g_auto(SrFd) dir_fd = -1;
  struct stat st;

  if (store->kind != SR_STORE_FILES ||
      (name = instance_file_name (store, app_id, instance_id)) == NULL ||
      (dir_fd = open_app_dir (&pass, app_id, &dir_path)) < 0 ||
      !stat_entry (dir_fd, name, &st) || !S_ISREG (st.st_mode))
    return 0;
  return mtime_usec (&st);
}

/* Removes the file of one instance of an app from @store, a store of
 * files, as a removal of the app's files would: a regular file only,
 * never through a link, a user's store's only when it reads as GTK
 * state. */
void
sr_store_walk_remove_instance (const SrStore *store,
                               const char    *app_id,
                               const char    *instance_id,
                               SrStoreReport *report)
{
  Pass pass = { .store = store, .report = report, .errors = report->errors };
  g_autofree char *name = NULL;
  g_autofree char *dir_path = NULL;
  g_auto(SrFd) dir_fd = -1;
  struct stat st;

  if (store->kind != SR_STORE_FILES ||
      (name = instance_file_name (store, app_id, instance_id)) == NULL ||
      (dir_fd = open_app_dir (&pass, app_id, &dir_path)) < 0 ||
      !stat_entry (dir_fd, name, &st))
    return;
  if (!S_ISREG (st.st_mode))
    {
      add_error (pass.errors, "%s/%s: not a regular file; left alone", dir_path, name);
      return;
    }
  if (reads_as_store_format (&pass, dir_fd, dir_path, name))
    remove_file (&pass, dir_fd, dir_path, name, &st, app_id);
}
