/* sr-client.c: the panel's connection to policyd
 *
 * Not a widget: it watches the bus name, holds the proxy while policyd
 * runs, and makes every call. Every error it hands out is in the SR_ERROR
 * domain: policyd's own errors arrive as such (main.c registers the
 * domain), and anything else (the bus, a timeout) becomes
 * SR_ERROR_FAILED with the original text kept for the details.
 *
 * It also holds the polkit permissions (sr-permissions.c), so that the
 * pages can show up front what polkit will refuse.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-client"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-bus.h"
#include "sr-client.h"
#include "sr-error.h"
#include "sr-permissions.h"

struct _SrClient {
  GObject parent_instance;

  SrDBusPolicy *policy;          /* (owned) (nullable): while policyd runs */
  GCancellable *cancellable;     /* (owned) */
  guint watch_id;
  SrPermissions *permissions;    /* (owned) */
};

G_DEFINE_FINAL_TYPE (SrClient, sr_client, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CONNECTED,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_CHANGED,
  SIGNAL_STORED_STATE_CLEARED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static void
set_policy (SrClient     *self,
            SrDBusPolicy *policy)
{
  gboolean was = self->policy != NULL;

  g_set_object (&self->policy, policy);
  if (was != (policy != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONNECTED]);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
on_properties_changed_cb (SrClient *self)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
on_stored_state_cleared_cb (SrClient *self)
{
  g_signal_emit (self, signals[SIGNAL_STORED_STATE_CLEARED], 0);
}

static void
on_proxy_ready_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(SrClient) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(SrDBusPolicy) policy = sr_dbus_policy_proxy_new_finish (result, &error);

  if (policy == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Could not reach policyd: %s", error->message);
      return;
    }

  g_debug ("connected to policyd");
  g_signal_connect_object (policy, "g-properties-changed",
                           G_CALLBACK (on_properties_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (policy, "stored-state-cleared",
                           G_CALLBACK (on_stored_state_cleared_cb), self, G_CONNECT_SWAPPED);
  set_policy (self, policy);
}

static void
on_name_appeared_cb (GDBusConnection *bus,
                     const char      *name,
                     const char      *owner,
                     gpointer         user_data)
{
  SrClient *self = user_data;

  /* Consumers is announced by invalidation only: fetch it when it is. */
  sr_dbus_policy_proxy_new (bus,
                            G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START |
                            G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES,
                            name, SR_OBJECT_PATH, self->cancellable,
                            on_proxy_ready_cb, g_object_ref (self));
}

static void
on_name_vanished_cb (GDBusConnection *bus,
                     const char      *name,
                     gpointer         user_data)
{
  set_policy (SR_CLIENT (user_data), NULL);
}

static void
sr_client_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_CONNECTED:
      g_value_set_boolean (value, sr_client_get_connected (SR_CLIENT (object)));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sr_client_dispose (GObject *object)
{
  SrClient *self = SR_CLIENT (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->watch_id, g_bus_unwatch_name);
  g_clear_object (&self->policy);
  g_clear_object (&self->permissions);
  G_OBJECT_CLASS (sr_client_parent_class)->dispose (object);
}

static void
sr_client_finalize (GObject *object)
{
  g_clear_object (&SR_CLIENT (object)->cancellable);
  G_OBJECT_CLASS (sr_client_parent_class)->finalize (object);
}

static void
sr_client_class_init (SrClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = sr_client_get_property;
  object_class->dispose = sr_client_dispose;
  object_class->finalize = sr_client_finalize;

  properties[PROP_CONNECTED] =
    g_param_spec_boolean ("connected", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Any of policyd's properties changed, or policyd came or went. */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_STORED_STATE_CLEARED] =
    g_signal_new ("stored-state-cleared", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sr_client_init (SrClient *self)
{
  self->cancellable = g_cancellable_new ();
  self->permissions = sr_permissions_new ();
  g_signal_connect_object (self->permissions, "changed", G_CALLBACK (sr_client_refresh),
                           self, G_CONNECT_SWAPPED);
  self->watch_id = g_bus_watch_name (G_BUS_TYPE_SESSION, SR_BUS_NAME,
                                     G_BUS_NAME_WATCHER_FLAGS_AUTO_START,
                                     on_name_appeared_cb, on_name_vanished_cb, self, NULL);
}

SrClient *
sr_client_new (void)
{
  return g_object_new (SR_TYPE_CLIENT, NULL);
}

gboolean
sr_client_get_connected (SrClient *self)
{
  return self->policy != NULL;
}

/* Makes everything shown re-read what is in force: after a change the
 * user backed out of, or that policyd refused. */
void
sr_client_refresh (SrClient *self)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

SrDBusPolicy *
sr_client_get_policy (SrClient *self)
{
  return self->policy;
}

/* Whether polkit will refuse @action outright (sr-permissions.c). */
gboolean
sr_client_is_refused (SrClient   *self,
                      const char *action)
{
  return sr_permissions_is_refused (self->permissions, action);
}

gboolean
sr_client_is_locked (SrClient   *self,
                     const char *key)
{
  g_auto(GStrv) locked = NULL;

  if (self->policy == NULL)
    return FALSE;
  /* dup, not get: the generated get_ accessors of "as" properties lend
   * strings of the proxy's cache, which a property change frees. */
  locked = sr_dbus_policy_dup_locked_settings (self->policy);
  return locked != NULL && g_strv_contains ((const char * const *) locked, key);
}

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
  GVariant *reply = g_dbus_proxy_call_finish (G_DBUS_PROXY (source), result, &error);

  if (reply == NULL)
    g_task_return_error (task, to_sr_error (error));
  else
    g_task_return_pointer (task, reply, (GDestroyNotify) g_variant_unref);
}

/* Calls are interactive: polkit may ask the user to authenticate. */
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
