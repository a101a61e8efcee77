/* sr-caller-kinds.h: what sets each kind of caller apart
 *
 * Each fills in @caller's kind, app id and program where the process is
 * of its kind, leaves it alone where not, and fails (NotAllowed) where it
 * cannot tell. sr_caller_identify() asks them in turn.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "sr-bus-sockets.h"
#include "sr-caller.h"

G_BEGIN_DECLS

gboolean sr_caller_identify_flatpak (int                  root_fd,
                                     SrCaller            *caller,
                                     GError             **error);
gboolean sr_caller_identify_snap    (guint32              pid,
                                     const char          *bus_label,
                                     SrCaller            *caller,
                                     GError             **error);
gboolean sr_caller_identify_host    (guint32              pid,
                                     const SrBusSockets  *bus_sockets,
                                     SrCaller            *caller,
                                     GError             **error);

G_END_DECLS
