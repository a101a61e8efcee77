/* sr-client-calls.c: the calls the panel makes to policyd
 *
 * Every error handed out is in the SR_ERROR domain: policyd's own errors
 * arrive as such (main.c registers the domain), and anything else (the
 * bus, a timeout) becomes SR_ERROR_FAILED with the original text kept for
 * the details.
 *
 * Answers are taken only from the policyd libsessionrestore verified
 * (sr-client.c): calls go to its unique name. The first calls, made while
 * the client connects, go to the well-known name so that their round
 * trips overlap the connection's; their answers are held until the owner
 * of the name is verified, and taken only if that owner sent them. The
 * calls are the panel's own rather than the library's typed ones for
 * that: the library sends nothing until it has verified the owner.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-client"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-bus.h"
#include "sr-client-private.h"

static GError *
to_sr_error (GError *error)
{
  GError *mapped;

  if (error->domain == SR_ERROR || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_dbus_error_strip_remote_error (error);
      return error;
    }
  g_dbus_error_strip_remote_error (error);
  mapped = g_error_new_literal (SR_ERROR, SR_ERROR_FAILED, error->message);
  g_error_free (error);
  return mapped;
}

/* An answer to a call made while connecting. */
typedef struct {
  GTask *task;            /* (owned) */
  GDBusMessage *reply;    /* (owned) (nullable): NULL when @error is set */
  GError *error;          /* (owned) (nullable) */
} HeldReply;

static void
held_reply_free (HeldReply *held)
{
  g_clear_object (&held->task);
  g_clear_object (&held->reply);
  g_clear_error (&held->error);
  g_free (held);
}

/* Answers @task with @reply, if the bus or the trusted policyd sent it. */
static void
resolve (SrClient     *self,
         GTask        *task,
         GDBusMessage *reply,
         GError       *error)
{
  const char *sender;
  const char *trusted_owner;
  GVariant *body;

  if (reply == NULL)
    {
      g_task_return_error (task, to_sr_error (error));
      return;
    }
  sender = g_dbus_message_get_sender (reply);
  trusted_owner = sr_client_get_trusted_owner (self);
  if (g_strcmp0 (sender, "org.freedesktop.DBus") != 0 &&
      (trusted_owner == NULL || g_strcmp0 (sender, trusted_owner) != 0))
    {
      g_task_return_new_error (task, SR_ERROR, SR_ERROR_FAILED,
                               "The answer came from a program that is not the trusted "
                               "Session Restore service");
      return;
    }
  if (g_dbus_message_to_gerror (reply, &error))
    {
      g_task_return_error (task, to_sr_error (error));
      return;
    }
  body = g_dbus_message_get_body (reply);
  g_task_return_pointer (task, body != NULL ? g_variant_ref (body)
                                            : g_variant_ref_sink (g_variant_new ("()")),
                         (GDestroyNotify) g_variant_unref);
}

/* The owner of the name is now known, trusted or not. */
void
sr_client_release_held (SrClient *self)
{
  g_autoptr(GPtrArray) held = g_steal_pointer (&self->held);

  self->held = g_ptr_array_new ();
  for (guint i = 0; i < held->len; i++)
    {
      HeldReply *one = held->pdata[i];

      resolve (self, one->task, one->reply, g_steal_pointer (&one->error));
      held_reply_free (one);
    }
}

static void
on_sent_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SrClient *self = g_task_get_source_object (task);
  GError *error = NULL;
  g_autoptr(GDBusMessage) reply =
    g_dbus_connection_send_message_with_reply_finish (G_DBUS_CONNECTION (source), result, &error);
  HeldReply *held;

  if (!sr_client_get_connecting (self))
    {
      resolve (self, task, reply, error);
      return;
    }
  held = g_new0 (HeldReply, 1);
  held->task = g_steal_pointer (&task);
  held->reply = g_steal_pointer (&reply);
  held->error = error;
  g_ptr_array_add (self->held, held);
}

static void
on_call_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  GVariant *reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);

  if (reply == NULL)
    g_task_return_error (task, to_sr_error (error));
  else
    g_task_return_pointer (task, reply, (GDestroyNotify) g_variant_unref);
}

/* Calls are interactive: polkit may ask the user to authenticate, and a
 * call waits as long as that takes. policyd gives up on polkit first
 * (SR_POLKIT_INTERACTIVE_WAIT_MS), so the answer is always policyd's. */
void
sr_client_call (SrClient            *self,
                const char          *method,
                GVariant            *parameters,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  const char *owner = sr_client_get_trusted_owner (self);

  g_task_set_source_tag (task, sr_client_call);
  /* While the owner is verified, calls go to the name: the first listing
   * then comes in with the connection, not after it. */
  if (sr_client_get_connecting (self) && self->bus != NULL)
    {
      g_autoptr(GDBusMessage) message =
        g_dbus_message_new_method_call (SR_BUS_NAME, SR_OBJECT_PATH, SR_INTERFACE_NAME, method);

      g_dbus_message_set_body (message, parameters != NULL ? parameters
                                                           : g_variant_new_tuple (NULL, 0));
      g_dbus_message_set_flags (message, G_DBUS_MESSAGE_FLAGS_NO_AUTO_START |
                                         G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION);
      g_dbus_connection_send_message_with_reply (self->bus, message,
                                                 G_DBUS_SEND_MESSAGE_FLAGS_NONE, G_MAXINT, NULL,
                                                 cancellable, on_sent_cb, g_steal_pointer (&task));
      return;
    }
  if (owner == NULL)
    {
      if (parameters != NULL)
        g_variant_unref (g_variant_ref_sink (parameters));
      g_task_return_new_error (task, SR_ERROR, SR_ERROR_FAILED,
                               "The session restore service is not running");
      return;
    }
  g_dbus_connection_call (self->bus, owner, SR_OBJECT_PATH, SR_INTERFACE_NAME, method, parameters,
                          NULL, G_DBUS_CALL_FLAGS_NO_AUTO_START |
                                G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                          G_MAXINT, cancellable, on_call_done_cb, g_steal_pointer (&task));
}

GVariant *
sr_client_call_finish (SrClient      *self,
                       GAsyncResult  *result,
                       GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sr_client_call, NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_service_started_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                             result, &error);

  if (reply == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* The name watcher notices when the service appears. Errors stay in the
 * G_DBUS_ERROR domain: they say what is missing. */
void
sr_client_start_service (SrClient            *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, cancellable, &error);

  g_task_set_source_tag (task, sr_client_start_service);
  if (bus == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "StartServiceByName",
                          g_variant_new ("(su)", SR_BUS_NAME, 0), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, cancellable,
                          on_service_started_cb, g_steal_pointer (&task));
}

gboolean
sr_client_start_service_finish (SrClient      *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* A toast's text: short, and never policyd's own words (those go to the
 * details). NULL for a cancelled call, which says nothing. */
char *
sr_client_describe_error (const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return NULL;
  if (g_error_matches (error, SR_ERROR, SR_ERROR_NOT_ALLOWED))
    return g_strdup (_("You are not allowed to make this change"));
  if (g_error_matches (error, SR_ERROR, SR_ERROR_LOCKED))
    return g_strdup (_("Set by your administrator"));
  /* A fault, not a refusal: the user may well be allowed. */
  if (g_error_matches (error, SR_ERROR, SR_ERROR_UNAVAILABLE))
    return g_strdup (_("Cannot check permissions right now"));
  return g_strdup (_("Something went wrong"));
}
