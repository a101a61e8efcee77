/* sr-panel-application.h: session-restore-panel
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SR_TYPE_PANEL_APPLICATION (sr_panel_application_get_type ())
G_DECLARE_FINAL_TYPE (SrPanelApplication, sr_panel_application, SR, PANEL_APPLICATION, AdwApplication)

SrPanelApplication *sr_panel_application_new (void);

G_END_DECLS
