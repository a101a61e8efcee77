/* sr-serialized.c: GVariants read from files other programs wrote
 *
 * GTK's state files, gnome-session's and policyd's own are serialized
 * GVariants of a known type. Such a file is taken only when it is in
 * normal form: that is what GVariant writes, so anything else was not
 * written as this type, and reading into it would read what GVariant
 * makes up for data it cannot make sense of.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-serialized"

#include "config.h"

#include <gio/gio.h>

#include "sr-serialized.h"

/* Returns a new reference, sharing @bytes, or NULL with an error that
 * reads after the file's name ("is not a serialized …"). */
GVariant *
sr_serialized_load (const GVariantType  *type,
                    GBytes              *bytes,
                    gsize                max_size,
                    GError             **error)
{
  g_autoptr(GVariant) value = NULL;
  gsize size = g_bytes_get_size (bytes);

  if (size > max_size)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "is %" G_GSIZE_FORMAT " bytes; at most %" G_GSIZE_FORMAT " are read",
                   size, max_size);
      return NULL;
    }

  value = g_variant_ref_sink (g_variant_new_from_bytes (type, bytes, FALSE));
  if (!g_variant_is_normal_form (value))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "is not a serialized %.*s",
                   (int) g_variant_type_get_string_length (type),
                   g_variant_type_peek_string (type));
      return NULL;
    }
  return g_steal_pointer (&value);
}
