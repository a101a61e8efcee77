/* sr-schema-range.h: a settings key's allowed values, in words
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

char    *sr_schema_range_describe   (GSettingsSchemaKey *key);
guint32  sr_schema_range_max_uint32 (GSettingsSchemaKey *key);

G_END_DECLS
