/* fuzz-string-array.c: lists of strings read without GLib (policyd/sr-string-array.c)
 *
 * The input is the serialized bytes of an "as", as dconf would hand them
 * over, untrusted. What the reader reads must be exactly what GLib reads
 * element by element (policyd read its lists that way until the reader
 * replaced it for speed): the same number of strings, the same strings,
 * in the same order. And the normalized value must be trusted GLib data
 * holding those strings.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "fuzz-string-array"

#include "config.h"

#include "fuzz.h"
#include "sr-string-array.h"

static void
collect (const char *string,
         gpointer    user_data)
{
  g_assert_true (g_utf8_validate (string, -1, NULL));
  g_ptr_array_add (user_data, g_strdup (string));
}

static void
assert_as_glib_reads (GVariant  *value,
                      GPtrArray *read)
{
  gsize n = g_variant_n_children (value);

  g_assert_cmpuint (read->len, ==, n);
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) child = g_variant_get_child_value (value, i);

      g_assert_cmpstr (read->pdata[i], ==, g_variant_get_string (child, NULL));
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GVariant) normal = NULL;
  g_autoptr(GPtrArray) read = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) read_again = g_ptr_array_new_with_free_func (g_free);

  fuzz_set_up ();

  bytes = g_bytes_new (data, size);
  value = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE_STRING_ARRAY, bytes, FALSE));
  sr_string_array_read (data, size, collect, read);
  assert_as_glib_reads (value, read);

  normal = sr_string_array_normalize (value);
  g_assert_true (g_variant_is_normal_form (normal));
  sr_string_array_foreach (normal, collect, read_again);
  g_assert_cmpuint (read_again->len, ==, read->len);
  for (guint i = 0; i < read->len; i++)
    g_assert_cmpstr (read_again->pdata[i], ==, read->pdata[i]);

  return 0;
}
