/* sr-portal-log.c: messages in the user's character set, without the
 * locale's pages until one is written
 *
 * GLib writes messages, and g_printerr(), in the character set of
 * LC_CTYPE, which without setlocale() is ASCII: "“" comes out as "?".
 * But setlocale (LC_CTYPE, "") maps the locale's tables and gconv's cache
 * (156 KiB) for the whole life of a backend that mostly writes nothing,
 * or writes to the journal, which takes UTF-8 as it is. So the user's
 * LC_CTYPE becomes a locale of its own the first time something is
 * written, and the writing thread uses it only while it writes
 * (uselocale(), which is per thread, where setlocale() would change the
 * locale of the other threads under them).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-log"

#include "config.h"

#include <locale.h>
#include <stdio.h>

#include "sr-portal-log.h"

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

static GLogWriterOutput
write_message (GLogLevelFlags   level,
               const GLogField *fields,
               gsize            n_fields,
               gpointer         user_data)
{
  const char *domain = NULL;
  GLogWriterOutput written;
  locale_t previous;

  for (gsize i = 0; i < n_fields; i++)
    if (fields[i].length < 0 && g_str_equal (fields[i].key, "GLIB_DOMAIN"))
      domain = fields[i].value;
  /* A debug message nobody asked for loads nothing. */
  if (g_log_writer_default_would_drop (level, domain))
    return G_LOG_WRITER_HANDLED;
  previous = uselocale (user_ctype ());
  written = g_log_writer_default (level, fields, n_fields, user_data);
  uselocale (previous);
  return written;
}

static void
print_error (const char *string)
{
  locale_t previous = uselocale (user_ctype ());
  const char *charset;

  if (g_get_console_charset (&charset))
    fputs (string, stderr);
  else
    {
      g_autofree char *converted = g_convert_with_fallback (string, -1, charset, "UTF-8", "?",
                                                            NULL, NULL, NULL);
      fputs (converted != NULL ? converted : string, stderr);
    }
  fflush (stderr);
  uselocale (previous);
}

void
sr_portal_log_init (void)
{
  g_log_set_writer_func (write_message, NULL, NULL);
  g_set_printerr_handler (print_error);
}
