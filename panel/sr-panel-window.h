/* sr-panel-window.h: the settings window
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "sr-app-list.h"
#include "sr-client.h"

G_BEGIN_DECLS

#define SR_TYPE_PANEL_WINDOW (sr_panel_window_get_type ())
G_DECLARE_FINAL_TYPE (SrPanelWindow, sr_panel_window, SR, PANEL_WINDOW, AdwApplicationWindow)

SrPanelWindow *sr_panel_window_new          (AdwApplication *application,
                                             SrClient       *client,
                                             SrAppList      *apps);
void           sr_panel_window_show_view    (SrPanelWindow  *self,
                                             const char     *name);
void           sr_panel_window_present_when_ready (SrPanelWindow *self);

G_END_DECLS
