/* test-crash-guard.c: the crash-loop guard and its file
 * (policyd/sr-crash-guard.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-crash-guard"

#include "config.h"

#include <glib/gstdio.h>

#include "sr-crash-guard.h"
#include "sr-state-file.h"

#include "tmp-path.h"

#define S ((gint64) G_USEC_PER_SEC)
/* The schema's widest crash-loop-window, as policyd reads it. */
#define MAX_WINDOW (7 * 24 * 60 * 60)
/* The unique bus names of a host consumer (the portal backend, a session
 * manager), of a host process that only asks (session-restore-ctl check),
 * and of another. */
#define CONSUMER ":1.7"
#define ASKER ":1.8"
#define OTHER_HOST ":1.9"

/* An exit as the consumer reports it. */
static gboolean
note_exit (SrCrashGuard  *guard,
           const char    *app_id,
           gboolean       voluntary,
           gint64         now,
           guint          threshold,
           guint          window_secs,
           GError       **error)
{
  return sr_crash_guard_note_exit (guard, app_id, voluntary, CONSUMER, now, threshold,
                                   window_secs, error);
}

static void
test_crash_guard_counts_and_persists (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_autoptr(SrCrashGuard) reloaded = NULL;

  g_assert_true (note_exit (guard, "org.example.A", FALSE, 100 * S, 3, 60, NULL));
  g_assert_true (note_exit (guard, "org.example.A", FALSE, 110 * S, 3, 60, NULL));
  g_assert_true (note_exit (guard, "org.example.B", FALSE, 110 * S, 3, 60, NULL));
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 120 * S, 60), ==, 2);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 165 * S, 60), ==, 1);
  g_assert_true (sr_crash_guard_in_loop (guard, "org.example.A", 120 * S, 2, 60));
  g_assert_false (sr_crash_guard_in_loop (guard, "org.example.A", 120 * S, 3, 60));
  g_assert_false (sr_crash_guard_in_loop (guard, "org.example.A", 120 * S, 0, 60));

  /* Writes within a second of each other are coalesced: flush, as policyd
   * does at exit. */
  g_assert_true (sr_crash_guard_flush (guard));
  reloaded = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.A", 120 * S, 60), ==, 2);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.B", 120 * S, 60), ==, 1);

  /* A voluntary exit forgets, on disk too. */
  g_assert_true (note_exit (reloaded, "org.example.A", TRUE, 121 * S, 3, 60, NULL));
  g_assert_true (sr_crash_guard_flush (reloaded));
  g_clear_pointer (&reloaded, sr_crash_guard_free);
  reloaded = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.A", 121 * S, 60), ==, 0);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.B", 121 * S, 60), ==, 1);

  remove_tmp (path);
}

static void
test_crash_guard_bounded (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);

  for (guint i = 0; i < 1500; i++)
    g_assert_true (note_exit (guard, "org.example.A", FALSE, (gint64) (1000 + i) * S, 3,
                              100000, NULL));
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 2500 * S, 100000), ==, 1000);
  remove_tmp (path);
}

/* Apps with no exit in the largest window there can be (a week) are
 * forgotten by the next exit noted, whoever it is for: the file holds
 * recent crashes only. Within a week they are kept, whatever the window
 * now, so that a wider window later still counts them. */
#define DAY (24 * 60 * 60 * S)

static void
test_crash_guard_forgets_quiet_apps (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sr-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "crash-counters", NULL);
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_autoptr(SrCrashGuard) reloaded = NULL;
  GStatBuf st;

  /* 1,000 apps crash over three days, in order (a clock that goes back
   * is test_crash_guard_clock_going_back). */
  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.Crashy%u", i);
      g_assert_true (note_exit (guard, app, FALSE, 100 * DAY + (i * 30 / 1000) * DAY / 10,
                                3, 60, NULL));
    }
  g_assert_true (sr_crash_guard_flush (guard));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 40000);

  /* A week after the first half crashed, only they are forgotten... */
  g_assert_true (note_exit (guard, "org.example.Other", TRUE,
                            108 * DAY + DAY / 2, 3, 60, NULL));
  g_assert_true (sr_crash_guard_flush (guard));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 15000);
  g_assert_cmpint (st.st_size, <, 25000);
  /* ...and the others still count in a window widened to a week. */
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.Crashy999", 108 * DAY + DAY / 2,
                                          7 * 24 * 60 * 60), ==, 1);

  /* Another week on, none is left but the one that just crashed. */
  g_assert_true (note_exit (guard, "org.example.New", FALSE, 120 * DAY, 3, 60, NULL));
  g_assert_true (sr_crash_guard_flush (guard));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, 100);
  reloaded = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.New", 120 * DAY, 60), ==, 1);

  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Issue 13, C: app ids invented by a caller cannot grow the table past
 * SR_CRASH_GUARD_MAX_APPS; a new app evicts the one whose latest exit is
 * oldest. */
static void
test_crash_guard_capped (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_autoptr(SrCrashGuard) reloaded = NULL;

  for (guint i = 0; i < SR_CRASH_GUARD_MAX_APPS; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.App%u", i);
      g_assert_true (note_exit (guard, app, FALSE, (1000 + i) * S, 3, 100000, NULL));
    }
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  /* App0 crashes again: now App1's latest exit is the oldest. */
  g_assert_true (note_exit (guard, "org.example.App0", FALSE, 3000 * S, 3, 100000, NULL));
  g_assert_true (note_exit (guard, "org.example.New", FALSE, 3001 * S, 3, 100000, NULL));
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App1", 3001 * S, 100000), ==, 0);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App0", 3001 * S, 100000), ==, 2);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App2", 3001 * S, 100000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.New", 3001 * S, 100000), ==, 1);

  /* 5,000 more: still capped, and the newest are the ones kept. */
  for (guint i = 0; i < 5000; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.Flood%u", i);
      g_assert_true (note_exit (guard, app, FALSE, (4000 + i) * S, 3, 100000, NULL));
    }
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.Flood4999", 9000 * S, 100000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.Flood3976", 9000 * S, 100000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.Flood3975", 9000 * S, 100000), ==, 0);
  g_assert_true (sr_crash_guard_flush (guard));
  reloaded = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_n_apps (reloaded), ==, SR_CRASH_GUARD_MAX_APPS);
  remove_tmp (path);
}

static gboolean
set_true_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The first change after a quiet second is written at once; the changes
 * within the next second are written together when it is over (or at
 * flush), not one by one. */
static void
test_crash_guard_coalesces_writes (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_autoptr(SrCrashGuard) on_disk = NULL;
  GStatBuf first, st;
  gboolean waited = FALSE;

  g_assert_true (note_exit (guard, "org.example.A", FALSE, 100 * S, 3, 60, NULL));
  g_assert_cmpint (g_stat (path, &first), ==, 0);
  on_disk = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_n_apps (on_disk), ==, 1);
  g_clear_pointer (&on_disk, sr_crash_guard_free);

  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.B%u", i);
      g_assert_true (note_exit (guard, app, FALSE, 101 * S, 3, 60, NULL));
    }
  /* Not rewritten yet: the same file (inode) as after the first. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_ino, ==, first.st_ino);

  /* The scheduled write, about a second on. */
  g_timeout_add (1500, set_true_cb, &waited);
  while (!waited)
    g_main_context_iteration (NULL, TRUE);
  on_disk = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_n_apps (on_disk), ==, 201);
  g_clear_pointer (&on_disk, sr_crash_guard_free);

  /* Within the second after that write, a change waits for flush. */
  g_assert_true (note_exit (guard, "org.example.C", FALSE, 102 * S, 3, 60, NULL));
  on_disk = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_n_apps (on_disk), ==, 201);
  g_clear_pointer (&on_disk, sr_crash_guard_free);
  g_assert_true (sr_crash_guard_flush (guard));
  on_disk = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_n_apps (on_disk), ==, 202);
  remove_tmp (path);
}

/* A table over the cap (5,000 apps), or a file over the size limit, is
 * not thrown away at start: the apps that crashed last are kept. */
static void
test_crash_guard_loads_newest_of_large_tables (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sax}"));
  g_autoptr(SrCrashGuard) guard = NULL;
  g_autoptr(GError) error = NULL;
  gsize n_exits = SR_STATE_FILE_MAX / sizeof (gint64) / 3 + 1000;
  g_autofree gint64 *exits = g_new (gint64, n_exits);
  GStatBuf st;

  for (guint i = 0; i < 5000; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.App%u", i);
      gint64 when = (gint64) (i % 2 ? 100000 + i : 10000 + i) * S;
      g_variant_builder_add (&builder, "{s@ax}", app,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, &when, 1,
                                                        sizeof (gint64)));
    }
  g_assert_true (sr_state_file_save (path, g_variant_builder_end (&builder), &error));
  g_assert_no_error (error);

  g_test_expect_message ("sr-crash-guard", G_LOG_LEVEL_WARNING, "*5000 apps*kept the 1024*");
  guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  /* The odd ones crashed last; of them, the 1,024 newest. */
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App4999", 200000 * S, 1000000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App2953", 200000 * S, 1000000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App2951", 200000 * S, 1000000), ==, 0);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App4998", 200000 * S, 1000000), ==, 0);
  /* What was kept was written back. */
  g_clear_pointer (&guard, sr_crash_guard_free);
  guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  g_clear_pointer (&guard, sr_crash_guard_free);

  /* Over the size limit: three apps with very long histories. */
  for (gsize i = 0; i < n_exits; i++)
    exits[i] = (gint64) (1000 + i) * S;
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{sax}"));
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.Long%u", i);
      g_variant_builder_add (&builder, "{s@ax}", app,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, exits,
                                                        n_exits - i, sizeof (gint64)));
    }
  g_assert_true (sr_state_file_save (path, g_variant_builder_end (&builder), &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, SR_STATE_FILE_MAX);

  g_test_expect_message ("sr-crash-guard", G_LOG_LEVEL_WARNING, "*over the limit*newest*");
  guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.Long%u", i);
      gint64 latest = (gint64) (1000 + n_exits - i - 1) * S;

      /* Its newest exits: the last one, and 1,000 in all. */
      g_assert_cmpuint (sr_crash_guard_count (guard, app, latest, 0), ==, 1);
      g_assert_cmpuint (sr_crash_guard_count (guard, app, latest, 1000000000), ==, 1000);
    }
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, 100000);
  remove_tmp (path);
}

/* Issue 22, 6: a voluntary exit ends a run of crashes that has not
 * reached the threshold: the crashes before it no longer count. */
static void
test_crash_guard_voluntary_exit_ends_a_run (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);

  g_assert_true (note_exit (guard, "org.example.A", FALSE, 100 * S, 3, 600, NULL));
  g_assert_true (note_exit (guard, "org.example.A", FALSE, 101 * S, 3, 600, NULL));
  g_assert_true (note_exit (guard, "org.example.A", TRUE, 102 * S, 3, 600, NULL));
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 103 * S, 600), ==, 0);
  g_assert_true (note_exit (guard, "org.example.A", FALSE, 104 * S, 3, 600, NULL));
  g_assert_true (note_exit (guard, "org.example.A", FALSE, 105 * S, 3, 600, NULL));
  g_assert_false (sr_crash_guard_in_loop (guard, "org.example.A", 106 * S, 3, 600));
  g_assert_true (note_exit (guard, "org.example.A", FALSE, 107 * S, 3, 600, NULL));
  g_assert_true (sr_crash_guard_in_loop (guard, "org.example.A", 108 * S, 3, 600));
  remove_tmp (path);
}

/* Issue 22, 6: NoteExit(app, true) needs no authorization, and used to
 * release an app the guard held back, as only ResetCrashGuard (polkit)
 * should. Now it does not, without a held start (below): the reset or the
 * window passing does. */
static void
test_crash_guard_voluntary_exit_does_not_release (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_autoptr(SrCrashGuard) reloaded = NULL;

  for (guint i = 0; i < 3; i++)
    g_assert_true (note_exit (guard, "org.example.A", FALSE, (100 + i) * S, 3, 600,
                              NULL));
  g_assert_true (sr_crash_guard_in_loop (guard, "org.example.A", 103 * S, 3, 600));
  g_assert_true (note_exit (guard, "org.example.A", TRUE, 104 * S, 3, 600, NULL));
  g_assert_true (sr_crash_guard_in_loop (guard, "org.example.A", 105 * S, 3, 600));
  g_assert_true (sr_crash_guard_flush (guard));
  reloaded = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_true (sr_crash_guard_in_loop (reloaded, "org.example.A", 105 * S, 3, 600));

  /* The window passing releases it... */
  g_assert_false (sr_crash_guard_in_loop (reloaded, "org.example.A", 701 * S, 3, 600));
  /* ...and then a voluntary exit ends the run. */
  g_assert_true (note_exit (reloaded, "org.example.A", TRUE, 702 * S, 3, 600, NULL));
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.A", 702 * S, MAX_WINDOW), ==, 0);

  /* A reset releases at once. */
  for (guint i = 0; i < 3; i++)
    g_assert_true (note_exit (reloaded, "org.example.A", FALSE, (800 + i) * S, 3,
                              600, NULL));
  g_assert_true (sr_crash_guard_reset (reloaded, "org.example.A", NULL));
  g_assert_false (sr_crash_guard_in_loop (reloaded, "org.example.A", 803 * S, 3, 600));

  /* With the guard off, nothing is held: a voluntary exit ends the run. */
  for (guint i = 0; i < 3; i++)
    g_assert_true (note_exit (reloaded, "org.example.B", FALSE, (900 + i) * S, 0,
                              600, NULL));
  g_assert_true (note_exit (reloaded, "org.example.B", TRUE, 903 * S, 0, 600, NULL));
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.B", 903 * S, 600), ==, 0);
  remove_tmp (path);
}

static void
hold (SrCrashGuard *guard,
      const char   *app_id,
      gint64        first)
{
  for (guint i = 0; i < 3; i++)
    g_assert_true (note_exit (guard, app_id, FALSE, first + i * S, 3, 600, NULL));
  g_assert_true (sr_crash_guard_in_loop (guard, app_id, first + 3 * S, 3, 600));
}

/* An exit as the sandboxed app reports its own. */
static gboolean
note_own_exit (SrCrashGuard *guard,
               const char   *app_id,
               gboolean      voluntary,
               gint64        now)
{
  return sr_crash_guard_note_exit (guard, app_id, voluntary, NULL, now, 3, 600, NULL);
}

/* A held app that a host consumer started without its state (told DENY
 * "crash-loop": a held start), and that then exited cleanly as that
 * consumer reports, is released: what it saved in that run is good, and
 * was thrown away at its next crash. The app's own word counts for
 * nothing: neither a held start it was told of about itself, nor its own
 * report of a clean exit; nor does another host process's report (one
 * that only asked, as session-restore-ctl check does). */
static void
test_crash_guard_clean_exit_after_held_start_releases (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_autoptr(SrCrashGuard) reloaded = NULL;
  const char *app = "org.example.A";

  hold (guard, app, 100 * S);
  /* The sandboxed app's own check, its own report: still held. */
  sr_crash_guard_note_held_start (guard, app, NULL);
  g_assert_true (note_own_exit (guard, app, TRUE, 104 * S));
  g_assert_true (sr_crash_guard_in_loop (guard, app, 105 * S, 3, 600));
  /* Without a held start, the consumer's report of a clean exit: still
   * held (the app may have run with the state that made it crash). */
  g_assert_true (note_exit (guard, app, TRUE, 105 * S, 3, 600, NULL));
  g_assert_true (sr_crash_guard_in_loop (guard, app, 106 * S, 3, 600));
  g_assert_cmpuint (sr_crash_guard_count (guard, app, 106 * S, 600), ==, 3);

  /* A consumer's held start, and a question after it; the app's own
   * report of its clean exit, or another host process's, releases nothing
   * and leaves the held start to the consumer's report. */
  sr_crash_guard_note_held_start (guard, app, CONSUMER);
  sr_crash_guard_note_held_start (guard, app, ASKER);
  g_assert_true (note_own_exit (guard, app, TRUE, 106 * S));
  g_assert_true (sr_crash_guard_note_exit (guard, app, TRUE, OTHER_HOST, 106 * S, 3, 600, NULL));
  g_assert_true (sr_crash_guard_in_loop (guard, app, 107 * S, 3, 600));
  g_assert_true (note_exit (guard, app, TRUE, 107 * S, 3, 600, NULL));
  g_assert_false (sr_crash_guard_in_loop (guard, app, 108 * S, 3, 600));
  g_assert_cmpuint (sr_crash_guard_count (guard, app, 108 * S, MAX_WINDOW), ==, 0);
  g_assert_true (sr_crash_guard_flush (guard));
  reloaded = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, app, 108 * S, MAX_WINDOW), ==, 0);
  g_clear_pointer (&reloaded, sr_crash_guard_free);

  /* A held start that ended in a crash releases nothing. */
  hold (guard, app, 200 * S);
  sr_crash_guard_note_held_start (guard, app, CONSUMER);
  g_assert_true (note_exit (guard, app, FALSE, 203 * S, 3, 600, NULL));
  g_assert_true (note_exit (guard, app, TRUE, 204 * S, 3, 600, NULL));
  g_assert_cmpuint (sr_crash_guard_count (guard, app, 205 * S, 600), ==, 4);
  remove_tmp (path);
}

/* Issue 22, 6: exits were pruned to the window in force, so widening it
 * found nothing older. They are kept for the widest window there can be. */
static void
test_crash_guard_widening_the_window_counts_older_exits (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);

  /* Three crashes ten minutes apart: no loop within 60 s... */
  for (guint i = 0; i < 3; i++)
    g_assert_true (note_exit (guard, "org.example.A", FALSE, (1000 + 600 * i) * S, 3,
                              60, NULL));
  g_assert_false (sr_crash_guard_in_loop (guard, "org.example.A", 2201 * S, 3, 60));
  /* ...but within an hour, yes. */
  g_assert_true (sr_crash_guard_in_loop (guard, "org.example.A", 2201 * S, 3, 3600));
  /* Not beyond the widest window. */
  g_assert_true (note_exit (guard, "org.example.A", FALSE, (1000 + MAX_WINDOW + 1) * S,
                            3, 60, NULL));
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", (1000 + MAX_WINDOW + 1) * S,
                                          G_MAXUINT32), ==, 3);
  remove_tmp (path);
}

/* Issue 22, 6: a wall clock that goes back leaves exits in the future;
 * they must age from then on, not count until the clock catches up. */
static void
test_crash_guard_clock_going_back (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sax}"));
  gint64 now = g_get_real_time ();
  gint64 future[3] = { now + 365 * DAY, now + 365 * DAY + S, now + 365 * DAY + 2 * S };

  for (guint i = 0; i < 3; i++)
    g_assert_true (note_exit (guard, "org.example.A", FALSE, (10000 + i) * S, 3, 600,
                              NULL));
  g_assert_true (sr_crash_guard_in_loop (guard, "org.example.A", 10003 * S, 3, 600));
  /* The clock goes back by more than an hour; another app's exit is
   * noted. A's crashes count as of now, and age from now. */
  g_assert_true (note_exit (guard, "org.example.B", FALSE, 5000 * S, 3, 600, NULL));
  g_assert_true (sr_crash_guard_in_loop (guard, "org.example.A", 5000 * S, 3, 600));
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 5601 * S, 600), ==, 0);
  /* And they are forgotten a week on. */
  g_assert_true (note_exit (guard, "org.example.C", FALSE, 5001 * S + MAX_WINDOW * S,
                            3, 600, NULL));
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 5001 * S + MAX_WINDOW * S,
                                          G_MAXUINT32), ==, 0);
  g_clear_pointer (&guard, sr_crash_guard_free);

  /* A file whose exits lie a year ahead of this machine's clock. */
  g_variant_builder_add (&builder, "{s@ax}", "org.example.A",
                         g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, future, 3, sizeof (gint64)));
  g_assert_true (sr_state_file_save (path, g_variant_builder_end (&builder), NULL));
  guard = sr_crash_guard_new (path, MAX_WINDOW);
  now = g_get_real_time ();
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", now, 600), ==, 3);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", now + 601 * S, 600), ==, 0);
  /* What was taken as now was written back: the next start does not take
   * it as its own now again. */
  g_clear_pointer (&guard, sr_crash_guard_free);
  guard = sr_crash_guard_new (path, MAX_WINDOW);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", now + 601 * S, 600), ==, 0);
  remove_tmp (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/crash-guard/counts-and-persists", test_crash_guard_counts_and_persists);
  g_test_add_func ("/crash-guard/bounded", test_crash_guard_bounded);
  g_test_add_func ("/crash-guard/forgets-quiet-apps", test_crash_guard_forgets_quiet_apps);
  g_test_add_func ("/crash-guard/capped", test_crash_guard_capped);
  g_test_add_func ("/crash-guard/coalesces-writes", test_crash_guard_coalesces_writes);
  g_test_add_func ("/crash-guard/voluntary-exit-ends-a-run", test_crash_guard_voluntary_exit_ends_a_run);
  g_test_add_func ("/crash-guard/voluntary-exit-does-not-release",
                   test_crash_guard_voluntary_exit_does_not_release);
  g_test_add_func ("/crash-guard/clean-exit-after-held-start-releases",
                   test_crash_guard_clean_exit_after_held_start_releases);
  g_test_add_func ("/crash-guard/widening-the-window-counts-older-exits",
                   test_crash_guard_widening_the_window_counts_older_exits);
  g_test_add_func ("/crash-guard/clock-going-back", test_crash_guard_clock_going_back);
  g_test_add_func ("/crash-guard/loads-newest-of-large-tables",
                   test_crash_guard_loads_newest_of_large_tables);

  return g_test_run ();
}
