/* sr-retention.h: changing how long saved sessions are kept
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "sr-app-list.h"
#include "sr-client.h"

G_BEGIN_DECLS

gboolean sr_retention_set (GtkWidget *from,
                           SrClient  *client,
                           SrAppList *apps,
                           int        days);

G_END_DECLS
