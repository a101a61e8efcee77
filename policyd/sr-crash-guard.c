/* sr-crash-guard.c: counts involuntary exits per app
 *
 * Each app keeps the times of its recent involuntary exits; a voluntary
 * exit forgets them, and so does time: each exit noted also forgets every
 * app with no exit in the largest window the schema allows (a week), so
 * the table holds the apps that crashed lately, not every app that ever
 * did, and widening the window later still finds the exits within it. Times are wall-clock µs so that they mean the same
 * after policyd (or the machine) restarts. The table is written to disk
 * whenever it changes, which is on app exits only, never on a check.
 *
 * Exits are noted on the main thread; checks also come from GDBus's worker
 * thread, so the table is read and changed under a lock. The disk write
 * happens outside it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-crash-guard"

#include "config.h"

#include "sr-crash-guard.h"
#include "sr-state-file.h"

/* The schema's largest threshold: older exits can never matter. */
#define MAX_EXITS_KEPT 1000
/* The schema's largest crash-loop-window, in seconds. */
#define MAX_WINDOW_SECS (7 * 24 * 60 * 60)
#define STATE_TYPE G_VARIANT_TYPE ("a{sax}")

struct _SrCrashGuard {
  char *path;          /* (owned) */
  GMutex lock;         /* guards exits */
  GHashTable *exits;   /* (owned) app id → GArray of gint64, oldest first */
};

static void
load (SrCrashGuard *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) state = sr_state_file_load (self->path, STATE_TYPE, &error);
  GVariantIter iter;
  const char *app_id;
  GVariant *times;

  if (error != NULL)
    g_warning ("Crash counters: %s", error->message);
  if (state == NULL)
    return;

  g_variant_iter_init (&iter, state);
  while (g_variant_iter_loop (&iter, "{&s@ax}", &app_id, &times))
    {
      gsize n;
      const gint64 *values = g_variant_get_fixed_array (times, &n, sizeof (gint64));
      GArray *array = g_array_sized_new (FALSE, FALSE, sizeof (gint64), n);

      g_array_append_vals (array, values, MIN (n, MAX_EXITS_KEPT));
      g_hash_table_replace (self->exits, g_strdup (app_id), array);
    }
}

SrCrashGuard *
sr_crash_guard_new (const char *path)
{
  SrCrashGuard *self = g_new0 (SrCrashGuard, 1);

  self->path = g_strdup (path);
  g_mutex_init (&self->lock);
  self->exits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) g_array_unref);
  load (self);
  return self;
}

void
sr_crash_guard_free (SrCrashGuard *self)
{
  g_hash_table_unref (self->exits);
  g_mutex_clear (&self->lock);
  g_free (self->path);
  g_free (self);
}

/* With the lock held: the table as it will be written. */
static GVariant *
serialize (SrCrashGuard *self)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (STATE_TYPE);
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->exits);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GArray *array = value;
      g_variant_builder_add (&builder, "{s@ax}", (const char *) key,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_INT64,
                                                        array->data, array->len,
                                                        sizeof (gint64)));
    }
  return g_variant_builder_end (&builder);
}

/* Forgets exits that fell out of the window; drops the app when none are
 * left. Returns whether anything was dropped. */
static gboolean
prune (SrCrashGuard *self,
       const char   *app_id,
       GArray       *array,
       gint64        now,
       guint         window_secs)
{
  gint64 since = now - (gint64) window_secs * G_USEC_PER_SEC;
  guint keep_from = 0;

  while (keep_from < array->len && g_array_index (array, gint64, keep_from) < since)
    keep_from++;
  if (array->len - keep_from > MAX_EXITS_KEPT)
    keep_from = array->len - MAX_EXITS_KEPT;
  if (keep_from == 0)
    return FALSE;

  g_array_remove_range (array, 0, keep_from);
  if (array->len == 0)
    g_hash_table_remove (self->exits, app_id);
  return TRUE;
}

/* Forgets the apps none of whose exits could be in any window. Returns
 * whether any was forgotten. */
static gboolean
forget_quiet_apps (SrCrashGuard *self,
                   gint64        now)
{
  gint64 since = now - (gint64) MAX_WINDOW_SECS * G_USEC_PER_SEC;
  gboolean forgot = FALSE;
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->exits);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GArray *array = value;

      if (array->len == 0 || g_array_index (array, gint64, array->len - 1) < since)
        {
          g_hash_table_iter_remove (&iter);
          forgot = TRUE;
        }
    }
  return forgot;
}

gboolean
sr_crash_guard_note_exit (SrCrashGuard  *self,
                          const char    *app_id,
                          gboolean       voluntary,
                          gint64         now,
                          guint          window_secs,
                          GError       **error)
{
  GVariant *state = NULL;
  gboolean changed = FALSE;
  GArray *array;

  g_mutex_lock (&self->lock);
  array = g_hash_table_lookup (self->exits, app_id);
  if (voluntary)
    {
      if (array != NULL)
        changed = g_hash_table_remove (self->exits, app_id);
    }
  else
    {
      if (array == NULL)
        {
          array = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_hash_table_insert (self->exits, g_strdup (app_id), array);
        }
      g_array_append_val (array, now);
      prune (self, app_id, array, now, window_secs);
      changed = TRUE;
    }
  changed |= forget_quiet_apps (self, now);
  if (changed)
    state = serialize (self);
  g_mutex_unlock (&self->lock);

  /* Only the main thread notes exits, so writes land in order. */
  return state == NULL || sr_state_file_save (self->path, state, error);
}

guint
sr_crash_guard_count (SrCrashGuard *self,
                      const char   *app_id,
                      gint64        now,
                      guint         window_secs)
{
  gint64 since = now - (gint64) window_secs * G_USEC_PER_SEC;
  guint count = 0;
  GArray *array;

  g_mutex_lock (&self->lock);
  array = g_hash_table_lookup (self->exits, app_id);
  /* Newest last: count back until the window ends. */
  for (guint i = array != NULL ? array->len : 0; i > 0; i--)
    {
      if (g_array_index (array, gint64, i - 1) < since)
        break;
      count++;
    }
  g_mutex_unlock (&self->lock);
  return count;
}

gboolean
sr_crash_guard_in_loop (SrCrashGuard *self,
                        const char   *app_id,
                        gint64        now,
                        guint         threshold,
                        guint         window_secs)
{
  if (threshold == 0)
    return FALSE;
  return sr_crash_guard_count (self, app_id, now, window_secs) >= threshold;
}

/* Forgets every exit of @app_id (the user's "try again"). */
gboolean
sr_crash_guard_reset (SrCrashGuard  *self,
                      const char    *app_id,
                      GError       **error)
{
  GVariant *state = NULL;

  g_mutex_lock (&self->lock);
  if (g_hash_table_remove (self->exits, app_id))
    state = serialize (self);
  g_mutex_unlock (&self->lock);

  return state == NULL || sr_state_file_save (self->path, state, error);
}
