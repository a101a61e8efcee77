/* sr-decide.h: the decision rules of CheckSave and CheckRestore
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

#include "sr-bus.h"
#include "sr-clear-points.h"
#include "sr-crash-guard.h"

G_BEGIN_DECLS

/* The nicks of the login-restore enum, in this order. */
typedef enum {
  SR_LOGIN_RESTORE_ALWAYS = 0,
  SR_LOGIN_RESTORE_ASK = 1,
  SR_LOGIN_RESTORE_NEVER = 2,
} SrLoginRestore;

/* The settings in force, as the rules read them. */
typedef struct {
  gboolean enabled;                 /* effective: both master switches */
  SrLoginRestore login_restore;
  gboolean restore_after_crash;
  gboolean restore_on_launch;
  GHashTable *excluded;             /* set: user ∪ admin app ids; owned by
                                     * whoever built the policy */
  int max_age_days;                 /* -1: forever */
  guint crash_loop_threshold;       /* 0: guard off */
  guint crash_loop_window;          /* seconds */
} SrPolicy;

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

G_END_DECLS
