/* sr-decide.h: the decision rules of CheckSave and CheckRestore
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

#include "sr-bus.h"
#include "sr-clear-points.h"
#include "sr-crash-guard.h"
#include "sr-policy.h"
#include "sr-store-prepare.h"

G_BEGIN_DECLS

/* What the user answered to the login prompt (sr-prompt.c), for
 * CheckRestore with "interactive" in ask mode. */
typedef struct {
  const char *deny_why;             /* (nullable): "declined", "ask-timeout",
                                     * "ask-unavailable": every app is denied */
  GHashTable *declined;             /* (nullable): set of app ids unticked */
} SrLoginAnswer;

/* The why of a CheckRestore that asks the user through the prompt: never
 * sent on the bus. The caller holds the call (sr-prompt.c), or answers a
 * caller that may not open the prompt ASK "ask". */
#define SR_WHY_INTERACTIVE "interactive"

typedef struct {
  const SrPolicy *policy;           /* (unowned) */
  SrCrashGuard *crash_guard;        /* (unowned) */
  SrClearPoints *clear_points;      /* (unowned) */
  gint64 now;                       /* µs since the epoch */
  const SrLoginAnswer *login_answer; /* (nullable): none yet */
} SrDecisionContext;

/* The rules as they stand now: @owner's settings, crash guard and clear
 * points, at g_get_real_time(), with no login answer. For what answers
 * later than the call that asked (the login prompt, the listing). */
typedef SrDecisionContext (*SrDecisionContextFunc) (gpointer owner);

gboolean sr_decide_save    (const SrDecisionContext  *ctx,
                            const char               *app_id,
                            SrVerdict                *out_verdict,
                            const char              **out_why,
                            GError                  **error);
gboolean sr_decide_restore (const SrDecisionContext  *ctx,
                            const char               *app_id,
                            guint32                   reason,
                            GVariant                 *options,
                            SrVerdict                *out_verdict,
                            const char              **out_why,
                            GError                  **error);

/* CheckSave's parameters (@restore FALSE) or CheckRestore's, as GDBus
 * checked them against the interface: the answer, a floating (us), or
 * NULL with an InvalidArgs error. Main thread and worker thread alike. */
GVariant *sr_decide_call   (const SrDecisionContext  *ctx,
                            gboolean                  restore,
                            GVariant                 *params,
                            GError                  **error);
/* Whether an answer of sr_decide_call() is SR_WHY_INTERACTIVE. */
gboolean  sr_decide_is_interactive (GVariant *answer);
gboolean  sr_decide_is_crash_loop  (GVariant *answer);
GVariant *sr_decide_annotate_listing (const SrDecisionContext *ctx,
                                      GVariant                *listing);
GVariant *sr_decide_login_apps       (const SrDecisionContext *ctx,
                                      GVariant                *listing);
SrPrepareApp sr_decide_prepare_app      (const SrDecisionContext *ctx,
                                         const char              *app_id,
                                         const char             **out_why);
const char  *sr_decide_prepare_instance (const SrDecisionContext *ctx,
                                         const char              *app_id,
                                         gint64                   saved_at);

G_END_DECLS
