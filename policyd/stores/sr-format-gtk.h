/* sr-format-gtk.h: GTK's per-instance app state files
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Larger input is refused without being looked at. */
#define SR_FORMAT_GTK_MAX_SIZE (16 * 1024 * 1024)

gboolean sr_format_gtk_parse (const void  *data,
                             gsize        size,
                             guint       *out_windows,
                             GError     **error);
gboolean sr_format_gtk_app_id_is_valid (const char *app_id);

G_END_DECLS
