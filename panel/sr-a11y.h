/* sr-a11y.h: what GTK 4.8 and libadwaita 1.2 tell screen readers wrongly
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

char *sr_a11y_strip_mnemonic  (const char *label);
void  sr_a11y_tidy            (GtkWidget *root);
void  sr_a11y_follow_toasts   (AdwToastOverlay *overlay);
void  sr_a11y_follow_combo_row (AdwComboRow *row);

G_END_DECLS
