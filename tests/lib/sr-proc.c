/* sr-proc.c: what the test tools read of another process in /proc
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-proc"

#include "sr-proc.h"

#include <string.h>

#define POLL_MS 100

/* CPU time @pid has used so far (user and system), in clock ticks; 0 when
 * it cannot be read. */
guint64
sr_proc_cpu_ticks (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *contents = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after_comm;

  /* The command name may hold spaces and parentheses: skip past the last
   * ')'. utime and stime, fields 14 and 15, are then the 12th and 13th. */
  if (!g_file_get_contents (path, &contents, NULL, NULL) ||
      (after_comm = strrchr (contents, ')')) == NULL)
    return 0;
  fields = g_strsplit (after_comm + 2, " ", 14);
  if (g_strv_length (fields) < 14)
    return 0;
  return g_ascii_strtoull (fields[11], NULL, 10) + g_ascii_strtoull (fields[12], NULL, 10);
}

/* Waits until @pid has used no CPU for @quiet_ms, or @max_ms have gone
 * by; returns whether it went quiet. */
gboolean
sr_proc_wait_until_idle (GPid  pid,
                         guint quiet_ms,
                         guint max_ms)
{
  guint64 last = sr_proc_cpu_ticks (pid);
  guint quiet = 0;

  for (guint waited = 0; waited < max_ms && quiet < quiet_ms; waited += POLL_MS)
    {
      guint64 now;

      g_usleep (POLL_MS * 1000);
      now = sr_proc_cpu_ticks (pid);
      quiet = now == last ? quiet + POLL_MS : 0;
      last = now;
    }
  return quiet >= quiet_ms;
}
