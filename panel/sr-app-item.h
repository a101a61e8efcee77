/* sr-app-item.h: one app in the panel's list
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SR_TYPE_APP_ITEM (sr_app_item_get_type ())
G_DECLARE_FINAL_TYPE (SrAppItem, sr_app_item, SR, APP_ITEM, GObject)

/* What the rules will do with an app's saved session. */
typedef enum {
  SR_APP_STATE_NONE,        /* nothing saved */
  SR_APP_STATE_VALID,
  SR_APP_STATE_EXPIRED,     /* older than the retention: not restored */
  SR_APP_STATE_CLEARED,     /* saved before a clear: not restored */
} SrAppState;

SrAppItem  *sr_app_item_new             (const char *app_id);
const char *sr_app_item_get_app_id      (SrAppItem  *self);
const char *sr_app_item_get_name        (SrAppItem  *self);
GIcon      *sr_app_item_get_icon        (SrAppItem  *self);
gboolean    sr_app_item_get_installed   (SrAppItem  *self);
guint64     sr_app_item_get_bytes       (SrAppItem  *self);
gint64      sr_app_item_get_last_saved  (SrAppItem  *self);
gint64      sr_app_item_get_aged_from   (SrAppItem  *self);
int         sr_app_item_get_windows     (SrAppItem  *self);
gboolean    sr_app_item_get_at_login    (SrAppItem  *self);
gboolean    sr_app_item_get_crash_loop  (SrAppItem  *self);
SrAppState  sr_app_item_get_state       (SrAppItem  *self);
gboolean    sr_app_item_get_excluded    (SrAppItem  *self);
gboolean    sr_app_item_get_admin_excluded (SrAppItem *self);
gboolean    sr_app_item_get_locked      (SrAppItem  *self);
gboolean    sr_app_item_get_has_state   (SrAppItem  *self);
gboolean    sr_app_item_get_usage_known (SrAppItem  *self);
gboolean    sr_app_item_get_listed      (SrAppItem  *self);

void        sr_app_item_set_app_info    (SrAppItem  *self,
                                         GAppInfo   *info);
gboolean    sr_app_item_set_usage       (SrAppItem  *self,
                                         GVariant   *info);
void        sr_app_item_set_usage_unknown (SrAppItem *self);
gboolean    sr_app_item_set_excluded    (SrAppItem  *self,
                                         gboolean    excluded,
                                         gboolean    admin_excluded,
                                         gboolean    locked);
void        sr_app_item_resync          (SrAppItem  *self);

G_END_DECLS
