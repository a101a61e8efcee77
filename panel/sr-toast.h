/* sr-toast.h: telling the user how something went, from anywhere inside
 * the window
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void sr_toast_show         (GtkWidget    *widget,
                            const char   *text);
void sr_toast_report_error (GtkWidget    *widget,
                            const char   *failed,
                            const GError *error);

G_END_DECLS
