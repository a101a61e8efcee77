/* sr-pending-clears.c: clears begun and not yet finished
 *
 * A clear removes what may be thousands of files on the store worker; a
 * kill (or a power cut) part way through left the rest on disk for good:
 * never restored, since the clear point holds, but not forgotten either.
 * So each clear is recorded here, durably, with its clear point, before
 * that point is written and before its removal starts (sr-clear.c), and
 * the record goes when the removal is done. The file is [(clear point,
 * app ids)], µs since the epoch; no app ids: everything.
 *
 * At the next start, what is still recorded is finished: its clear point
 * at once (sr_pending_clears_record_points(), in case the kill came before
 * it was written: the first answers must honour it), its removal once
 * start-up's calls have quieted down (sr_pending_clears_finish(), from the
 * start-up purge, sr-maintenance.c), and of what was saved at or before
 * the clear point only: state saved since is not what the user asked to
 * forget.
 *
 * A finished clear of everything also ends the records of the clears
 * before it: it removed what they would have.
 *
 * Main thread only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-pending-clears"

#include "config.h"

#include <errno.h>

#include <glib/gstdio.h>

#include "sr-app-id.h"
#include "sr-maintenance.h"
#include "sr-pending-clears.h"
#include "sr-state-file.h"

#define STATE_TYPE G_VARIANT_TYPE ("a(xas)")

typedef struct {
  guint id;
  gint64 when;           /* the clear point */
  char **apps;           /* (owned) (nullable): NULL for everything */
  gboolean queued;       /* its removal is on the store worker */
} Pending;

struct _SrPendingClears {
  char *path;            /* (owned) */
  GPtrArray *pending;    /* (owned) (element-type Pending) */
  guint last_id;
};

static void
pending_free (Pending *pending)
{
  g_strfreev (pending->apps);
  g_free (pending);
}

static Pending *
pending_new (SrPendingClears    *self,
             const char * const *apps,
             gint64              when)
{
  Pending *pending = g_new0 (Pending, 1);

  pending->id = ++self->last_id;
  pending->when = when;
  pending->apps = apps != NULL && apps[0] != NULL ? g_strdupv ((char **) apps) : NULL;
  g_ptr_array_add (self->pending, pending);
  return pending;
}

/* The file is policyd's, but anything running as the user can write it:
 * only valid app ids are taken, and a list none of whose ids is valid is
 * not "everything". */
static void
load (SrPendingClears *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) state = sr_state_file_load (self->path, STATE_TYPE, &error);
  g_autoptr(GVariantIter) apps = NULL;
  GVariantIter iter;
  gint64 when;

  if (error != NULL)
    g_warning ("Clears under way: %s", error->message);
  if (state == NULL)
    return;

  g_variant_iter_init (&iter, state);
  while (g_variant_iter_next (&iter, "(xas)", &when, &apps))
    {
      g_autoptr(GStrvBuilder) valid = g_strv_builder_new ();
      g_auto(GStrv) valid_apps = NULL;
      gsize n = g_variant_iter_n_children (apps);
      const char *app_id;

      while (g_variant_iter_next (apps, "&s", &app_id))
        if (sr_app_id_validate (app_id, NULL))
          g_strv_builder_add (valid, app_id);
      g_clear_pointer (&apps, g_variant_iter_free);
      valid_apps = g_strv_builder_end (valid);
      if (n > 0 && valid_apps[0] == NULL)
        continue;
      pending_new (self, (const char * const *) valid_apps, when);
    }
  if (self->pending->len > 0)
    g_message ("%u clears were interrupted; they will be finished", self->pending->len);
}

SrPendingClears *
sr_pending_clears_new (const char *path)
{
  SrPendingClears *self = g_new0 (SrPendingClears, 1);

  self->path = g_strdup (path);
  self->pending = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_free);
  load (self);
  return self;
}

void
sr_pending_clears_free (SrPendingClears *self)
{
  g_ptr_array_unref (self->pending);
  g_free (self->path);
  g_free (self);
}

/* The file, as the table stands; none when nothing is pending. */
static gboolean
save (SrPendingClears  *self,
      GError          **error)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (STATE_TYPE);

  if (self->pending->len == 0)
    {
      if (g_unlink (self->path) != 0 && errno != ENOENT)
        {
          int saved_errno = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                       "Could not remove %s: %s", self->path, g_strerror (saved_errno));
          return FALSE;
        }
      return TRUE;
    }

  for (guint i = 0; i < self->pending->len; i++)
    {
      const Pending *pending = self->pending->pdata[i];
      g_variant_builder_add (&builder, "(x^as)", pending->when,
                             pending->apps != NULL ? pending->apps : (char *[]) { NULL });
    }
  return sr_state_file_save (self->path, g_variant_builder_end (&builder), error);
}

static void
save_or_warn (SrPendingClears *self)
{
  g_autoptr(GError) error = NULL;

  /* What stays recorded is finished again at the next start, which
   * removes nothing saved since: a nuisance, not a loss. */
  if (!save (self, &error))
    g_warning ("Could not update the clears under way: %s", error->message);
}

/* Records a clear of @apps (NULL or empty: everything) at clear point
 * @when, durably, before its removal is queued. @out_id: what to end it
 * with. */
gboolean
sr_pending_clears_begin (SrPendingClears     *self,
                         const char * const  *apps,
                         gint64               when,
                         guint               *out_id,
                         GError             **error)
{
  Pending *pending = pending_new (self, apps, when);

  pending->queued = TRUE;
  if (!save (self, error))
    {
      g_ptr_array_remove (self->pending, pending);
      return FALSE;
    }
  *out_id = pending->id;
  return TRUE;
}

/* Clear @id's removal is done. Unknown ids (0: not recorded, or ended
 * with a clear of everything) are ignored. */
void
sr_pending_clears_end (SrPendingClears *self,
                       guint            id)
{
  const Pending *done = NULL;
  gint64 when = 0;
  gboolean all;

  for (guint i = 0; i < self->pending->len && done == NULL; i++)
    if (((Pending *) self->pending->pdata[i])->id == id)
      done = self->pending->pdata[i];
  if (done == NULL)
    return;

  all = done->apps == NULL;
  when = done->when;
  g_ptr_array_remove_fast (self->pending, (gpointer) done);
  for (guint i = self->pending->len; all && i > 0; i--)
    if (((Pending *) self->pending->pdata[i - 1])->when <= when)
      g_ptr_array_remove_index_fast (self->pending, i - 1);
  save_or_warn (self);
}

/* At exit, once the store worker has done every removal queued: their
 * records go; those of the last run not yet begun stay. */
void
sr_pending_clears_end_queued (SrPendingClears *self)
{
  guint before = self->pending->len;

  for (guint i = self->pending->len; i > 0; i--)
    if (((Pending *) self->pending->pdata[i - 1])->queued)
      g_ptr_array_remove_index_fast (self->pending, i - 1);
  if (self->pending->len != before)
    save_or_warn (self);
}

/* At start-up, before the first answer: the clear points of the clears
 * that were interrupted, written only where they are not yet. */
void
sr_pending_clears_record_points (SrPendingClears *self,
                                 SrClearPoints   *points)
{
  for (guint i = 0; i < self->pending->len; i++)
    {
      const Pending *pending = self->pending->pdata[i];
      g_autoptr(GError) error = NULL;

      if (!sr_clear_points_record (points, (const char * const *) pending->apps, pending->when,
                                   &error))
        g_warning ("Could not record the clear point of an interrupted clear: %s",
                   error->message);
    }
}

typedef struct {
  SrPendingClears *self;  /* (unowned): outlives the store worker's jobs */
  guint id;
} Finish;

static void
on_finished_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autofree Finish *finish = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) report = sr_store_worker_finish (SR_STORE_WORKER (source), result, &error);

  if (report == NULL)
    {
      g_warning ("Could not finish an interrupted clear: %s", error->message);
      return;
    }
  sr_maintenance_log_removal ("Interrupted clear", report);
  sr_pending_clears_end (finish->self, finish->id);
}

/* Queues the removals of the clears that were interrupted, of what was
 * saved at or before their clear points. */
void
sr_pending_clears_finish (SrPendingClears *self,
                          SrStoreWorker   *stores)
{
  for (guint i = 0; i < self->pending->len; i++)
    {
      Pending *pending = self->pending->pdata[i];
      Finish *finish;

      if (pending->queued)
        continue;
      pending->queued = TRUE;
      finish = g_new0 (Finish, 1);
      finish->self = self;
      finish->id = pending->id;
      /* older_than 0 would be "of any age". */
      sr_store_worker_remove_async (stores, (const char * const *) pending->apps,
                                    pending->when < G_MAXINT64 ? MAX (pending->when, 0) + 1
                                                               : G_MAXINT64,
                                    on_finished_cb, finish);
    }
}
