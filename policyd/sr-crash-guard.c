/* sr-crash-guard.c: counts involuntary exits per app
 *
 * Each app keeps the times of its recent involuntary exits. Time forgets
 * them: each exit noted also forgets every app with no exit in the
 * largest window the schema allows (a week), so the table holds the apps
 * that crashed lately, not every app that ever did; and an app's own
 * exits are kept for that largest window too, not the window in force, so
 * that widening the window later counts the exits within it. Times are
 * wall-clock µs so that they mean the same after policyd (or the machine)
 * restarts; a clock that went back leaves exits "in the future", which
 * would count, and never age, until the clock caught up: they are taken
 * as noted now (age_exits()), when read and whenever an exit is noted.
 *
 * A voluntary exit ends the app's run of crashes: the exits before it no
 * longer count towards a crash loop. While the guard holds the app back
 * (crash-loop-threshold exits within crash-loop-window), a voluntary exit
 * releases it only after a held start: a host consumer (the portal
 * backend, a session manager) was told DENY "crash-loop" for the app, so
 * it started the app without its saved state, and that same consumer (its
 * bus connection) now reports that the app exited cleanly. What the app
 * saved in that run is good, and is not to be held back at its next
 * crash. A clean exit without a held start releases nothing: the app may
 * have run with the very state that made it crash. Nor does one reported
 * by another connection than the consumer's: session-restore-ctl check,
 * asking what the guard says, started nothing. And the app's own word
 * counts for nothing: NoteExit needs no authorization and a sandboxed app
 * may send it about itself, so held starts are taken from host callers
 * only, and only a host's report of a clean exit releases. Otherwise
 * ResetCrashGuard (polkit "configure": the panel's Allow Recovery) or the
 * window passing releases an app held back.
 *
 * A held start lasts until the app's next exit (a crash ends it without
 * releasing anything), and only while the app is in the table; the last
 * MAX_HELD_STARTS callers told count (a consumer, and whoever asked what
 * the guard says since). It is kept in memory only: a policyd restarted
 * between the start and the exit has forgotten it, and the app stays held
 * until the window passes or a reset, the side of caution. NoteExit names
 * no instance: of two instances the consumer started, either's clean exit
 * counts.
 *
 * The table holds at most MAX_APPS apps: a new app beyond that evicts the
 * app whose latest exit is oldest, so a caller inventing app ids cannot
 * grow it (issue 13, C). A file written by an older policyd, or by anyone
 * else, that is larger than that is not discarded: its newest apps are kept.
 *
 * The table is written to disk when it changes, which is on app exits
 * only, never on a check, and at most once per WRITE_INTERVAL_MS: the first
 * change after a quiet second is written at once; changes within the
 * following second mark the table dirty and one write is scheduled for
 * the end of that second (on the main context). sr_crash_guard_flush(),
 * called when policyd exits (SIGTERM, SIGINT, a lost bus), writes what is
 * pending. So a burst of exits costs one write per second, not one per
 * exit; the price is that a SIGKILL (or a power cut) can lose the exits
 * noted in the last second before it, never more.
 *
 * Exits are noted on the main thread; checks also come from GDBus's worker
 * thread, and note held starts there, so the table is read and changed
 * under a lock. The disk write happens outside it, on the main thread.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-crash-guard"

#include "config.h"

#include <glib/gstdio.h>

#include "sr-crash-guard.h"
#include "sr-state-file.h"

/* The schema's largest threshold: older exits can never matter. */
#define MAX_EXITS_KEPT 1000
#define MAX_APPS SR_CRASH_GUARD_MAX_APPS
/* The callers told of an app's held start that count; see above. */
#define MAX_HELD_STARTS 4
/* At most one write per this many ms; see above. */
#define WRITE_INTERVAL_MS 1000
#define STATE_TYPE G_VARIANT_TYPE ("a{sax}")
/* A file larger than this is not read at all: it is set aside. Below it,
 * even a file over sr-state-file's limit is searched for its newest apps. */
#define SALVAGE_MAX_BYTES ((gsize) 1024 * 1024 * 1024)

struct _SrCrashGuard {
  char *path;          /* (owned) */
  gint64 max_window;   /* µs: the schema's largest crash-loop-window */
  GMutex lock;         /* guards exits and held_starts */
  GHashTable *exits;   /* (owned) app id → GArray of gint64, oldest first */
  GHashTable *held_starts; /* (owned) app id (each one in exits) → (owned)
                            * GPtrArray of the unique names of the host
                            * callers told to start it without its state
                            * since its last exit, oldest first */

  /* Main thread only. */
  gboolean dirty;      /* changed since the last write */
  gboolean write_failed; /* the last write failed: the next change writes at once */
  gint64 last_write;   /* monotonic µs of the last write, 0 for none */
  GSource *write_source; /* (owned) (nullable) the scheduled write */
};

typedef struct {
  gsize index;         /* in the file's array */
  gint64 latest;
} Candidate;

static gint
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  gint64 la = ((const Candidate *) a)->latest, lb = ((const Candidate *) b)->latest;

  return la < lb ? 1 : la > lb ? -1 : 0;
}

/* Adds the newest MAX_APPS apps of @state (an a{sax}, possibly not in
 * normal form: GVariant reads such data safely, with defaults for what
 * does not parse), newest by their latest exit; of each, the newest
 * MAX_EXITS_KEPT exits. Returns whether any app was left out. */
static gboolean
load_newest (SrCrashGuard *self,
             GVariant     *state)
{
  gsize n_apps = g_variant_n_children (state);
  g_autoptr(GArray) candidates = g_array_new (FALSE, FALSE, sizeof (Candidate));

  for (gsize i = 0; i < n_apps; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (state, i);
      g_autoptr(GVariant) times = g_variant_get_child_value (entry, 1);
      gsize n;
      const gint64 *values = g_variant_get_fixed_array (times, &n, sizeof (gint64));
      Candidate candidate = { i, n > 0 ? values[n - 1] : G_MININT64 };

      if (n > 0)
        g_array_append_val (candidates, candidate);
    }

  g_array_sort (candidates, compare_newest_first);
  for (guint i = 0; i < candidates->len && g_hash_table_size (self->exits) < MAX_APPS; i++)
    {
      const Candidate *candidate = &g_array_index (candidates, Candidate, i);
      g_autoptr(GVariant) entry = g_variant_get_child_value (state, candidate->index);
      g_autoptr(GVariant) times = g_variant_get_child_value (entry, 1);
      const char *app_id;
      gsize n;
      const gint64 *values = g_variant_get_fixed_array (times, &n, sizeof (gint64));
      gsize keep = MIN (n, MAX_EXITS_KEPT);
      GArray *array;

      g_variant_get_child (entry, 0, "&s", &app_id);
      if (*app_id == '\0' || g_hash_table_contains (self->exits, app_id))
        continue;
      array = g_array_sized_new (FALSE, FALSE, sizeof (gint64), keep);
      g_array_append_vals (array, values + (n - keep), keep);
      g_hash_table_replace (self->exits, g_strdup (app_id), array);
    }

  if (candidates->len > MAX_APPS)
    g_warning ("Crash counters: %s names %u apps; kept the %u that crashed last",
               self->path, candidates->len, (guint) MAX_APPS);
  return candidates->len > MAX_APPS;
}

static void
load (SrCrashGuard *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GVariant) state = NULL;
  gsize size;

  /* Most files are small and well formed: sr-state-file checks them (and
   * sets aside one that does not parse). */
  mapped = sr_state_file_map (self->path, NULL);
  size = mapped != NULL ? g_mapped_file_get_length (mapped) : 0;
  if (mapped == NULL || size <= SR_STATE_FILE_MAX)
    {
      g_clear_pointer (&mapped, g_mapped_file_unref);
      state = sr_state_file_load (self->path, STATE_TYPE, &error);
      if (error != NULL)
        g_warning ("Crash counters: %s", error->message);
      /* What was kept of a table over the cap is written back. */
      if (state != NULL)
        self->dirty = load_newest (self, state);
      return;
    }

  /* A file over the limit (from a policyd without the cap on apps, say)
   * is searched for its newest apps rather than thrown away; only one
   * beyond reason is set aside. Read from the mapping, not copied. */
  if (size > SALVAGE_MAX_BYTES)
    {
      g_autofree char *aside = g_strconcat (self->path, ".corrupt", NULL);

      g_warning ("Crash counters: %s is %" G_GSIZE_FORMAT " bytes; moved it to %s and "
                 "starting afresh", self->path, size, aside);
      (void) g_rename (self->path, aside);
      return;
    }
  g_warning ("Crash counters: %s is %" G_GSIZE_FORMAT " bytes, over the limit of %u; "
             "keeping its newest apps", self->path, size, (guint) SR_STATE_FILE_MAX);
  bytes = g_mapped_file_get_bytes (mapped);
  state = g_variant_ref_sink (g_variant_new_from_bytes (STATE_TYPE, bytes, FALSE));
  load_newest (self, state);
  /* What is kept is written back, well under the limit. */
  self->dirty = TRUE;
}

/* With the lock held (or before any other thread can see the table):
 * exits later than @now (the clock went back) are taken as noted @now, so
 * that they age from now on (the arrays stay sorted); with @forget, the
 * apps none of whose exits could be in any window are forgotten. Returns
 * whether anything changed. */
static gboolean
age_exits (SrCrashGuard *self,
           gint64        now,
           gboolean      forget)
{
  gint64 since = now - self->max_window;
  gboolean changed = FALSE;
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->exits);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      GArray *array = value;

      for (guint i = array->len; i > 0 && g_array_index (array, gint64, i - 1) > now; i--)
        {
          g_array_index (array, gint64, i - 1) = now;
          changed = TRUE;
        }
      if (forget && (array->len == 0 || g_array_index (array, gint64, array->len - 1) < since))
        {
          g_hash_table_iter_remove (&iter);
          changed = TRUE;
        }
    }
  return changed;
}

/* @max_window_secs: the largest crash-loop-window the schema allows; exits
 * older than that are forgotten. */
SrCrashGuard *
sr_crash_guard_new (const char *path,
                    guint       max_window_secs)
{
  SrCrashGuard *self = g_new0 (SrCrashGuard, 1);

  self->path = g_strdup (path);
  self->max_window = (gint64) max_window_secs * G_USEC_PER_SEC;
  g_mutex_init (&self->lock);
  self->exits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) g_array_unref);
  self->held_starts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) g_ptr_array_unref);
  load (self);
  /* Written at once, or every start would take them as noted "now"
   * again, and they would never age. */
  if (age_exits (self, g_get_real_time (), FALSE))
    self->dirty = TRUE;
  if (self->dirty)
    sr_crash_guard_flush (self);
  return self;
}

void
sr_crash_guard_free (SrCrashGuard *self)
{
  if (self->write_source != NULL)
    {
      g_source_destroy (self->write_source);
      g_source_unref (self->write_source);
    }
  g_hash_table_unref (self->held_starts);
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

/* Forgets exits that fell out of the largest window there can be (not the
 * window in force: it may be widened), and all but the newest
 * MAX_EXITS_KEPT; drops the app when none are left. Returns whether
 * anything was dropped. */
static gboolean
prune (SrCrashGuard *self,
       const char   *app_id,
       GArray       *array,
       gint64        now)
{
  gint64 since = now - self->max_window;
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

/* With the lock held, before adding an app: makes room for it by forgetting
 * the app whose latest exit is oldest. */
static void
evict_for_new_app (SrCrashGuard *self)
{
  GHashTableIter iter;
  gpointer key, value;
  const char *oldest_app = NULL;
  gint64 oldest = G_MAXINT64;

  if (g_hash_table_size (self->exits) < MAX_APPS)
    return;
  g_hash_table_iter_init (&iter, self->exits);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GArray *array = value;
      gint64 latest = array->len > 0 ? g_array_index (array, gint64, array->len - 1) : G_MININT64;

      if (oldest_app == NULL || latest < oldest)
        {
          oldest_app = key;
          oldest = latest;
        }
    }
  if (oldest_app != NULL)
    g_hash_table_remove (self->exits, oldest_app);
}

static gboolean
write_now (SrCrashGuard  *self,
           GError       **error)
{
  GVariant *state;

  if (self->write_source != NULL)
    {
      g_source_destroy (self->write_source);
      g_clear_pointer (&self->write_source, g_source_unref);
    }
  g_mutex_lock (&self->lock);
  state = serialize (self);
  g_mutex_unlock (&self->lock);
  self->dirty = FALSE;
  self->last_write = g_get_monotonic_time ();
  /* Only the main thread writes, so writes land in order. */
  self->write_failed = !sr_state_file_save (self->path, state, error);
  /* Still to be written: the next change, or the exit, tries again. */
  self->dirty = self->write_failed;
  return !self->write_failed;
}

static gboolean
on_write_due_cb (gpointer user_data)
{
  SrCrashGuard *self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->write_source, g_source_unref);
  if (self->dirty && !write_now (self, &error))
    g_warning ("Could not save crash counters: %s", error->message);
  return G_SOURCE_REMOVE;
}

/* On the main thread, after a change: writes now if the last write was
 * over WRITE_INTERVAL_MS ago, else once that interval is over. After a
 * write that failed (a full disk, a read-only one), every change writes
 * at once: its caller hears whether it was saved. */
static gboolean
changed (SrCrashGuard  *self,
         GError       **error)
{
  gint64 since_write = g_get_monotonic_time () - self->last_write;

  self->dirty = TRUE;
  if (self->last_write == 0 || self->write_failed || since_write >= WRITE_INTERVAL_MS * 1000)
    return write_now (self, error);
  if (self->write_source == NULL)
    {
      self->write_source = g_timeout_source_new (WRITE_INTERVAL_MS - since_write / 1000);
      g_source_set_callback (self->write_source, on_write_due_cb, self, NULL);
      g_source_set_static_name (self->write_source, "[policyd] crash counters write");
      g_source_attach (self->write_source, g_main_context_get_thread_default ());
    }
  return TRUE;
}

/* Writes the counters now if a write is pending: at exit. */
gboolean
sr_crash_guard_flush (SrCrashGuard *self)
{
  g_autoptr(GError) error = NULL;

  if (!self->dirty)
    return TRUE;
  if (!write_now (self, &error))
    {
      g_warning ("Could not save crash counters: %s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* With the lock held: @array's exits within the window ending at @now.
 * Exits after @now (a clock that went back, not yet clamped) count: they
 * are at most as old as now. */
static guint
count_locked (GArray *array,
              gint64  now,
              guint   window_secs)
{
  gint64 since = now - (gint64) window_secs * G_USEC_PER_SEC;
  guint count = 0;

  /* Newest last: count back until the window ends. */
  for (guint i = array != NULL ? array->len : 0; i > 0; i--)
    {
      if (g_array_index (array, gint64, i - 1) < since)
        break;
      count++;
    }
  return count;
}

/* With the lock held: the held starts of apps that left the table (their
 * exits forgotten, evicted, reset) go too. */
static void
drop_stale_held_starts (SrCrashGuard *self)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->held_starts);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (self->exits, key))
      g_hash_table_iter_remove (&iter);
}

/* @consumer was told DENY "crash-loop" for @app_id: it starts the app
 * without its saved state. @consumer: (nullable) the caller's unique bus
 * name, NULL for a sandboxed app asking about itself, which counts for
 * nothing (see above). Memory only: any thread, on the hot path. */
void
sr_crash_guard_note_held_start (SrCrashGuard *self,
                                const char   *app_id,
                                const char   *consumer)
{
  GPtrArray *told;

  if (consumer == NULL)
    return;
  g_mutex_lock (&self->lock);
  told = g_hash_table_lookup (self->held_starts, app_id);
  if (told == NULL && g_hash_table_contains (self->exits, app_id))
    {
      told = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (self->held_starts, g_strdup (app_id), told);
    }
  if (told != NULL && !g_ptr_array_find_with_equal_func (told, consumer, g_str_equal, NULL))
    {
      if (told->len == MAX_HELD_STARTS)
        g_ptr_array_remove_index (told, 0);
      g_ptr_array_add (told, g_strdup (consumer));
    }
  g_mutex_unlock (&self->lock);
}

/* Notes an exit; the counters are written within WRITE_INTERVAL_MS (at
 * once after a quiet second). @consumer: (nullable) the unique bus name of
 * the host process that reported it, NULL for a sandboxed app reporting
 * its own. @threshold and @window_secs: the settings in force, which tell
 * whether the guard holds the app back (a voluntary exit then releases it
 * only after that consumer's held start). Main thread only. */
gboolean
sr_crash_guard_note_exit (SrCrashGuard  *self,
                          const char    *app_id,
                          gboolean       voluntary,
                          const char    *consumer,
                          gint64         now,
                          guint          threshold,
                          guint          window_secs,
                          GError       **error)
{
  gboolean changed_any;
  GArray *array;

  g_mutex_lock (&self->lock);
  changed_any = age_exits (self, now, TRUE);
  array = g_hash_table_lookup (self->exits, app_id);
  if (voluntary)
    {
      gboolean held = threshold > 0 && count_locked (array, now, window_secs) >= threshold;
      GPtrArray *told = g_hash_table_lookup (self->held_starts, app_id);
      /* Another's report leaves the held start to its consumer's. */
      gboolean held_start = consumer != NULL && told != NULL &&
                            g_ptr_array_find_with_equal_func (told, consumer, g_str_equal, NULL) &&
                            g_hash_table_remove (self->held_starts, app_id);

      if (array != NULL && (!held || held_start))
        changed_any |= g_hash_table_remove (self->exits, app_id);
    }
  else
    {
      /* The start, held or not, ended in a crash. */
      g_hash_table_remove (self->held_starts, app_id);
      if (array == NULL)
        {
          evict_for_new_app (self);
          array = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_hash_table_insert (self->exits, g_strdup (app_id), array);
        }
      g_array_append_val (array, now);
      prune (self, app_id, array, now);
      changed_any = TRUE;
    }
  drop_stale_held_starts (self);
  g_mutex_unlock (&self->lock);

  return !changed_any || changed (self, error);
}

guint
sr_crash_guard_n_apps (SrCrashGuard *self)
{
  guint n;

  g_mutex_lock (&self->lock);
  n = g_hash_table_size (self->exits);
  g_mutex_unlock (&self->lock);
  return n;
}

guint
sr_crash_guard_count (SrCrashGuard *self,
                      const char   *app_id,
                      gint64        now,
                      guint         window_secs)
{
  guint count;

  g_mutex_lock (&self->lock);
  count = count_locked (g_hash_table_lookup (self->exits, app_id), now, window_secs);
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

/* Forgets every exit of @app_id (the user's "try again"): the way,
 * besides time and a clean exit after a held start, to release an app the
 * guard holds back. */
gboolean
sr_crash_guard_reset (SrCrashGuard  *self,
                      const char    *app_id,
                      GError       **error)
{
  gboolean removed;

  g_mutex_lock (&self->lock);
  removed = g_hash_table_remove (self->exits, app_id);
  g_hash_table_remove (self->held_starts, app_id);
  g_mutex_unlock (&self->lock);

  /* An administrator's reset is rare: it is written at once. */
  return !removed || write_now (self, error);
}
