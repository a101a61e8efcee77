/* sr-clear.h: the one way stored state is cleared
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-caller-cache.h"
#include "sr-clear-points.h"
#include "sr-pending-clears.h"
#include "sr-store-worker.h"

G_BEGIN_DECLS

/* (unowned) all of them; @bus and @callers NULL before policyd is on the
 * bus. */
typedef struct {
  SrClearPoints *clear_points;
  SrPendingClears *pending_clears;
  SrStoreWorker *stores;
  GDBusConnection *bus;
  SrCallerCache *callers;
} SrClearTargets;

gboolean sr_clear_state (const SrClearTargets  *targets,
                         const char * const    *apps,
                         gboolean               strict,
                         GAsyncReadyCallback    callback,
                         gpointer               user_data,
                         GError               **error);

G_END_DECLS
