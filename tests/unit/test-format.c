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
test_sizes (void)
{
  check (sr_format_session_size (-1, 12000), "12.0\u00a0kB");
  check (sr_format_session_size (1, 260000), "1 window, 260.0\u00a0kB");
  check (sr_format_session_size (2, 12000), "2 windows, 12.0\u00a0kB");
  check (sr_format_totals (0, 0, 0, 0, FALSE), "Nothing saved");
  /* Counted as the Clear dialog counts: one saved session per app. */
  check (sr_format_totals (1, 0, 0, 41000, FALSE), "1 saved session (41.0\u00a0kB)");
  check (sr_format_totals (6, 0, 0, 340000, FALSE), "6 saved sessions (340.0\u00a0kB)");
  /* What will not come back, in the words of its rows. */
  check (sr_format_totals (6, 2, 0, 340000, FALSE),
         "6 saved sessions (340.0\u00a0kB), 2 too old to be restored");
  check (sr_format_totals (6, 1, 1, 340000, FALSE),
         "6 saved sessions (340.0\u00a0kB), 1 too old to be restored, 1 cleared, will not be restored");
  check (sr_format_totals (6, 0, 0, 340000, TRUE),
         "6 saved sessions (340.0\u00a0kB), some could not be read");
  check (sr_format_totals (0, 0, 0, 0, TRUE), "Nothing saved, some could not be read");
  check (sr_format_nothing_saved (FALSE), "Nothing saved");
  check (sr_format_nothing_saved (TRUE), "Not saved");
  check (sr_format_cleared (1), "Cleared 1 saved session");
  check (sr_format_cleared (3), "Cleared 3 saved sessions");
}

/* An SrAppNameFunc that knows one app. */
static char *
app_name (const char *app_id,
          gpointer    user_data)
{
  return g_str_equal (app_id, "org.example.Known") ? g_strdup ("Known App") : NULL;
}

/* An SrAppNameFunc that knows the programs of a hash table. */
static char *
program_name (const char *executable,
              gpointer    user_data)
{
  return user_data != NULL ? g_strdup (g_hash_table_lookup (user_data, executable)) : NULL;
}

static void
test_consumers (void)
{
  g_autoptr(GVariant) none = g_variant_ref_sink (g_variant_new_parsed ("@a(sx) []"));
  g_autoptr(GVariant) two = g_variant_ref_sink (g_variant_new_parsed (
    "[('gnome-session', int64 2), ('mutter', 1)]"));

  g_autoptr(GVariant) sandboxed = g_variant_ref_sink (g_variant_new_parsed (
    "[('mutter', int64 3), ('flatpak/org.example.Known', 2), ('snap/snap.unknown', 1)]"));
  g_autoptr(GVariant) unknown = g_variant_ref_sink (g_variant_new_parsed (
    "[('snap/snap.unknown', int64 1)]"));
  g_autoptr(GVariant) other_sandboxed = g_variant_ref_sink (g_variant_new_parsed (
    "[('flatpak/org.example.Other', int64 1)]"));
  g_autoptr(GVariant) ctl = g_variant_ref_sink (g_variant_new_parsed (
    "[('session-restore-ctl', int64 5), ('mutter', 1)]"));
  g_autoptr(GVariant) ctl_only = g_variant_ref_sink (g_variant_new_parsed (
    "[('session-restore-ctl', int64 5)]"));
  g_autoptr(GHashTable) programs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  check (sr_format_consumers (NULL, app_name, program_name, NULL),
         "Nothing on this desktop has asked yet: your desktop may not restore apps");
  check (sr_format_consumers (none, app_name, program_name, NULL),
         "Nothing on this desktop has asked yet: your desktop may not restore apps");
  check (sr_format_consumers (two, app_name, program_name, NULL), "Used by gnome-session and mutter");
  /* A sandboxed app by its name, and as what it is. */
  check (sr_format_consumers (sandboxed, app_name, program_name, NULL),
         "Used by mutter, Known App (sandboxed app) and 1 other");
  check (sr_format_consumers (unknown, app_name, program_name, NULL), "Used by snap.unknown (sandboxed app)");
  /* session-restore-ctl's checks save and restore nothing. */
  check (sr_format_consumers (ctl, app_name, program_name, NULL), "Used by mutter");
  check (sr_format_consumers (ctl_only, app_name, program_name, NULL),
         "Nothing on this desktop has asked yet: your desktop may not restore apps");
  /* A program with a desktop file goes by its Name; one without, by its
   * executable's name. */
  g_hash_table_insert (programs, g_strdup ("mutter"), g_strdup ("Mutter"));
  check (sr_format_consumers (two, app_name, program_name, programs),
         "Used by gnome-session and Mutter");
  /* Its Name never stands for a sandboxed app of the same name. */
  g_hash_table_insert (programs, g_strdup ("org.example.Other"), g_strdup ("Host Program"));
  check (sr_format_consumers (other_sandboxed, app_name, program_name, programs),
         "Used by org.example.Other (sandboxed app)");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "C.UTF-8");
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/format/time-ago", test_time_ago);
  g_test_add_func ("/format/sizes", test_sizes);
  g_test_add_func ("/format/consumers", test_consumers);
  return g_test_run ();
}
