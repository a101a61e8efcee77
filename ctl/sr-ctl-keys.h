/* sr-ctl-keys.h: the settings keys, their properties and their values
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-ctl-json.h"

G_BEGIN_DECLS

typedef struct {
  const char *key;        /* the GSettings key, as users and gsettings name it */
  const char *property;   /* the policyd property that holds its value */
} SrCtlKey;

const SrCtlKey     *sr_ctl_keys           (guint       *n_keys);
const SrCtlKey     *sr_ctl_key_lookup     (const char  *key,
                                           GError     **error);
const SrCtlKey     *sr_ctl_key_for_property (const char *property);
const GVariantType *sr_ctl_key_type       (const SrCtlKey *key);
char               *sr_ctl_key_allowed    (const SrCtlKey *key);
char              **sr_ctl_key_choices    (const SrCtlKey *key);
char               *sr_ctl_value_plain    (GVariant       *value);
char               *sr_ctl_value_inline   (GVariant       *value,
                                           const char     *empty);
void                sr_ctl_key_json_fields (SrJson        *json,
                                            GVariant      *value,
                                            gboolean       locked);
GVariant           *sr_ctl_key_parse      (const SrCtlKey *key,
                                           const char     *text,
                                           GError        **error);

typedef struct _SrCtlLocalSettings SrCtlLocalSettings;

SrCtlLocalSettings *sr_ctl_local_settings_new  (void);
void                sr_ctl_local_settings_free (SrCtlLocalSettings *local);
GVariant           *sr_ctl_local_settings_get  (SrCtlLocalSettings *local,
                                                const SrCtlKey     *key,
                                                gboolean           *out_locked);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrCtlLocalSettings, sr_ctl_local_settings_free)

G_END_DECLS
