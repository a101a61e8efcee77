/* sr-portal-policy.h: what the backend asks of policyd
 *
 * The one place that talks to policyd, through libsessionrestore's
 * SrPolicyClient: the restore check, exits, and the clears it must honour.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The portal's restore reasons (the same numbers as policyd's). */
typedef enum {
  SR_PORTAL_PRISTINE = 0,
  SR_PORTAL_LAUNCH = 1,
  SR_PORTAL_RECOVER = 2,
  SR_PORTAL_RESTORE = 3,
} SrPortalReason;

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
                                               SrPortalReason       reason,
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
