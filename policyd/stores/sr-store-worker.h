/* sr-store-worker.h: all stores, worked on in order off the main thread
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-store-prepare.h"

G_BEGIN_DECLS

#define SR_TYPE_STORE_WORKER (sr_store_worker_get_type ())
G_DECLARE_FINAL_TYPE (SrStoreWorker, sr_store_worker, SR, STORE_WORKER, GObject)

SrStoreWorker *sr_store_worker_new            (const char * const  *dirs,
                                                guint                first_user_dir);
void       sr_store_worker_shutdown       (SrStoreWorker           *self);
void       sr_store_worker_list_async     (SrStoreWorker           *self,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
void       sr_store_worker_remove_async   (SrStoreWorker           *self,
                                      const char * const  *apps,
                                      gint64               older_than,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
void       sr_store_worker_prepare_async  (SrStoreWorker           *self,
                                      SrPrepareRules      *rules,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
/* Finishes a list, a remove or a prepare: the listing or the report. */
GVariant  *sr_store_worker_finish         (SrStoreWorker           *self,
                                      GAsyncResult        *result,
                                      GError             **error);
void       sr_store_worker_tidy_async     (SrStoreWorker           *self,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
void       sr_store_worker_barrier_async  (SrStoreWorker           *self,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);

G_END_DECLS
