/* sr-format.h: sizes and times as people read them
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *sr_format_time_ago   (gint64  then_usec,
                            gint64  now_usec);
char *sr_format_usage      (guint64 bytes,
                            gint64  last_saved_usec,
                            gint64  now_usec);

G_END_DECLS
