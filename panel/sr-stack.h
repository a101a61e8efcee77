/* sr-stack.h: showing one page of a GtkStack, to everyone
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void sr_stack_show_only (GtkStack   *stack,
                         const char *name);

G_END_DECLS
