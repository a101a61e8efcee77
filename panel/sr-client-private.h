/* sr-client-private.h: what sr-client.c and sr-client-calls.c share
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "sr-client.h"
#include "sr-permissions.h"

G_BEGIN_DECLS

struct _SrClient {
  GObject parent_instance;

  SrPolicyClient *policy;        /* (owned) (nullable): libsessionrestore's client,
                                  * once made; it verifies the service's owner */
  GDBusConnection *bus;          /* (owned) (nullable): the session bus */
  gboolean connected;            /* the last "connected" notified */
  guint changed_idle;            /* "changed" is due */
  GCancellable *cancellable;     /* (owned) */
  SrPermissions *permissions;    /* (owned) */
  GPtrArray *held;               /* (owned) HeldReply: answers to calls made
                                  * while connecting, until the name's owner
                                  * is known to be trusted */
};

gboolean    sr_client_get_connecting    (SrClient *self);
const char *sr_client_get_trusted_owner (SrClient *self);
void        sr_client_release_held      (SrClient *self);

G_END_DECLS
