/* test-pattern.c: store file name patterns
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-pattern"

#include "config.h"

#include <string.h>

#include "sr-pattern.h"

static void
assert_match (const char *pattern,
              const char *name,
              const char *expected_app)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrPattern) p = sr_pattern_new (pattern, &error);
  g_autofree char *app = NULL;

  g_assert_no_error (error);
  g_assert_true (sr_pattern_match (p, name, &app));
  g_assert_cmpstr (app, ==, expected_app);
}

static void
assert_no_match (const char *pattern,
                 const char *name)
{
  g_autoptr(SrPattern) p = sr_pattern_new (pattern, NULL);

  g_assert_nonnull (p);
  g_assert_false (sr_pattern_match (p, name, NULL));
}

/* GTK's files are "<app-id>@<instance-id>.state" (data/stores.d/gtk.store):
 * the app is what comes before the first "@", which no app id holds. */
static void
test_shipped (void)
{
  assert_match ("{app}@*.state", "org.example.App@a1b2.state", "org.example.App");
  assert_match ("{app}@*.state", "org.example.App@fallback.state", "org.example.App");
  assert_match ("{app}@*.state", "org.example.App@.state", "org.example.App");
  assert_match ("{app}@*.state", "org.example.App@a@b.state", "org.example.App");
  /* A copy GTK is writing (g_file_set_contents()), and other ends. */
  assert_no_match ("{app}@*.state", "org.example.App@1.state.QX3ZK2");
  assert_no_match ("{app}@*.state", "org.example.App@1.state.tmp");
  assert_no_match ("{app}@*.state", "org.example.App@1.state~");
  assert_no_match ("{app}@*.state", "@1.state");
  assert_no_match ("{app}@*.state", "org.exa mple.App@1.state");
  /* The pattern alone takes these for apps; the store's format does not
   * (test-store-dropin.c). */
  assert_match ("{app}@*.state", "gnome-session@gnome.state", "gnome-session");
  assert_match ("{app}@*.state", "session-restore-portal@sway.state", "session-restore-portal");
  assert_no_match ("{app}@*.state", "session-restore-portal@sway.state.20261207T101500Z.unreadable");
  assert_match ("gnome-session@*.state", "gnome-session@gnome.state", NULL);
  assert_no_match ("gnome-session@*.state", "gnome-session@gnome.state~");
  assert_no_match ("gnome-session@*.state", "org.example.App@1.state");
  assert_match ("session.gvdb", "session.gvdb", NULL);
  assert_no_match ("session.gvdb", "sessionXgvdb");
}

static void
test_greedy (void)
{
  /* As the regular expression was: every run as long as it can be. */
  assert_match ("*-{app}.state", "x-org.foo-bar.state", "bar");
  assert_match ("{app}.state", "org.App.state", "org.App");
  assert_match ("{app}*", "org.App~x", "org.App");
  assert_match ("a{app}", "aaa", "aa");
  assert_match ("{", "{", NULL);
  assert_match ("{ap{app}}", "{aporg.Ex}", "org.Ex");
  assert_match ("**x", "abcx", NULL);
  assert_no_match ("a*", "ab/c");
  assert_no_match ("{app}@*.state", "org.example.App@/.state");
}

/* Issue 22: "+" is an app id character like any other ("foo+bar"), and
 * only itself: a pattern that stopped at it left foo+bar's files behind
 * while Clear reported success. */
static void
test_app_plus (void)
{
  assert_match ("{app}@*.state", "foo+bar@1.state", "foo+bar");
  assert_match ("{app}@*.state", "fooobar@1.state", "fooobar");
  assert_match ("{app}@*.state", "c++@1.state", "c++");
  assert_match ("x-{app}.state", "x-foo+bar.state", "foo+bar");
  assert_no_match ("{app}@*.state", "foo bar@1.state");
}

static void
test_rejected (void)
{
  const char *bad[] = { "", "{app}{app}", "a/b", NULL };
  g_autofree char *long_pattern = g_strnfill (SR_PATTERN_MAX_LENGTH + 1, 'a');

  for (guint i = 0; bad[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_assert_null (sr_pattern_new (bad[i], &error));
      g_assert_nonnull (error);
    }
  g_assert_null (sr_pattern_new (long_pattern, NULL));
}

/* Many stars against a name that almost matches: the classic exponential
 * case for backtracking matchers must stay fast. */
static void
test_no_blowup (void)
{
  g_autoptr(GString) pattern = g_string_new (NULL);
  g_autofree char *name = g_strnfill (250, 'a');
  gint64 start;

  for (int i = 0; i < 60; i++)
    g_string_append (pattern, "*a");
  g_string_append (pattern, "*b");
  start = g_get_monotonic_time ();
  assert_no_match (pattern->str, name);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
}

/* The regular expression the matcher replaced, built the same way. */
static GRegex *
reference_regex (const char *pattern)
{
  g_autoptr(GString) regex = g_string_new ("^");

  for (const char *p = pattern; *p != '\0';)
    {
      if (g_str_has_prefix (p, "{app}"))
        {
          g_string_append (regex, "(?<app>[A-Za-z0-9_.+-]+)");
          p += strlen ("{app}");
        }
      else if (*p == '*')
        {
          g_string_append (regex, "[^/]*");
          p++;
        }
      else
        {
          g_autofree char *escaped = g_regex_escape_string (p, 1);
          g_string_append (regex, escaped);
          p++;
        }
    }
  g_string_append_c (regex, '$');
  return g_regex_new (regex->str, 0, 0, NULL);
}

/* Random patterns and names over a small alphabet: the same answers, and
 * the same app, as the regular expression. */
static void
test_same_as_regex (void)
{
  static const char *pieces[] = { "a", "b", ".", "-", "+", "@", "#", "*", "{app}", "{" };
  static const char alphabet[] = "ab.-+@#{}/";
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261203);

  for (int i = 0; i < 20000; i++)
    {
      g_autoptr(GString) pattern = g_string_new (NULL);
      g_autoptr(GString) name = g_string_new (NULL);
      g_autoptr(SrPattern) p = NULL;
      g_autoptr(GRegex) regex = NULL;
      g_autoptr(GMatchInfo) info = NULL;
      g_autofree char *app = NULL;
      g_autofree char *expected_app = NULL;
      gboolean expected;
      int n = g_rand_int_range (rand, 1, 6);

      for (int j = 0; j < n; j++)
        {
          const char *piece = pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))];
          if (g_str_equal (piece, "{app}") && strstr (pattern->str, "{app}") != NULL)
            continue;
          g_string_append (pattern, piece);
        }
      n = g_rand_int_range (rand, 0, 9);
      for (int j = 0; j < n; j++)
        g_string_append_c (name, alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)]);

      p = sr_pattern_new (pattern->str, NULL);
      g_assert_nonnull (p);
      regex = reference_regex (pattern->str);
      expected = g_regex_match (regex, name->str, 0, &info);
      if (expected)
        expected_app = g_match_info_fetch_named (info, "app");
      if (expected_app != NULL && *expected_app == '\0')
        g_clear_pointer (&expected_app, g_free);

      g_assert_cmpint (sr_pattern_match (p, name->str, &app), ==, expected);
      if (expected)
        g_assert_cmpstr (app, ==, expected_app);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pattern/shipped", test_shipped);
  g_test_add_func ("/pattern/greedy", test_greedy);
  g_test_add_func ("/pattern/app-plus", test_app_plus);
  g_test_add_func ("/pattern/rejected", test_rejected);
  g_test_add_func ("/pattern/no-blowup", test_no_blowup);
  g_test_add_func ("/pattern/same-as-regex", test_same_as_regex);
  return g_test_run ();
}
