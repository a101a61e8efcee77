/* sr-lock-icon.h: "Set by your administrator", as every locked row shows it
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SR_TYPE_LOCK_ICON (sr_lock_icon_get_type ())
G_DECLARE_FINAL_TYPE (SrLockIcon, sr_lock_icon, SR, LOCK_ICON, GtkBox)

void sr_lock_icon_apply (GtkWidget  *lock,
                         GtkWidget  *control,
                         gboolean    locked,
                         gboolean    applies);

G_END_DECLS
