/* sr-process.h: what policyd and its clients read of another process
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

gboolean  sr_process_read_start_time    (guint32       pid,
                                         guint64      *out_start_time,
                                         GError      **error);
guint32   sr_process_pid_from_pidfd     (int           pidfd);
gboolean  sr_process_pidfd_is_alive     (int           pidfd);
char     *sr_process_read_executable    (guint32       pid,
                                         GError      **error);
gboolean  sr_process_read_flatpak_app   (int           root_fd,
                                         char        **out_app_id,
                                         GError      **error);
gboolean  sr_process_read_snap_app      (guint32       pid,
                                         const char   *bus_label,
                                         char        **out_app_id,
                                         GError      **error);

/* Exposed for tests: parse what identifies a sandboxed app. */
char     *sr_process_parse_flatpak_info (const char   *data,
                                         gsize         len,
                                         GError      **error);
char     *sr_process_parse_snap_label   (const char   *label);

G_END_DECLS
