/* sr-portal-writer.h: the record's durable writes, off the main thread
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _SrRecordWriter SrRecordWriter;

SrRecordWriter *sr_record_writer_new        (const char          *path);
void            sr_record_writer_free       (SrRecordWriter      *self);
void            sr_record_writer_remove_leftovers (SrRecordWriter *self);
void            sr_record_writer_hold       (SrRecordWriter      *self,
                                             GError              *why);
gboolean        sr_record_writer_is_held    (SrRecordWriter      *self);
void            sr_record_writer_write      (SrRecordWriter      *self,
                                             GBytes              *bytes);
void            sr_record_writer_flush_async (SrRecordWriter     *self,
                                              GAsyncReadyCallback callback,
                                              gpointer            user_data);
gboolean        sr_record_writer_flush_finish (SrRecordWriter    *self,
                                               GAsyncResult      *result,
                                               GError           **error);
void            sr_record_writer_flush_sync (SrRecordWriter      *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrRecordWriter, sr_record_writer_free)

G_END_DECLS
