/* sr-ctl-output.c: text for people: colour, sizes, times, tables
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <stdio.h>

#include "sr-ctl-output.h"

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
