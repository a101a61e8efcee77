/* sr-clear-points.c: when each app's stored state was last cleared
 *
 * State saved at or before an app's clear point (or the global one, from
 * "clear everything") is never restored, even when an owner that missed
 * StoredStateCleared writes it back from memory. The file is
 * (global, {app id: time}), in µs since the epoch.
 *
 * Forgetting a clear point would make state the user cleared restorable
 * again, so every way this table can shrink or be lost moves the global
 * point later instead:
 * - a file that cannot be read or does not parse stands for a global
 *   point at its own modification time (every point in it was recorded
 *   before it was last written), or at the time policyd starts when even
 *   that cannot be read or lies in the future; the file is left in place
 *   until the next clear replaces it, so every start falls back the same
 *   way (sr-state-file.c keeps a copy as *.corrupt);
 * - beyond MAX_APPS apps, the oldest points are folded into the global
 *   one (fold()).
 *
 * Points are recorded on the main thread and read from GDBus's worker
 * thread too: the table is replaced under a lock, never changed in place.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-clear-points"

#include "config.h"

#include <sys/stat.h>

#include "sr-clear-points.h"
#include "sr-state-file.h"

#define STATE_TYPE G_VARIANT_TYPE ("(xa{sx})")
#define MAX_APPS SR_CLEAR_POINTS_MAX_APPS

struct _SrClearPoints {
  char *path;            /* (owned) */
  GMutex lock;           /* guards global and per_app */
  gint64 global;
  GHashTable *per_app;   /* (owned) app id → gint64 * */
};

static int
compare_times (gconstpointer a,
               gconstpointer b)
{
  gint64 ta = *(const gint64 *) a, tb = *(const gint64 *) b;

  return ta < tb ? -1 : ta > tb ? 1 : 0;
}

/* Keeps @per_app to MAX_APPS apps by moving the global point up to the
 * newest of the points it drops, and drops every point the global one
 * covers. Returns the global point.
 *
 * Moving the global point later is the safe direction: a folded app is
 * still denied everything saved up to its own point (which is at or
 * before the new global one), and every other app is denied more (its
 * state saved before the new global point reads as cleared), never less.
 * The cost is state nobody cleared shown as cleared; the alternative,
 * dropping the oldest points, would make cleared state restorable. */
static gint64
fold (GHashTable *per_app,
      gint64      global)
{
  guint n = g_hash_table_size (per_app);
  GHashTableIter iter;
  gpointer value;

  if (n > MAX_APPS)
    {
      g_autoptr(GArray) times = g_array_sized_new (FALSE, FALSE, sizeof (gint64), n);

      g_hash_table_iter_init (&iter, per_app);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        g_array_append_val (times, *(gint64 *) value);
      g_array_sort (times, compare_times);
      global = MAX (global, g_array_index (times, gint64, n - MAX_APPS - 1));
    }

  g_hash_table_iter_init (&iter, per_app);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (*(gint64 *) value <= global)
      g_hash_table_iter_remove (&iter);
  return global;
}

/* The global point that stands for a file that cannot be read: when it
 * was last written, rounded up, or now. */
static gint64
fallback_point (const char *path)
{
  gint64 now = g_get_real_time ();
  struct stat st;
  gint64 mtime;

  if (stat (path, &st) != 0 || st.st_mtim.tv_sec < 0 ||
      st.st_mtim.tv_sec > now / G_USEC_PER_SEC)
    return now;
  mtime = (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + (st.st_mtim.tv_nsec + 999) / 1000;
  return MIN (mtime, now);
}

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
    {
      g_autoptr(GDateTime) when = NULL;
      g_autofree char *shown = NULL;

      self->global = fallback_point (path);
      when = g_date_time_new_from_unix_utc (self->global / G_USEC_PER_SEC);
      shown = when != NULL ? g_date_time_format_iso8601 (when) : NULL;
      g_warning ("Clear points: %s; everything saved before %s counts as cleared",
                 error->message, shown != NULL ? shown : "now");
    }
  if (state != NULL)
    {
      g_autoptr(GVariantIter) iter = NULL;
      const char *app_id;
      gint64 when;

      g_variant_get (state, "(xa{sx})", &self->global, &iter);
      while (g_variant_iter_next (iter, "{&sx}", &app_id, &when))
        g_hash_table_replace (self->per_app, g_strdup (app_id),
                              g_memdup2 (&when, sizeof when));
      /* A file from before the cap, or written by hand. */
      self->global = fold (self->per_app, self->global);
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
 * failure to write changes nothing; a point that is already covered is
 * not written again. @app_ids NULL or empty means all.
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
  gboolean moves = all && when > self->global;
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->per_app);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_replace (next, g_strdup (key), g_memdup2 (value, sizeof (gint64)));

  for (guint i = 0; !all && app_ids[i] != NULL; i++)
    {
      gint64 point = sr_clear_points_get (self, app_ids[i]);

      if (when <= point)
        continue;
      moves = TRUE;
      g_hash_table_replace (next, g_strdup (app_ids[i]), g_memdup2 (&when, sizeof when));
    }
  if (!moves)
    return TRUE;

  global = fold (next, global);
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
