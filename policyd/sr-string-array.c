/* sr-string-array.c: a list of strings ("as") from dconf, in linear time
 *
 * dconf hands GSettings its values as GVariants over the bytes of its
 * database file, marked untrusted: nothing has checked that they are in
 * normal form. GLib 2.74 (Debian 12) then checks, for every element it is
 * asked for, the order of the offsets of all the elements before it:
 * reading a list of n strings costs n²/2 offset reads (10,000 excluded
 * apps: 45 ms of iteration, and 110 ms more for g_variant_equal(), which
 * compares untrusted values by printing them), on every change of any
 * setting, and before policyd's first answer.
 *
 * This reads the serialized bytes once. A variable-sized array is its
 * elements one after the other, then a table of the offset of each
 * element's end, each offset 1, 2, 4 or 8 bytes wide as the whole value is
 * below 2⁸, 2¹⁶, 2³² bytes or not; the last offset says where the table
 * starts. A string is its UTF-8 bytes and a NUL.
 *
 * Data that does not follow those rules is read exactly as GLib reads it
 * (the fuzz target fuzz-string-array compares the two on every input): no
 * elements when the table does not fit, the empty string for an element
 * whose bounds are wrong or that is no NUL-terminated UTF-8, and for
 * every element from the first offset that is smaller than the one
 * before it. So an exclusion GLib would read is never lost, and nothing
 * GLib would not read is made up; the bad entries come out as "", which
 * no app id matches.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-string-array"

#include "config.h"

#include "sr-string-array.h"

static gsize
offset_size_for (gsize size)
{
  if (size <= G_MAXUINT8)
    return 1;
  if (size <= G_MAXUINT16)
    return 2;
  if (size <= G_MAXUINT32)
    return 4;
  return 8;
}

/* Little-endian, any alignment. */
static gsize
read_offset (const guint8 *at,
             gsize         width)
{
  guint64 offset = 0;

  for (gsize i = width; i > 0; i--)
    offset = (offset << 8) | at[i - 1];
  /* Larger than any value: past the end, as GLib finds it too. */
  return offset > G_MAXSIZE ? G_MAXSIZE : (gsize) offset;
}

/* GLib's string rules: NUL-terminated, valid UTF-8, no NUL before the end. */
static const char *
string_or_empty (const guint8 *start,
                 gsize         size)
{
  if (size == 0 || start[size - 1] != '\0' ||
      !g_utf8_validate ((const char *) start, (gssize) size - 1, NULL))
    return "";
  return (const char *) start;
}

/* Calls @func with each element of the serialized "as" in @data, in order,
 * as GLib would read them (see above). */
void
sr_string_array_read (const guint8      *data,
                      gsize              size,
                      SrStringArrayFunc  func,
                      gpointer           user_data)
{
  gsize width, table, n, previous_end = 0;
  gboolean ordered = TRUE;

  if (size == 0)
    return;
  width = offset_size_for (size);
  table = read_offset (data + size - width, width);
  if (table > size || (size - table) % width != 0)
    return;
  n = (size - table) / width;

  for (gsize i = 0; i < n; i++)
    {
      gsize end = read_offset (data + table + i * width, width);

      /* Once one offset goes backwards, GLib reads every later element
       * as empty, whatever its own bounds. */
      if (i > 0 && end < previous_end)
        ordered = FALSE;
      if (ordered && previous_end < end && end <= table)
        func (string_or_empty (data + previous_end, end - previous_end), user_data);
      else
        func ("", user_data);
      previous_end = end;
    }
}

/* In normal form every offset is in order and in bounds and every string
 * NUL-terminated UTF-8: only where each one starts remains to be found. */
static void
read_normal (const guint8      *data,
             gsize              size,
             SrStringArrayFunc  func,
             gpointer           user_data)
{
  gsize width, table, start = 0;

  if (size == 0)
    return;
  width = offset_size_for (size);
  table = read_offset (data + size - width, width);
  for (gsize at = table; at < size; at += width)
    {
      func ((const char *) data + start, user_data);
      start = read_offset (data + at, width);
    }
}

/* As sr_string_array_read(), on a value of type "as". The strings point
 * into @value's bytes: valid as long as @value is. A value in normal form
 * (sr_string_array_normalize() made it so, and GLib remembers) is not
 * checked again. */
void
sr_string_array_foreach (GVariant          *value,
                         SrStringArrayFunc  func,
                         gpointer           user_data)
{
  g_return_if_fail (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY));

  if (g_variant_is_normal_form (value))
    read_normal (g_variant_get_data (value), g_variant_get_size (value), func, user_data);
  else
    sr_string_array_read (g_variant_get_data (value), g_variant_get_size (value),
                          func, user_data);
}

static void
add_to_builder (const char *string,
                gpointer    user_data)
{
  g_strv_builder_add (user_data, string);
}

/* Returns a new reference to a value equal to @value ("as") that GLib
 * trusts: later reads, g_variant_equal() and sending it over D-Bus then
 * cost linear time. g_variant_is_normal_form() checks in one pass and
 * marks @value trusted when it is; anything else is rebuilt from what GLib
 * would read in it. */
GVariant *
sr_string_array_normalize (GVariant *value)
{
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) strings = NULL;

  if (g_variant_is_normal_form (value))
    return g_variant_ref (value);

  builder = g_strv_builder_new ();
  sr_string_array_foreach (value, add_to_builder, builder);
  strings = g_strv_builder_end (builder);
  return g_variant_ref_sink (g_variant_new_strv ((const char * const *) strings, -1));
}
