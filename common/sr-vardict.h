/* sr-vardict.h: one entry of an a{sv}, built directly
 *
 * g_variant_builder_add (builder, "{sv}", …) and g_variant_new ("{sv}", …)
 * parse their format string at every call, some 6 k instructions apiece:
 * on the path of every check (libsessionrestore) and of every Register's
 * answer (the portal backend), the entry is built from its parts instead.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

/* @value is consumed if floating, as g_variant_new_variant() does. */
static inline GVariant *
sr_vardict_entry (const char *key,
                  GVariant   *value)
{
  return g_variant_new_dict_entry (g_variant_new_string (key), g_variant_new_variant (value));
}
