/* sr-format.h: sizes, times and counts as people read them
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *sr_format_time_ago     (gint64  then_usec,
                              gint64  now_usec);
char *sr_format_session_size (int     windows,
                              guint64 bytes);
char *sr_format_totals       (guint    n_saved,
                              guint    n_expired,
                              guint    n_cleared,
                              guint64  bytes,
                              gboolean incomplete);
char *sr_format_nothing_saved (gboolean excluded);
char *sr_format_cleared      (guint   n_apps);
/* The name a person knows an app (by its id) or a program (by its
 * executable's name) by: its desktop file's, or NULL. */
typedef char *(*SrAppNameFunc) (const char *id,
                                gpointer    user_data);

char *sr_format_consumers    (GVariant      *consumers,
                              SrAppNameFunc  app_name,
                              SrAppNameFunc  program_name,
                              gpointer       user_data);

G_END_DECLS
