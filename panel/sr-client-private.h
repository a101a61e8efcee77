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
  gboolean missing;              /* the bus has said policyd is not there */
  GDBusConnection *bus;          /* (owned) (nullable): the session bus */
  gboolean connecting;           /* a proxy is being made */
  enum { WATCH_UNKNOWN, WATCH_APPEARED, WATCH_VANISHED } watch;
  GCancellable *cancellable;     /* (owned) */
  guint watch_id;
  SrPermissions *permissions;    /* (owned) */
};

G_END_DECLS
