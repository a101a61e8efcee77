/* sr-schema-range.c: a settings key's allowed values, in words
 *
 * policyd's InvalidArgs messages and session-restore-ctl's help say the
 * same: "from -1 to 3650", "one of always, ask, never". policyd also
 * keeps what a setting could ever need, by its largest value.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-schema-range"

#include "config.h"

#include "sr-schema-range.h"

/* NULL when the key takes any value of its type. */
char *
sr_schema_range_describe (GSettingsSchemaKey *key)
{
  g_autoptr(GVariant) range = g_settings_schema_key_get_range (key);
  g_autoptr(GVariant) detail = NULL;
  const char *kind;

  g_variant_get (range, "(&sv)", &kind, &detail);
  if (g_str_equal (kind, "range"))
    {
      g_autoptr(GVariant) low = g_variant_get_child_value (detail, 0);
      g_autoptr(GVariant) high = g_variant_get_child_value (detail, 1);
      g_autofree char *low_shown = g_variant_print (low, FALSE);
      g_autofree char *high_shown = g_variant_print (high, FALSE);
      return g_strdup_printf ("from %s to %s", low_shown, high_shown);
    }
  if (g_str_equal (kind, "enum") || g_str_equal (kind, "flags"))
    {
      g_autofree const char **nicks = g_variant_get_strv (detail, NULL);
      g_autofree char *joined = g_strjoinv (", ", (char **) nicks);
      return g_strdup_printf ("one of %s", joined);
    }
  return NULL;
}

/* The largest value of a "u" key: its range's top, or G_MAXUINT32. Read
 * by index, not through format strings, whose parsing was most of the
 * 35,000 instructions this took of policyd's start-up. */
guint32
sr_schema_range_max_uint32 (GSettingsSchemaKey *key)
{
  g_autoptr(GVariant) range = g_settings_schema_key_get_range (key);
  g_autoptr(GVariant) kind = g_variant_get_child_value (range, 0);
  g_autoptr(GVariant) boxed = g_variant_get_child_value (range, 1);
  g_autoptr(GVariant) detail = g_variant_get_variant (boxed);

  if (g_str_equal (g_variant_get_string (kind, NULL), "range") &&
      g_variant_is_of_type (detail, G_VARIANT_TYPE ("(uu)")))
    {
      g_autoptr(GVariant) high = g_variant_get_child_value (detail, 1);
      return g_variant_get_uint32 (high);
    }
  return G_MAXUINT32;
}
