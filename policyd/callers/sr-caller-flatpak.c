/* sr-caller-flatpak.c: a caller in a Flatpak sandbox
 *
 * Told by the process's root: a Flatpak sandbox has /.flatpak-info, whose
 * app name is the app id (sr-process.c reads it, through @root_fd, so
 * that a process cannot point policyd at another file).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-caller"

#include "config.h"

#include "sr-caller-kinds.h"
#include "sr-process.h"

gboolean
sr_caller_identify_flatpak (int        root_fd,
                            SrCaller  *caller,
                            GError   **error)
{
  if (!sr_process_read_flatpak_app (root_fd, &caller->app_id, error))
    return FALSE;
  if (caller->app_id != NULL)
    caller->kind = SR_CALLER_FLATPAK;
  return TRUE;
}
