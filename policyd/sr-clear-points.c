/* sr-clear-points.c: when each app's stored state was last cleared
 *
 * State saved at or before an app's clear point (or the global one, from
 * "clear everything") is never restored, even when an owner that missed
 * StoredStateCleared writes it back from memory. The file is
 * (global, {app id: time}), in µs since the epoch.
 *
 * Points are recorded on the main thread and read from GDBus's worker
 * thread too: the table is replaced under a lock, never changed in place.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-clear-points"

#include "config.h"

#include "sr-clear-points.h"
#include "sr-state-file.h"

#define STATE_TYPE G_VARIANT_TYPE ("(xa{sx})")

struct _SrClearPoints {
  char *path;            /* (owned) */
  GMutex lock;           /* guards global and per_app */
  gint64 global;
  GHashTable *per_app;   /* (owned) app id → gint64 * */
};

SrClearPoints *
sr_clear_points_new (const char *path)
{
  SrClearPoints *self = g_new0 (SrClearPoints, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) state = NULL;

  self->path = g_strdup (path);
  g_mutex_init (&self->lock);
  self->per_app = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  state = sr_state_file_load (path, STATE_TYPE, &error);
  if (error != NULL)
    g_warning ("Clear points: %s", error->message);
  if (state != NULL)
    {
      g_autoptr(GVariantIter) iter = NULL;
      const char *app_id;
      gint64 when;

      g_variant_get (state, "(xa{sx})", &self->global, &iter);
      while (g_variant_iter_next (iter, "{&sx}", &app_id, &when))
        g_hash_table_replace (self->per_app, g_strdup (app_id),
                              g_memdup2 (&when, sizeof when));
    }

  return self;
}

void
sr_clear_points_free (SrClearPoints *self)
{
  g_hash_table_unref (self->per_app);
  g_mutex_clear (&self->lock);
  g_free (self->path);
  g_free (self);
}

gint64
sr_clear_points_get (SrClearPoints *self,
                     const char    *app_id)
{
  const gint64 *when;
  gint64 point;

  g_mutex_lock (&self->lock);
  when = g_hash_table_lookup (self->per_app, app_id);
  point = when != NULL ? MAX (*when, self->global) : self->global;
  g_mutex_unlock (&self->lock);
  return point;
}

/* Records the clear point on disk before it takes effect in memory, so a
 * failure to write changes nothing. @app_ids NULL or empty means all.
 * Main thread only: it is the only writer, so it reads without the lock. */
gboolean
sr_clear_points_record (SrClearPoints       *self,
                        const char * const  *app_ids,
                        gint64               when,
                        GError             **error)
{
  gboolean all = app_ids == NULL || app_ids[0] == NULL;
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sx}"));
  g_autoptr(GHashTable) next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) old = NULL;
  gint64 global = all ? MAX (when, self->global) : self->global;
  GHashTableIter iter;
  gpointer key, value;

  /* Entries the global point covers are dropped. */
  g_hash_table_iter_init (&iter, self->per_app);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (*(gint64 *) value > global)
      g_hash_table_replace (next, g_strdup (key), g_memdup2 (value, sizeof (gint64)));

  for (guint i = 0; !all && app_ids[i] != NULL; i++)
    {
      gint64 point = MAX (when, sr_clear_points_get (self, app_ids[i]));
      g_hash_table_replace (next, g_strdup (app_ids[i]), g_memdup2 (&point, sizeof point));
    }

  g_hash_table_iter_init (&iter, next);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_variant_builder_add (&builder, "{sx}", (const char *) key, *(gint64 *) value);

  if (!sr_state_file_save (self->path,
                           g_variant_new ("(x@a{sx})", global,
                                          g_variant_builder_end (&builder)),
                           error))
    return FALSE;

  g_mutex_lock (&self->lock);
  self->global = global;
  old = g_steal_pointer (&self->per_app);
  self->per_app = g_steal_pointer (&next);
  g_mutex_unlock (&self->lock);
  return TRUE;
}
