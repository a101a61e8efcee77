/* sr-clear-dialog.h: asking before saved sessions are cleared
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "sr-app-item.h"
#include "sr-app-list.h"
#include "sr-client.h"

G_BEGIN_DECLS

#define SR_TYPE_CLEAR_DIALOG (sr_clear_dialog_get_type ())
G_DECLARE_FINAL_TYPE (SrClearDialog, sr_clear_dialog, SR, CLEAR_DIALOG, AdwMessageDialog)

SrClearDialog *sr_clear_dialog_new_for_all (GtkWidget *parent,
                                            guint      n_saved,
                                            guint64    bytes,
                                            gboolean   turn_off);
SrClearDialog *sr_clear_dialog_new_for_app (GtkWidget *parent,
                                            SrAppItem *item,
                                            gboolean   turn_off);
/* For a count of saved sessions that could not be taken. */
#define SR_CLEAR_DIALOG_UNKNOWN G_MAXUINT

SrClearDialog *sr_clear_dialog_new_for_retention (GtkWidget *parent,
                                                  guint      n_saved,
                                                  int        days);

void           sr_clear_dialog_ask_to_clear_all (GtkWidget *from,
                                                 SrClient  *client,
                                                 SrAppList *apps,
                                                 gboolean   turn_off);

G_END_DECLS
