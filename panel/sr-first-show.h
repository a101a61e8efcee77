/* sr-first-show.h: when the settings window first shows itself
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "sr-app-list.h"
#include "sr-client.h"

G_BEGIN_DECLS

typedef struct _SrFirstShow SrFirstShow;

/* What can wait until the window has drawn what it first shows. */
typedef void (*SrFirstShowThen) (GtkWindow *window);

SrFirstShow *sr_first_show_new           (GtkWindow       *window,
                                          SrClient        *client,
                                          SrAppList       *apps,
                                          SrFirstShowThen  then);
void         sr_first_show_free          (SrFirstShow *self);
void         sr_first_show_when_ready    (SrFirstShow *self);
void         sr_first_show_now           (SrFirstShow *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrFirstShow, sr_first_show_free)

G_END_DECLS
