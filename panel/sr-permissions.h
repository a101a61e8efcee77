/* sr-permissions.h: what polkit will allow the panel, asked up front
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SR_TYPE_PERMISSIONS (sr_permissions_get_type ())
G_DECLARE_FINAL_TYPE (SrPermissions, sr_permissions, SR, PERMISSIONS, GObject)

SrPermissions *sr_permissions_new        (void);
gboolean       sr_permissions_is_refused (SrPermissions *self,
                                          const char    *action);

G_END_DECLS
