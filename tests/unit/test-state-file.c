/* test-state-file.c: policyd's own state files (policyd/sr-state-file.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-state-file"

#include "config.h"

#include <glib/gstdio.h>

#include "sr-error.h"
#include "sr-state-file.h"

#include "tmp-path.h"

/* A file that does not parse is reported and stays where it is (its time
 * matters to sr-clear-points.c); a copy is kept aside. */
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
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (aside, G_FILE_TEST_EXISTS));
  g_clear_error (&error);
  g_unlink (path);

  /* Missing is not an error. */
  value = sr_state_file_load (path, G_VARIANT_TYPE ("(xa{sx})"), &error);
  g_assert_null (value);
  g_assert_no_error (error);
  remove_tmp (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/state-file/corrupt", test_state_file_corrupt_is_set_aside);

  return g_test_run ();
}
