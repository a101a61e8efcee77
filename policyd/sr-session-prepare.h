/* sr-session-prepare.h: PrepareSession, the settings applied to the
 * session manager's record before login
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-decide.h"
#include "sr-store-worker.h"

G_BEGIN_DECLS

/* @ctx: the rules as they stand now; its policy is referenced, its crash
 * guard and clear points outlive the store worker's jobs, as does @bus.
 * @invocation: a reference is taken until the reply. */
void sr_session_prepare (SrStoreWorker           *stores,
                         const SrDecisionContext *ctx,
                         GDBusConnection         *bus,
                         GDBusMethodInvocation   *invocation);

G_END_DECLS
