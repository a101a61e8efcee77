/* sr-clear-dialog.h: asking before saved sessions are cleared
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SR_TYPE_CLEAR_DIALOG (sr_clear_dialog_get_type ())
G_DECLARE_FINAL_TYPE (SrClearDialog, sr_clear_dialog, SR, CLEAR_DIALOG, AdwMessageDialog)

SrClearDialog *sr_clear_dialog_new (GtkWidget  *parent,
                                    const char *heading,
                                    const char *body,
                                    const char *confirm_label);

G_END_DECLS
