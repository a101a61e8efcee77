/* sr-ctl-json.c: a small JSON writer for the --json output
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include "sr-ctl-json.h"

void
sr_json_init (SrJson  *json,
              GString *out)
{
  memset (json, 0, sizeof *json);
  json->out = out;
}

/* One document a line, for a stream of them: no line breaks but the
 * one after it, no indentation. */
void
sr_json_init_compact (SrJson  *json,
                      GString *out)
{
  sr_json_init (json, out);
  json->compact = TRUE;
}

static void
newline (SrJson *json)
{
  static const char spaces[2 * SR_JSON_MAX_DEPTH + 1] =
    "                                ";

  /* Compact: a blank after a comma, as Python's json.dumps() writes. */
  if (json->compact)
    {
      if (json->out->len > 0 && json->out->str[json->out->len - 1] == ',')
        g_string_append_c (json->out, ' ');
      return;
    }

  g_string_append_c (json->out, '\n');
  g_string_append_len (json->out, spaces, 2 * json->depth);
}

/* Every value starts here: after a key it follows on the same line,
 * inside an array it gets a comma (but the first) and its own line. */
static void
begin_value (SrJson *json)
{
  if (json->after_key)
    {
      json->after_key = FALSE;
      return;
    }
  if (json->depth > 0)
    {
      if (json->has_items[json->depth - 1])
        g_string_append_c (json->out, ',');
      json->has_items[json->depth - 1] = TRUE;
      newline (json);
    }
}

static void
open_container (SrJson *json,
                char    bracket)
{
  begin_value (json);
  g_string_append_c (json->out, bracket);
  g_return_if_fail (json->depth < SR_JSON_MAX_DEPTH);
  json->has_items[json->depth++] = FALSE;
}

static void
close_container (SrJson *json,
                 char    bracket)
{
  gboolean had_items;

  g_return_if_fail (json->depth > 0);
  had_items = json->has_items[--json->depth];
  if (had_items)
    newline (json);
  g_string_append_c (json->out, bracket);
  if (json->depth == 0)
    g_string_append_c (json->out, '\n');
}

void sr_json_begin_object (SrJson *json) { open_container (json, '{'); }
void sr_json_end_object (SrJson *json) { close_container (json, '}'); }
void sr_json_begin_array (SrJson *json) { open_container (json, '['); }
void sr_json_end_array (SrJson *json) { close_container (json, ']'); }

/* D-Bus strings are valid UTF-8, so only the quote, the backslash and the
 * control characters need escaping (RFC 8259, section 7). DEL and the C1
 * controls (U+0080 to U+009F, 0xc2 0x80 to 0xc2 0x9f in UTF-8) need not,
 * but are escaped too: JSON read on a terminal must not drive it. */
static void
append_quoted (GString    *out,
               const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
      /* Runs that need no escaping, which is nearly everything, in one go. */
      gsize run = strcspn (p, "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f"
                              "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f"
                              "\xc2");
      if (run > 0)
        {
          g_string_append_len (out, p, run);
          p += run;
          if (*p == '\0')
            break;
        }
      switch (*p)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\r': g_string_append (out, "\\r"); break;
        default:
          if ((guchar) *p < 0x20 || *p == 0x7f)
            g_string_append_printf (out, "\\u%04x", (guchar) *p);
          else if ((guchar) p[0] == 0xc2 && (guchar) p[1] >= 0x80 && (guchar) p[1] < 0xa0)
            g_string_append_printf (out, "\\u%04x", (guchar) *++p);
          else
            g_string_append_c (out, *p);
        }
    }
  g_string_append_c (out, '"');
}

/* Keys are this program's own literals and need no escaping. */
void
sr_json_key (SrJson     *json,
             const char *key)
{
  /* Quoted as a string is: a key may come from the disk (a store's
   * name in "errors"). */
  begin_value (json);
  append_quoted (json->out, key);
  g_string_append_len (json->out, ": ", 2);
  json->after_key = TRUE;
}

void
sr_json_string (SrJson     *json,
                const char *value)
{
  begin_value (json);
  append_quoted (json->out, value);
}

/* Digits by hand: printf's machinery costs more than the rest of a
 * listing's JSON together. */
static void
append_digits (GString *out,
               guint64  value)
{
  char digits[20];
  guint n = 0;

  do
    {
      digits[sizeof digits - ++n] = '0' + value % 10;
      value /= 10;
    }
  while (value != 0);
  g_string_append_len (out, digits + sizeof digits - n, n);
}

void
sr_json_int (SrJson *json,
             gint64  value)
{
  begin_value (json);
  if (value < 0)
    {
      g_string_append_c (json->out, '-');
      append_digits (json->out, - (guint64) value);
    }
  else
    append_digits (json->out, value);
}

void
sr_json_uint (SrJson  *json,
              guint64  value)
{
  begin_value (json);
  append_digits (json->out, value);
}

void
sr_json_bool (SrJson   *json,
              gboolean  value)
{
  begin_value (json);
  g_string_append (json->out, value ? "true" : "false");
}

void
sr_json_null (SrJson *json)
{
  begin_value (json);
  g_string_append (json->out, "null");
}

/* A setting's value: its JSON counterpart for the types settings have
 * (b, s, i, u, as), GVariant text for any other a newer service may
 * announce. */
void
sr_json_variant (SrJson   *json,
                 GVariant *value)
{
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
    sr_json_bool (json, g_variant_get_boolean (value));
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    sr_json_string (json, g_variant_get_string (value, NULL));
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT32))
    sr_json_int (json, g_variant_get_int32 (value));
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_UINT32))
    sr_json_uint (json, g_variant_get_uint32 (value));
  else if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
    {
      sr_json_begin_array (json);
      for (gsize i = 0; i < g_variant_n_children (value); i++)
        {
          g_autoptr(GVariant) item = g_variant_get_child_value (value, i);
          sr_json_string (json, g_variant_get_string (item, NULL));
        }
      sr_json_end_array (json);
    }
  else
    {
      g_autofree char *text = g_variant_print (value, FALSE);
      sr_json_string (json, text);
    }
}
