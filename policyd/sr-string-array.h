/* sr-string-array.h: a list of strings ("as") from dconf, in linear time
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @string is valid during the call only. */
typedef void (*SrStringArrayFunc) (const char *string,
                                   gpointer    user_data);

void      sr_string_array_read      (const guint8      *data,
                                     gsize              size,
                                     SrStringArrayFunc  func,
                                     gpointer           user_data);
void      sr_string_array_foreach   (GVariant          *value,
                                     SrStringArrayFunc  func,
                                     gpointer           user_data);
GVariant *sr_string_array_normalize (GVariant          *value);

G_END_DECLS
