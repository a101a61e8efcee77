/* sr-caller-snap.c: a caller confined by snapd
 *
 * Told by the AppArmor label "snap.NAME.APP": the one the bus took when
 * the connection was made (@bus_label), where it gives one, rather than
 * the one the pid has now, which another process may have by then.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-caller"

#include "config.h"

#include "sr-caller-kinds.h"
#include "sr-process.h"

/* @bus_label: (nullable) */
gboolean
sr_caller_identify_snap (guint32      pid,
                         const char  *bus_label,
                         SrCaller    *caller,
                         GError     **error)
{
  if (!sr_process_read_snap_app (pid, bus_label, &caller->app_id, error))
    return FALSE;
  if (caller->app_id != NULL)
    caller->kind = SR_CALLER_SNAP;
  return TRUE;
}
