/* test-crash-guard.c: the crash-loop guard and its file
 * (policyd/sr-crash-guard.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-crash-guard"

#include "config.h"

#include <glib/gstdio.h>

#include "sr-crash-guard.h"

#include "tmp-path.h"

#define S ((gint64) G_USEC_PER_SEC)

static void
test_crash_guard_counts_and_persists (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path);
  g_autoptr(SrCrashGuard) reloaded = NULL;

  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.A", FALSE, 100 * S, 60, NULL));
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.A", FALSE, 110 * S, 60, NULL));
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.B", FALSE, 110 * S, 60, NULL));
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 120 * S, 60), ==, 2);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 165 * S, 60), ==, 1);
  g_assert_true (sr_crash_guard_in_loop (guard, "org.example.A", 120 * S, 2, 60));
  g_assert_false (sr_crash_guard_in_loop (guard, "org.example.A", 120 * S, 3, 60));
  g_assert_false (sr_crash_guard_in_loop (guard, "org.example.A", 120 * S, 0, 60));

  reloaded = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.A", 120 * S, 60), ==, 2);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.B", 120 * S, 60), ==, 1);

  /* A voluntary exit forgets, on disk too. */
  g_assert_true (sr_crash_guard_note_exit (reloaded, "org.example.A", TRUE, 121 * S, 60, NULL));
  g_clear_pointer (&reloaded, sr_crash_guard_free);
  reloaded = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.A", 121 * S, 60), ==, 0);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.B", 121 * S, 60), ==, 1);

  remove_tmp (path);
}

static void
test_crash_guard_bounded (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path);

  for (guint i = 0; i < 1500; i++)
    g_assert_true (sr_crash_guard_note_exit (guard, "org.example.A", FALSE, (gint64) (1000 + i) * S,
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
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path);
  g_autoptr(SrCrashGuard) reloaded = NULL;
  GStatBuf st;

  /* 1,000 apps crash over three days. */
  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.Crashy%u", i);
      g_assert_true (sr_crash_guard_note_exit (guard, app, FALSE, 100 * DAY + (i % 30) * DAY / 10,
                                               60, NULL));
    }
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 40000);

  /* A week after the first half crashed, only they are forgotten... */
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.Other", TRUE,
                                           108 * DAY + DAY / 2, 60, NULL));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 15000);
  g_assert_cmpint (st.st_size, <, 25000);
  /* ...and the others still count in a window widened to a week. */
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.Crashy29", 108 * DAY + DAY / 2,
                                          7 * 24 * 60 * 60), ==, 1);

  /* Another week on, none is left but the one that just crashed. */
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.New", FALSE, 120 * DAY, 60, NULL));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, 100);
  reloaded = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.New", 120 * DAY, 60), ==, 1);

  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/crash-guard/counts-and-persists", test_crash_guard_counts_and_persists);
  g_test_add_func ("/crash-guard/bounded", test_crash_guard_bounded);
  g_test_add_func ("/crash-guard/forgets-quiet-apps", test_crash_guard_forgets_quiet_apps);

  return g_test_run ();
}
