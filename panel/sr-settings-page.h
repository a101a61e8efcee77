/* sr-settings-page.h: the settings, on one page
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "sr-app-list.h"
#include "sr-client.h"

G_BEGIN_DECLS

#define SR_TYPE_SETTINGS_PAGE (sr_settings_page_get_type ())
G_DECLARE_FINAL_TYPE (SrSettingsPage, sr_settings_page, SR, SETTINGS_PAGE, AdwPreferencesPage)

void sr_settings_page_set_context (SrSettingsPage *self,
                                   SrClient       *client,
                                   SrAppList      *apps);
void sr_settings_page_turn_on     (SrSettingsPage *self);

G_END_DECLS
