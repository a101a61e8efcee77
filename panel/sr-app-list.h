/* sr-app-list.h: the apps the panel lists, with their saved sessions
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "sr-app-item.h"
#include "sr-client.h"

G_BEGIN_DECLS

#define SR_TYPE_APP_LIST (sr_app_list_get_type ())
G_DECLARE_FINAL_TYPE (SrAppList, sr_app_list, SR, APP_LIST, GObject)

SrAppList    *sr_app_list_new            (SrClient            *client);
SrAppItem    *sr_app_list_lookup         (SrAppList           *self,
                                          const char          *app_id);
gboolean      sr_app_list_get_ready      (SrAppList           *self);
const GError *sr_app_list_get_error      (SrAppList           *self);
gboolean      sr_app_list_get_incomplete (SrAppList           *self);
guint         sr_app_list_get_n_saved    (SrAppList           *self);
guint         sr_app_list_get_n_expired  (SrAppList           *self);
guint         sr_app_list_get_n_cleared  (SrAppList           *self);
guint64       sr_app_list_get_bytes      (SrAppList           *self);
void          sr_app_list_reload         (SrAppList           *self);
void          sr_app_list_reload_async   (SrAppList           *self,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
gboolean      sr_app_list_reload_finish  (SrAppList           *self,
                                          GAsyncResult        *result,
                                          GError             **error);

char         *sr_app_list_dup_name       (SrAppList           *self,
                                          const char          *app_id);
char         *sr_app_list_dup_program_name (SrAppList         *self,
                                            const char        *executable);

G_END_DECLS
