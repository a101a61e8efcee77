/* sr-client-calls.c: the calls the panel makes to policyd
 *
 * Every error handed out is in the SR_ERROR domain: policyd's own errors
 * arrive as such (main.c registers the domain), and anything else (the
 * bus, a timeout) becomes SR_ERROR_FAILED with the original text kept for
 * the details.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-client"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-bus.h"
#include "sr-client-private.h"
#include "sr-error.h"

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

static void
on_call_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  GVariant *reply = G_IS_DBUS_PROXY (source)
    ? g_dbus_proxy_call_finish (G_DBUS_PROXY (source), result, &error)
    : g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);

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

  g_task_set_source_tag (task, sr_client_call);
  /* While the first proxy is made, calls go to the name: the first
   * listing then comes in with the connection, not after it. */
  if (self->policy == NULL && self->connecting)
    {
      g_dbus_connection_call (self->bus, SR_BUS_NAME, SR_OBJECT_PATH, SR_INTERFACE_NAME, method,
                              parameters, NULL,
                              G_DBUS_CALL_FLAGS_NO_AUTO_START |
                              G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                              G_MAXINT, cancellable, on_call_done_cb, g_steal_pointer (&task));
      return;
    }
  if (self->policy == NULL)
    {
      if (parameters != NULL)
        g_variant_unref (g_variant_ref_sink (parameters));
      g_task_return_new_error (task, SR_ERROR, SR_ERROR_FAILED,
                               "The session restore service is not running");
      return;
    }
  g_dbus_proxy_call (G_DBUS_PROXY (self->policy), method, parameters,
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
