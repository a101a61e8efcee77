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

static void
newline (SrJson *json)
{
  g_string_append_c (json->out, '\n');
  for (guint i = 0; i < json->depth; i++)
    g_string_append (json->out, "  ");
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
 * control characters need escaping (RFC 8259, section 7). */
static void
append_quoted (GString    *out,
               const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p != '\0'; p++)
    {
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
          else
            g_string_append_c (out, *p);
        }
    }
  g_string_append_c (out, '"');
}

void
sr_json_key (SrJson     *json,
             const char *key)
{
  begin_value (json);
  append_quoted (json->out, key);
  g_string_append (json->out, ": ");
  json->after_key = TRUE;
}

void
sr_json_string (SrJson     *json,
                const char *value)
{
  begin_value (json);
  append_quoted (json->out, value);
}

void
sr_json_int (SrJson *json,
             gint64  value)
{
  begin_value (json);
  g_string_append_printf (json->out, "%" G_GINT64_FORMAT, value);
}

void
sr_json_uint (SrJson  *json,
              guint64  value)
{
  begin_value (json);
  g_string_append_printf (json->out, "%" G_GUINT64_FORMAT, value);
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

void
sr_json_strv (SrJson            *json,
              const char *const *values)
{
  sr_json_begin_array (json);
  for (guint i = 0; values != NULL && values[i] != NULL; i++)
    sr_json_string (json, values[i]);
  sr_json_end_array (json);
}
