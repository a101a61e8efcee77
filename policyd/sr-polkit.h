/* sr-polkit.h: asks polkit
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-caller.h"

G_BEGIN_DECLS

typedef struct _SrPolkit SrPolkit;

SrPolkit *sr_polkit_new          (void);
void         sr_polkit_free         (SrPolkit          *self);
void         sr_polkit_check_async  (SrPolkit          *self,
                                        const SrCaller       *caller,
                                        const char           *action_id,
                                        gboolean              interactive,
                                        GAsyncReadyCallback   callback,
                                        gpointer              user_data);
gboolean     sr_polkit_check_finish (SrPolkit          *self,
                                        GAsyncResult         *result,
                                        GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrPolkit, sr_polkit_free)

G_END_DECLS
