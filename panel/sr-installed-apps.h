/* sr-installed-apps.h: the installed apps and the programs' names, read off the main thread
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct {
  GPtrArray *app_ids;         /* (owned) char*: the apps shown in menus with an id policyd takes */
  GPtrArray *infos;           /* (owned) GAppInfo: their desktop files, in the order of app_ids */
  GHashTable *programs;       /* (owned) executable's file name → desktop file's Name */
} SrInstalledApps;

void             sr_installed_apps_read_async  (GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
SrInstalledApps *sr_installed_apps_read_finish (GAsyncResult         *result,
                                                GError              **error);
void             sr_installed_apps_free        (SrInstalledApps      *apps);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrInstalledApps, sr_installed_apps_free)

G_END_DECLS
