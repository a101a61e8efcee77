/* sr-authority.h: asks polkit
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-caller.h"

G_BEGIN_DECLS

typedef struct _SrAuthority SrAuthority;

SrAuthority *sr_authority_new          (void);
void         sr_authority_free         (SrAuthority          *self);
void         sr_authority_check_async  (SrAuthority          *self,
                                        const SrCaller       *caller,
                                        const char           *action_id,
                                        gboolean              interactive,
                                        GAsyncReadyCallback   callback,
                                        gpointer              user_data);
gboolean     sr_authority_check_finish (SrAuthority          *self,
                                        GAsyncResult         *result,
                                        GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrAuthority, sr_authority_free)

G_END_DECLS
