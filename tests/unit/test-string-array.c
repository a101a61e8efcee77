/* test-string-array.c: lists of strings read without GLib
 *
 * Every case checks the reader against what GLib reads from the same
 * untrusted bytes element by element (how policyd read its lists before),
 * and against the strings a person expects.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-string-array"

#include "config.h"

#include <string.h>

#include "sr-policy.h"
#include "sr-string-array.h"

static GVariant *
untrusted (const void *data,
           gsize       size)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);

  return g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE_STRING_ARRAY, bytes, FALSE));
}

static void
add_to_builder (const char *string,
                gpointer    user_data)
{
  g_strv_builder_add (user_data, string);
}

static GStrv
reader_reads (GVariant *value)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  sr_string_array_foreach (value, add_to_builder, builder);
  return g_strv_builder_end (builder);
}

static GStrv
glib_reads (GVariant *value)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (gsize i = 0, n = g_variant_n_children (value); i < n; i++)
    {
      g_autoptr(GVariant) child = g_variant_get_child_value (value, i);

      g_strv_builder_add (builder, g_variant_get_string (child, NULL));
    }
  return g_strv_builder_end (builder);
}

/* @data of @size bytes reads as @expected (NULL-terminated), the way GLib
 * reads it; the normalized value too. */
static void
assert_reads (const void         *data,
              gsize               size,
              const char * const *expected)
{
  g_autoptr(GVariant) value = untrusted (data, size);
  g_auto(GStrv) read = reader_reads (value);
  g_auto(GStrv) by_glib = glib_reads (value);
  g_autoptr(GVariant) normal = sr_string_array_normalize (value);
  g_auto(GStrv) normal_read = reader_reads (normal);

  g_assert_cmpstrv (read, expected);
  g_assert_cmpstrv (read, by_glib);
  g_assert_true (g_variant_is_normal_form (normal));
  g_assert_cmpstrv (normal_read, expected);
}

/* The serialized bytes of @strings. */
static GBytes *
serialized (const char * const *strings)
{
  g_autoptr(GVariant) value = g_variant_ref_sink (g_variant_new_strv (strings, -1));

  return g_variant_get_data_as_bytes (value);
}

static void
assert_reads_serialized (const char * const *strings,
                         gsize               width)
{
  g_autoptr(GBytes) bytes = serialized (strings);
  gsize size = g_bytes_get_size (bytes);
  const guint8 *data = g_bytes_get_data (bytes, NULL);
  gsize n = g_strv_length ((GStrv) strings);
  gsize body = 0;

  for (gsize i = 0; i < n; i++)
    body += strlen (strings[i]) + 1;
  g_assert_cmpuint (size, ==, body + n * width);
  assert_reads (data, size, strings);
}

/* n app ids, numbered with @digits digits. */
static GStrv
numbered (int n,
          int digits)
{
  GPtrArray *ids = g_ptr_array_new ();

  for (int i = 0; i < n; i++)
    g_ptr_array_add (ids, g_strdup_printf ("org.example.App%0*d", digits, i));
  g_ptr_array_add (ids, NULL);
  return (GStrv) g_ptr_array_free (ids, FALSE);
}

static void
test_empty (void)
{
  const char *none[] = { NULL };

  assert_reads ("", 0, none);
}

static void
test_one (void)
{
  const char *one[] = { "org.gnome.TextEditor", NULL };

  assert_reads_serialized (one, 1);
}

static void
test_widths (void)
{
  g_auto(GStrv) two_strings = numbered (20, 1);
  g_auto(GStrv) four_strings = numbered (3500, 5);
  const char *small[] = { "org.example.A", "", "org.example.B", NULL };

  /* Below 2⁸ bytes, 2¹⁶ and 2³²: offsets of 1, 2 and 4 bytes. */
  assert_reads_serialized (small, 1);
  assert_reads_serialized ((const char * const *) two_strings, 2);
  assert_reads_serialized ((const char * const *) four_strings, 4);
}

/* Strings, then the offsets of their ends, one byte each. */
static void
test_bad_offsets (void)
{
  const char past_end[] = "a\0b\0c\0\x02\xc8\x06";
  const char backwards[] = "ab\0c\0d\0\x03\x01\x07";
  const char equal[] = "a\0b\0\x02\x02\x04";
  guint8 table_not_whole[300];
  const char table_past_end[] = "a\0b\0\x02\xc8";
  /* The second ends past the strings; the third starts there. */
  const char *past_end_reads[] = { "a", "", "", NULL };
  /* From the first offset that goes back, GLib reads nothing. */
  const char *backwards_reads[] = { "ab", "", "", NULL };
  const char *equal_reads[] = { "a", "", "b", NULL };
  const char *nothing[] = { NULL };

  assert_reads (past_end, sizeof past_end - 1, past_end_reads);
  assert_reads (backwards, sizeof backwards - 1, backwards_reads);
  assert_reads (equal, sizeof equal - 1, equal_reads);
  /* Offsets of two bytes; the last says the table is three bytes long. */
  memset (table_not_whole, 'a', sizeof table_not_whole);
  table_not_whole[298] = 297 & 0xff;
  table_not_whole[299] = 297 >> 8;
  assert_reads (table_not_whole, sizeof table_not_whole, nothing);
  assert_reads (table_past_end, sizeof table_past_end - 1, nothing);
}

static void
test_bad_strings (void)
{
  const char no_nul[] = "org.a" "org.b\0" "\x05\x0b";
  const char nul_inside[] = "org\0a\0" "org.b\0" "\x06\x0c";
  const char not_utf8[] = "org.\xff\xfe\0" "org.b\0" "\x07\x0d";
  const char *reads[] = { "", "org.b", NULL };

  assert_reads (no_nul, sizeof no_nul - 1, reads);
  assert_reads (nul_inside, sizeof nul_inside - 1, reads);
  assert_reads (not_utf8, sizeof not_utf8 - 1, reads);
}

/* The policy excludes what it excluded when GLib read the list: the same
 * app ids, and a warning for each entry that is none. */
static void
test_policy_same (void)
{
  const char bad[] = "org.example.A\0" "org.\xff\0" "org.example.B\0" "\x0e\x14\x22";
  g_autoptr(GVariant) apps = untrusted (bad, sizeof bad - 1);
  g_autoptr(GVariant) none = g_variant_ref_sink (g_variant_new_strv (NULL, 0));
  g_autoptr(GVariant) on = g_variant_ref_sink (g_variant_new_boolean (TRUE));
  g_autoptr(GVariant) nick = g_variant_ref_sink (g_variant_new_string ("ask"));
  g_autoptr(GVariant) number = g_variant_ref_sink (g_variant_new_int32 (7));
  g_autoptr(GVariant) count = g_variant_ref_sink (g_variant_new_uint32 (3));
  const SrPolicyKeys keys = {
    .enabled = on, .login_restore = nick, .restore_after_crash = on,
    .restore_on_launch = on, .excluded_apps = apps, .admin_excluded_apps = none,
    .max_age_days = number, .crash_loop_threshold = count, .crash_loop_window = count,
  };
  g_autoptr(SrPolicy) policy = NULL;

  g_test_expect_message ("sr-policy", G_LOG_LEVEL_WARNING, "Ignoring “” in “excluded-apps”*");
  policy = sr_policy_new (&keys);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (g_hash_table_size (policy->excluded), ==, 2);
  g_assert_true (g_hash_table_contains (policy->excluded, "org.example.A"));
  g_assert_true (g_hash_table_contains (policy->excluded, "org.example.B"));
}

/* 100,000 excluded apps from dconf: GLib 2.74 took seconds to read them
 * (n²/2 offset checks), on every change of a setting. */
static void
test_linear (void)
{
  g_auto(GStrv) strings = numbered (100000, 6);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GVariant) normal = NULL;
  g_autoptr(GVariant) again = NULL;
  g_autoptr(GVariant) again_normal = NULL;
  g_auto(GStrv) read = NULL;
  gint64 start;

  bytes = serialized ((const char * const *) strings);

  start = g_get_monotonic_time ();
  value = untrusted (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  read = reader_reads (value);
  normal = sr_string_array_normalize (value);
  again = untrusted (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  again_normal = sr_string_array_normalize (again);
  /* Untrusted values are compared by printing them, element by element. */
  g_assert_true (g_variant_equal (normal, again_normal));
  /* Not under memcheck, which is slower than that by itself. */
  if (g_getenv ("SR_UNDER_MEMCHECK") == NULL)
    g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC);
  g_assert_cmpstrv (read, strings);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/string-array/empty", test_empty);
  g_test_add_func ("/string-array/one", test_one);
  g_test_add_func ("/string-array/widths", test_widths);
  g_test_add_func ("/string-array/bad-offsets", test_bad_offsets);
  g_test_add_func ("/string-array/bad-strings", test_bad_strings);
  g_test_add_func ("/string-array/policy-same", test_policy_same);
  g_test_add_func ("/string-array/linear", test_linear);
  return g_test_run ();
}
