/* test-clear-points.c: clear points and their file (policyd/stores/sr-clear-points.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-clear-points"

#include "config.h"

#include <sys/stat.h>
#include <utime.h>

#include <glib/gstdio.h>

#include "sr-clear-points.h"
#include "sr-error.h"
#include "sr-state-file.h"

#include "tmp-path.h"

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

/* Sets @path's modification time, in seconds since the epoch. */
static void
set_mtime (const char *path,
           gint64      secs)
{
  struct utimbuf times = { .actime = secs, .modtime = secs };

  g_assert_cmpint (g_utime (path, &times), ==, 0);
}

/* Issue 22, 6: a clear-points file that does not parse used to be set
 * aside and every point forgotten, so that state cleared before was
 * restorable again. Now it stands for a global point at its own time. */
static void
test_clear_points_corrupt_file_falls_back (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_autoptr(SrClearPoints) points = sr_clear_points_new (path);
  g_autoptr(SrClearPoints) reloaded = NULL;
  const char *apps[] = { "org.example.A", NULL };
  gint64 now_secs = g_get_real_time () / G_USEC_PER_SEC;

  g_assert_true (sr_clear_points_record (points, apps, (now_secs - 100) * G_USEC_PER_SEC, NULL));
  g_assert_true (g_file_set_contents (path, "\xff\xfe torn", -1, NULL));
  set_mtime (path, now_secs - 50);

  g_test_expect_message ("sr-clear-points", G_LOG_LEVEL_WARNING,
                         "*not a valid state file*counts as cleared*");
  reloaded = sr_clear_points_new (path);
  g_test_assert_expected_messages ();
  /* Every app, the one cleared before included, is cleared up to the
   * file's time; nothing after it. */
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.A"), ==, (now_secs - 50) * G_USEC_PER_SEC);
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.B"), ==, (now_secs - 50) * G_USEC_PER_SEC);
  /* The file stays, so the next start falls back the same way. */
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  g_clear_pointer (&reloaded, sr_clear_points_free);
  g_test_expect_message ("sr-clear-points", G_LOG_LEVEL_WARNING, "*counts as cleared*");
  reloaded = sr_clear_points_new (path);
  g_test_assert_expected_messages ();
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.B"), ==, (now_secs - 50) * G_USEC_PER_SEC);

  /* The next clear writes a good file that keeps the fallback. */
  g_assert_true (sr_clear_points_record (reloaded, apps, (now_secs - 10) * G_USEC_PER_SEC, NULL));
  g_clear_pointer (&reloaded, sr_clear_points_free);
  reloaded = sr_clear_points_new (path);
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.A"), ==, (now_secs - 10) * G_USEC_PER_SEC);
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.B"), ==, (now_secs - 50) * G_USEC_PER_SEC);
  remove_tmp (path);
}

/* A bad file from the future (a clock that was wrong) falls back to now,
 * not to a point that would deny state saved from now on. */
static void
test_clear_points_corrupt_file_from_the_future (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_autoptr(SrClearPoints) points = NULL;
  gint64 before = g_get_real_time ();

  g_assert_true (g_file_set_contents (path, "\xff", -1, NULL));
  set_mtime (path, before / G_USEC_PER_SEC + 365 * 24 * 3600);
  g_test_expect_message ("sr-clear-points", G_LOG_LEVEL_WARNING, "*counts as cleared*");
  points = sr_clear_points_new (path);
  g_test_assert_expected_messages ();
  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), >=, before);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), <=, g_get_real_time ());
  remove_tmp (path);
}

static guint
apps_on_disk (const char *path)
{
  g_autoptr(GVariant) state = sr_state_file_load (path, G_VARIANT_TYPE ("(xa{sx})"), NULL);
  g_autoptr(GVariant) apps = g_variant_get_child_value (state, 1);

  return g_variant_n_children (apps);
}

/* Issue 22, 6: the file is capped; the oldest apps' points are folded
 * into the global point, so their state is still denied. */
static void
test_clear_points_capped (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_autoptr(SrClearPoints) points = sr_clear_points_new (path);
  g_autoptr(SrClearPoints) reloaded = NULL;
  guint per_clear = 96, n_clears = 16, n = per_clear * n_clears;

  /* 16 clears of 96 apps each (1,536), each clear a second later. */
  for (guint c = 0; c < n_clears; c++)
    {
      g_autoptr(GPtrArray) apps = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < per_clear; i++)
        g_ptr_array_add (apps, g_strdup_printf ("org.example.App%u", c * per_clear + i));
      g_ptr_array_add (apps, NULL);
      g_assert_true (sr_clear_points_record (points, (const char * const *) apps->pdata,
                                             1000 + c, NULL));
    }
  g_assert_cmpuint (apps_on_disk (path), <=, SR_CLEAR_POINTS_MAX_APPS);

  reloaded = sr_clear_points_new (path);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.App%u", i);

      /* Each app's state saved up to its point is still cleared... */
      g_assert_cmpint (sr_clear_points_get (reloaded, app), >=, 1000 + i / per_clear);
    }
  /* ...the newest apps keep their own points; the global point is that of
   * the newest clear folded (the sixth: 512 apps had to go, which is five
   * clears and a part of the sixth, and the sixth's apps share a time). */
  {
    g_autofree char *newest = g_strdup_printf ("org.example.App%u", n - 1);
    g_assert_cmpint (sr_clear_points_get (reloaded, newest), ==, 1000 + n_clears - 1);
  }
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.Never"), ==, 1005);
  remove_tmp (path);
}

/* A file with more apps than the cap (an older policyd's, or written by
 * hand) is folded the same way when read. */
static void
test_clear_points_large_file_folded (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sx}"));
  g_autoptr(SrClearPoints) points = NULL;
  guint n = 3 * SR_CLEAR_POINTS_MAX_APPS;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.App%u", i);
      g_variant_builder_add (&builder, "{sx}", app, (gint64) (5000 + i));
    }
  g_assert_true (sr_state_file_save (path, g_variant_new ("(x@a{sx})", (gint64) 10,
                                                          g_variant_builder_end (&builder)),
                                     NULL));
  points = sr_clear_points_new (path);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.App0"), >=, 5000);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.Other"), ==,
                   5000 + n - SR_CLEAR_POINTS_MAX_APPS - 1);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.App3071"), ==, 5000 + n - 1);
  remove_tmp (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/clear-points/record", test_clear_points);
  g_test_add_func ("/clear-points/write-failure", test_clear_points_write_failure_changes_nothing);
  g_test_add_func ("/clear-points/corrupt-file-falls-back", test_clear_points_corrupt_file_falls_back);
  g_test_add_func ("/clear-points/corrupt-file-from-the-future",
                   test_clear_points_corrupt_file_from_the_future);
  g_test_add_func ("/clear-points/capped", test_clear_points_capped);
  g_test_add_func ("/clear-points/large-file-folded", test_clear_points_large_file_folded);

  return g_test_run ();
}
