/* sr-storage.h: all stores, worked on in order off the main thread
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _SrStorage SrStorage;

SrStorage *sr_storage_new            (const char * const  *dirs);
void       sr_storage_free           (SrStorage           *self);
void       sr_storage_list_async     (SrStorage           *self,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
void       sr_storage_remove_async   (SrStorage           *self,
                                      const char * const  *apps,
                                      gint64               older_than,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
/* Finishes a list or a remove: the listing or the report. */
GVariant  *sr_storage_finish         (SrStorage           *self,
                                      GAsyncResult        *result,
                                      GError             **error);
void       sr_storage_barrier_async  (SrStorage           *self,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrStorage, sr_storage_free)

G_END_DECLS
