/* sr-portal-policy.h: what the backend asks of policyd
 *
 * The one place that talks to policyd, through libsessionrestore's
 * SrPolicyClient: the restore check, exits, and the clears it must honour.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <session-restore.h>

G_BEGIN_DECLS

typedef struct _SrPortalPolicy SrPortalPolicy;

/* Called with the app ids policyd cleared (empty: everything). */
typedef void (*SrPortalClearedFunc) (const char * const *app_ids,
                                     gpointer            user_data);

SrPortalPolicy *sr_portal_policy_new          (GDBusConnection     *bus,
                                               SrPortalClearedFunc  cleared,
                                               gpointer             user_data,
                                               GError             **error);
void            sr_portal_policy_free         (SrPortalPolicy      *self);

/* The answer: TRUE to restore; *out_why is policyd's reason ("allowed",
 * "excluded", …), or the error's message when it could not be asked. */
void            sr_portal_policy_check_async  (SrPortalPolicy      *self,
                                               const char          *app_id,
                                               SrRestoreReason      reason,
                                               gint64               saved_at,
                                               gboolean             interactive,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
gboolean        sr_portal_policy_check_finish (SrPortalPolicy      *self,
                                               GAsyncResult        *result,
                                               char               **out_why);
void            sr_portal_policy_note_exit    (SrPortalPolicy      *self,
                                               const char          *app_id,
                                               gboolean             voluntary);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrPortalPolicy, sr_portal_policy_free)

G_END_DECLS
