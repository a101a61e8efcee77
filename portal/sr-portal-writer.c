/* sr-portal-writer.c: the record's durable writes, off the main thread
 *
 * A durable write (temp file, fsync, rename, fsync of the directory) takes
 * milliseconds on a busy disk; on the main thread it would delay every
 * Register and Close behind it. The main thread hands each new snapshot of
 * the record here and goes on. At most one write is in flight, on a worker
 * thread; snapshots that arrive meanwhile replace one another, and the
 * newest is written next. A write is still whole or absent after a kill:
 * the record is replaced by a rename.
 *
 * The temporary file is named as policyd names its own when it rewrites a
 * store's file (sr-store-file.c): the record's name, a dot before it and a
 * dot and eight hex digits after (".session-restore-portal@sway.state.
 * 0123abcd"). A kill between its creation and the rename leaves it behind,
 * a copy of every app's entry; under that name policyd's store walk never
 * lists it, and removes it, as a leftover of the record's store
 * (data/stores.d/session-restore-portal.store), at its start and with
 * every Clear, "clear everything" included. The backend removes such
 * leftovers at its own start too (sr_record_writer_remove_leftovers()),
 * with those of g_file_set_contents(), which wrote the record before
 * ("session-restore-portal@sway.state.A1b2C3"): no store pattern can name
 * those, as a pattern must end in literal text (sr-store-dropin.c). A walk
 * of policyd's may remove a temporary file of ours while it is written: the
 * rename then finds it gone, and the write starts over.
 *
 * A record that could not be read at start is never written over
 * (sr_record_writer_hold(): sr-portal-record.c says when): every snapshot
 * is dropped, and each flush fails with the reason.
 *
 * Flush waits until every snapshot handed in before it is on disk: the end
 * of the session reports done only then, and the control interface's Sync
 * lets tests read the record without sleeping.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-writer"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sr-fd.h"
#include "sr-portal-writer.h"

/* How often a write starts over when its temporary file was taken away
 * (by policyd's walk) before the rename. */
#define WRITE_ATTEMPTS 5
/* ".<record>.0123abcd": ours, and policyd's (sr-store-file.c). */
#define TEMP_SUFFIX_LEN 9
/* "<record>.A1b2C3": g_file_set_contents()'s. */
#define OLD_TEMP_SUFFIX_LEN 7

struct _SrRecordWriter {
  char *path;               /* (owned) */
  gboolean writing;         /* a write is in flight on a worker thread */
  GBytes *pending;          /* (owned) (nullable) the newest snapshot not yet
                             * handed to a worker */
  GError *last_error;       /* (owned) (nullable) how the newest write failed */
  GError *held;             /* (owned) (nullable) why nothing is written */
  GPtrArray *flushes;       /* (owned) (element-type GTask) waiting for idle */
};

SrRecordWriter *
sr_record_writer_new (const char *path)
{
  SrRecordWriter *self = g_new0 (SrRecordWriter, 1);

  self->path = g_strdup (path);
  self->flushes = g_ptr_array_new_with_free_func (g_object_unref);
  return self;
}

void
sr_record_writer_free (SrRecordWriter *self)
{
  /* A worker still writing would call back into freed memory. */
  g_return_if_fail (!self->writing);
  g_free (self->path);
  g_clear_pointer (&self->pending, g_bytes_unref);
  g_clear_error (&self->last_error);
  g_clear_error (&self->held);
  g_ptr_array_unref (self->flushes);
  g_free (self);
}

static gboolean
set_errno_error (GError     **error,
                 const char  *what,
                 const char  *directory,
                 const char  *name)
{
  int saved_errno = errno;

  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno), "Could not %s %s%s%s: %s",
               what, directory, name != NULL ? "/" : "", name != NULL ? name : "",
               g_strerror (saved_errno));
  return FALSE;
}

static gboolean
write_all (int           fd,
           const guint8 *data,
           gsize         size)
{
  while (size > 0)
    {
      ssize_t written = write (fd, data, size);

      if (written < 0 && errno == EINTR)
        continue;
      if (written < 0)
        return FALSE;
      data += written;
      size -= written;
    }
  return TRUE;
}

/* @bytes to @base in @dir_fd through a temporary file. FALSE with
 * *@out_again set, and no error, when the temporary file was gone at the
 * rename. */
static gboolean
write_once (int          dir_fd,
            const char  *directory,
            const char  *base,
            GBytes      *bytes,
            gboolean    *out_again,
            GError     **error)
{
  g_autofree char *tmp = NULL;
  g_auto(SrFd) fd = -1;
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);

  for (guint attempt = 0; fd < 0 && attempt < 100; attempt++)
    {
      g_free (tmp);
      tmp = g_strdup_printf (".%s.%08x", base, g_random_int ());
      fd = openat (dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 && errno != EEXIST)
        break;
    }
  if (fd < 0)
    return set_errno_error (error, "create", directory, tmp);
  if (!write_all (fd, data, size) || fsync (fd) != 0 || close (sr_fd_steal (&fd)) != 0)
    {
      set_errno_error (error, "write", directory, tmp);
      (void) unlinkat (dir_fd, tmp, 0);
      return FALSE;
    }
  *out_again = FALSE;
  if (renameat (dir_fd, tmp, dir_fd, base) != 0)
    {
      *out_again = errno == ENOENT;
      if (*out_again)
        return FALSE;
      set_errno_error (error, "rename to", directory, base);
      (void) unlinkat (dir_fd, tmp, 0);
      return FALSE;
    }
  /* The rename itself on disk; a file system that cannot sync a directory
   * says EINVAL. */
  if (fsync (dir_fd) != 0 && errno != EINVAL)
    return set_errno_error (error, "sync", directory, NULL);
  return TRUE;
}

static gboolean
write_durably (const char  *path,
               GBytes      *bytes,
               GError     **error)
{
  g_autofree char *directory = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_auto(SrFd) dir_fd = -1;

  if (g_mkdir_with_parents (directory, 0700) != 0)
    return set_errno_error (error, "create", directory, NULL);
  dir_fd = open (directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0)
    return set_errno_error (error, "open", directory, NULL);
  for (guint attempt = 0; attempt < WRITE_ATTEMPTS; attempt++)
    {
      gboolean again = FALSE;

      if (write_once (dir_fd, directory, base, bytes, &again, error))
        return TRUE;
      if (!again)
        return FALSE;
      g_debug ("%s/.%s.*: removed before the rename; writing again", directory, base);
    }
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
               "Could not write %s: its temporary file was removed %u times before the rename",
               path, WRITE_ATTEMPTS);
  return FALSE;
}

/* Whether @name, in the record's directory, is a temporary file that a kill
 * in the middle of a write of @base (the record's name) left: see the top
 * of this file. */
static gboolean
is_leftover (const char *base,
             const char *name)
{
  gsize base_len = strlen (base), len = strlen (name);

  if (len == 1 + base_len + TEMP_SUFFIX_LEN && name[0] == '.' &&
      strncmp (name + 1, base, base_len) == 0 && name[1 + base_len] == '.')
    {
      for (const char *c = name + 2 + base_len; *c != '\0'; c++)
        if (!g_ascii_isxdigit (*c) || g_ascii_isupper (*c))
          return FALSE;
      return TRUE;
    }
  if (len == base_len + OLD_TEMP_SUFFIX_LEN && strncmp (name, base, base_len) == 0 &&
      name[base_len] == '.')
    {
      for (const char *c = name + 1 + base_len; *c != '\0'; c++)
        if (!g_ascii_isalnum (*c))
          return FALSE;
      return TRUE;
    }
  return FALSE;
}

/* At start, before the first write: the temporary files a kill in the
 * middle of a write left beside the record, regular files only. */
void
sr_record_writer_remove_leftovers (SrRecordWriter *self)
{
  g_autofree char *directory = g_path_get_dirname (self->path);
  g_autofree char *base = g_path_get_basename (self->path);
  g_auto(SrFd) dir_fd = open (directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir;
  struct dirent *entry;

  if (dir_fd < 0)
    {
      if (errno != ENOENT)
        g_warning ("Could not look for what interrupted writes left in %s: %s", directory,
                   g_strerror (errno));
      return;
    }
  dir = fdopendir (dup (dir_fd));
  if (dir == NULL)
    {
      g_warning ("Could not look for what interrupted writes left in %s: %s", directory,
                 g_strerror (errno));
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      struct stat st;

      if (!is_leftover (base, entry->d_name) ||
          fstatat (dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG (st.st_mode))
        continue;
      if (unlinkat (dir_fd, entry->d_name, 0) == 0)
        g_message ("Removed %s/%s, left by a write of the record that was interrupted",
                   directory, entry->d_name);
      else if (errno != ENOENT)
        g_warning ("Could not remove %s/%s, left by an interrupted write: %s", directory,
                   entry->d_name, g_strerror (errno));
    }
  closedir (dir);
}

/* From now on nothing is written to the record, for the reason @why
 * (taken), which each flush returns. */
void
sr_record_writer_hold (SrRecordWriter *self,
                       GError         *why)
{
  g_clear_error (&self->held);
  self->held = why;
  g_clear_pointer (&self->pending, g_bytes_unref);
}

gboolean
sr_record_writer_is_held (SrRecordWriter *self)
{
  return self->held != NULL;
}

/* One write, copied for the worker thread, which touches nothing else. */
typedef struct {
  char *path;               /* (owned) */
  GBytes *bytes;            /* (owned) */
} Job;

static void
job_free (Job *job)
{
  g_free (job->path);
  g_bytes_unref (job->bytes);
  g_free (job);
}

static void
write_in_thread (GTask        *task,
                 gpointer      source,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;

  if (write_durably (job->path, job->bytes, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void start_write (SrRecordWriter *self);

static void
written (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  SrRecordWriter *self = user_data;
  g_autoptr(GPtrArray) flushes = NULL;

  self->writing = FALSE;
  g_clear_error (&self->last_error);
  if (!g_task_propagate_boolean (G_TASK (result), &self->last_error))
    g_warning ("Could not write %s: %s", self->path, self->last_error->message);
  if (self->pending != NULL)
    {
      start_write (self);
      return;
    }

  flushes = g_steal_pointer (&self->flushes);
  self->flushes = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < flushes->len; i++)
    {
      GTask *flush = g_ptr_array_index (flushes, i);
      if (self->last_error != NULL)
        g_task_return_error (flush, g_error_copy (self->last_error));
      else
        g_task_return_boolean (flush, TRUE);
    }
}

static void
start_write (SrRecordWriter *self)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, written, self);
  Job *job = g_new0 (Job, 1);

  job->path = g_strdup (self->path);
  job->bytes = g_steal_pointer (&self->pending);
  g_task_set_source_tag (task, start_write);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  self->writing = TRUE;
  g_task_run_in_thread (task, write_in_thread);
}

/* Takes a reference on @bytes, the whole record. */
void
sr_record_writer_write (SrRecordWriter *self,
                        GBytes         *bytes)
{
  if (self->held != NULL)
    return;
  g_clear_pointer (&self->pending, g_bytes_unref);
  self->pending = g_bytes_ref (bytes);
  if (!self->writing)
    start_write (self);
}

void
sr_record_writer_flush_async (SrRecordWriter      *self,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, callback, user_data);

  g_task_set_source_tag (task, sr_record_writer_flush_async);
  if (self->held != NULL)
    {
      g_task_return_error (task, g_error_copy (self->held));
      return;
    }
  if (!self->writing)
    {
      /* Idle: the newest write is on disk, or failed. */
      if (self->last_error != NULL)
        g_task_return_error (task, g_error_copy (self->last_error));
      else
        g_task_return_boolean (task, TRUE);
      return;
    }
  g_ptr_array_add (self->flushes, g_steal_pointer (&task));
}

gboolean
sr_record_writer_flush_finish (SrRecordWriter  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* At exit, after the main loop: what was handed in still reaches the disk. */
void
sr_record_writer_flush_sync (SrRecordWriter *self)
{
  while (self->writing)
    g_main_context_iteration (NULL, TRUE);
}
