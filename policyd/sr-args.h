/* sr-args.h: each method's arguments, checked before the caller is
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-settings.h"

G_BEGIN_DECLS

/* SrMethodCheck functions (sr-gate.h): @params as GDBus checked them
 * against the interface; TRUE, or FALSE with an InvalidArgs or Locked
 * error. @settings (unowned) is only read. */
gboolean sr_args_check_app_id           (SrSettings  *settings,
                                         GVariant    *params,
                                         GError     **error);
gboolean sr_args_check_set_setting      (SrSettings  *settings,
                                         GVariant    *params,
                                         GError     **error);
gboolean sr_args_check_reset_setting    (SrSettings  *settings,
                                         GVariant    *params,
                                         GError     **error);
gboolean sr_args_check_set_app_excluded (SrSettings  *settings,
                                         GVariant    *params,
                                         GError     **error);
gboolean sr_args_check_clear            (SrSettings  *settings,
                                         GVariant    *params,
                                         GError     **error);

G_END_DECLS
