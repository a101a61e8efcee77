/* fuzz-format-gtk.c: GTK's app state files (policyd/stores/sr-format-gtk.c)
 *
 * The input is a state file. Beyond not crashing: a count of windows is
 * only ever given for what GVariant would have written itself.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "fuzz-format-gtk"

#include "config.h"

#include "fuzz.h"
#include "sr-format-gtk.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GVariant) state = NULL;
  g_autoptr(GVariant) windows = NULL;
  guint n = G_MAXUINT;

  fuzz_set_up ();

  if (!sr_format_gtk_parse (data, size, &n, &error))
    {
      g_assert_nonnull (error);
      g_assert_cmpuint (n, ==, G_MAXUINT);
      return 0;
    }
  g_assert_no_error (error);

  /* The same bytes, as GTK itself reads them. */
  bytes = g_bytes_new (data, size);
  state = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE ("(a{sv}a{sv}a(a{sv}a{sv}))"),
                                                        bytes, FALSE));
  g_assert_true (g_variant_is_normal_form (state));
  windows = g_variant_get_child_value (state, 2);
  g_assert_cmpuint (n, ==, g_variant_n_children (windows));
  /* Each window takes at least a byte. */
  g_assert_cmpuint (n, <=, size);
  fuzz_walk_variant (state);

  return 0;
}
