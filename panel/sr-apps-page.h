/* sr-apps-page.h: the Apps subpage: which apps are saved, and what is
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "sr-app-list.h"
#include "sr-client.h"

G_BEGIN_DECLS

#define SR_TYPE_APPS_PAGE (sr_apps_page_get_type ())
G_DECLARE_FINAL_TYPE (SrAppsPage, sr_apps_page, SR, APPS_PAGE, GtkBox)

void sr_apps_page_set_context  (SrAppsPage *self,
                                SrClient   *client,
                                SrAppList  *apps);
void sr_apps_page_shown        (SrAppsPage *self);

G_END_DECLS
