/* sr-client.c: the panel's connection to policyd
 *
 * Not a widget: it watches the bus name and holds the proxy while policyd
 * runs; the calls are made in sr-client-calls.c.
 *
 * Whatever owns org.gnome.SessionRestore.Policy answers as the service:
 * if policyd is not running, that may be a sandboxed app that took the
 * name. So the owner is verified (sr-peer.c: a host process of this user)
 * before anything it says is shown, on the worker thread that makes the
 * proxy; one that fails is not trusted, and the window says so. The
 * trust belongs to the owner's unique name: when the name changes hands,
 * the new owner is verified again.
 *
 * It also holds the polkit permissions (sr-permissions.c), so that the
 * pages can show up front what polkit will refuse.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-client"

#include "config.h"

#include "sr-bus.h"
#include "sr-client-private.h"
#include "sr-error.h"
#include "sr-peer.h"

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

/* Whether the proxy still talks to the owner that was verified: it follows
 * the name to a new owner by itself, before the client hears of it. */
gboolean
sr_client_owner_is_trusted (SrClient *self)
{
  g_autofree char *owner = NULL;

  if (self->policy == NULL)
    return FALSE;
  owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (self->policy));
  return owner != NULL && g_strcmp0 (owner, self->trusted_owner) == 0;
}

static void
on_properties_changed_cb (SrClient *self)
{
  if (sr_client_owner_is_trusted (self))
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
on_stored_state_cleared_cb (SrClient *self)
{
  if (sr_client_owner_is_trusted (self))
    g_signal_emit (self, signals[SIGNAL_STORED_STATE_CLEARED], 0);
}

static void
adopt_policy (SrClient     *self,
              SrDBusPolicy *policy)
{
  g_debug ("connected to policyd");
  g_signal_connect_object (policy, "g-properties-changed",
                           G_CALLBACK (on_properties_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (policy, "stored-state-cleared",
                           G_CALLBACK (on_stored_state_cleared_cb), self, G_CONNECT_SWAPPED);
  self->missing = FALSE;
  set_policy (self, policy);
}

/* Consumers is announced by invalidation only: fetch it when it is. */
#define PROXY_FLAGS (G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START | \
                     G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES)

/* What the worker thread found: a proxy, and whether its owner is trusted. */
typedef struct {
  SrDBusPolicy *policy;   /* (owned) */
  char *owner;            /* (owned) (nullable): the owner when the proxy was made */
  GError *distrust;       /* (owned) (nullable): why that owner is not trusted */
} Connection;

static void
connection_free (Connection *connection)
{
  g_object_unref (connection->policy);
  g_free (connection->owner);
  g_clear_error (&connection->distrust);
  g_free (connection);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Connection, connection_free)

/* The proxy is made, and its owner verified, on a worker thread. As the
 * panel starts, their round trips then overlap GTK's start-up and the
 * building of the window, instead of waiting for the main loop one after
 * the other. The proxy's signals are still emitted on the main thread:
 * the worker has no main context of its own. */
static void
connect_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  GError *error = NULL;
  SrDBusPolicy *policy = sr_dbus_policy_proxy_new_sync (task_data, PROXY_FLAGS, SR_BUS_NAME,
                                                        SR_OBJECT_PATH, cancellable, &error);
  Connection *connection;

  if (policy == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  connection = g_new0 (Connection, 1);
  connection->policy = policy;
  connection->owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (policy));
  if (connection->owner != NULL)
    sr_peer_verify_sync (task_data, connection->owner, NULL, NULL, NULL, cancellable,
                         &connection->distrust);
  g_task_return_pointer (task, connection, (GDestroyNotify) connection_free);
}

static void on_connected_cb (GObject *source, GAsyncResult *result, gpointer user_data);

static void
connect_to_policyd (SrClient *self)
{
  g_autoptr(GTask) task = g_task_new (self, self->cancellable, on_connected_cb, NULL);

  self->connecting = TRUE;
  g_task_set_source_tag (task, connect_to_policyd);
  g_task_set_task_data (task, g_object_ref (self->bus), g_object_unref);
  g_task_run_in_thread (task, connect_thread);
}

static void
set_distrust (SrClient   *self,
              const char *distrust)
{
  g_free (self->distrust);
  self->distrust = g_strdup (distrust);
}

/* The proxy is taken if policyd was there, unless the name watch has since
 * said it went; if it came while the proxy was made, it is made again. An
 * owner that is not trusted is not taken, and the window says so. */
static void
on_connected_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  SrClient *self = SR_CLIENT (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(Connection) connection = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *owner_now = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->connecting = FALSE;
  if (connection != NULL)
    owner_now = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (connection->policy));
  if (connection != NULL && connection->distrust != NULL && self->watch != WATCH_VANISHED)
    {
      g_message ("Not trusting %s (%s): %s", SR_BUS_NAME, connection->owner,
                 connection->distrust->message);
      set_distrust (self, connection->distrust->message);
      self->missing = FALSE;
      set_policy (self, NULL);
    }
  else if (connection != NULL && connection->owner != NULL &&
           g_strcmp0 (owner_now, connection->owner) == 0 && self->watch != WATCH_VANISHED)
    {
      g_free (self->trusted_owner);
      self->trusted_owner = g_strdup (connection->owner);
      set_distrust (self, NULL);
      adopt_policy (self, connection->policy);
    }
  else if (connection != NULL && self->watch == WATCH_APPEARED)
    connect_to_policyd (self);
  else if (connection == NULL)
    {
      g_message ("Could not reach policyd: %s", error->message);
      self->missing = TRUE;
      g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
    }
  /* Made again: what was held waits for that one. */
  if (!self->connecting)
    sr_client_release_held (self);
}

static void
on_name_appeared_cb (GDBusConnection *bus,
                     const char      *name,
                     const char      *owner,
                     gpointer         user_data)
{
  SrClient *self = user_data;

  self->watch = WATCH_APPEARED;
  if (self->connecting || self->bus == NULL)
    return;
  if (self->policy != NULL &&
      g_strcmp0 (g_dbus_proxy_get_name_owner (G_DBUS_PROXY (self->policy)), owner) == 0)
    return;
  connect_to_policyd (self);
}

static void
on_name_vanished_cb (GDBusConnection *bus,
                     const char      *name,
                     gpointer         user_data)
{
  SrClient *self = user_data;

  self->watch = WATCH_VANISHED;
  self->missing = TRUE;
  set_distrust (self, NULL);
  set_policy (self, NULL);
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
  g_clear_object (&self->bus);
  g_clear_object (&self->permissions);
  g_clear_pointer (&self->trusted_owner, g_free);
  g_clear_pointer (&self->distrust, g_free);
  G_OBJECT_CLASS (sr_client_parent_class)->dispose (object);
}

static void
sr_client_finalize (GObject *object)
{
  g_clear_pointer (&SR_CLIENT (object)->held, g_ptr_array_unref);
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
  self->held = g_ptr_array_new ();
  self->permissions = sr_permissions_new ();
  g_signal_connect_object (self->permissions, "changed", G_CALLBACK (sr_client_refresh),
                           self, G_CONNECT_SWAPPED);
  self->watch_id = g_bus_watch_name (G_BUS_TYPE_SESSION, SR_BUS_NAME,
                                     G_BUS_NAME_WATCHER_FLAGS_AUTO_START,
                                     on_name_appeared_cb, on_name_vanished_cb, self, NULL);
  /* The application's connection: made already, as it registered. The
   * proxy is made at once, not once the watch has answered. */
  self->bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  if (self->bus != NULL)
    connect_to_policyd (self);
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

/* Not connected, and not because the first answers are on their way:
 * policyd is not on the bus, or would not answer. */
gboolean
sr_client_get_missing (SrClient *self)
{
  return self->policy == NULL && self->missing;
}

/* Why the program that owns the service's name is not trusted (in
 * English, for the log and the details), or NULL. */
const char *
sr_client_get_distrust (SrClient *self)
{
  return self->policy == NULL ? self->distrust : NULL;
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
