/* test-caller.c: what caller identification parses: .flatpak-info and
 * snap labels (policyd/sr-caller.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-caller"

#include "config.h"

#include <string.h>

#include "sr-caller.h"

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

  g_test_add_func ("/caller/flatpak-info", test_flatpak_info);
  g_test_add_func ("/caller/snap-label", test_snap_label);

  return g_test_run ();
}
