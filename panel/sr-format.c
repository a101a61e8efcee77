/* sr-format.c: sizes and times as people read them
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-format"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-format.h"

char *
sr_format_time_ago (gint64 then_usec,
                    gint64 now_usec)
{
  gint64 seconds = (now_usec - then_usec) / G_USEC_PER_SEC;
  int n;

  if (seconds < 60)
    return g_strdup (_("saved just now"));
  if (seconds < 3600)
    {
      n = (int) (seconds / 60);
      return g_strdup_printf (ngettext ("saved %d minute ago", "saved %d minutes ago", n), n);
    }
  if (seconds < 86400)
    {
      n = (int) (seconds / 3600);
      return g_strdup_printf (ngettext ("saved %d hour ago", "saved %d hours ago", n), n);
    }
  n = (int) MIN (seconds / 86400, G_MAXINT);
  if (n == 1)
    return g_strdup (_("saved yesterday"));
  return g_strdup_printf (ngettext ("saved %d day ago", "saved %d days ago", n), n);
}

/* "12 kB · saved 5 minutes ago", or "Nothing stored". */
char *
sr_format_usage (guint64 bytes,
                 gint64  last_saved_usec,
                 gint64  now_usec)
{
  g_autofree char *size = NULL;
  g_autofree char *ago = NULL;

  if (bytes == 0 && last_saved_usec == 0)
    return g_strdup (_("Nothing stored"));
  size = g_format_size (bytes);
  ago = sr_format_time_ago (last_saved_usec, now_usec);
  /* Translators: the stored size of an app's state, then when it was saved */
  return g_strdup_printf (_("%s · %s"), size, ago);
}
