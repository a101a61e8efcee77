/* sr-bus-sockets.h: whether a process holds a connection to the bus
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SrBusSockets SrBusSockets;

SrBusSockets *sr_bus_sockets_new     (int                  connected_fd,
                                      GError             **error);
void          sr_bus_sockets_free    (SrBusSockets        *self);
gboolean      sr_bus_sockets_held_by (const SrBusSockets  *self,
                                      guint32              pid,
                                      GError             **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrBusSockets, sr_bus_sockets_free)

G_END_DECLS
