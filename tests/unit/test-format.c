/* test-format.c: how the panel says sizes and times
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-format"

#include "config.h"

#include <locale.h>

#include "sr-format.h"

#define MINUTE (G_USEC_PER_SEC * (gint64) 60)
#define NOW ((gint64) 1800000000 * G_USEC_PER_SEC)

static void
check (char       *got,
       const char *expected)
{
  g_assert_cmpstr (got, ==, expected);
  g_free (got);
}

static void
test_time_ago (void)
{
  check (sr_format_time_ago (NOW - 10 * G_USEC_PER_SEC, NOW), "saved just now");
  check (sr_format_time_ago (NOW - MINUTE, NOW), "saved 1 minute ago");
  check (sr_format_time_ago (NOW - 5 * MINUTE, NOW), "saved 5 minutes ago");
  check (sr_format_time_ago (NOW - 60 * MINUTE, NOW), "saved 1 hour ago");
  check (sr_format_time_ago (NOW - 23 * 60 * MINUTE, NOW), "saved 23 hours ago");
  check (sr_format_time_ago (NOW - 24 * 60 * MINUTE, NOW), "saved yesterday");
  check (sr_format_time_ago (NOW - 3 * 24 * 60 * MINUTE, NOW), "saved 3 days ago");
}

static void
test_usage (void)
{
  check (sr_format_usage (0, 0, NOW), "Nothing stored");
  check (sr_format_usage (12000, NOW - 5 * MINUTE, NOW), "12.0\u00a0kB · saved 5 minutes ago");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/format/time-ago", test_time_ago);
  g_test_add_func ("/format/usage", test_usage);
  return g_test_run ();
}
