/* sr-client.c: the panel's connection to policyd
 *
 * Not a widget: it holds libsessionrestore's client, and the pages make
 * their calls with it (sr_client_peek_policy()).
 *
 * Whatever owns org.gnome.SessionRestore.Policy answers as the service:
 * if policyd is not running, that may be a sandboxed app that took the
 * name. The library verifies the owner (a host process of this user)
 * before anything it says is taken, on a worker thread, so that its round
 * trips overlap GTK's start-up; one that fails is not trusted, and the
 * window says so. When the name changes hands, the new owner is verified
 * again. The client is made with SR_POLICY_CLIENT_FLAGS_PIPELINE: the
 * first listing is sent while the owner is verified, and comes in with the
 * connection; the library takes its answer only from the verified owner.
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
#include "sr-permissions.h"

struct _SrClient {
  GObject parent_instance;

  SrPolicyClient *policy;        /* (owned): libsessionrestore's client, made at
                                  * once and initialized meanwhile */
  gboolean connected;            /* the last "connected" notified */
  guint changed_idle;            /* "changed" is due */
  GCancellable *cancellable;     /* (owned) */
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
  SIGNAL_STORED_STATE_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static SrServiceState
service_state (SrClient *self)
{
  return sr_policy_client_get_service_state (self->policy);
}

static gboolean
emit_changed_cb (gpointer user_data)
{
  SrClient *self = user_data;

  self->changed_idle = 0;
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
  return G_SOURCE_REMOVE;
}

/* The library notifies each property that changed, several at once when
 * policyd comes: the pages hear of them once. */
static void
queue_changed (SrClient *self)
{
  if (self->changed_idle == 0)
    self->changed_idle = g_idle_add (emit_changed_cb, self);
}

static void
on_service_state_cb (SrClient *self)
{
  SrServiceState state = service_state (self);
  gboolean connected = state == SR_SERVICE_STATE_RUNNING;

  if (state == SR_SERVICE_STATE_UNTRUSTED)
    g_message ("Not trusting %s (%s): %s", SR_BUS_NAME,
               sr_policy_client_get_service_owner (self->policy),
               sr_policy_client_get_distrust (self->policy));
  if (connected != self->connected)
    {
      self->connected = connected;
      g_debug (connected ? "connected to policyd" : "policyd went");
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONNECTED]);
    }
  queue_changed (self);
}

static void
on_policy_notify_cb (SrClient   *self,
                     GParamSpec *pspec)
{
  if (g_str_equal (pspec->name, "service-state"))
    on_service_state_cb (self);
  else if (sr_client_get_connected (self))
    queue_changed (self);
}

static void
on_stored_state_changed_cb (SrClient *self)
{
  g_signal_emit (self, signals[SIGNAL_STORED_STATE_CHANGED], 0);
}

static void
on_policy_ready_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(SrClient) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_async_initable_init_finish (G_ASYNC_INITABLE (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Could not reach policyd: %s", error->message);
      return;
    }
  if (service_state (self) == SR_SERVICE_STATE_MISSING)
    {
      g_autoptr(GError) why = NULL;
      sr_policy_client_check_service (self->policy, &why);
      g_message ("Could not reach policyd: %s", why->message);
    }
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
  g_clear_handle_id (&self->changed_idle, g_source_remove);
  g_clear_object (&self->permissions);
  G_OBJECT_CLASS (sr_client_parent_class)->dispose (object);
}

static void
sr_client_finalize (GObject *object)
{
  g_clear_object (&SR_CLIENT (object)->policy);
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
  /* What a listing said is out of date: saved sessions were cleared, or
   * the crash-loop guard began or stopped holding an app back. */
  signals[SIGNAL_STORED_STATE_CHANGED] =
    g_signal_new ("stored-state-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sr_client_init (SrClient *self)
{
  /* The application's connection: made already, as it registered. */
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);

  self->cancellable = g_cancellable_new ();
  self->permissions = sr_permissions_new ();
  g_signal_connect_object (self->permissions, "changed", G_CALLBACK (sr_client_refresh),
                           self, G_CONNECT_SWAPPED);
  /* The client starts policyd if it is not running, as the name watch the
   * panel had did. Its signals are connected before it initializes, so
   * that the pages hear of the service before the first answers. */
  self->policy = sr_policy_client_new (bus, SR_POLICY_CLIENT_FLAGS_PIPELINE);
  g_signal_connect_object (self->policy, "notify", G_CALLBACK (on_policy_notify_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->policy, "stored-state-cleared",
                           G_CALLBACK (on_stored_state_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->policy, "crash-guard-changed",
                           G_CALLBACK (on_stored_state_changed_cb), self, G_CONNECT_SWAPPED);
  g_async_initable_init_async (G_ASYNC_INITABLE (self->policy), G_PRIORITY_DEFAULT,
                               self->cancellable, on_policy_ready_cb, g_object_ref (self));
}

SrClient *
sr_client_new (void)
{
  return g_object_new (SR_TYPE_CLIENT, NULL);
}

gboolean
sr_client_get_connected (SrClient *self)
{
  return service_state (self) == SR_SERVICE_STATE_RUNNING;
}

/* Not connected, and not because the first answers are on their way:
 * policyd is not on the bus, or would not answer. */
gboolean
sr_client_get_missing (SrClient *self)
{
  return service_state (self) == SR_SERVICE_STATE_MISSING;
}

/* Why the program that owns the service's name is not trusted (in
 * English, for the log and the details), or NULL. */
const char *
sr_client_get_distrust (SrClient *self)
{
  return self->policy != NULL ? sr_policy_client_get_distrust (self->policy) : NULL;
}

/* Emits a "changed" that is still queued now, so that what is shown is
 * up to date before the window is presented. */
void
sr_client_flush_changed (SrClient *self)
{
  if (self->changed_idle == 0)
    return;
  g_clear_handle_id (&self->changed_idle, g_source_remove);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* Makes everything shown re-read what is in force: after a change the
 * user backed out of, or that policyd refused. */
void
sr_client_refresh (SrClient *self)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

/* The library's client while the verified policyd runs, else NULL: for
 * what it says of the settings. */
SrPolicyClient *
sr_client_get_policy (SrClient *self)
{
  return sr_client_get_connected (self) ? self->policy : NULL;
}

/* The library's client, whether or not the service is verified yet: for
 * the calls, which it sends at once and answers once it is (or fails). */
SrPolicyClient *
sr_client_peek_policy (SrClient *self)
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
  SrPolicyClient *policy = sr_client_get_policy (self);

  return policy != NULL && sr_policy_client_is_locked (policy, key);
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

/* Why a call failed, said after what failed ("Could not turn off Files:
 * not allowed"): short, and never policyd's own words (those go to the
 * details). NULL for a cancelled call, which says nothing. */
char *
sr_client_describe_error (const GError *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return NULL;
  if (g_error_matches (error, SR_ERROR, SR_ERROR_NOT_ALLOWED))
    /* Translators: why something failed, after "Could not …: " */
    return g_strdup (_("not allowed"));
  if (g_error_matches (error, SR_ERROR, SR_ERROR_LOCKED))
    /* Translators: why something failed, after "Could not …: " */
    return g_strdup (_("set by your administrator"));
  /* A fault, not a refusal: the user may well be allowed. */
  if (g_error_matches (error, SR_ERROR, SR_ERROR_UNAVAILABLE))
    /* Translators: why something failed, after "Could not …: " */
    return g_strdup (_("permissions cannot be checked right now"));
  /* Translators: why something failed, after "Could not …: " */
  return g_strdup (_("something went wrong"));
}

/* That the saved sessions are not shown, and why, as one sentence: a
 * refusal to show them is not a refusal to change anything. */
char *
sr_client_describe_listing_error (const GError *error)
{
  g_autofree char *why = NULL;

  if (g_error_matches (error, SR_ERROR, SR_ERROR_NOT_ALLOWED))
    return g_strdup (_("You are not allowed to see saved sessions"));
  why = sr_client_describe_error (error);
  return g_strdup_printf (_("%s: %s"), _("Could not read saved sessions"),
                          why != NULL ? why : _("something went wrong"));
}
