/* sr-client.h: the panel's connection to policyd
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "session-restore.h"

G_BEGIN_DECLS

#define SR_TYPE_CLIENT (sr_client_get_type ())
G_DECLARE_FINAL_TYPE (SrClient, sr_client, SR, CLIENT, GObject)

SrClient     *sr_client_new                (void);
gboolean      sr_client_get_connected      (SrClient            *self);
gboolean      sr_client_get_missing        (SrClient            *self);
const char   *sr_client_get_distrust       (SrClient            *self);
void          sr_client_refresh            (SrClient            *self);
void          sr_client_flush_changed      (SrClient            *self);
SrPolicyClient *sr_client_get_policy       (SrClient            *self);
SrPolicyClient *sr_client_peek_policy      (SrClient            *self);
gboolean      sr_client_is_refused         (SrClient            *self,
                                            const char          *action);
gboolean      sr_client_is_locked          (SrClient            *self,
                                            const char          *key);
void          sr_client_start_service      (SrClient            *self,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data);
gboolean      sr_client_start_service_finish (SrClient          *self,
                                            GAsyncResult        *result,
                                            GError             **error);

char         *sr_client_describe_error     (const GError        *error);
char         *sr_client_describe_listing_error (const GError    *error);

G_END_DECLS
