/* test-state.c: crash counters, clear points and their files; caller
 * identification parsers
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-state"

#include "config.h"

#include <glib/gstdio.h>

#include "sr-caller.h"
#include "sr-clear-points.h"
#include "sr-crash-guard.h"
#include "sr-error.h"
#include "sr-state-file.h"

#define S ((gint64) G_USEC_PER_SEC)

static char *
tmp_path (const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("sr-state-XXXXXX", NULL);
  return g_build_filename (dir, name, NULL);
}

static void
remove_tmp (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *corrupt = g_strconcat (path, ".corrupt", NULL);

  g_unlink (path);
  g_unlink (corrupt);
  g_rmdir (dir);
}

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

static void
test_clear_points (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_autoptr(SrClearPoints) points = sr_clear_points_new (path);
  g_autoptr(SrClearPoints) reloaded = NULL;
  const char *apps[] = { "org.example.A", "org.example.B", NULL };
  const char *empty[] = { NULL };

  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), ==, 0);
  g_assert_true (sr_clear_points_record (points, apps, 50, NULL));
  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), ==, 50);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.C"), ==, 0);
  /* Points never move back. */
  g_assert_true (sr_clear_points_record (points, apps, 40, NULL));
  g_assert_cmpint (sr_clear_points_get (points, "org.example.B"), ==, 50);

  /* An empty list is "all". */
  g_assert_true (sr_clear_points_record (points, empty, 30, NULL));
  g_assert_cmpint (sr_clear_points_get (points, "org.example.C"), ==, 30);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), ==, 50);

  reloaded = sr_clear_points_new (path);
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.A"), ==, 50);
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.C"), ==, 30);
  remove_tmp (path);
}

static void
test_clear_points_write_failure_changes_nothing (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *blocked = g_build_filename (dir, "blocked", "clear-points", NULL);
  g_autofree char *blocker = g_build_filename (dir, "blocked", NULL);
  g_autoptr(SrClearPoints) points = NULL;
  g_autoptr(GError) error = NULL;
  const char *apps[] = { "org.example.A", NULL };

  /* A file where the directory should be: the write must fail. */
  points = sr_clear_points_new (blocked);
  g_assert_true (g_file_set_contents (blocker, "", 0, NULL));
  g_assert_false (sr_clear_points_record (points, apps, 50, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), ==, 0);
  g_unlink (blocker);
  remove_tmp (path);
}

static void
test_state_file_corrupt_is_set_aside (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_autofree char *aside = g_strconcat (path, ".corrupt", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) value = NULL;

  g_assert_true (g_file_set_contents (path, "\xff\xfe garbage", -1, NULL));
  value = sr_state_file_load (path, G_VARIANT_TYPE ("(xa{sx})"), &error);
  g_assert_null (value);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (aside, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  /* Missing is not an error. */
  value = sr_state_file_load (path, G_VARIANT_TYPE ("(xa{sx})"), &error);
  g_assert_null (value);
  g_assert_no_error (error);
  remove_tmp (path);
}

static void
test_flatpak_info (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *app = NULL;
  const char *good = "[Application]\nname=org.example.App\nruntime=runtime/x\n";

  app = sr_caller_parse_flatpak_info (good, strlen (good), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (app, ==, "org.example.App");

  g_assert_null (sr_caller_parse_flatpak_info ("[Runtime]\n", 10, NULL));
  g_assert_null (sr_caller_parse_flatpak_info ("[Application]\nname=../x\n", 24, NULL));
  g_assert_null (sr_caller_parse_flatpak_info ("\x01\x02", 2, NULL));
}

static void
test_snap_label (void)
{
  g_autofree char *a = sr_caller_parse_snap_label ("snap.firefox.firefox (enforce)\n");
  g_autofree char *b = sr_caller_parse_snap_label ("snap.code.code (complain)");
  g_autofree char *c = sr_caller_parse_snap_label ("unconfined\n");
  g_autofree char *d = sr_caller_parse_snap_label ("snap..x");
  g_autofree char *e = sr_caller_parse_snap_label ("snap-update-ns.firefox (enforce)");

  g_assert_cmpstr (a, ==, "snap.firefox");
  g_assert_cmpstr (b, ==, "snap.code");
  g_assert_null (c);
  g_assert_null (d);
  g_assert_null (e);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/crash-guard/counts-and-persists", test_crash_guard_counts_and_persists);
  g_test_add_func ("/crash-guard/bounded", test_crash_guard_bounded);
  g_test_add_func ("/crash-guard/forgets-quiet-apps", test_crash_guard_forgets_quiet_apps);
  g_test_add_func ("/clear-points/record", test_clear_points);
  g_test_add_func ("/clear-points/write-failure", test_clear_points_write_failure_changes_nothing);
  g_test_add_func ("/state-file/corrupt", test_state_file_corrupt_is_set_aside);
  g_test_add_func ("/caller/flatpak-info", test_flatpak_info);
  g_test_add_func ("/caller/snap-label", test_snap_label);

  return g_test_run ();
}
