/* sr-portal-writer.c: the record's durable writes, off the main thread
 *
 * A durable write (temp file, fsync, rename, fsync of the directory) takes
 * milliseconds on a busy disk; on the main thread it would delay every
 * Register and Close behind it. The main thread hands each new snapshot of
 * the record here and goes on. At most one write is in flight, on a worker
 * thread; snapshots that arrive meanwhile replace one another, and the
 * newest is written next. A write is still whole or absent after a kill
 * (g_file_set_contents_full with CONSISTENT and DURABLE).
 *
 * Flush waits until every snapshot handed in before it is on disk: the end
 * of the session reports done only then, and the control interface's Sync
 * lets tests read the record without sleeping.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-writer"

#include "config.h"

#include <errno.h>

#include "sr-portal-writer.h"

struct _SrRecordWriter {
  char *path;               /* (owned) */
  gboolean writing;         /* a write is in flight on a worker thread */
  GBytes *pending;          /* (owned) (nullable) the newest snapshot not yet
                             * handed to a worker */
  GError *last_error;       /* (owned) (nullable) how the newest write failed */
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
  g_ptr_array_unref (self->flushes);
  g_free (self);
}

static gboolean
write_durably (const char  *path,
               GBytes      *bytes,
               GError     **error)
{
  g_autofree char *directory = g_path_get_dirname (path);

  if (g_mkdir_with_parents (directory, 0700) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Could not create %s: %s", directory, g_strerror (saved_errno));
      return FALSE;
    }
  return g_file_set_contents_full (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   0600, error);
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
