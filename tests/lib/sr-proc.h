/* sr-proc.h: what the test tools read of another process in /proc
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

guint64  sr_proc_cpu_ticks       (GPid  pid);
gboolean sr_proc_wait_until_idle (GPid  pid,
                                  guint quiet_ms,
                                  guint max_ms);

G_END_DECLS
