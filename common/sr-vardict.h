/* sr-vardict.h: entries of an a{sv}, built and read directly
 *
 * g_variant_builder_add (builder, "{sv}", …) and g_variant_new ("{sv}", …)
 * parse their format string at every call, some 6 k instructions apiece:
 * on the path of every check (libsessionrestore) and of every Register's
 * answer (the portal backend), the entry is built from its parts instead.
 * g_variant_lookup() walks the dictionary and parses its format once per
 * key: policyd reads a check's options and a new caller's credentials in
 * one pass instead.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string.h>

#include <glib.h>

/* @value is consumed if floating, as g_variant_new_variant() does. */
static inline GVariant *
sr_vardict_entry (const char *key,
                  GVariant   *value)
{
  return g_variant_new_dict_entry (g_variant_new_string (key), g_variant_new_variant (value));
}

/* Into @values, the value (unboxed) of the first entry of each of @keys in
 * @dict (a{sv}, or NULL for none), or NULL: what g_variant_lookup_value()
 * finds for each, in one pass. The caller checks each value's type, and
 * unrefs it. */
static inline void
sr_vardict_read (GVariant          *dict,
                 const char *const *keys,
                 gsize              n_keys,
                 GVariant         **values)
{
  gsize n = dict != NULL ? g_variant_n_children (dict) : 0;
  gsize found = 0;

  for (gsize k = 0; k < n_keys; k++)
    values[k] = NULL;
  for (gsize i = 0; i < n && found < n_keys; i++)
    {
      GVariant *entry = g_variant_get_child_value (dict, i);
      GVariant *key = g_variant_get_child_value (entry, 0);
      const char *name = g_variant_get_string (key, NULL);

      for (gsize k = 0; k < n_keys; k++)
        if (values[k] == NULL && strcmp (name, keys[k]) == 0)
          {
            GVariant *boxed = g_variant_get_child_value (entry, 1);

            values[k] = g_variant_get_variant (boxed);
            g_variant_unref (boxed);
            found++;
            break;
          }
      g_variant_unref (key);
      g_variant_unref (entry);
    }
}
