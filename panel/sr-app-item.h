/* sr-app-item.h: one app in the panel's list
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SR_TYPE_APP_ITEM (sr_app_item_get_type ())
G_DECLARE_FINAL_TYPE (SrAppItem, sr_app_item, SR, APP_ITEM, GObject)

SrAppItem  *sr_app_item_new             (const char *app_id);
const char *sr_app_item_get_app_id      (SrAppItem  *self);
const char *sr_app_item_get_name        (SrAppItem  *self);
GIcon      *sr_app_item_get_icon        (SrAppItem  *self);
guint64     sr_app_item_get_bytes       (SrAppItem  *self);
gint64      sr_app_item_get_last_saved  (SrAppItem  *self);
gboolean    sr_app_item_get_excluded    (SrAppItem  *self);
gboolean    sr_app_item_get_admin_excluded (SrAppItem *self);
gboolean    sr_app_item_get_has_state   (SrAppItem  *self);

void        sr_app_item_set_app_info    (SrAppItem  *self,
                                         GAppInfo   *info);
void        sr_app_item_set_usage       (SrAppItem  *self,
                                         guint64     bytes,
                                         gint64      last_saved);
void        sr_app_item_set_excluded    (SrAppItem  *self,
                                         gboolean    excluded,
                                         gboolean    admin_excluded);

G_END_DECLS
