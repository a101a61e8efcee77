/* sr-ctl-output.c: text for people: escapes, colour, sizes, times, tables
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sr-ctl-output.h"

static gboolean
is_terminal_control (gunichar c)
{
  return c < 0x20 || (c >= 0x7f && c < 0xa0);
}

static void
append_escaped_bytes (GString    *out,
                      const char *bytes,
                      gsize       n)
{
  for (gsize i = 0; i < n; i++)
    {
      guchar byte = bytes[i];

      switch (byte)
        {
        case '\a': g_string_append (out, "\\a"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\v': g_string_append (out, "\\v"); break;
        case '\f': g_string_append (out, "\\f"); break;
        case '\r': g_string_append (out, "\\r"); break;
        default: g_string_append_printf (out, "\\x%02x", byte); break;
        }
    }
}

/* Text that came over the bus (file names, app ids, program names, error
 * messages), made safe to print: a name may hold escape sequences that
 * set the window title, move the cursor or erase a line, and so forge
 * what a person reads. As systemctl and ls do, control characters (C0,
 * DEL and C1) and bytes that are not UTF-8 are written as C escapes
 * ("\e" as "\x1b", a lone byte 0x9b as "\x9b"), and a backslash is
 * doubled, so that every escape in the output stands for one in the
 * name. Everything else, non-ASCII letters included, is kept. JSON has
 * its own escaping (sr-ctl-json.c). Returns a new string. */
char *
sr_ctl_escape (const char *text)
{
  const char *p = text;
  const char *end = text + strlen (text);
  GString *out;

  /* The common case, an app id: nothing to do. */
  while (p < end && (guchar) *p >= 0x20 && (guchar) *p < 0x7f && *p != '\\')
    p++;
  if (p == end)
    return g_strdup (text);

  out = g_string_sized_new (end - text + 16);
  g_string_append_len (out, text, p - text);
  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          append_escaped_bytes (out, p, 1);
          p++;
          continue;
        }
      if (c == '\\')
        g_string_append (out, "\\\\");
      else if (is_terminal_control (c))
        append_escaped_bytes (out, p, g_utf8_next_char (p) - p);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

char *
sr_ctl_styled (gboolean    color,
               SrCtlStyle  style,
               const char *text)
{
  const char *code = "";

  if (!color)
    return g_strdup (text);
  switch (style)
    {
    case SR_CTL_STYLE_BOLD: code = "1"; break;
    case SR_CTL_STYLE_GOOD: code = "32"; break;
    case SR_CTL_STYLE_BAD: code = "31"; break;
    case SR_CTL_STYLE_WARN: code = "33"; break;
    case SR_CTL_STYLE_DIM: code = "2"; break;
    default: break;
    }
  return g_strdup_printf ("\033[%sm%s\033[0m", code, text);
}

/* Local time to the minute: what a person compares with the clock. */
char *
sr_ctl_format_time (gint64 usec)
{
  g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc (usec / G_USEC_PER_SEC);
  g_autoptr(GDateTime) local = NULL;

  if (utc == NULL)
    return g_strdup ("?");
  local = g_date_time_to_local (utc);
  return g_date_time_format (local, "%Y-%m-%d %H:%M");
}

char *
sr_ctl_format_ago (gint64 usec)
{
  gint64 seconds = (g_get_real_time () - usec) / G_USEC_PER_SEC;

  if (seconds < 60)
    return g_strdup ("just now");
  if (seconds < 3600)
    return g_strdup_printf ("%" G_GINT64_FORMAT " min ago", seconds / 60);
  if (seconds < 86400)
    return g_strdup_printf ("%" G_GINT64_FORMAT " h ago", seconds / 3600);
  return g_strdup_printf ("%" G_GINT64_FORMAT " days ago", seconds / 86400);
}

/* One write for the whole output: a listing of a thousand apps is then
 * one system call, not a thousand. */
void
sr_ctl_print (GString *text)
{
  fwrite (text->str, 1, text->len, stdout);
  fflush (stdout);
}

struct _SrCtlTable {
  guint n_columns;
  GPtrArray *rows;   /* (owned) (element-type GStrv): the first is the header */
};

SrCtlTable *
sr_ctl_table_new (guint              n_columns,
                  const char *const *headers)
{
  SrCtlTable *table = g_new0 (SrCtlTable, 1);

  table->n_columns = n_columns;
  table->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_ptr_array_add (table->rows, g_strdupv ((char **) headers));
  return table;
}

/* Takes cells (n_columns strings, NULL-terminated). */
void
sr_ctl_table_add (SrCtlTable  *table,
                  char       **cells)
{
  g_return_if_fail (g_strv_length (cells) == table->n_columns);
  g_ptr_array_add (table->rows, cells);
}

void
sr_ctl_table_print (SrCtlTable *table,
                    gboolean    color,
                    GString    *out)
{
  g_autofree guint *widths = g_new0 (guint, table->n_columns);

  for (guint r = 0; r < table->rows->len; r++)
    {
      char **cells = g_ptr_array_index (table->rows, r);
      for (guint c = 0; c < table->n_columns; c++)
        widths[c] = MAX (widths[c], g_utf8_strlen (cells[c], -1));
    }

  for (guint r = 0; r < table->rows->len; r++)
    {
      char **cells = g_ptr_array_index (table->rows, r);
      gsize start = out->len;

      if (r == 0 && color)
        g_string_append (out, "\033[1m");
      for (guint c = 0; c < table->n_columns; c++)
        {
          g_string_append (out, cells[c]);
          /* No trailing blanks: scripts that cut columns see none. */
          if (c + 1 < table->n_columns)
            for (guint pad = g_utf8_strlen (cells[c], -1); pad < widths[c] + 2; pad++)
              g_string_append_c (out, ' ');
        }
      while (out->len > start && out->str[out->len - 1] == ' ')
        g_string_truncate (out, out->len - 1);
      if (r == 0 && color)
        g_string_append (out, "\033[0m");
      g_string_append_c (out, '\n');
    }
}

void
sr_ctl_table_free (SrCtlTable *table)
{
  g_ptr_array_unref (table->rows);
  g_free (table);
}
