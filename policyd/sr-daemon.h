/* sr-daemon.h: the org.gnome.SessionRestore.Policy object
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-settings.h"

G_BEGIN_DECLS

typedef struct _SrDaemon SrDaemon;

SrDaemon *sr_daemon_new      (SrSettings       *settings);
void      sr_daemon_free     (SrDaemon         *self);
gboolean  sr_daemon_export   (SrDaemon         *self,
                              GDBusConnection  *bus,
                              GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrDaemon, sr_daemon_free)

G_END_DECLS
