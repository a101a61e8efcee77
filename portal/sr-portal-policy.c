/* sr-portal-policy.c: policyd, through libsessionrestore's SrPolicyClient
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-policy"

#include "config.h"

#include <session-restore.h>

#include "sr-portal-policy.h"

struct _SrPortalPolicy {
  SrPolicyClient *client;        /* (owned) */
  SrPortalClearedFunc cleared;
  gpointer cleared_data;
  gulong cleared_id;
};

static void
on_cleared (SrPolicyClient     *client,
            const char * const *app_ids,
            gpointer            user_data)
{
  SrPortalPolicy *self = user_data;

  self->cleared (app_ids, self->cleared_data);
}

SrPortalPolicy *
sr_portal_policy_new (GDBusConnection      *bus,
                      SrPortalClearedFunc   cleared,
                      gpointer              user_data,
                      GError              **error)
{
  g_autoptr(SrPolicyClient) client = sr_policy_client_new_for_bus_sync (bus, SR_POLICY_CLIENT_FLAGS_NONE,
                                                                        NULL, error);
  SrPortalPolicy *self;

  if (client == NULL)
    return NULL;
  self = g_new0 (SrPortalPolicy, 1);
  self->client = g_steal_pointer (&client);
  self->cleared = cleared;
  self->cleared_data = user_data;
  self->cleared_id = g_signal_connect (self->client, "stored-state-cleared",
                                       G_CALLBACK (on_cleared), self);
  return self;
}

void
sr_portal_policy_free (SrPortalPolicy *self)
{
  g_clear_signal_handler (&self->cleared_id, self->client);
  g_clear_object (&self->client);
  g_free (self);
}

static void
checked (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  SrWhy why = SR_WHY_UNKNOWN;
  SrVerdict verdict = sr_policy_client_check_restore_finish (SR_POLICY_CLIENT (source), result,
                                                             &why, &error);

  /* Without an answer nothing is restored: the settings may say no. */
  if (error != NULL)
    {
      g_task_set_task_data (task, g_strdup (error->message), g_free);
      g_task_return_boolean (task, FALSE);
      return;
    }
  g_task_set_task_data (task, g_strdup (sr_why_to_string (why)), g_free);
  g_task_return_boolean (task, verdict == SR_VERDICT_ALLOW);
}

void
sr_portal_policy_check_async (SrPortalPolicy      *self,
                              const char          *app_id,
                              SrRestoreReason      reason,
                              gint64               saved_at,
                              gboolean             interactive,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);

  g_task_set_source_tag (task, sr_portal_policy_check_async);
  sr_policy_client_check_restore_async (self->client, app_id, reason, saved_at,
                                        interactive ? SR_CALL_FLAGS_ALLOW_INTERACTION : SR_CALL_FLAGS_NONE,
                                        NULL, checked, task);
}

gboolean
sr_portal_policy_check_finish (SrPortalPolicy  *self,
                               GAsyncResult    *result,
                               char           **out_why)
{
  *out_why = g_strdup (g_task_get_task_data (G_TASK (result)));
  return g_task_propagate_boolean (G_TASK (result), NULL);
}

static void
noted (GObject      *source,
       GAsyncResult *result,
       gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!sr_policy_client_note_exit_finish (SR_POLICY_CLIENT (source), result, &error))
    g_warning ("Could not tell policyd of an exit: %s", error->message);
}

/* Sent without waiting: Close2 is answered at once. */
void
sr_portal_policy_note_exit (SrPortalPolicy *self,
                            const char     *app_id,
                            gboolean        voluntary)
{
  sr_policy_client_note_exit_async (self->client, app_id, voluntary, NULL, noted, NULL);
}
