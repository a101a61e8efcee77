/* sr-handover.h: --replace, taking the name over from a running policyd
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gboolean sr_handover_ask_owner_to_go (GDBusConnection  *bus,
                                      GError          **error);

G_END_DECLS
