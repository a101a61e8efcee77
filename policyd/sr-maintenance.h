/* sr-maintenance.h: the purges at start-up and daily
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-fast-path.h"
#include "sr-settings.h"
#include "sr-store-worker.h"

G_BEGIN_DECLS

typedef struct _SrMaintenance SrMaintenance;

typedef void (*SrMaintenanceFunc) (gpointer user_data);

SrMaintenance *sr_maintenance_start (SrSettings     *settings,
                                     SrStoreWorker  *worker,
                                     SrFastPath     *fast_path);
void           sr_maintenance_stop  (SrMaintenance  *self);
void           sr_maintenance_purge_now (SrMaintenance *self);
void           sr_maintenance_at_first_purge (SrMaintenance     *self,
                                              SrMaintenanceFunc  func,
                                              gpointer           user_data);
void           sr_maintenance_log_removal (const char *what,
                                           GVariant   *report);

G_END_DECLS
