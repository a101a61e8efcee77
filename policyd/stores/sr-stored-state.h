/* sr-stored-state.h: ListStoredState and Clear, and the clearing that
 * settings changes ask for
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-clear.h"
#include "sr-decide.h"
#include "sr-store-worker.h"

G_BEGIN_DECLS

/* @stores, @targets (and what they point to) and @owner: (unowned), and
 * outlive the store worker's jobs. @invocation: a reference is taken until
 * the reply; the methods' @params: (transfer none). @apps: (nullable)
 * (array zero-terminated=1) (transfer none), NULL for everything. */
void     sr_stored_state_list         (SrStoreWorker          *stores,
                                       SrDecisionContextFunc   decision_context,
                                       gpointer                owner,
                                       GDBusMethodInvocation  *invocation);
void     sr_stored_state_clear        (const SrClearTargets   *targets,
                                       GVariant               *params,
                                       GDBusMethodInvocation  *invocation);
void     sr_stored_state_clear_opt_outs (const SrClearTargets *targets,
                                         const char * const   *apps);
void     sr_stored_state_return_when_settled (SrStoreWorker          *stores,
                                              GDBusMethodInvocation  *invocation);

G_END_DECLS
