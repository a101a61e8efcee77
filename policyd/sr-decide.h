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

G_BEGIN_DECLS

typedef struct {
  const SrPolicy *policy;           /* (unowned) */
  SrCrashGuard *crash_guard;        /* (unowned) */
  SrClearPoints *clear_points;      /* (unowned) */
  gint64 now;                       /* µs since the epoch */
} SrDecisionContext;

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
GVariant *sr_decide_annotate_listing (const SrDecisionContext *ctx,
                                      GVariant                *listing);

G_END_DECLS
