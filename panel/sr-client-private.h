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

  SrDBusPolicy *policy;          /* (owned) (nullable): while policyd runs */
  char *trusted_owner;           /* (owned) (nullable): the unique name of that
                                  * policyd, verified (sr-peer.c) */
  char *distrust;                /* (owned) (nullable): why the owner of the name
                                  * is not trusted, while it owns it */
  gboolean missing;              /* the bus has said policyd is not there */
  GDBusConnection *bus;          /* (owned) (nullable): the session bus */
  gboolean connecting;           /* a proxy is being made */
  enum { WATCH_UNKNOWN, WATCH_APPEARED, WATCH_VANISHED } watch;
  GCancellable *cancellable;     /* (owned) */
  guint watch_id;
  SrPermissions *permissions;    /* (owned) */
  GPtrArray *held;               /* (owned) HeldReply: answers to calls made
                                  * while connecting, until the name's owner
                                  * is known to be trusted */
};

void     sr_client_release_held     (SrClient *self);
gboolean sr_client_owner_is_trusted (SrClient *self);

G_END_DECLS
