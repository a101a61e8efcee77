/* sr-stored-state.c: ListStoredState and Clear, and the clearing that
 * settings changes ask for
 *
 * The two methods about stored state, from the call's arguments to its
 * reply. The listing is the store worker's, with what the rules, as they
 * stand when the listing is done, will do with each app's state
 * (sr_decide_annotate_listing()). Clearing goes the one way there is
 * (sr-clear.c): for Clear, strictly; for an app opted out or the master
 * switch turned off (SrSettings::state-to-clear), whatever the clear
 * point, and the change's reply waits until the removal is done.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-stored-state"

#include "config.h"

#include "sr-maintenance.h"
#include "sr-stored-state.h"

typedef struct {
  SrDecisionContextFunc decision_context;
  gpointer owner;                      /* (unowned): outlives the store worker */
  GDBusMethodInvocation *invocation;   /* (owned) */
} ListCall;

static void
on_listed_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  ListCall *call = user_data;
  g_autoptr(GDBusMethodInvocation) invocation = call->invocation;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) listing = sr_store_worker_finish (SR_STORE_WORKER (source), result, &error);

  if (listing == NULL)
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    {
      SrDecisionContext ctx = call->decision_context (call->owner);
      GVariant *annotated = sr_decide_annotate_listing (&ctx, listing);
      g_dbus_method_invocation_return_value (invocation, g_variant_new_tuple (&annotated, 1));
    }
  g_free (call);
}

void
sr_stored_state_list (SrStoreWorker         *stores,
                      SrDecisionContextFunc  decision_context,
                      gpointer               owner,
                      GDBusMethodInvocation *invocation)
{
  ListCall *call = g_new0 (ListCall, 1);

  call->decision_context = decision_context;
  call->owner = owner;
  call->invocation = g_object_ref (invocation);
  sr_store_worker_list_async (stores, on_listed_cb, call);
}

static void
on_cleared_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) report = sr_store_worker_finish (SR_STORE_WORKER (source), result, &error);

  if (report == NULL)
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation, g_variant_new_tuple (&report, 1));
}

/* Clear(@params): replies with the removal's report. */
void
sr_stored_state_clear (const SrClearTargets  *targets,
                       GVariant              *params,
                       GDBusMethodInvocation *invocation)
{
  g_autofree const char **apps = NULL;
  g_autoptr(GError) error = NULL;

  g_variant_get (params, "(^a&s)", &apps);
  if (!sr_clear_state (targets, apps, TRUE, on_cleared_cb, g_object_ref (invocation), &error))
    {
      g_object_unref (invocation);
      g_dbus_method_invocation_return_gerror (invocation, error);
    }
}

static void
on_settings_cleared_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(GVariant) report = sr_store_worker_finish (SR_STORE_WORKER (source), result, NULL);

  sr_maintenance_log_removal ("Opt-out", report);
}

/* @apps newly excluded, or NULL: the master switch went off, everything
 * goes. */
void
sr_stored_state_clear_opt_outs (const SrClearTargets *targets,
                                const char * const   *apps)
{
  sr_clear_state (targets, apps, FALSE, on_settings_cleared_cb, NULL, NULL);
}

static void
on_stores_settled_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;

  g_dbus_method_invocation_return_value (invocation, NULL);
}

/* A change that excluded apps or turned the switch off has queued their
 * removal (sr_stored_state_clear_opt_outs()); the reply waits until it is
 * done. */
void
sr_stored_state_return_when_settled (SrStoreWorker         *stores,
                                     GDBusMethodInvocation *invocation)
{
  sr_store_worker_barrier_async (stores, on_stores_settled_cb, g_object_ref (invocation));
}
