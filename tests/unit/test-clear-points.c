/* test-clear-points.c: clear points and their file (policyd/sr-clear-points.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-clear-points"

#include "config.h"

#include <glib/gstdio.h>

#include "sr-clear-points.h"
#include "sr-error.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/clear-points/record", test_clear_points);
  g_test_add_func ("/clear-points/write-failure", test_clear_points_write_failure_changes_nothing);

  return g_test_run ();
}
