/* sr-peer.h: whether a program on the bus is one to trust
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

gboolean    sr_peer_check_identity      (guint32               uid,
                                         const char           *sandbox_app_id,
                                         GError              **error);
gboolean    sr_peer_read_sandbox_app    (guint32               pid,
                                         const char           *bus_label,
                                         char                **out_app_id,
                                         GError              **error);
const char *sr_peer_expected_executable (const char           *env_var,
                                         const char           *installed);
gboolean    sr_peer_check_executable    (guint32               pid,
                                         guint64               start_time,
                                         const char           *expected,
                                         GError              **error);
gboolean    sr_peer_verify_sync         (GDBusConnection      *bus,
                                         const char           *unique_name,
                                         const char           *expected_executable,
                                         guint32              *out_pid,
                                         guint64              *out_start_time,
                                         GCancellable         *cancellable,
                                         GError              **error);
gboolean    sr_peer_identify_sync       (GDBusConnection      *bus,
                                         const char           *unique_name,
                                         char                **out_sandbox_app,
                                         GCancellable         *cancellable,
                                         GError              **error);
void        sr_peer_verify_owner_async  (GDBusConnection      *bus,
                                         const char           *well_known_name,
                                         const char           *unique_name,
                                         const char           *expected_executable,
                                         GCancellable         *cancellable,
                                         GAsyncReadyCallback   callback,
                                         gpointer              user_data);
gboolean    sr_peer_verify_owner_finish (GAsyncResult         *result,
                                         GError              **error);

G_END_DECLS
