/* sr-app-id.h: what counts as an application id
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SR_APP_ID_MAX_LEN 255
/* The longest list of app ids any method or setting accepts. */
#define SR_APP_LIST_MAX 10000

gboolean sr_app_id_is_char       (char          c);
gboolean sr_app_id_validate      (const char   *app_id,
                                  GError      **error);
gboolean sr_app_id_list_validate (const char * const *app_ids,
                                  GError      **error);

G_END_DECLS
