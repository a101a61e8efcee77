/* sr-prompt-service.h: org.gnome.SessionRestore.Prompt, for policyd
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Exports the prompt on @connection at @object_path's sibling
 * /org/gnome/SessionRestore/Prompt; from GApplication's dbus_register,
 * so that it is there before the name is taken. */
gboolean sr_prompt_service_register   (GtkApplication   *app,
                                       GDBusConnection  *connection,
                                       GError          **error);
void     sr_prompt_service_unregister (GtkApplication   *app);

G_END_DECLS
