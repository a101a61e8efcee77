/* sr-polkit.h: asks polkit
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-caller.h"

G_BEGIN_DECLS

#define SR_TYPE_POLKIT (sr_polkit_get_type ())
G_DECLARE_FINAL_TYPE (SrPolkit, sr_polkit, SR, POLKIT, GObject)

SrPolkit    *sr_polkit_new          (void);
void         sr_polkit_check_async  (SrPolkit          *self,
                                        const SrCaller       *caller,
                                        const char           *action_id,
                                        gboolean              interactive,
                                        gint64                deadline,
                                        GAsyncReadyCallback   callback,
                                        gpointer              user_data);
gboolean     sr_polkit_check_finish (SrPolkit          *self,
                                        GAsyncResult         *result,
                                        GError              **error);

G_END_DECLS
