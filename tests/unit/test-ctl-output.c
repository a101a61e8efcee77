/* test-ctl-output.c: what session-restore-ctl prints of text from the bus
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-ctl-output"

#include "config.h"

#include "sr-ctl-output.h"

static void
check (const char *text,
       const char *expected)
{
  g_autofree char *got = sr_ctl_escape (text);

  g_assert_cmpstr (got, ==, expected);
  g_assert_true (g_utf8_validate (got, -1, NULL));
}

static void
test_plain_text_is_kept (void)
{
  check ("", "");
  check ("org.gnome.TextEditor", "org.gnome.TextEditor");
  check ("App state saved by GTK (Flatpak apps)", "App state saved by GTK (Flatpak apps)");
  /* Letters of any script, and the panel's no-break space. */
  check ("Fenêtres \u00a0 窓 \U0001F600", "Fenêtres \u00a0 窓 \U0001F600");
}

static void
test_c0_and_del (void)
{
  /* The forged "All clear." of the issue: a title, an erased line. */
  check ("a#\033]0;pwned\a\033[2K\r\033[32mAll clear.\033[0m.state",
         "a#\\x1b]0;pwned\\a\\x1b[2K\\r\\x1b[32mAll clear.\\x1b[0m.state");
  check ("\b\t\n\v\f\r", "\\b\\t\\n\\v\\f\\r");
  check ("\001x\037y\177", "\\x01x\\x1fy\\x7f");
}

static void
test_c1 (void)
{
  /* U+009B is CSI on a terminal that takes C1 controls; U+0085 NEL. */
  check ("a\xc2\x9b" "2Jb\xc2\x85" "c\xc2\x80\xc2\x9f",
         "a\\xc2\\x9b2Jb\\xc2\\x85c\\xc2\\x80\\xc2\\x9f");
  /* U+00A0 is the first character past them. */
  check ("\xc2\xa0", "\xc2\xa0");
}

static void
test_invalid_utf8 (void)
{
  /* A lone 0x9b is CSI to an 8-bit terminal. */
  check ("a\x9b" "2J", "a\\x9b2J");
  check ("\xff\xfe", "\\xff\\xfe");
  /* A sequence cut short, then valid text. */
  check ("\xe2\x82" "x\xc3\xa9", "\\xe2\\x82x\xc3\xa9");
  /* An overlong "/" and a surrogate are no characters either. */
  check ("\xc0\xaf", "\\xc0\\xaf");
  check ("\xed\xa0\x80", "\\xed\\xa0\\x80");
}

static void
test_backslash_is_doubled (void)
{
  /* Else a name that holds the text "\x1b" would read as one that holds ESC. */
  check ("a\\x1b", "a\\\\x1b");
  check ("\\", "\\\\");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ctl-output/plain-text-is-kept", test_plain_text_is_kept);
  g_test_add_func ("/ctl-output/c0-and-del", test_c0_and_del);
  g_test_add_func ("/ctl-output/c1", test_c1);
  g_test_add_func ("/ctl-output/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/ctl-output/backslash-is-doubled", test_backslash_is_doubled);
  return g_test_run ();
}
