/* sr-log.c: policyd's and the portal backend's messages, readable in the
 * user's character set, without the locale's pages until one is written
 *
 * The messages are English UTF-8 with typographic quotes. GLib writes
 * messages, g_print() and g_printerr() in the character set of LC_CTYPE,
 * which without setlocale() is ASCII: "“" comes out as "?". But
 * setlocale (LC_CTYPE, "") maps the locale's tables and gconv's cache (156
 * KiB) for the whole life of a service that mostly writes nothing, and
 * costs a fifth of a millisecond of its start. So the user's LC_CTYPE
 * becomes a locale of its own the first time something is written, and the
 * writing thread uses it only while it writes (uselocale(), which is per
 * thread, where setlocale() would change the locale of the other threads
 * under them).
 *
 * Where that locale cannot show the characters the messages use (LANG=C:
 * ASCII), they become their ASCII look-alikes first; GLib's conversion then
 * makes anything else (a non-ASCII file name) "?".
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-log"

#include "config.h"

#include <locale.h>
#include <stdio.h>

#include "sr-log.h"

static locale_t
user_ctype (void)
{
  static gsize made = 0;
  static locale_t ctype;

  if (g_once_init_enter (&made))
    {
      ctype = newlocale (LC_CTYPE_MASK, "", (locale_t) 0);
      if (ctype == (locale_t) 0)
        ctype = LC_GLOBAL_LOCALE;
      g_once_init_leave (&made, 1);
    }
  return ctype;
}

/* In the user's LC_CTYPE (uselocale()). Returns NULL where it shows
 * UTF-8: the text stays as it is. */
static char *
to_console (const char *utf8)
{
  static const struct { const char *from, *to; } look_alikes[] = {
    { "\u201c", "\"" }, { "\u201d", "\"" }, { "\u2018", "'" }, { "\u2019", "'" },
    { "\u2026", "..." }, { "\u2013", "-" }, { "\u2014", "-" }, { "\u2192", "->" },
  };
  GString *text;

  if (g_get_console_charset (NULL))
    return NULL;
  text = g_string_new (utf8);
  for (gsize i = 0; i < G_N_ELEMENTS (look_alikes); i++)
    g_string_replace (text, look_alikes[i].from, look_alikes[i].to, 0);
  return g_string_free (text, FALSE);
}

static GLogWriterOutput
write_message (GLogLevelFlags   level,
               const GLogField *fields,
               gsize            n_fields,
               gpointer         user_data)
{
  const char *domain = NULL;
  g_autofree GLogField *copy = NULL;
  g_autofree char *ascii = NULL;
  GLogWriterOutput written;
  locale_t previous;

  for (gsize i = 0; i < n_fields; i++)
    if (fields[i].length < 0 && g_str_equal (fields[i].key, "GLIB_DOMAIN"))
      domain = fields[i].value;
  /* A debug message nobody asked for loads nothing. */
  if (g_log_writer_default_would_drop (level, domain))
    return G_LOG_WRITER_HANDLED;

  previous = uselocale (user_ctype ());
  for (gsize i = 0; i < n_fields; i++)
    {
      if (fields[i].length < 0 && g_str_equal (fields[i].key, "MESSAGE") &&
          (ascii = to_console (fields[i].value)) != NULL)
        {
          copy = g_memdup2 (fields, n_fields * sizeof *fields);
          copy[i].value = ascii;
          break;
        }
    }
  written = g_log_writer_default (level, copy != NULL ? copy : fields, n_fields, user_data);
  uselocale (previous);
  return written;
}

static void
print_to (FILE       *stream,
          const char *string)
{
  locale_t previous = uselocale (user_ctype ());
  g_autofree char *ascii = to_console (string);
  g_autofree char *converted = NULL;
  const char *charset;

  if (ascii != NULL)
    {
      g_get_console_charset (&charset);
      converted = g_convert_with_fallback (ascii, -1, charset, "UTF-8", "?", NULL, NULL, NULL);
    }
  fputs (converted != NULL ? converted : ascii != NULL ? ascii : string, stream);
  fflush (stream);
  uselocale (previous);
}

static void
print_out (const char *string)
{
  print_to (stdout, string);
}

static void
print_error (const char *string)
{
  print_to (stderr, string);
}

void
sr_log_init (void)
{
  g_log_set_writer_func (write_message, NULL, NULL);
  g_set_print_handler (print_out);
  g_set_printerr_handler (print_error);
}
