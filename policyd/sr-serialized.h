/* sr-serialized.h: GVariants read from files other programs wrote
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

GVariant *sr_serialized_load (const GVariantType  *type,
                              GBytes              *bytes,
                              gsize                max_size,
                              GError             **error);

G_END_DECLS
