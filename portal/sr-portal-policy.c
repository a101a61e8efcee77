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
  GCancellable *cancellable;     /* (owned) making it ready */
  GError *failed;                /* (owned) (nullable) why it could not be */
  GPtrArray *waiting;            /* (owned) (nullable) (element-type Waiting) what
                                  * was asked while it was not ready, in order */
  gboolean initialized;
  SrPortalClearedFunc cleared;
  gpointer cleared_data;
  gulong cleared_id;
  gulong state_id;
};

/* A check (@task set) or an exit (@task NULL) asked before the client was
 * ready. */
typedef struct {
  GTask *task;                   /* (owned) (nullable) */
  char *app_id;                  /* (owned) */
  SrRestoreReason reason;
  gint64 saved_at;
  gboolean flag;                 /* interactive, or voluntary */
} Waiting;

static void
waiting_free (Waiting *waiting)
{
  g_clear_object (&waiting->task);
  g_free (waiting->app_id);
  g_free (waiting);
}

static void
on_cleared (SrPolicyClient     *client,
            const char * const *app_ids,
            gpointer            user_data)
{
  SrPortalPolicy *self = user_data;

  self->cleared (app_ids, self->cleared_data);
}

static void send_check (SrPortalPolicy *self, GTask *task, const char *app_id,
                        SrRestoreReason reason, gint64 saved_at, gboolean interactive);
static void send_exit (SrPortalPolicy *self, const char *app_id, gboolean voluntary);

/* Made, and it knows whether policyd is there: it is UNKNOWN while it
 * looks (again, after policyd's name changed hands), and a call then
 * fails at once, which would be taken for a refusal. */
static gboolean
is_ready (SrPortalPolicy *self)
{
  return self->failed != NULL ||
         (self->initialized &&
          sr_policy_client_get_service_state (self->client) != SR_SERVICE_STATE_UNKNOWN);
}

static void
send_waiting (SrPortalPolicy *self)
{
  g_autoptr(GPtrArray) waiting = g_steal_pointer (&self->waiting);

  for (guint i = 0; waiting != NULL && i < waiting->len; i++)
    {
      Waiting *w = g_ptr_array_index (waiting, i);

      if (w->task != NULL)
        send_check (self, g_steal_pointer (&w->task), w->app_id, w->reason, w->saved_at, w->flag);
      else
        send_exit (self, w->app_id, w->flag);
    }
}

static void
on_state (GObject    *client,
          GParamSpec *pspec,
          gpointer    user_data)
{
  if (is_ready (user_data))
    send_waiting (user_data);
}

static void
on_client (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  SrPortalPolicy *self;

  if (!g_async_initable_init_finish (G_ASYNC_INITABLE (source), result, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;   /* freed: @user_data is gone */
  self = user_data;
  self->initialized = TRUE;
  if (error != NULL)
    {
      g_warning ("Cannot ask policyd: %s", error->message);
      self->failed = g_steal_pointer (&error);
    }
  if (is_ready (self))
    send_waiting (self);
}

/* The client is made ready in the background (finding policyd, starting
 * it if need be, verifying it, reading its settings): the backend owns its
 * name and answers meanwhile; what it asks policyd waits for the client.
 * Clears are followed from the start. */
SrPortalPolicy *
sr_portal_policy_new (GDBusConnection      *bus,
                      SrPortalClearedFunc   cleared,
                      gpointer              user_data)
{
  SrPortalPolicy *self = g_new0 (SrPortalPolicy, 1);

  self->cleared = cleared;
  self->cleared_data = user_data;
  self->cancellable = g_cancellable_new ();
  self->client = g_object_new (SR_TYPE_POLICY_CLIENT, "connection", bus,
                               "flags", SR_POLICY_CLIENT_FLAGS_NONE, NULL);
  self->cleared_id = g_signal_connect (self->client, "stored-state-cleared",
                                       G_CALLBACK (on_cleared), self);
  self->state_id = g_signal_connect (self->client, "notify::service-state",
                                     G_CALLBACK (on_state), self);
  g_async_initable_init_async (G_ASYNC_INITABLE (self->client), G_PRIORITY_DEFAULT,
                               self->cancellable, on_client, self);
  return self;
}

/* At exit: checks still waiting for the client are not answered. */
void
sr_portal_policy_free (SrPortalPolicy *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_signal_handler (&self->cleared_id, self->client);
  g_clear_signal_handler (&self->state_id, self->client);
  g_clear_object (&self->client);
  g_clear_error (&self->failed);
  g_clear_pointer (&self->waiting, g_ptr_array_unref);
  g_free (self);
}

static Waiting *
wait_for_client (SrPortalPolicy *self,
                 const char     *app_id)
{
  Waiting *waiting = g_new0 (Waiting, 1);

  if (self->waiting == NULL)
    self->waiting = g_ptr_array_new_with_free_func ((GDestroyNotify) waiting_free);
  waiting->app_id = g_strdup (app_id);
  g_ptr_array_add (self->waiting, waiting);
  return waiting;
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

static void
send_check (SrPortalPolicy  *self,
            GTask           *task,
            const char      *app_id,
            SrRestoreReason  reason,
            gint64           saved_at,
            gboolean         interactive)
{
  if (self->failed != NULL)
    {
      g_task_set_task_data (task, g_strdup (self->failed->message), g_free);
      g_task_return_boolean (task, FALSE);
      g_object_unref (task);
      return;
    }
  sr_policy_client_check_restore_async (self->client, app_id, reason, saved_at,
                                        interactive ? SR_CALL_FLAGS_ALLOW_INTERACTION : SR_CALL_FLAGS_NONE,
                                        NULL, checked, task);
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
  if (!is_ready (self))
    {
      Waiting *waiting = wait_for_client (self, app_id);

      waiting->task = task;
      waiting->reason = reason;
      waiting->saved_at = saved_at;
      waiting->flag = interactive;
      return;
    }
  send_check (self, task, app_id, reason, saved_at, interactive);
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

static void
send_exit (SrPortalPolicy *self,
           const char     *app_id,
           gboolean        voluntary)
{
  if (self->failed != NULL)
    {
      g_warning ("Could not tell policyd of an exit: %s", self->failed->message);
      return;
    }
  sr_policy_client_note_exit_async (self->client, app_id, voluntary, NULL, noted, NULL);
}

/* Sent without waiting: Close2 is answered at once. */
void
sr_portal_policy_note_exit (SrPortalPolicy *self,
                            const char     *app_id,
                            gboolean        voluntary)
{
  if (!is_ready (self))
    wait_for_client (self, app_id)->flag = voluntary;
  else
    send_exit (self, app_id, voluntary);
}
