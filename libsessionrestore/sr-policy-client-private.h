/* sr-policy-client-private.h: what sr-policy-client.c and
 * sr-policy-client-calls.c share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "session-restore.h"

G_BEGIN_DECLS

/* A call waits longer than policyd waits for polkit (SR_POLKIT_WAIT_MS,
 * common/sr-bus.h), so that the answer comes from policyd ("polkit did not
 * answer") and not from a timeout of ours, after which polkit's late "yes"
 * could still apply a change. With interaction, as long as it takes: a
 * person is at the authentication dialog or the login prompt. */
#define SR_CLIENT_CALL_TIMEOUT_MS (20000 + 40000)

struct _SrPolicyClient {
  GObject parent_instance;

  GDBusConnection *connection;   /* (owned) (nullable): until initialized */
  SrPolicyClientFlags flags;
  GMainContext *context;         /* (owned) (nullable): where it was initialized,
                                  * and its signals are delivered */
  SrServiceState state;
  char *owner;                   /* (owned) (nullable): the unique name owning the
                                  * service's name: verified when RUNNING,
                                  * distrusted when UNTRUSTED */
  char *why_not;                 /* (owned) (nullable): why the service is not
                                  * usable (MISSING, UNTRUSTED), as a clause */
  guint resolution;              /* bumped whenever the name changes hands, so
                                  * that answers about an older owner are dropped */
  GCancellable *cancellable;     /* (owned): what the client does on its own */
  guint owner_changed_id;
  guint properties_changed_id;
  guint apps_signals_id;         /* StoredStateCleared, CrashGuardChanged */

  GHashTable *values;            /* (owned) D-Bus property name → GVariant (owned) */
  GStrv excluded_apps;           /* (owned): never NULL */
  GStrv admin_excluded_apps;     /* (owned): never NULL */
  GStrv locked_settings;         /* (owned): never NULL */
  GPtrArray *held;               /* (owned) GTask (owned): calls sent before the
                                  * owner was verified, with their answers, until
                                  * it is (SR_POLICY_CLIENT_FLAGS_PIPELINE) */
  GPtrArray *early;              /* (owned) GTask (unowned): calls sent before the
                                  * owner was verified, until their answers come */
  GPtrArray *waiting;            /* (owned) GTask (owned): calls not sent, until the
                                  * owner is verified or will not be */
  gboolean starting;             /* the client has the bus start the service */
};

void     sr_policy_client_release_held  (SrPolicyClient  *self);
void     sr_policy_client_start_service (SrPolicyClient  *self);
gboolean sr_policy_client_resolve_sync  (SrPolicyClient  *self,
                                         GCancellable    *cancellable,
                                         GError         **error);

G_END_DECLS
