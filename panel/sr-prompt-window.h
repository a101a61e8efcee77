/* sr-prompt-window.h: the login prompt, "Restore Apps From Your Last Session?"
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Called once, when the user has answered or the window went away (that
 * is Don't Restore): @declined lists the apps the user unchecked. */
typedef void (*SrPromptAnswered) (gboolean            restore,
                                  const char * const *declined,
                                  gboolean            remember,
                                  gpointer            user_data);

/* @apps: a(sa{sv}), each app id with "windows" (u) if known. The
 * "Remember my choice" box shows only when @can_remember. */
GtkWindow *sr_prompt_window_new     (GtkApplication   *app,
                                     GVariant         *apps,
                                     gboolean          can_remember,
                                     SrPromptAnswered  answered,
                                     gpointer          user_data);
/* Closes the window; that answers Don't Restore unless answered. */
void       sr_prompt_window_dismiss (GtkWindow        *window);

G_END_DECLS
