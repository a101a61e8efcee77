/* sr-window-size.h: the window opens at the size it was closed at
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void sr_window_size_restore (GtkWindow *window);
void sr_window_size_save    (GtkWindow *window);

G_END_DECLS
