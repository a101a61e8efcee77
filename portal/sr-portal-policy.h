/* sr-portal-policy.h: what the backend asks of policyd
 *
 * The one place that talks to policyd, through libsessionrestore's
 * SrPolicyClient: the restore check, exits, and the clears it must honour.
 * The client is made ready in the background; calls made before wait.
 * The checks and exits may be asked from GDBus's worker thread too, with
 * SrPortal.lock held (sr-portal.h): the client's state changes only in
 * the main loop, which holds that lock meanwhile.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <session-restore.h>

G_BEGIN_DECLS

typedef struct _SrPortalPolicy SrPortalPolicy;

/* Called with the app ids policyd cleared (empty: every app). */
typedef void (*SrPortalPolicyClearedFunc) (const char * const *app_ids,
                                           gpointer            user_data);

SrPortalPolicy *sr_portal_policy_new          (GDBusConnection     *bus,
                                               SrPortalPolicyClearedFunc cleared,
                                               gpointer             user_data);
void            sr_portal_policy_free         (SrPortalPolicy      *self);

/* What a check decides about the state of the instance asked about. */
typedef enum {
  SR_PORTAL_VERDICT_RESTORE,   /* restored */
  SR_PORTAL_VERDICT_KEEP,      /* not restored now, and kept for later: the
                                * user said no, a setting for this reason, the
                                * crash-loop guard, or policyd could not be
                                * asked (a fault never discards) */
  SR_PORTAL_VERDICT_DISCARD,   /* not restored, and done with: saving off, the
                                * app excluded, the state cleared or expired */
} SrPortalVerdict;

/* The verdict; *out_why is policyd's reason ("allowed", "excluded", …),
 * or the error's message when it could not be asked. */
void            sr_portal_policy_check_async  (SrPortalPolicy      *self,
                                               const char          *app_id,
                                               SrRestoreReason      reason,
                                               gint64               saved_at,
                                               gboolean             interactive,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
SrPortalVerdict sr_portal_policy_check_finish (SrPortalPolicy      *self,
                                               GAsyncResult        *result,
                                               char               **out_why);
/* Whether @message may be policyd's StoredStateCleared; if so, the
 * filter hands it to take_cleared(), which calls the cleared function
 * if policyd sent it (see sr-portal-policy.c). */
gboolean        sr_portal_policy_looks_cleared (GDBusMessage       *message);
void            sr_portal_policy_take_cleared (SrPortalPolicy      *self,
                                               GDBusMessage        *message);
void            sr_portal_policy_note_exit    (SrPortalPolicy      *self,
                                               const char          *app_id,
                                               gboolean             voluntary);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrPortalPolicy, sr_portal_policy_free)

G_END_DECLS
