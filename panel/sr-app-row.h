/* sr-app-row.h: a row of the Apps list
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "sr-app-item.h"

G_BEGIN_DECLS

#define SR_TYPE_APP_ROW (sr_app_row_get_type ())
G_DECLARE_FINAL_TYPE (SrAppRow, sr_app_row, SR, APP_ROW, GtkWidget)

SrAppItem *sr_app_row_get_item (SrAppRow *self);

G_END_DECLS
