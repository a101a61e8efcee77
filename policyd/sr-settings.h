/* sr-settings.h: the user's settings, the administrator's locks
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-policy.h"

G_BEGIN_DECLS

#define SR_TYPE_SETTINGS (sr_settings_get_type ())
G_DECLARE_FINAL_TYPE (SrSettings, sr_settings, SR, SETTINGS, GObject)

SrSettings     *sr_settings_new               (GError             **error);
const SrPolicy *sr_settings_get_policy        (SrSettings          *self);
const SrPolicy *sr_settings_dup_policy        (SrSettings          *self);

GVariant       *sr_settings_get_property      (SrSettings          *self,
                                               const char          *property);

gboolean        sr_settings_check_set         (SrSettings          *self,
                                               const char          *key,
                                               GVariant            *value,
                                               GError             **error);
gboolean        sr_settings_set               (SrSettings          *self,
                                               const char          *key,
                                               GVariant            *value,
                                               GError             **error);
gboolean        sr_settings_check_reset       (SrSettings          *self,
                                               const char          *key,
                                               GError             **error);
gboolean        sr_settings_reset             (SrSettings          *self,
                                               const char          *key,
                                               GError             **error);
gboolean        sr_settings_check_include     (SrSettings          *self,
                                               const char          *app_id,
                                               GError             **error);
GVariant       *sr_settings_excluded_with     (SrSettings          *self,
                                               const char          *app_id,
                                               gboolean             excluded);

G_END_DECLS
