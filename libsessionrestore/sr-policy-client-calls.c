/* sr-policy-client-calls.c: the methods of org.gnome.SessionRestore.Policy
 *
 * Every call goes to the verified owner's unique name (never to the
 * well-known name, which may change hands meanwhile) and is not sent at
 * all unless the service is RUNNING (sr_policy_client_check_service()).
 *
 * A call made while the client cannot send it waits in self->waiting,
 * unsent, instead of failing, when there is an owner to wait for: while
 * the owner of the name is identified (UNKNOWN, once the initialization
 * began, or before it for a SR_POLICY_CLIENT_FLAGS_PIPELINE client), and
 * while the service is MISSING, unless the client was told not to start
 * it: the first such call has the bus start it
 * (sr_policy_client_start_service()), once; if it cannot be started, or
 * goes again, the calls that waited for it fail with the reason.
 *
 * Except, with SR_POLICY_CLIENT_FLAGS_PIPELINE, the asynchronous calls
 * that name no app (tells_nothing()) made while the owner is not known
 * yet: those go to the well-known name at once, as a message, for its
 * reply's sender, and wait in self->early for their reply, which waits in
 * self->held until the owner is verified; it is taken only if that owner
 * sent it. Found untrusted or gone, the calls still in self->early fail at
 * once, and their replies are not waited for: an owner not to be trusted
 * may never answer. One the bus refused because the name had no owner
 * never reached anyone: it is sent again as if it had waited. The
 * panel's first listing comes in with the connection so.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define G_LOG_DOMAIN "libsessionrestore"

#include "config.h"

#include "sr-bus.h"
#include "sr-policy-client-private.h"
#include "sr-vardict.h"

typedef struct {
  char *method;                  /* (owned) */
  const GVariantType *reply_type;
  GVariant *parameters;          /* (owned): until the call is sent to the verified owner */
  SrCallFlags flags;
  gboolean start_tried;          /* it waited for a start of the service */
  GSource *cancelled;            /* (owned) (nullable): the caller's cancellable, while it waits */
  GCancellable *early;           /* (owned) (nullable): ends the wait for the reply of a call
                                  * sent early, when it is given up */
  gulong cancel_id;              /* of the caller's cancellable, cancelling @early */
  gboolean given_up;             /* an early call answered without its reply */
  GDBusMessage *reply;           /* (owned) (nullable): of a call sent early */
  GError *error;                 /* (owned) (nullable): why it has no reply */
} Call;

static void
call_free (Call *call)
{
  g_free (call->method);
  g_variant_unref (call->parameters);
  if (call->cancelled != NULL)
    g_source_destroy (call->cancelled);
  g_clear_pointer (&call->cancelled, g_source_unref);
  g_clear_object (&call->early);
  g_clear_object (&call->reply);
  g_clear_error (&call->error);
  g_free (call);
}

static int
timeout_for (SrCallFlags flags)
{
  return (flags & SR_CALL_FLAGS_ALLOW_INTERACTION) ? G_MAXINT : SR_CLIENT_CALL_TIMEOUT_MS;
}

static GDBusCallFlags
dbus_flags_for (SrCallFlags flags)
{
  GDBusCallFlags dbus_flags = G_DBUS_CALL_FLAGS_NO_AUTO_START;

  if (flags & SR_CALL_FLAGS_ALLOW_INTERACTION)
    dbus_flags |= G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION;
  return dbus_flags;
}

/* Whether a call's arguments tell nothing about the apps the user runs, so
 * that it may reach an owner not verified yet. Any method not listed here
 * is taken to name apps. */
static gboolean
tells_nothing (const char *method,
               GVariant   *parameters)
{
  g_autoptr(GVariant) first = NULL;
  g_autoptr(GVariant) value = NULL;

  if (g_str_equal (method, "ListStoredState") || g_str_equal (method, "ResetSetting") ||
      g_str_equal (method, "PrepareSession"))
    return TRUE;
  if (g_str_equal (method, "Clear"))   /* of everything */
    {
      first = g_variant_get_child_value (parameters, 0);
      return g_variant_n_children (first) == 0;
    }
  if (g_str_equal (method, "SetSetting"))   /* but excluded-apps */
    {
      g_variant_get_child (parameters, 1, "v", &value);
      return !g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY) ||
             g_variant_n_children (value) == 0;
    }
  return FALSE;
}

/* The reply, checked; the service's errors without their D-Bus names
 * (their codes say what they are), and a timeout as the fault it is. */
static GVariant *
check_reply (const char          *method,
             const GVariantType  *reply_type,
             GVariant            *reply,
             GError              *error,
             GError             **out_error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    {
      g_set_error (out_error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "The Session Restore service did not answer %s within %d s",
                   method, SR_CLIENT_CALL_TIMEOUT_MS / 1000);
      g_error_free (error);
      return NULL;
    }
  if (reply == NULL)
    {
      if (error->domain == SR_ERROR || error->domain == G_DBUS_ERROR)
        g_dbus_error_strip_remote_error (error);
      g_propagate_error (out_error, error);
      return NULL;
    }
  if (!g_variant_is_of_type (reply, reply_type))
    {
      g_set_error (out_error, SR_ERROR, SR_ERROR_FAILED,
                   "%s answered with type “%s”, not “%s”", method,
                   g_variant_get_type_string (reply), g_variant_type_peek_string (reply_type));
      g_variant_unref (reply);
      return NULL;
    }
  return reply;
}

static gboolean
stopped (SrPolicyClient *self)
{
  return g_cancellable_is_cancelled (self->cancellable);
}

static gboolean
holding (SrPolicyClient *self)
{
  return self->state == SR_SERVICE_STATE_UNKNOWN && !stopped (self);
}

/* Whether a call the client cannot send now is to wait: for the owner
 * being identified (the initialization began, or will for a pipelining
 * client, which was told so), or for the service to be started. */
static gboolean
may_wait (SrPolicyClient *self)
{
  if (stopped (self))
    return FALSE;
  if (self->state == SR_SERVICE_STATE_UNKNOWN)
    return self->context != NULL || (self->flags & SR_POLICY_CLIENT_FLAGS_PIPELINE);
  if (self->state == SR_SERVICE_STATE_MISSING)
    return !(self->flags & SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START);
  return FALSE;
}

/* What a call sent early is answered when its reply did not come from the
 * verified owner, or is not waited for: nothing the sender said. */
static GError *
refusal (SrPolicyClient *self,
         const char     *sender)
{
  GError *error = NULL;

  if (self->state == SR_SERVICE_STATE_UNTRUSTED)
    return g_error_new (SR_ERROR, SR_ERROR_NOT_ALLOWED,
                        "The program answering as the Session Restore service (%s) is not to "
                        "be trusted: %s. Its answer %s.", SR_BUS_NAME, self->why_not,
                        sender != NULL ? "was not used" : "is not waited for");
  if (self->state == SR_SERVICE_STATE_RUNNING && sender != NULL)
    return g_error_new (SR_ERROR, SR_ERROR_UNAVAILABLE,
                        "The call reached %s, not the Session Restore service (%s) now running: "
                        "its answer was not used", sender, SR_BUS_NAME);
  sr_policy_client_check_service (self, &error);
  return error;
}

static void
on_call_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Call *call = g_task_get_task_data (task);
  GError *call_error = NULL;
  GError *error = NULL;
  GVariant *reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                                   &call_error);

  reply = check_reply (call->method, call->reply_type, reply, call_error, &error);
  if (reply == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, reply, (GDestroyNotify) g_variant_unref);
}

static gboolean
on_waiting_cancelled_cb (GCancellable *cancellable,
                         gpointer      user_data)
{
  GTask *task = user_data;
  SrPolicyClient *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autoptr(GTask) waited = NULL;
  GError *error = NULL;
  guint index;

  g_clear_pointer (&call->cancelled, g_source_unref);
  if (g_ptr_array_find (self->waiting, task, &index))
    {
      waited = g_ptr_array_steal_index (self->waiting, index);
      g_cancellable_set_error_if_cancelled (cancellable, &error);
      g_task_return_error (waited, error);
    }
  return G_SOURCE_REMOVE;
}

/* Until the owner is verified, or the client knows it will not be: then
 * dispatch() again (sr_policy_client_release_held()). A call that waits
 * while the service is missing has it started. */
static void
wait_for_owner (SrPolicyClient *self,
                GTask          *task)
{
  Call *call = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  if (cancellable != NULL && call->cancelled == NULL)
    {
      call->cancelled = g_cancellable_source_new (cancellable);
      g_source_set_callback (call->cancelled, G_SOURCE_FUNC (on_waiting_cancelled_cb), task, NULL);
      g_source_attach (call->cancelled, g_task_get_context (task));
    }
  g_ptr_array_add (self->waiting, g_object_ref (task));
  if (self->state == SR_SERVICE_STATE_MISSING)
    {
      call->start_tried = TRUE;
      sr_policy_client_start_service (self);
    }
}

/* Sends a call that was not sent yet to the verified owner, has it wait
 * for one, or fails it. */
static void
dispatch (SrPolicyClient *self,
          GTask          *task)
{
  Call *call = g_task_get_task_data (task);
  GError *error = NULL;

  if (self->state == SR_SERVICE_STATE_RUNNING)
    g_dbus_connection_call (self->connection, self->owner, SR_OBJECT_PATH, SR_INTERFACE_NAME,
                            call->method, call->parameters, NULL, dbus_flags_for (call->flags),
                            timeout_for (call->flags), g_task_get_cancellable (task),
                            on_call_done_cb, g_object_ref (task));
  else if (may_wait (self))
    wait_for_owner (self, task);
  else
    {
      sr_policy_client_check_service (self, &error);   /* not RUNNING: why */
      g_task_return_error (task, error);
    }
}

/* Whether the bus answered an early call itself because nobody owned the
 * name: it reached no one. */
static gboolean
reached_no_one (GDBusMessage *reply)
{
  const char *name = g_dbus_message_get_error_name (reply);

  return g_strcmp0 (g_dbus_message_get_sender (reply), "org.freedesktop.DBus") == 0 &&
         (g_strcmp0 (name, "org.freedesktop.DBus.Error.ServiceUnknown") == 0 ||
          g_strcmp0 (name, "org.freedesktop.DBus.Error.NameHasNoOwner") == 0);
}

/* Answers a call sent early, now that the owner is known (or will not be). */
static void
take_early_reply (SrPolicyClient *self,
                  GTask          *task)
{
  Call *call = g_task_get_task_data (task);
  const char *sender = call->reply != NULL ? g_dbus_message_get_sender (call->reply) : NULL;
  GError *remote_error = NULL;
  GError *error = NULL;
  GVariant *body = NULL;

  if (call->reply != NULL && reached_no_one (call->reply))
    {
      g_clear_object (&call->reply);
      dispatch (self, task);
      return;
    }
  if (call->reply != NULL && !(self->state == SR_SERVICE_STATE_RUNNING &&
                               g_strcmp0 (sender, self->owner) == 0))
    {
      g_task_return_error (task, refusal (self, sender));
      return;
    }
  if (call->reply != NULL && !g_dbus_message_to_gerror (call->reply, &remote_error))
    {
      body = g_dbus_message_get_body (call->reply);
      body = body != NULL ? g_variant_ref (body) : g_variant_ref_sink (g_variant_new ("()"));
    }
  body = check_reply (call->method, call->reply_type, body,
                      call->reply != NULL ? remote_error : g_steal_pointer (&call->error), &error);
  if (body == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, body, (GDestroyNotify) g_variant_unref);
}

/* The owner is known, trusted or not, or missing, or will not be known
 * (the client stopped): the answers held are taken, or refused; the calls
 * sent early that are still unanswered are given up unless the owner is
 * verified; the calls waiting are sent, or wait for a start, or fail.
 * While an owner is being identified, all of them wait for it. */
void
sr_policy_client_release_held (SrPolicyClient *self)
{
  g_autoptr(GPtrArray) held = NULL;
  g_autoptr(GPtrArray) early = NULL;
  g_autoptr(GPtrArray) waiting = NULL;

  if (holding (self))
    return;
  if (self->held->len > 0)
    {
      held = g_steal_pointer (&self->held);
      self->held = g_ptr_array_new_with_free_func (g_object_unref);
      for (guint i = 0; i < held->len; i++)
        take_early_reply (self, held->pdata[i]);
    }

  if (self->early->len > 0 && self->state != SR_SERVICE_STATE_RUNNING)
    {
      /* A copy: the callbacks may make calls. */
      early = g_ptr_array_new_full (self->early->len, g_object_unref);
      for (guint i = 0; i < self->early->len; i++)
        g_ptr_array_add (early, g_object_ref (self->early->pdata[i]));
      for (guint i = 0; i < early->len; i++)
        {
          Call *call = g_task_get_task_data (early->pdata[i]);

          if (call->given_up)
            continue;
          call->given_up = TRUE;
          g_cancellable_cancel (call->early);
          g_task_return_error (early->pdata[i], refusal (self, NULL));
        }
    }

  if (self->waiting->len == 0)
    return;
  waiting = g_steal_pointer (&self->waiting);
  self->waiting = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiting->len; i++)
    {
      GTask *task = waiting->pdata[i];
      Call *call = g_task_get_task_data (task);
      GError *error = NULL;

      if (call->cancelled != NULL)
        {
          g_source_destroy (call->cancelled);
          g_clear_pointer (&call->cancelled, g_source_unref);
        }
      if (self->state == SR_SERVICE_STATE_MISSING && call->start_tried && !stopped (self))
        {
          /* Started, or tried: once is enough. */
          if (self->why_not != NULL)
            sr_policy_client_check_service (self, &error);
          else
            error = g_error_new (SR_ERROR, SR_ERROR_UNAVAILABLE,
                                 "The Session Restore service (%s) was started, but stopped "
                                 "again", SR_BUS_NAME);
          g_task_return_error (task, error);
        }
      else
        dispatch (self, task);
    }
}

static void
on_early_reply_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SrPolicyClient *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);

  g_ptr_array_remove_fast (self->early, task);
  g_cancellable_disconnect (g_task_get_cancellable (task), call->cancel_id);
  call->reply = g_dbus_connection_send_message_with_reply_finish (G_DBUS_CONNECTION (source),
                                                                  result, &call->error);
  if (call->given_up)
    return;
  if (holding (self))
    g_ptr_array_add (self->held, g_steal_pointer (&task));
  else
    take_early_reply (self, task);
}

static void
cancel_early (GCancellable *cancellable,
              GCancellable *early)
{
  g_cancellable_cancel (early);
}

/* To whoever owns the name now: NO_AUTO_START, as the client starts the
 * service itself, and says why it could not. */
static void
send_early (SrPolicyClient *self,
            GTask          *task)
{
  Call *call = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autoptr(GDBusMessage) message =
    g_dbus_message_new_method_call (SR_BUS_NAME, SR_OBJECT_PATH, SR_INTERFACE_NAME, call->method);
  GDBusMessageFlags message_flags = G_DBUS_MESSAGE_FLAGS_NO_AUTO_START;

  if (call->flags & SR_CALL_FLAGS_ALLOW_INTERACTION)
    message_flags |= G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION;
  g_dbus_message_set_body (message, call->parameters);
  g_dbus_message_set_flags (message, message_flags);
  call->early = g_cancellable_new ();
  if (cancellable != NULL)
    call->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (cancel_early),
                                             g_object_ref (call->early), g_object_unref);
  g_ptr_array_add (self->early, task);
  g_dbus_connection_send_message_with_reply (self->connection, message,
                                             G_DBUS_SEND_MESSAGE_FLAGS_NONE,
                                             timeout_for (call->flags), NULL, call->early,
                                             on_early_reply_cb, g_object_ref (task));
}

/* Consumes a floating @parameters. */
static void
call_async (SrPolicyClient      *self,
            gpointer             source_tag,
            const char          *method,
            GVariant            *parameters,
            const char          *reply_type,
            SrCallFlags          flags,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  Call *call = g_new0 (Call, 1);

  call->method = g_strdup (method);
  call->reply_type = G_VARIANT_TYPE (reply_type);
  call->parameters = g_variant_ref_sink (parameters != NULL ? parameters : g_variant_new ("()"));
  call->flags = flags;
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  if ((self->flags & SR_POLICY_CLIENT_FLAGS_PIPELINE) && self->connection != NULL &&
      holding (self) && tells_nothing (method, call->parameters))
    send_early (self, task);
  else
    dispatch (self, task);
}

static GVariant *
call_finish (SrPolicyClient  *self,
             GAsyncResult    *result,
             gpointer         source_tag,
             GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Consumes a floating @parameters. Where an asynchronous call would wait
 * for the owner, this one finds and verifies it itself, starting the
 * service if that is what the asynchronous one would wait for. */
static GVariant *
call_sync (SrPolicyClient  *self,
           const char      *method,
           GVariant        *parameters,
           const char      *reply_type,
           SrCallFlags      flags,
           GCancellable    *cancellable,
           GError         **error)
{
  g_autoptr(GVariant) sunk = parameters != NULL ? g_variant_ref_sink (parameters) : NULL;
  GError *local_error = NULL;
  GVariant *reply;

  if (self->context != NULL && may_wait (self) &&
      !sr_policy_client_resolve_sync (self, cancellable, error))
    return NULL;
  if (!sr_policy_client_check_service (self, error))
    return NULL;
  reply = g_dbus_connection_call_sync (self->connection, self->owner, SR_OBJECT_PATH,
                                       SR_INTERFACE_NAME, method, sunk, NULL,
                                       dbus_flags_for (flags), timeout_for (flags),
                                       cancellable, &local_error);
  return check_reply (method, G_VARIANT_TYPE (reply_type), reply, local_error, error);
}

/* A verdict this version does not know is not passed on as one. */
static SrVerdict
parse_verdict (GVariant  *reply,
               SrWhy     *out_why,
               GError   **error)
{
  guint32 verdict;
  const char *why;

  if (out_why != NULL)
    *out_why = SR_WHY_UNKNOWN;
  if (reply == NULL)
    return SR_VERDICT_DENY;
  g_variant_get (reply, "(u&s)", &verdict, &why);
  if (verdict > SR_VERDICT_ASK)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_FAILED, "The service answered verdict %u", verdict);
      return SR_VERDICT_DENY;
    }
  if (out_why != NULL)
    *out_why = sr_why_from_string (why);
  return (SrVerdict) verdict;
}

/**
 * sr_policy_client_check_save_async:
 * @self: a client
 * @app_id: the application id whose state is about to be saved
 * @cancellable: (nullable): to give up
 * @callback: called with the answer
 * @user_data: for @callback
 *
 * Asks whether @app_id's state may be saved (`CheckSave`). Cheap: no
 * polkit, no disk access in the service.
 */
void
sr_policy_client_check_save_async (SrPolicyClient      *self,
                                   const char          *app_id,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  g_return_if_fail (app_id != NULL);
  call_async (self, sr_policy_client_check_save_async, "CheckSave",
              g_variant_new ("(s)", app_id), "(us)", SR_CALL_FLAGS_NONE,
              cancellable, callback, user_data);
}

/**
 * sr_policy_client_check_save_finish:
 * @self: a client
 * @result: what the callback was given
 * @out_why: (out) (optional): why the service answered so
 * @error: return location for an error
 *
 * Finishes sr_policy_client_check_save_async(). On an error the verdict
 * is #SR_VERDICT_DENY: a consumer that cannot ask does not save.
 *
 * Returns: the verdict
 */
SrVerdict
sr_policy_client_check_save_finish (SrPolicyClient  *self,
                                    GAsyncResult    *result,
                                    SrWhy           *out_why,
                                    GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result, sr_policy_client_check_save_async, error);

  return parse_verdict (reply, out_why, error);
}

/**
 * sr_policy_client_check_save_sync:
 * @self: a client
 * @app_id: the application id whose state is about to be saved
 * @out_why: (out) (optional): why the service answered so
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_check_save_async(), blocking.
 *
 * Returns: the verdict; #SR_VERDICT_DENY on an error
 */
SrVerdict
sr_policy_client_check_save_sync (SrPolicyClient  *self,
                                  const char      *app_id,
                                  SrWhy           *out_why,
                                  GCancellable    *cancellable,
                                  GError         **error)
{
  g_autoptr(GVariant) reply = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), SR_VERDICT_DENY);
  g_return_val_if_fail (app_id != NULL, SR_VERDICT_DENY);
  reply = call_sync (self, "CheckSave", g_variant_new ("(s)", app_id), "(us)",
                     SR_CALL_FLAGS_NONE, cancellable, error);
  return parse_verdict (reply, out_why, error);
}

static GVariant *
check_restore_parameters (const char      *app_id,
                          SrRestoreReason  reason,
                          gint64           saved_at,
                          SrCallFlags      flags)
{
  GVariant *options[2];
  GVariant *args[3];
  gsize n = 0;

  /* Built directly (sr-vardict.h): g_variant_builder_add() and
   * g_variant_new() parse their format strings at every check. */
  if (saved_at != 0)
    options[n++] = sr_vardict_entry ("saved-at", g_variant_new_int64 (saved_at));
  if (flags & SR_CALL_FLAGS_ALLOW_INTERACTION)
    options[n++] = sr_vardict_entry ("interactive", g_variant_new_boolean (TRUE));
  args[0] = g_variant_new_string (app_id);
  args[1] = g_variant_new_uint32 (reason);
  args[2] = g_variant_new_array (G_VARIANT_TYPE ("{sv}"), options, n);
  return g_variant_new_tuple (args, 3);
}

/**
 * sr_policy_client_check_restore_async:
 * @self: a client
 * @app_id: the application id about to be restored
 * @reason: why it would restore (not #SR_RESTORE_REASON_PRISTINE)
 * @saved_at: when the state to restore was saved, in µs since the epoch;
 *   0 when not known
 * @flags: #SR_CALL_FLAGS_ALLOW_INTERACTION sends "interactive": in "ask"
 *   mode at login the service may show its prompt, and the answer waits for
 *   the user
 * @cancellable: (nullable): to give up
 * @callback: called with the answer
 * @user_data: for @callback
 *
 * Asks whether @app_id may restore its state (`CheckRestore`).
 */
void
sr_policy_client_check_restore_async (SrPolicyClient      *self,
                                      const char          *app_id,
                                      SrRestoreReason      reason,
                                      gint64               saved_at,
                                      SrCallFlags          flags,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  g_return_if_fail (app_id != NULL);
  call_async (self, sr_policy_client_check_restore_async, "CheckRestore",
              check_restore_parameters (app_id, reason, saved_at, flags), "(us)", flags,
              cancellable, callback, user_data);
}

/**
 * sr_policy_client_check_restore_finish:
 * @self: a client
 * @result: what the callback was given
 * @out_why: (out) (optional): why the service answered so
 * @error: return location for an error
 *
 * Finishes sr_policy_client_check_restore_async().
 *
 * Returns: the verdict; #SR_VERDICT_DENY on an error
 */
SrVerdict
sr_policy_client_check_restore_finish (SrPolicyClient  *self,
                                       GAsyncResult    *result,
                                       SrWhy           *out_why,
                                       GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result, sr_policy_client_check_restore_async,
                                           error);

  return parse_verdict (reply, out_why, error);
}

/**
 * sr_policy_client_check_restore_sync:
 * @self: a client
 * @app_id: the application id about to be restored
 * @reason: why it would restore
 * @saved_at: when the state was saved, in µs since the epoch; 0 when not
 *   known
 * @flags: as for sr_policy_client_check_restore_async()
 * @out_why: (out) (optional): why the service answered so
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_check_restore_async(), blocking.
 *
 * Returns: the verdict; #SR_VERDICT_DENY on an error
 */
SrVerdict
sr_policy_client_check_restore_sync (SrPolicyClient  *self,
                                     const char      *app_id,
                                     SrRestoreReason  reason,
                                     gint64           saved_at,
                                     SrCallFlags      flags,
                                     SrWhy           *out_why,
                                     GCancellable    *cancellable,
                                     GError         **error)
{
  g_autoptr(GVariant) reply = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), SR_VERDICT_DENY);
  g_return_val_if_fail (app_id != NULL, SR_VERDICT_DENY);
  reply = call_sync (self, "CheckRestore",
                     check_restore_parameters (app_id, reason, saved_at, flags), "(us)", flags,
                     cancellable, error);
  return parse_verdict (reply, out_why, error);
}

/**
 * sr_policy_client_note_exit_async:
 * @self: a client
 * @app_id: the application that exited
 * @voluntary: whether it closed its session itself
 * @cancellable: (nullable): to give up
 * @callback: called when the service has taken note
 * @user_data: for @callback
 *
 * Reports an app's exit (`NoteExit`): involuntary exits feed the
 * crash-loop guard.
 */
void
sr_policy_client_note_exit_async (SrPolicyClient      *self,
                                  const char          *app_id,
                                  gboolean             voluntary,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  g_return_if_fail (app_id != NULL);
  call_async (self, sr_policy_client_note_exit_async, "NoteExit",
              g_variant_new ("(sb)", app_id, voluntary), "()", SR_CALL_FLAGS_NONE,
              cancellable, callback, user_data);
}

/**
 * sr_policy_client_note_exit_finish:
 * @self: a client
 * @result: what the callback was given
 * @error: return location for an error
 *
 * Finishes sr_policy_client_note_exit_async().
 *
 * Returns: %TRUE if the service took note
 */
gboolean
sr_policy_client_note_exit_finish (SrPolicyClient  *self,
                                   GAsyncResult    *result,
                                   GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result, sr_policy_client_note_exit_async, error);

  return reply != NULL;
}

/**
 * sr_policy_client_list_stored_state_async:
 * @self: a client
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @callback: called with the listing
 * @user_data: for @callback
 *
 * Lists what is stored, per app (`ListStoredState`; polkit action
 * `org.gnome.SessionRestore.list`).
 */
void
sr_policy_client_list_stored_state_async (SrPolicyClient      *self,
                                          SrCallFlags          flags,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  call_async (self, sr_policy_client_list_stored_state_async, "ListStoredState", NULL,
              "(a(sa{sv}))", flags, cancellable, callback, user_data);
}

/**
 * sr_policy_client_list_stored_state_finish:
 * @self: a client
 * @result: what the callback was given
 * @error: return location for an error
 *
 * Finishes sr_policy_client_list_stored_state_async().
 *
 * Returns: (transfer full) (nullable): the `a(sa{sv})` documented in
 *   `org.gnome.SessionRestore.Policy.xml`, or %NULL on an error
 */
GVariant *
sr_policy_client_list_stored_state_finish (SrPolicyClient  *self,
                                           GAsyncResult    *result,
                                           GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result,
                                           sr_policy_client_list_stored_state_async, error);

  return reply != NULL ? g_variant_get_child_value (reply, 0) : NULL;
}

/**
 * sr_policy_client_list_stored_state_sync:
 * @self: a client
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_list_stored_state_async(), blocking.
 *
 * Returns: (transfer full) (nullable): the `a(sa{sv})`, or %NULL on an
 *   error
 */
GVariant *
sr_policy_client_list_stored_state_sync (SrPolicyClient  *self,
                                         SrCallFlags      flags,
                                         GCancellable    *cancellable,
                                         GError         **error)
{
  g_autoptr(GVariant) reply = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  reply = call_sync (self, "ListStoredState", NULL, "(a(sa{sv}))", flags, cancellable, error);
  return reply != NULL ? g_variant_get_child_value (reply, 0) : NULL;
}

static GVariant *
clear_parameters (const char * const *app_ids)
{
  const char * const none[] = { NULL };

  return g_variant_new ("(^as)", app_ids != NULL ? app_ids : none);
}

/**
 * sr_policy_client_clear_async:
 * @self: a client
 * @app_ids: (nullable) (array zero-terminated=1): the apps whose stored
 *   state to forget; %NULL or empty for everything
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @callback: called with the report
 * @user_data: for @callback
 *
 * Forgets stored state (`Clear`; polkit action
 * `org.gnome.SessionRestore.clear`).
 */
void
sr_policy_client_clear_async (SrPolicyClient      *self,
                              const char * const  *app_ids,
                              SrCallFlags          flags,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  call_async (self, sr_policy_client_clear_async, "Clear", clear_parameters (app_ids),
              "(a{sv})", flags, cancellable, callback, user_data);
}

/**
 * sr_policy_client_clear_finish:
 * @self: a client
 * @result: what the callback was given
 * @error: return location for an error
 *
 * Finishes sr_policy_client_clear_async().
 *
 * Returns: (transfer full) (nullable): the `a{sv}` report ("apps",
 *   "entries", "bytes", "errors", "stores"), or %NULL on an error
 */
GVariant *
sr_policy_client_clear_finish (SrPolicyClient  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result, sr_policy_client_clear_async, error);

  return reply != NULL ? g_variant_get_child_value (reply, 0) : NULL;
}

/**
 * sr_policy_client_clear_sync:
 * @self: a client
 * @app_ids: (nullable) (array zero-terminated=1): the apps whose stored
 *   state to forget; %NULL or empty for everything
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_clear_async(), blocking.
 *
 * Returns: (transfer full) (nullable): the `a{sv}` report, or %NULL on an
 *   error
 */
GVariant *
sr_policy_client_clear_sync (SrPolicyClient      *self,
                             const char * const  *app_ids,
                             SrCallFlags          flags,
                             GCancellable        *cancellable,
                             GError             **error)
{
  g_autoptr(GVariant) reply = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  reply = call_sync (self, "Clear", clear_parameters (app_ids), "(a{sv})", flags,
                     cancellable, error);
  return reply != NULL ? g_variant_get_child_value (reply, 0) : NULL;
}

/**
 * sr_policy_client_prepare_session_async:
 * @self: a client
 * @cancellable: (nullable): to give up
 * @callback: called with the report
 * @user_data: for @callback
 *
 * Applies the settings to the session manager's record of the apps to
 * reopen, and to the compositor's window positions, between logout and
 * the next login (`PrepareSession`; no polkit, not for sandboxed
 * callers). Fails while gnome-session or the compositor runs.
 */
void
sr_policy_client_prepare_session_async (SrPolicyClient      *self,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  call_async (self, sr_policy_client_prepare_session_async, "PrepareSession", NULL,
              "(a{sv})", SR_CALL_FLAGS_NONE, cancellable, callback, user_data);
}

/**
 * sr_policy_client_prepare_session_finish:
 * @self: a client
 * @result: what the callback was given
 * @error: return location for an error
 *
 * Finishes sr_policy_client_prepare_session_async().
 *
 * Returns: (transfer full) (nullable): the `a{sv}` report ("instances",
 *   "apps", "records", "files", "bytes", "errors"), or %NULL on an error
 */
GVariant *
sr_policy_client_prepare_session_finish (SrPolicyClient  *self,
                                         GAsyncResult    *result,
                                         GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result, sr_policy_client_prepare_session_async,
                                           error);

  return reply != NULL ? g_variant_get_child_value (reply, 0) : NULL;
}

/**
 * sr_policy_client_prepare_session_sync:
 * @self: a client
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_prepare_session_async(), blocking.
 *
 * Returns: (transfer full) (nullable): the `a{sv}` report, or %NULL on an
 *   error
 */
GVariant *
sr_policy_client_prepare_session_sync (SrPolicyClient  *self,
                                       GCancellable    *cancellable,
                                       GError         **error)
{
  g_autoptr(GVariant) reply = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  reply = call_sync (self, "PrepareSession", NULL, "(a{sv})", SR_CALL_FLAGS_NONE, cancellable,
                     error);
  return reply != NULL ? g_variant_get_child_value (reply, 0) : NULL;
}

/**
 * sr_policy_client_set_setting_async:
 * @self: a client
 * @key: a key of the org.gnome.SessionRestore GSettings schema, except
 *   "admin-excluded-apps"
 * @value: the new value, of the key's type (a floating reference is
 *   consumed)
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @callback: called once the value is written
 * @user_data: for @callback
 *
 * Changes a setting (`SetSetting`; polkit action
 * `org.gnome.SessionRestore.configure`).
 */
void
sr_policy_client_set_setting_async (SrPolicyClient      *self,
                                    const char          *key,
                                    GVariant            *value,
                                    SrCallFlags          flags,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  g_return_if_fail (key != NULL && value != NULL);
  call_async (self, sr_policy_client_set_setting_async, "SetSetting",
              g_variant_new ("(sv)", key, value), "()", flags, cancellable, callback, user_data);
}

/**
 * sr_policy_client_set_setting_finish:
 * @self: a client
 * @result: what the callback was given
 * @error: return location for an error
 *
 * Finishes sr_policy_client_set_setting_async().
 *
 * Returns: %TRUE if the value was written
 */
gboolean
sr_policy_client_set_setting_finish (SrPolicyClient  *self,
                                     GAsyncResult    *result,
                                     GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result, sr_policy_client_set_setting_async,
                                           error);

  return reply != NULL;
}

/**
 * sr_policy_client_set_setting_sync:
 * @self: a client
 * @key: a settings key
 * @value: the new value (a floating reference is consumed)
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_set_setting_async(), blocking.
 *
 * Returns: %TRUE if the value was written
 */
gboolean
sr_policy_client_set_setting_sync (SrPolicyClient  *self,
                                   const char      *key,
                                   GVariant        *value,
                                   SrCallFlags      flags,
                                   GCancellable    *cancellable,
                                   GError         **error)
{
  g_autoptr(GVariant) reply = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), FALSE);
  g_return_val_if_fail (key != NULL && value != NULL, FALSE);
  reply = call_sync (self, "SetSetting", g_variant_new ("(sv)", key, value), "()", flags,
                     cancellable, error);
  return reply != NULL;
}

/**
 * sr_policy_client_set_app_excluded_async:
 * @self: a client
 * @app_id: the application id
 * @excluded: %TRUE to opt the app out (which clears its stored state),
 *   %FALSE to opt it back in
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @callback: called once the change is written
 * @user_data: for @callback
 *
 * Changes the user's "excluded-apps" (`SetAppExcluded`).
 */
void
sr_policy_client_set_app_excluded_async (SrPolicyClient      *self,
                                         const char          *app_id,
                                         gboolean             excluded,
                                         SrCallFlags          flags,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  g_return_if_fail (app_id != NULL);
  call_async (self, sr_policy_client_set_app_excluded_async, "SetAppExcluded",
              g_variant_new ("(sb)", app_id, excluded), "()", flags, cancellable,
              callback, user_data);
}

/**
 * sr_policy_client_set_app_excluded_finish:
 * @self: a client
 * @result: what the callback was given
 * @error: return location for an error
 *
 * Finishes sr_policy_client_set_app_excluded_async().
 *
 * Returns: %TRUE if the change was written
 */
gboolean
sr_policy_client_set_app_excluded_finish (SrPolicyClient  *self,
                                          GAsyncResult    *result,
                                          GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result,
                                           sr_policy_client_set_app_excluded_async, error);

  return reply != NULL;
}

/**
 * sr_policy_client_set_app_excluded_sync:
 * @self: a client
 * @app_id: the application id
 * @excluded: %TRUE to opt the app out, %FALSE to opt it back in
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_set_app_excluded_async(), blocking.
 *
 * Returns: %TRUE if the change was written
 */
gboolean
sr_policy_client_set_app_excluded_sync (SrPolicyClient  *self,
                                        const char      *app_id,
                                        gboolean         excluded,
                                        SrCallFlags      flags,
                                        GCancellable    *cancellable,
                                        GError         **error)
{
  g_autoptr(GVariant) reply = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), FALSE);
  g_return_val_if_fail (app_id != NULL, FALSE);
  reply = call_sync (self, "SetAppExcluded", g_variant_new ("(sb)", app_id, excluded), "()",
                     flags, cancellable, error);
  return reply != NULL;
}

/**
 * sr_policy_client_reset_crash_guard_async:
 * @self: a client
 * @app_id: the application id
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @callback: called once the service forgot the app's crashes
 * @user_data: for @callback
 *
 * Releases an app the crash-loop guard holds back (`ResetCrashGuard`;
 * since version 2 of the service).
 */
void
sr_policy_client_reset_crash_guard_async (SrPolicyClient      *self,
                                          const char          *app_id,
                                          SrCallFlags          flags,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  g_return_if_fail (app_id != NULL);
  call_async (self, sr_policy_client_reset_crash_guard_async, "ResetCrashGuard",
              g_variant_new ("(s)", app_id), "()", flags, cancellable, callback, user_data);
}

/**
 * sr_policy_client_reset_crash_guard_finish:
 * @self: a client
 * @result: what the callback was given
 * @error: return location for an error
 *
 * Finishes sr_policy_client_reset_crash_guard_async().
 *
 * Returns: %TRUE if the crashes were forgotten
 */
gboolean
sr_policy_client_reset_crash_guard_finish (SrPolicyClient  *self,
                                           GAsyncResult    *result,
                                           GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result,
                                           sr_policy_client_reset_crash_guard_async, error);

  return reply != NULL;
}

/**
 * sr_policy_client_reset_crash_guard_sync:
 * @self: a client
 * @app_id: the application id
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_reset_crash_guard_async(), blocking.
 *
 * Returns: %TRUE if the crashes were forgotten
 */
gboolean
sr_policy_client_reset_crash_guard_sync (SrPolicyClient  *self,
                                         const char      *app_id,
                                         SrCallFlags      flags,
                                         GCancellable    *cancellable,
                                         GError         **error)
{
  g_autoptr(GVariant) reply = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), FALSE);
  g_return_val_if_fail (app_id != NULL, FALSE);
  reply = call_sync (self, "ResetCrashGuard", g_variant_new ("(s)", app_id), "()", flags,
                     cancellable, error);
  return reply != NULL;
}

/**
 * sr_policy_client_reset_setting_async:
 * @self: a client
 * @key: a key of the org.gnome.SessionRestore GSettings schema, except
 *   "admin-excluded-apps"
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @callback: called once the default is back in force
 * @user_data: for @callback
 *
 * Puts a setting back to its default, the administrator's where the
 * system dconf database sets one (`ResetSetting`; polkit action
 * `org.gnome.SessionRestore.configure`; since version 3 of the service).
 * Unlike `gsettings reset`, the administrator's locks and polkit apply:
 * a locked key is #SR_ERROR_LOCKED, and nothing changes. Resetting
 * "enabled" resets GNOME's org.gnome.desktop.session "save-restore" too,
 * where that key is installed.
 */
void
sr_policy_client_reset_setting_async (SrPolicyClient      *self,
                                      const char          *key,
                                      SrCallFlags          flags,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (SR_IS_POLICY_CLIENT (self));
  g_return_if_fail (key != NULL);
  call_async (self, sr_policy_client_reset_setting_async, "ResetSetting",
              g_variant_new ("(s)", key), "()", flags, cancellable, callback, user_data);
}

/**
 * sr_policy_client_reset_setting_finish:
 * @self: a client
 * @result: what the callback was given
 * @error: return location for an error
 *
 * Finishes sr_policy_client_reset_setting_async().
 *
 * Returns: %TRUE if the setting is back to its default
 */
gboolean
sr_policy_client_reset_setting_finish (SrPolicyClient  *self,
                                       GAsyncResult    *result,
                                       GError         **error)
{
  g_autoptr(GVariant) reply = call_finish (self, result, sr_policy_client_reset_setting_async,
                                           error);

  return reply != NULL;
}

/**
 * sr_policy_client_reset_setting_sync:
 * @self: a client
 * @key: a settings key
 * @flags: whether polkit may ask the user to authenticate
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_reset_setting_async(), blocking.
 *
 * Returns: %TRUE if the setting is back to its default
 */
gboolean
sr_policy_client_reset_setting_sync (SrPolicyClient  *self,
                                     const char      *key,
                                     SrCallFlags      flags,
                                     GCancellable    *cancellable,
                                     GError         **error)
{
  g_autoptr(GVariant) reply = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  reply = call_sync (self, "ResetSetting", g_variant_new ("(s)", key), "()", flags,
                     cancellable, error);
  return reply != NULL;
}
