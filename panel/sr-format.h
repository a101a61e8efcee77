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
char *sr_format_totals       (guint    n_apps,
                              guint64  bytes,
                              gboolean incomplete);
char *sr_format_cleared      (guint   n_apps);
/* The name a person knows an app by (its desktop file's), or NULL. */
typedef char *(*SrAppNameFunc) (const char *app_id);

char *sr_format_consumers    (GVariant      *consumers,
                              SrAppNameFunc  app_name);

G_END_DECLS
