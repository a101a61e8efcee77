/* sr-pending-clears.h: clears begun and not yet finished
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

#include "sr-clear-points.h"
#include "sr-store-worker.h"

G_BEGIN_DECLS

typedef struct _SrPendingClears SrPendingClears;

SrPendingClears *sr_pending_clears_new           (const char          *path);
void             sr_pending_clears_free          (SrPendingClears     *self);
gboolean         sr_pending_clears_begin         (SrPendingClears     *self,
                                                  const char * const  *apps,
                                                  gint64               when,
                                                  guint               *out_id,
                                                  GError             **error);
void             sr_pending_clears_end           (SrPendingClears     *self,
                                                  guint                id);
void             sr_pending_clears_end_queued    (SrPendingClears     *self);
void             sr_pending_clears_record_points (SrPendingClears     *self,
                                                  SrClearPoints       *points);
void             sr_pending_clears_finish        (SrPendingClears     *self,
                                                  SrStoreWorker       *stores);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrPendingClears, sr_pending_clears_free)

G_END_DECLS
