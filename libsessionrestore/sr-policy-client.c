/* sr-policy-client.c: a client of session-restore-policyd
 *
 * Whatever owns org.gnome.SessionRestore.Policy answers as the service:
 * while policyd is not running, that may be a sandboxed app that took the
 * name. So the client believes nothing until it has verified the owner
 * as a host process of this user (common/sr-peer.c, compiled into the
 * library), and sends it nothing meanwhile but the GetAll of the
 * properties, which tells nothing about the caller (asked of the name
 * before its owner is known, and taken only if the owner verified
 * answered it); then it talks only to that owner's unique name, which the
 * bus never gives to another connection. When the name changes hands,
 * the new owner is verified again; until then the service is UNKNOWN and
 * calls wait, unsent, or, those that name no app for a client told to
 * pipeline them, are sent to the name with their answers held until the
 * owner is verified.
 *
 * When policyd goes (it crashed, or was stopped), the service is MISSING,
 * and the client does nothing about it by itself: a service that cannot
 * run is not started again and again. The next call has the bus start it
 * (StartServiceByName, the D-Bus activation a call to the name would
 * make, asked for by hand so that the bus's reason for a failure can be
 * told), once, for every call that comes meanwhile; the new owner is then
 * found and verified as at the start, and the calls go to it, or fail
 * saying why it could not be started.
 *
 * The settings are mirrored from the service's properties: read once with
 * GetAll, sent while the owner is found and verified and taken only if
 * it passes (which also makes the client one policyd sends
 * StoredStateCleared to: the signal is not broadcast), then kept from
 * PropertiesChanged. The properties the contract only invalidates are
 * read again when they are.
 *
 * The calls are in sr-policy-client-calls.c, with the calls that wait
 * for an owner (self->waiting) and those a SR_POLICY_CLIENT_FLAGS_PIPELINE
 * client sends before the owner is verified (self->early, their answers
 * in self->held): they are dealt with when a resolution ends, or the
 * service goes (sr_policy_client_release_held()).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define G_LOG_DOMAIN "libsessionrestore"

#include "config.h"

#include "sr-bus.h"
#include "sr-peer.h"
#include "sr-policy-client-private.h"

/**
 * SrPolicyClient:
 *
 * A client of the Session Restore policy service
 * (`org.gnome.SessionRestore.Policy` on the session bus): the checks that
 * consumers make before saving and restoring an app's state, the settings
 * as read-only properties, and the stored state, for tools.
 *
 * Make one with sr_policy_client_new_for_bus_async() (or
 * sr_policy_client_new_for_bus_sync()); or with sr_policy_client_new()
 * and %SR_POLICY_CLIENT_FLAGS_PIPELINE, to make the first calls while it
 * initializes, so that their round trips overlap its own. It follows the service as it
 * stops and starts; #SrPolicyClient:service-state says whether it can be
 * used. The program owning the service's name is verified first: one in
 * a sandbox or of another user is #SR_SERVICE_STATE_UNTRUSTED, and every
 * call then fails with %SR_ERROR_NOT_ALLOWED without anything being sent.
 *
 * Calls made while the owner is being verified wait for it. A call made
 * while the service is not running (#SR_SERVICE_STATE_MISSING: it
 * stopped, or crashed) has the bus start it again, unless the client was
 * made with %SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START, and goes to it once
 * it is verified; if it cannot be started, the call fails with
 * %SR_ERROR_UNAVAILABLE and the bus's reason. The client starts the
 * service only for a call, never on its own.
 *
 * Signals and property notifications are delivered in the thread-default
 * main context in which the client was initialized.
 */

static void sr_policy_client_initable_iface_init (GInitableIface *iface);
static void sr_policy_client_async_initable_iface_init (GAsyncInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SrPolicyClient, sr_policy_client, G_TYPE_OBJECT,
  G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE, sr_policy_client_initable_iface_init)
  G_IMPLEMENT_INTERFACE (G_TYPE_ASYNC_INITABLE, sr_policy_client_async_initable_iface_init))

typedef enum {
  PROP_CONNECTION = 1,
  PROP_FLAGS,
  PROP_SERVICE_STATE,
  PROP_SERVICE_OWNER,
  PROP_VERSION,
  PROP_ENABLED,
  PROP_LOGIN_RESTORE,
  PROP_RESTORE_AFTER_CRASH,
  PROP_RESTORE_ON_LAUNCH,
  PROP_EXCLUDED_APPS,
  PROP_ADMIN_EXCLUDED_APPS,
  PROP_MAX_AGE_DAYS,
  PROP_CRASH_LOOP_THRESHOLD,
  PROP_CRASH_LOOP_WINDOW,
  PROP_LOCKED_SETTINGS,
  PROP_CONSUMERS,
  N_PROPS
} SrPolicyClientProperty;
static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_STORED_STATE_CLEARED,
  SIGNAL_CRASH_GUARD_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

/* The service's properties the client mirrors, by their D-Bus and their
 * GObject names. */
typedef struct {
  const char *dbus_name;
  const char *signature;
  SrPolicyClientProperty prop;
} Mirror;

static const Mirror mirrors[] = {
  { "Version", "u", PROP_VERSION },
  { "Enabled", "b", PROP_ENABLED },
  { "LoginRestore", "s", PROP_LOGIN_RESTORE },
  { "RestoreAfterCrash", "b", PROP_RESTORE_AFTER_CRASH },
  { "RestoreOnLaunch", "b", PROP_RESTORE_ON_LAUNCH },
  { "ExcludedApps", "as", PROP_EXCLUDED_APPS },
  { "AdminExcludedApps", "as", PROP_ADMIN_EXCLUDED_APPS },
  { "MaxAgeDays", "i", PROP_MAX_AGE_DAYS },
  { "CrashLoopThreshold", "u", PROP_CRASH_LOOP_THRESHOLD },
  { "CrashLoopWindow", "u", PROP_CRASH_LOOP_WINDOW },
  { "LockedSettings", "as", PROP_LOCKED_SETTINGS },
  { "Consumers", "a(sx)", PROP_CONSUMERS },
};

static const Mirror *
mirror_for_dbus_name (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (mirrors); i++)
    if (g_str_equal (mirrors[i].dbus_name, name))
      return &mirrors[i];
  return NULL;
}

static GVariant *
value_of (SrPolicyClient *self,
          const char     *dbus_name)
{
  return g_hash_table_lookup (self->values, dbus_name);
}

static GStrv *
strv_field (SrPolicyClient         *self,
            SrPolicyClientProperty  prop)
{
  switch (prop)
    {
    case PROP_EXCLUDED_APPS: return &self->excluded_apps;
    case PROP_ADMIN_EXCLUDED_APPS: return &self->admin_excluded_apps;
    case PROP_LOCKED_SETTINGS: return &self->locked_settings;
    default: return NULL;
    }
}

/* Takes what the service announced for @dbus_name, if it is a property of
 * the expected type; notifies when it changed. */
static void
apply_value (SrPolicyClient *self,
             const char     *dbus_name,
             GVariant       *value)
{
  const Mirror *mirror = mirror_for_dbus_name (dbus_name);
  GVariant *old = value_of (self, dbus_name);
  GStrv *field;

  if (mirror == NULL)
    return;   /* a newer service's */
  if (!g_variant_is_of_type (value, G_VARIANT_TYPE (mirror->signature)))
    {
      g_debug ("Ignoring %s of type %s", dbus_name, g_variant_get_type_string (value));
      return;
    }
  if (old != NULL && g_variant_equal (old, value))
    return;
  g_hash_table_replace (self->values, g_strdup (dbus_name), g_variant_ref (value));
  field = strv_field (self, mirror->prop);
  if (field != NULL)
    {
      g_strfreev (*field);
      *field = g_variant_dup_strv (value, NULL);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[mirror->prop]);
}

static void
set_service (SrPolicyClient *self,
             SrServiceState  state,
             const char     *owner,
             const char     *why_not)
{
  g_free (self->why_not);
  self->why_not = g_strdup (why_not);
  if (g_strcmp0 (self->owner, owner) != 0)
    {
      g_free (self->owner);
      self->owner = g_strdup (owner);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVICE_OWNER]);
    }
  if (self->state != state)
    {
      self->state = state;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVICE_STATE]);
    }
}

/* The owner's properties, asked for while it is being found and verified. */
typedef struct {
  GDBusMessage *reply;           /* (owned) (nullable) */
  GError *error;                 /* (owned) (nullable) */
  gboolean done;
} EarlyAll;

/* Finding the owner, verifying it and reading its properties. The first
 * two questions go out from the thread that begins it (resolve_new()),
 * at once; the rest are blocking round trips (resolve_run()), made on a
 * worker thread by the async paths, which takes the first answers in
 * @context. */
typedef struct {
  GDBusConnection *connection;   /* (owned) */
  gboolean auto_start;
  guint resolution;              /* self->resolution when it began */
  GMainContext *context;         /* (owned) where the first answers come */
  GCancellable *early;           /* (owned) ends the wait for the GetAll */
  EarlyAll early_all;            /* the GetAll asked of the name */
  gboolean owner_answered;       /* GetNameOwner's answer came */
  SrServiceState state;
  char *owner;                   /* (owned) (nullable) */
  char *why_not;                 /* (owned) (nullable) */
  GVariant *all;                 /* (owned) (nullable): a{sv} of GetAll */
} Resolve;

static void
early_all_clear (EarlyAll *all)
{
  g_clear_object (&all->reply);
  g_clear_error (&all->error);
}

/* After resolve_run(), which waits for both answers: nothing is left
 * to come to @context. */
static void
resolve_free (Resolve *resolve)
{
  g_object_unref (resolve->connection);
  g_main_context_unref (resolve->context);
  g_object_unref (resolve->early);
  early_all_clear (&resolve->early_all);
  g_free (resolve->owner);
  g_free (resolve->why_not);
  g_clear_pointer (&resolve->all, g_variant_unref);
  g_free (resolve);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Resolve, resolve_free)

static void
on_early_all_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  EarlyAll *all = user_data;

  all->reply = g_dbus_connection_send_message_with_reply_finish (G_DBUS_CONNECTION (source),
                                                                 result, &all->error);
  all->done = TRUE;
}

/* GetAll to @destination; the answer's sender says who answered. */
static void
early_all_send (EarlyAll        *all,
                GDBusConnection *connection,
                const char      *destination,
                GCancellable    *cancellable)
{
  g_autoptr(GDBusMessage) message =
    g_dbus_message_new_method_call (destination, SR_OBJECT_PATH,
                                    "org.freedesktop.DBus.Properties", "GetAll");

  g_dbus_message_set_body (message, g_variant_new ("(s)", SR_INTERFACE_NAME));
  g_dbus_message_set_flags (message, G_DBUS_MESSAGE_FLAGS_NO_AUTO_START);
  all->done = FALSE;
  g_dbus_connection_send_message_with_reply (connection, message,
                                             G_DBUS_SEND_MESSAGE_FLAGS_NONE, -1, NULL,
                                             cancellable, on_early_all_cb, all);
}

/* In the context it was sent for, pushed as the thread's default. */
static void
early_all_wait (EarlyAll     *all,
                GMainContext *context)
{
  while (!all->done)
    g_main_context_iteration (context, TRUE);
}

/* The properties in the answer, if @owner sent it. FALSE if it came from
 * elsewhere: the bus, or an owner the name had before. */
static gboolean
early_all_take (EarlyAll    *all,
                const char  *owner,
                GVariant   **out_all)
{
  g_autoptr(GError) error = NULL;
  GVariant *body;

  *out_all = NULL;
  if (all->reply == NULL || g_strcmp0 (g_dbus_message_get_sender (all->reply), owner) != 0)
    return FALSE;
  body = g_dbus_message_get_body (all->reply);
  /* A service that does not answer this has no settings to show, and
   * its calls will say what is wrong. */
  if (g_dbus_message_to_gerror (all->reply, &error))
    g_debug ("Could not read the service's properties: %s", error->message);
  else if (body == NULL || !g_variant_is_of_type (body, G_VARIANT_TYPE ("(a{sv})")))
    g_debug ("Could not read the service's properties: an answer of the wrong type");
  else
    *out_all = g_variant_get_child_value (body, 0);
  return TRUE;
}

static void
on_owner_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Resolve *resolve = user_data;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                             result, NULL);

  if (reply != NULL)
    g_variant_get (reply, "(s)", &resolve->owner);
  resolve->owner_answered = TRUE;
}

/* GetNameOwner, answered in the thread's default context (the
 * resolution's, pushed by the caller): on_owner_cb(). */
static void
ask_owner (Resolve      *resolve,
           GCancellable *cancellable)
{
  resolve->owner_answered = FALSE;
  g_dbus_connection_call (resolve->connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetNameOwner",
                          g_variant_new ("(s)", SR_BUS_NAME), G_VARIANT_TYPE ("(s)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, cancellable, on_owner_cb, resolve);
}

static void
wait_owner (Resolve *resolve)
{
  while (!resolve->owner_answered)
    g_main_context_iteration (resolve->context, TRUE);
}

/* Begins a resolution: its first two questions are sent now, not once a
 * worker thread is running (on a backend's cold start that came after it
 * had asked for its own name, and policyd's answer to the GetAll is what
 * its first check waits for). The properties, as a proxy would read
 * them, are asked at once of whatever owns the name, and taken only from
 * the owner found and verified: the call says nothing about the caller,
 * and policyd identifies a new caller at its first call, which then
 * happens while the owner is found and verified. An owner not to be
 * trusted is not waited for. */
static Resolve *
resolve_new (SrPolicyClient *self,
             gboolean        auto_start,
             GCancellable   *cancellable)
{
  Resolve *resolve = g_new0 (Resolve, 1);

  resolve->connection = g_object_ref (self->connection);
  resolve->auto_start = auto_start;
  resolve->resolution = self->resolution;
  resolve->context = g_main_context_new ();
  resolve->early = g_cancellable_new ();
  g_main_context_push_thread_default (resolve->context);
  early_all_send (&resolve->early_all, resolve->connection, SR_BUS_NAME, resolve->early);
  ask_owner (resolve, cancellable);
  g_main_context_pop_thread_default (resolve->context);
  return resolve;
}

/* By hand rather than by auto-starting a call: the bus's answer ("not
 * provided by any .service files", "exited with status 1") is what a user
 * needs to hear. */
static gboolean
start_service (GDBusConnection  *connection,
               GCancellable     *cancellable,
               GError          **error)
{
  g_autoptr(GVariant) reply =
    g_dbus_connection_call_sync (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus", "StartServiceByName",
                                 g_variant_new ("(su)", SR_BUS_NAME, 0),
                                 G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE,
                                 -1, cancellable, error);

  if (reply == NULL)
    g_dbus_error_strip_remote_error (*error);
  return reply != NULL;
}

static void
cancel_early_all (GCancellable *cancellable,
                  GCancellable *early)
{
  g_cancellable_cancel (early);
}

/* @cancellable: the one given to resolve_new(). */
static void
resolve_run (Resolve      *resolve,
             GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  EarlyAll *all = &resolve->early_all;
  gulong cancel_id = 0;

  resolve->state = SR_SERVICE_STATE_MISSING;
  if (cancellable != NULL)
    cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (cancel_early_all),
                                       g_object_ref (resolve->early), g_object_unref);
  g_main_context_push_thread_default (resolve->context);

  wait_owner (resolve);
  if (resolve->owner == NULL && resolve->auto_start)
    {
      if (!start_service (resolve->connection, cancellable, &error))
        {
          resolve->why_not = g_strdup_printf ("not running and could not be started: %s",
                                              error->message);
          goto out;
        }
      ask_owner (resolve, cancellable);
      wait_owner (resolve);
      if (resolve->owner == NULL)
        resolve->why_not = g_strdup ("not running: it was started, but stopped at once");
    }
  if (resolve->owner == NULL)
    goto out;

  if (!sr_peer_verify_sync (resolve->connection, resolve->owner, NULL, NULL, NULL,
                            cancellable, &error))
    {
      resolve->state = SR_SERVICE_STATE_UNTRUSTED;
      resolve->why_not = g_strdup (error->message);
      goto out;
    }
  resolve->state = SR_SERVICE_STATE_RUNNING;
  early_all_wait (all, resolve->context);
  /* Not answered by the owner verified (the bus answered, before the
   * client started the service; or the name changed hands between the
   * two questions): it is asked again. */
  if (!early_all_take (all, resolve->owner, &resolve->all) &&
      !g_cancellable_is_cancelled (resolve->early))
    {
      early_all_clear (all);
      early_all_send (all, resolve->connection, resolve->owner, resolve->early);
      early_all_wait (all, resolve->context);
      early_all_take (all, resolve->owner, &resolve->all);
    }

out:
  g_cancellable_cancel (resolve->early);
  early_all_wait (all, resolve->context);
  early_all_clear (all);
  g_main_context_pop_thread_default (resolve->context);
  g_cancellable_disconnect (cancellable, cancel_id);
}

static gboolean
auto_start (SrPolicyClient *self)
{
  return !(self->flags & SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START);
}

/* Takes what a resolution found, unless the name changed hands since. */
static void
apply_resolve (SrPolicyClient *self,
               Resolve        *resolve)
{
  GVariantIter iter;
  const char *name;
  GVariant *value;

  if (resolve->resolution != self->resolution)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  if (resolve->all != NULL)
    {
      g_variant_iter_init (&iter, resolve->all);
      while (g_variant_iter_next (&iter, "{&sv}", &name, &value))
        {
          apply_value (self, name, value);
          g_variant_unref (value);
        }
    }
  if (resolve->state == SR_SERVICE_STATE_UNTRUSTED)
    g_debug ("Not trusting %s (%s): %s", SR_BUS_NAME, resolve->owner, resolve->why_not);
  set_service (self, resolve->state, resolve->owner, resolve->why_not);
  g_object_thaw_notify (G_OBJECT (self));
  /* After the notifications: whoever made the calls hears of the service
   * before the answers. */
  sr_policy_client_release_held (self);
}

/* The client will not find the owner any more (its initialization failed,
 * or it is disposed): calls it holds fail, and those still on their way
 * fail as they come. */
static void
stop (SrPolicyClient *self)
{
  g_cancellable_cancel (self->cancellable);
  sr_policy_client_release_held (self);
}

static void
resolve_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  resolve_run (task_data, cancellable);
  g_task_return_boolean (task, TRUE);
}

static void
run_resolve (SrPolicyClient      *self,
             gboolean             auto_start,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, run_resolve);
  g_task_set_task_data (task, resolve_new (self, auto_start, cancellable),
                        (GDestroyNotify) resolve_free);
  g_task_run_in_thread (task, resolve_thread);
}

static void
on_resolved_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  if (g_task_propagate_boolean (G_TASK (result), NULL))
    apply_resolve (SR_POLICY_CLIENT (source), g_task_get_task_data (G_TASK (result)));
}

static void
on_name_owner_changed_cb (GDBusConnection *connection,
                          const char      *sender,
                          const char      *path,
                          const char      *interface,
                          const char      *signal,
                          GVariant        *parameters,
                          gpointer         user_data)
{
  SrPolicyClient *self = user_data;
  const char *name, *old_owner, *new_owner;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (!g_str_equal (name, SR_BUS_NAME))
    return;
  /* The owner the client found already, having started the service: a
   * unique name is never given to another connection. */
  if (self->state == SR_SERVICE_STATE_RUNNING && g_strcmp0 (new_owner, self->owner) == 0)
    return;
  self->resolution++;
  if (new_owner[0] == '\0')
    {
      set_service (self, SR_SERVICE_STATE_MISSING, NULL, NULL);
      sr_policy_client_release_held (self);
      return;
    }
  set_service (self, SR_SERVICE_STATE_UNKNOWN, NULL, NULL);
  run_resolve (self, FALSE, self->cancellable, on_resolved_cb, NULL);
}

static void
on_started_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  SrPolicyClient *self = SR_POLICY_CLIENT (source);
  Resolve *resolve = g_task_get_task_data (G_TASK (result));

  self->starting = FALSE;
  if (!g_task_propagate_boolean (G_TASK (result), NULL))
    return;   /* stopped: what waited failed then */
  if (resolve->resolution == self->resolution)
    apply_resolve (self, resolve);
  else
    /* The name changed hands meanwhile, and what the client learnt of
     * it since decides (sr-policy-client-calls.c) */
    sr_policy_client_release_held (self);
}

static gboolean
start_in_context (gpointer user_data)
{
  SrPolicyClient *self = user_data;

  if (self->starting || self->state != SR_SERVICE_STATE_MISSING ||
      g_cancellable_is_cancelled (self->cancellable))
    return G_SOURCE_REMOVE;
  self->starting = TRUE;
  run_resolve (self, TRUE, self->cancellable, on_started_cb, NULL);
  return G_SOURCE_REMOVE;
}

/* A call found the service missing and waits for it: the bus starts it
 * (D-Bus activation), once for all the calls that come meanwhile, and the
 * owner is found and verified as at the start. In the client's main
 * context, where its state changes, whichever thread the call came from. */
void
sr_policy_client_start_service (SrPolicyClient *self)
{
  g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT, start_in_context,
                              g_object_ref (self), g_object_unref);
}

/* For a blocking call that would wait: the owner found and verified (and
 * the service started, if it is missing and the client may) now, in the
 * caller's thread. */
gboolean
sr_policy_client_resolve_sync (SrPolicyClient  *self,
                               GCancellable    *cancellable,
                               GError         **error)
{
  g_autoptr(Resolve) resolve = resolve_new (self, auto_start (self), cancellable);

  resolve_run (resolve, cancellable);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;
  apply_resolve (self, resolve);
  return TRUE;
}

/* Only what the verified owner sends counts. */
static gboolean
from_service (SrPolicyClient *self,
              const char     *sender)
{
  return self->state == SR_SERVICE_STATE_RUNNING && g_strcmp0 (sender, self->owner) == 0;
}

typedef struct {
  SrPolicyClient *self;   /* (owned) */
  char *name;             /* (owned) */
  guint resolution;
} Fetch;

static void
fetch_free (Fetch *fetch)
{
  g_object_unref (fetch->self);
  g_free (fetch->name);
  g_free (fetch);
}

static void
on_fetched_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Fetch *fetch = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                             result, &error);
  g_autoptr(GVariant) value = NULL;

  if (reply != NULL && fetch->resolution == fetch->self->resolution)
    {
      g_variant_get (reply, "(v)", &value);
      apply_value (fetch->self, fetch->name, value);
    }
  else if (reply == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("Could not read %s: %s", fetch->name, error->message);
  fetch_free (fetch);
}

static void
fetch_property (SrPolicyClient *self,
                const char     *name)
{
  Fetch *fetch = g_new0 (Fetch, 1);

  fetch->self = g_object_ref (self);
  fetch->name = g_strdup (name);
  fetch->resolution = self->resolution;
  g_dbus_connection_call (self->connection, self->owner, SR_OBJECT_PATH,
                          "org.freedesktop.DBus.Properties", "Get",
                          g_variant_new ("(ss)", SR_INTERFACE_NAME, name),
                          G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, -1,
                          self->cancellable, on_fetched_cb, fetch);
}

static void
on_properties_changed_cb (GDBusConnection *connection,
                          const char      *sender,
                          const char      *path,
                          const char      *interface,
                          const char      *signal,
                          GVariant        *parameters,
                          gpointer         user_data)
{
  SrPolicyClient *self = user_data;
  g_autoptr(GVariant) changed = NULL;
  g_autofree const char **invalidated = NULL;
  const char *iface_name, *name;
  GVariantIter iter;
  GVariant *value;

  if (!from_service (self, sender) ||
      !g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv}as)")))
    return;
  g_variant_get (parameters, "(&s@a{sv}^a&s)", &iface_name, &changed, &invalidated);
  if (!g_str_equal (iface_name, SR_INTERFACE_NAME))
    return;
  g_object_freeze_notify (G_OBJECT (self));
  g_variant_iter_init (&iter, changed);
  while (g_variant_iter_next (&iter, "{&sv}", &name, &value))
    {
      apply_value (self, name, value);
      g_variant_unref (value);
    }
  g_object_thaw_notify (G_OBJECT (self));
  for (guint i = 0; invalidated[i] != NULL; i++)
    if (mirror_for_dbus_name (invalidated[i]) != NULL)
      fetch_property (self, invalidated[i]);
}

/* StoredStateCleared and CrashGuardChanged, both (as) about apps. */
static void
on_apps_signal_cb (GDBusConnection *connection,
                            const char      *sender,
                            const char      *path,
                            const char      *interface,
                            const char      *signal,
                            GVariant        *parameters,
                            gpointer         user_data)
{
  SrPolicyClient *self = user_data;
  g_auto(GStrv) app_ids = NULL;

  if (!from_service (self, sender) || !g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(as)")))
    return;
  g_variant_get (parameters, "(^as)", &app_ids);
  if (g_str_equal (signal, "StoredStateCleared"))
    g_signal_emit (self, signals[SIGNAL_STORED_STATE_CLEARED], 0, app_ids);
  else if (g_str_equal (signal, "CrashGuardChanged"))
    g_signal_emit (self, signals[SIGNAL_CRASH_GUARD_CHANGED], 0, app_ids);
}

/* Before the owner is asked for, so that no change of hands is missed. The
 * sender is not matched by the bus: what each signal is believed for is
 * decided by from_service(). */
static void
subscribe (SrPolicyClient *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->owner_changed_id =
    g_dbus_connection_signal_subscribe (self->connection, "org.freedesktop.DBus",
                                        "org.freedesktop.DBus", "NameOwnerChanged",
                                        "/org/freedesktop/DBus", SR_BUS_NAME,
                                        G_DBUS_SIGNAL_FLAGS_NONE,
                                        on_name_owner_changed_cb, self, NULL);
  self->properties_changed_id =
    g_dbus_connection_signal_subscribe (self->connection, NULL,
                                        "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                        SR_OBJECT_PATH, SR_INTERFACE_NAME,
                                        G_DBUS_SIGNAL_FLAGS_NONE,
                                        on_properties_changed_cb, self, NULL);
  self->apps_signals_id =
    g_dbus_connection_signal_subscribe (self->connection, NULL, SR_INTERFACE_NAME,
                                        NULL, SR_OBJECT_PATH, NULL,
                                        G_DBUS_SIGNAL_FLAGS_NONE,
                                        on_apps_signal_cb, self, NULL);
}

static gboolean
sr_policy_client_initable_init (GInitable     *initable,
                                GCancellable  *cancellable,
                                GError       **error)
{
  SrPolicyClient *self = SR_POLICY_CLIENT (initable);
  g_autoptr(Resolve) resolve = NULL;

  if (self->context != NULL)
    return TRUE;
  if (self->connection == NULL)
    {
      self->connection = g_bus_get_sync (G_BUS_TYPE_SESSION, cancellable, error);
      if (self->connection == NULL)
        return FALSE;
    }
  subscribe (self);
  resolve = resolve_new (self, auto_start (self), cancellable);
  resolve_run (resolve, cancellable);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      stop (self);
      return FALSE;
    }
  apply_resolve (self, resolve);
  return TRUE;
}

static void
on_first_resolved_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      stop (SR_POLICY_CLIENT (source));
      g_task_return_error (task, error);
      return;
    }
  apply_resolve (SR_POLICY_CLIENT (source), g_task_get_task_data (G_TASK (result)));
  g_task_return_boolean (task, TRUE);
}

static void
resolve_first (GTask *task)
{
  SrPolicyClient *self = g_task_get_source_object (task);

  subscribe (self);
  run_resolve (self, auto_start (self), g_task_get_cancellable (task),
               on_first_resolved_cb, task);
}

static void
on_bus_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GTask *task = user_data;
  SrPolicyClient *self = g_task_get_source_object (task);
  GError *error = NULL;

  self->connection = g_bus_get_finish (result, &error);
  if (self->connection == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  resolve_first (task);
}

static void
sr_policy_client_init_async (GAsyncInitable      *initable,
                             int                  io_priority,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  SrPolicyClient *self = SR_POLICY_CLIENT (initable);
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, sr_policy_client_init_async);
  g_task_set_priority (task, io_priority);
  if (self->context != NULL)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
    }
  else if (self->connection == NULL)
    g_bus_get (G_BUS_TYPE_SESSION, cancellable, on_bus_cb, task);
  else
    resolve_first (task);
}

static gboolean
sr_policy_client_init_finish (GAsyncInitable  *initable,
                              GAsyncResult    *result,
                              GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, initable), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
sr_policy_client_initable_iface_init (GInitableIface *iface)
{
  iface->init = sr_policy_client_initable_init;
}

static void
sr_policy_client_async_initable_iface_init (GAsyncInitableIface *iface)
{
  iface->init_async = sr_policy_client_init_async;
  iface->init_finish = sr_policy_client_init_finish;
}

static void
sr_policy_client_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  SrPolicyClient *self = SR_POLICY_CLIENT (object);

  switch ((SrPolicyClientProperty) prop_id)
    {
    case PROP_CONNECTION:
      g_value_set_object (value, self->connection);
      break;
    case PROP_FLAGS:
      g_value_set_flags (value, self->flags);
      break;
    case PROP_SERVICE_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_SERVICE_OWNER:
      g_value_set_string (value, sr_policy_client_get_service_owner (self));
      break;
    case PROP_VERSION:
      g_value_set_uint (value, sr_policy_client_get_version (self));
      break;
    case PROP_ENABLED:
      g_value_set_boolean (value, sr_policy_client_get_enabled (self));
      break;
    case PROP_LOGIN_RESTORE:
      g_value_set_enum (value, sr_policy_client_get_login_restore (self));
      break;
    case PROP_RESTORE_AFTER_CRASH:
      g_value_set_boolean (value, sr_policy_client_get_restore_after_crash (self));
      break;
    case PROP_RESTORE_ON_LAUNCH:
      g_value_set_boolean (value, sr_policy_client_get_restore_on_launch (self));
      break;
    case PROP_EXCLUDED_APPS:
      g_value_set_boxed (value, self->excluded_apps);
      break;
    case PROP_ADMIN_EXCLUDED_APPS:
      g_value_set_boxed (value, self->admin_excluded_apps);
      break;
    case PROP_LOCKED_SETTINGS:
      g_value_set_boxed (value, self->locked_settings);
      break;
    case PROP_MAX_AGE_DAYS:
      g_value_set_int (value, sr_policy_client_get_max_age_days (self));
      break;
    case PROP_CRASH_LOOP_THRESHOLD:
      g_value_set_uint (value, sr_policy_client_get_crash_loop_threshold (self));
      break;
    case PROP_CRASH_LOOP_WINDOW:
      g_value_set_uint (value, sr_policy_client_get_crash_loop_window (self));
      break;
    case PROP_CONSUMERS:
      g_value_set_variant (value, sr_policy_client_get_consumers (self));
      break;
    case N_PROPS:
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sr_policy_client_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  SrPolicyClient *self = SR_POLICY_CLIENT (object);

  switch (prop_id)
    {
    case PROP_CONNECTION:
      self->connection = g_value_dup_object (value);
      break;
    case PROP_FLAGS:
      self->flags = g_value_get_flags (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
unsubscribe (SrPolicyClient *self,
             guint          *id)
{
  if (*id != 0)
    g_dbus_connection_signal_unsubscribe (self->connection, *id);
  *id = 0;
}

static void
sr_policy_client_dispose (GObject *object)
{
  SrPolicyClient *self = SR_POLICY_CLIENT (object);

  stop (self);
  unsubscribe (self, &self->owner_changed_id);
  unsubscribe (self, &self->properties_changed_id);
  unsubscribe (self, &self->apps_signals_id);
  G_OBJECT_CLASS (sr_policy_client_parent_class)->dispose (object);
}

static void
sr_policy_client_finalize (GObject *object)
{
  SrPolicyClient *self = SR_POLICY_CLIENT (object);

  g_clear_object (&self->connection);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_object (&self->cancellable);
  g_free (self->owner);
  g_free (self->why_not);
  g_hash_table_unref (self->values);
  g_strfreev (self->excluded_apps);
  g_strfreev (self->admin_excluded_apps);
  g_strfreev (self->locked_settings);
  g_ptr_array_unref (self->held);
  g_ptr_array_unref (self->early);
  g_ptr_array_unref (self->waiting);
  G_OBJECT_CLASS (sr_policy_client_parent_class)->finalize (object);
}

#define READABLE (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY)

static void
sr_policy_client_class_init (SrPolicyClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = sr_policy_client_get_property;
  object_class->set_property = sr_policy_client_set_property;
  object_class->dispose = sr_policy_client_dispose;
  object_class->finalize = sr_policy_client_finalize;

  /* Replies carry the service's D-Bus error names from the first call. */
  g_type_ensure (G_TYPE_DBUS_CONNECTION);
  sr_error_quark ();

  /**
   * SrPolicyClient:connection:
   *
   * The bus the service is on; the session bus when %NULL at construction.
   */
  properties[PROP_CONNECTION] =
    g_param_spec_object ("connection", NULL, NULL, G_TYPE_DBUS_CONNECTION,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * SrPolicyClient:flags:
   *
   * How the client was made.
   */
  properties[PROP_FLAGS] =
    g_param_spec_flags ("flags", NULL, NULL, SR_TYPE_POLICY_CLIENT_FLAGS,
                        SR_POLICY_CLIENT_FLAGS_NONE,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * SrPolicyClient:service-state:
   *
   * Whether the owner of the service's name can be believed.
   */
  properties[PROP_SERVICE_STATE] =
    g_param_spec_enum ("service-state", NULL, NULL, SR_TYPE_SERVICE_STATE,
                       SR_SERVICE_STATE_UNKNOWN, READABLE);
  /**
   * SrPolicyClient:service-owner:
   *
   * The unique bus name of the service while it is
   * #SR_SERVICE_STATE_RUNNING (or of the program not trusted while it is
   * #SR_SERVICE_STATE_UNTRUSTED).
   */
  properties[PROP_SERVICE_OWNER] =
    g_param_spec_string ("service-owner", NULL, NULL, NULL, READABLE);
  /**
   * SrPolicyClient:version:
   *
   * The version of the service's D-Bus interface; 0 until known.
   */
  properties[PROP_VERSION] =
    g_param_spec_uint ("version", NULL, NULL, 0, G_MAXUINT, 0, READABLE);
  /**
   * SrPolicyClient:enabled:
   *
   * The effective master switch: when off, nothing is saved or restored.
   */
  properties[PROP_ENABLED] =
    g_param_spec_boolean ("enabled", NULL, NULL, FALSE, READABLE);
  /**
   * SrPolicyClient:login-restore:
   *
   * Whether apps are reopened at login.
   */
  properties[PROP_LOGIN_RESTORE] =
    g_param_spec_enum ("login-restore", NULL, NULL, SR_TYPE_LOGIN_RESTORE,
                       SR_LOGIN_RESTORE_ALWAYS, READABLE);
  /**
   * SrPolicyClient:restore-after-crash:
   *
   * Whether apps may recover their state after a crash.
   */
  properties[PROP_RESTORE_AFTER_CRASH] =
    g_param_spec_boolean ("restore-after-crash", NULL, NULL, FALSE, READABLE);
  /**
   * SrPolicyClient:restore-on-launch:
   *
   * Whether apps may restore light state on an ordinary launch.
   */
  properties[PROP_RESTORE_ON_LAUNCH] =
    g_param_spec_boolean ("restore-on-launch", NULL, NULL, FALSE, READABLE);
  /**
   * SrPolicyClient:excluded-apps:
   *
   * The user's opt-outs (application ids).
   */
  properties[PROP_EXCLUDED_APPS] =
    g_param_spec_boxed ("excluded-apps", NULL, NULL, G_TYPE_STRV, READABLE);
  /**
   * SrPolicyClient:admin-excluded-apps:
   *
   * The administrator's mandatory opt-outs (application ids).
   */
  properties[PROP_ADMIN_EXCLUDED_APPS] =
    g_param_spec_boxed ("admin-excluded-apps", NULL, NULL, G_TYPE_STRV, READABLE);
  /**
   * SrPolicyClient:max-age-days:
   *
   * Stored state older than this many days is not restored; -1 keeps it
   * forever.
   */
  properties[PROP_MAX_AGE_DAYS] =
    g_param_spec_int ("max-age-days", NULL, NULL, G_MININT, G_MAXINT, 30, READABLE);
  /**
   * SrPolicyClient:crash-loop-threshold:
   *
   * This many involuntary exits within #SrPolicyClient:crash-loop-window
   * seconds stop crash recovery for an app; 0 turns the guard off.
   */
  properties[PROP_CRASH_LOOP_THRESHOLD] =
    g_param_spec_uint ("crash-loop-threshold", NULL, NULL, 0, G_MAXUINT, 3, READABLE);
  /**
   * SrPolicyClient:crash-loop-window:
   *
   * The crash-loop window, in seconds.
   */
  properties[PROP_CRASH_LOOP_WINDOW] =
    g_param_spec_uint ("crash-loop-window", NULL, NULL, 0, G_MAXUINT, 600, READABLE);
  /**
   * SrPolicyClient:locked-settings:
   *
   * The settings keys the administrator locked.
   */
  properties[PROP_LOCKED_SETTINGS] =
    g_param_spec_boxed ("locked-settings", NULL, NULL, G_TYPE_STRV, READABLE);
  /**
   * SrPolicyClient:consumers:
   *
   * The programs that consulted the service: an `a(sx)` of executable
   * name and when it last asked (µs since the epoch), as the
   * `Consumers` property of `org.gnome.SessionRestore.Policy` documents.
   */
  properties[PROP_CONSUMERS] =
    g_param_spec_variant ("consumers", NULL, NULL, G_VARIANT_TYPE ("a(sx)"), NULL, READABLE);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SrPolicyClient::stored-state-cleared:
   * @self: the client
   * @app_ids: (array zero-terminated=1): the apps whose state was cleared;
   *   empty for all apps
   *
   * Stored state was cleared: owners of stored state must drop the copies
   * they hold in memory, or they will write them back.
   */
  signals[SIGNAL_STORED_STATE_CLEARED] =
    g_signal_new ("stored-state-cleared", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRV);

  /**
   * SrPolicyClient::crash-guard-changed:
   * @self: the client
   * @app_ids: (array zero-terminated=1): the apps the crash-loop guard
   *   began or stopped holding back
   *
   * What a listing says of these apps' "crash-loop" changed (the service's
   * interface version 4 and later): a view of the stored state lists again.
   */
  signals[SIGNAL_CRASH_GUARD_CHANGED] =
    g_signal_new ("crash-guard-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRV);
}

static void
sr_policy_client_init (SrPolicyClient *self)
{
  self->cancellable = g_cancellable_new ();
  self->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) g_variant_unref);
  self->excluded_apps = g_new0 (char *, 1);
  self->admin_excluded_apps = g_new0 (char *, 1);
  self->locked_settings = g_new0 (char *, 1);
  self->held = g_ptr_array_new_with_free_func (g_object_unref);
  self->early = g_ptr_array_new ();
  self->waiting = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * sr_policy_client_new:
 * @connection: (nullable): the bus the service is on, or %NULL for the
 *   session bus
 * @flags: how to make the client
 *
 * Makes a client that is not initialized yet: initialize it with
 * g_async_initable_init_async() (or g_initable_init()), as
 * sr_policy_client_new_for_bus_async() does.
 *
 * With %SR_POLICY_CLIENT_FLAGS_PIPELINE and a @connection, the
 * asynchronous calls may be made at once, before the initialization even
 * begins. Those whose arguments name no app
 * (sr_policy_client_list_stored_state_async(), a clear of everything, a
 * setting other than the excluded apps) go to the service's well-known
 * name, so that their round trips overlap the identification of its owner,
 * and their answers are held until the owner is verified; the others wait,
 * unsent, until it is (see %SR_POLICY_CLIENT_FLAGS_PIPELINE). An answer is
 * taken only from the verified owner: one that came from a program not to
 * be trusted fails with %SR_ERROR_NOT_ALLOWED, and one from a program that
 * no longer owns the name, or from a service that went, with
 * %SR_ERROR_UNAVAILABLE; a call that owner has not answered yet fails
 * so at once. Without the flag, a client made with this function fails
 * every call until its initialization begins; from then on, calls wait
 * for the owner to be verified. Make the calls in the thread-default main
 * context the client is initialized in.
 *
 * Returns: (transfer full): the client, not initialized
 */
SrPolicyClient *
sr_policy_client_new (GDBusConnection     *connection,
                      SrPolicyClientFlags  flags)
{
  g_return_val_if_fail (connection == NULL || G_IS_DBUS_CONNECTION (connection), NULL);
  return g_object_new (SR_TYPE_POLICY_CLIENT, "connection", connection, "flags", flags, NULL);
}

/**
 * sr_policy_client_new_for_bus_async:
 * @connection: (nullable): the bus the service is on, or %NULL for the
 *   session bus
 * @flags: how to make the client
 * @cancellable: (nullable): to give up
 * @callback: called when the client is ready
 * @user_data: for @callback
 *
 * Makes a client of the service: finds the owner of its name (starting
 * it, unless @flags say not to; and again later, for a call that finds it
 * gone), verifies it and reads the settings. That the service is missing
 * or not to be trusted is not an error: see
 * #SrPolicyClient:service-state.
 */
void
sr_policy_client_new_for_bus_async (GDBusConnection     *connection,
                                    SrPolicyClientFlags  flags,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  g_return_if_fail (connection == NULL || G_IS_DBUS_CONNECTION (connection));
  g_async_initable_new_async (SR_TYPE_POLICY_CLIENT, G_PRIORITY_DEFAULT, cancellable,
                              callback, user_data,
                              "connection", connection, "flags", flags, NULL);
}

/**
 * sr_policy_client_new_for_bus_finish:
 * @result: what the callback was given
 * @error: return location for an error
 *
 * Finishes sr_policy_client_new_for_bus_async().
 *
 * Returns: (transfer full): the client, or %NULL if the bus could not be
 *   reached or it was cancelled
 */
SrPolicyClient *
sr_policy_client_new_for_bus_finish (GAsyncResult  *result,
                                     GError       **error)
{
  g_autoptr(GObject) source = g_async_result_get_source_object (result);
  GObject *client = g_async_initable_new_finish (G_ASYNC_INITABLE (source), result, error);

  return client != NULL ? SR_POLICY_CLIENT (client) : NULL;
}

/**
 * sr_policy_client_new_for_bus_sync:
 * @connection: (nullable): the bus the service is on, or %NULL for the
 *   session bus
 * @flags: how to make the client
 * @cancellable: (nullable): to give up
 * @error: return location for an error
 *
 * As sr_policy_client_new_for_bus_async(), blocking.
 *
 * Returns: (transfer full): the client, or %NULL if the bus could not be
 *   reached or it was cancelled
 */
SrPolicyClient *
sr_policy_client_new_for_bus_sync (GDBusConnection      *connection,
                                   SrPolicyClientFlags   flags,
                                   GCancellable         *cancellable,
                                   GError              **error)
{
  g_return_val_if_fail (connection == NULL || G_IS_DBUS_CONNECTION (connection), NULL);
  return g_initable_new (SR_TYPE_POLICY_CLIENT, cancellable, error,
                         "connection", connection, "flags", flags, NULL);
}

/**
 * sr_policy_client_get_connection:
 * @self: a client
 *
 * The bus the service is on.
 *
 * Returns: (transfer none): the connection
 */
GDBusConnection *
sr_policy_client_get_connection (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  return self->connection;
}

/**
 * sr_policy_client_get_service_state:
 * @self: a client
 *
 * Whether the service can be used: calls fail unless it is
 * #SR_SERVICE_STATE_RUNNING.
 *
 * Returns: the state
 */
SrServiceState
sr_policy_client_get_service_state (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), SR_SERVICE_STATE_UNKNOWN);
  return self->state;
}

/**
 * sr_policy_client_get_service_owner:
 * @self: a client
 *
 * The unique bus name of the service, as #SrPolicyClient:service-owner.
 *
 * Returns: (nullable): the unique name
 */
const char *
sr_policy_client_get_service_owner (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  return self->owner;
}

/**
 * sr_policy_client_get_distrust:
 * @self: a client
 *
 * Why the program owning the service's name is not trusted ("it runs in
 * a sandbox, as the app org.example.App"), in English, while the service
 * is #SR_SERVICE_STATE_UNTRUSTED.
 *
 * Returns: (nullable): a clause, or %NULL
 */
const char *
sr_policy_client_get_distrust (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  return self->state == SR_SERVICE_STATE_UNTRUSTED ? self->why_not : NULL;
}

/**
 * sr_policy_client_check_service:
 * @self: a client
 * @error: return location for an error
 *
 * Whether calls can be sent now: the service is #SR_SERVICE_STATE_RUNNING.
 * If not, @error says why: %SR_ERROR_NOT_ALLOWED for an owner not to be
 * trusted, to which no call is sent, %SR_ERROR_UNAVAILABLE for a service
 * that is not running (saying why it could not be started, if it was
 * tried: a call tries again, unless the client was made with
 * %SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START) or not identified yet (a call
 * waits for it once the client's initialization began).
 *
 * Returns: %TRUE if the service can be called
 */
gboolean
sr_policy_client_check_service (SrPolicyClient  *self,
                                GError         **error)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), FALSE);
  switch (self->state)
    {
    case SR_SERVICE_STATE_RUNNING:
      return TRUE;
    case SR_SERVICE_STATE_UNTRUSTED:
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "The program answering as the Session Restore service (%s) is not to be "
                   "trusted: %s. Nothing was sent to it.", SR_BUS_NAME, self->why_not);
      return FALSE;
    case SR_SERVICE_STATE_MISSING:
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "The Session Restore service (%s) is %s", SR_BUS_NAME,
                   self->why_not != NULL ? self->why_not : "not running");
      return FALSE;
    case SR_SERVICE_STATE_UNKNOWN:
    default:
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "The Session Restore service (%s) is not identified yet", SR_BUS_NAME);
      return FALSE;
    }
}

static gboolean
boolean_value (SrPolicyClient *self,
               const char     *dbus_name)
{
  GVariant *value = value_of (self, dbus_name);

  return value != NULL && g_variant_get_boolean (value);
}

static guint32
uint_value (SrPolicyClient *self,
            const char     *dbus_name,
            guint32         fallback)
{
  GVariant *value = value_of (self, dbus_name);

  return value != NULL ? g_variant_get_uint32 (value) : fallback;
}

/**
 * sr_policy_client_get_version:
 * @self: a client
 *
 * The version of the service's D-Bus interface.
 *
 * Returns: the version, 0 until known
 */
guint
sr_policy_client_get_version (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), 0);
  return uint_value (self, "Version", 0);
}

/**
 * sr_policy_client_get_enabled:
 * @self: a client
 *
 * The effective master switch, as #SrPolicyClient:enabled.
 *
 * Returns: whether saving and restoring is on; %FALSE until known
 */
gboolean
sr_policy_client_get_enabled (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), FALSE);
  return boolean_value (self, "Enabled");
}

/**
 * sr_policy_client_get_login_restore:
 * @self: a client
 *
 * Whether apps are reopened at login, as #SrPolicyClient:login-restore. A
 * value this version does not know is #SR_LOGIN_RESTORE_ASK: the service
 * decides anyway, and asking is the cautious reading.
 *
 * Returns: the setting; #SR_LOGIN_RESTORE_ALWAYS (its default) until known
 */
SrLoginRestore
sr_policy_client_get_login_restore (SrPolicyClient *self)
{
  GVariant *value;
  const char *text;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), SR_LOGIN_RESTORE_ALWAYS);
  value = value_of (self, "LoginRestore");
  if (value == NULL)
    return SR_LOGIN_RESTORE_ALWAYS;
  text = g_variant_get_string (value, NULL);
  if (g_str_equal (text, "always"))
    return SR_LOGIN_RESTORE_ALWAYS;
  if (g_str_equal (text, "never"))
    return SR_LOGIN_RESTORE_NEVER;
  return SR_LOGIN_RESTORE_ASK;
}

/**
 * sr_policy_client_get_restore_after_crash:
 * @self: a client
 *
 * As #SrPolicyClient:restore-after-crash.
 *
 * Returns: whether apps may recover after a crash
 */
gboolean
sr_policy_client_get_restore_after_crash (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), FALSE);
  return boolean_value (self, "RestoreAfterCrash");
}

/**
 * sr_policy_client_get_restore_on_launch:
 * @self: a client
 *
 * As #SrPolicyClient:restore-on-launch.
 *
 * Returns: whether apps may restore state on an ordinary launch
 */
gboolean
sr_policy_client_get_restore_on_launch (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), FALSE);
  return boolean_value (self, "RestoreOnLaunch");
}

/**
 * sr_policy_client_get_excluded_apps:
 * @self: a client
 *
 * The user's opt-outs, as #SrPolicyClient:excluded-apps.
 *
 * Returns: (transfer none) (array zero-terminated=1): application ids,
 *   valid until the property changes
 */
const char * const *
sr_policy_client_get_excluded_apps (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  return (const char * const *) self->excluded_apps;
}

/**
 * sr_policy_client_get_admin_excluded_apps:
 * @self: a client
 *
 * The administrator's opt-outs, as #SrPolicyClient:admin-excluded-apps.
 *
 * Returns: (transfer none) (array zero-terminated=1): application ids,
 *   valid until the property changes
 */
const char * const *
sr_policy_client_get_admin_excluded_apps (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  return (const char * const *) self->admin_excluded_apps;
}

/**
 * sr_policy_client_get_max_age_days:
 * @self: a client
 *
 * As #SrPolicyClient:max-age-days.
 *
 * Returns: the maximum age of restored state in days, -1 for no limit
 */
int
sr_policy_client_get_max_age_days (SrPolicyClient *self)
{
  GVariant *value;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), 30);
  value = value_of (self, "MaxAgeDays");
  return value != NULL ? g_variant_get_int32 (value) : 30;
}

/**
 * sr_policy_client_get_crash_loop_threshold:
 * @self: a client
 *
 * As #SrPolicyClient:crash-loop-threshold.
 *
 * Returns: the number of crashes that stop crash recovery, 0 for never
 */
guint
sr_policy_client_get_crash_loop_threshold (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), 3);
  return uint_value (self, "CrashLoopThreshold", 3);
}

/**
 * sr_policy_client_get_crash_loop_window:
 * @self: a client
 *
 * As #SrPolicyClient:crash-loop-window.
 *
 * Returns: the crash-loop window in seconds
 */
guint
sr_policy_client_get_crash_loop_window (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), 600);
  return uint_value (self, "CrashLoopWindow", 600);
}

/**
 * sr_policy_client_get_locked_settings:
 * @self: a client
 *
 * As #SrPolicyClient:locked-settings.
 *
 * Returns: (transfer none) (array zero-terminated=1): the locked keys,
 *   valid until the property changes
 */
const char * const *
sr_policy_client_get_locked_settings (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  return (const char * const *) self->locked_settings;
}

/**
 * sr_policy_client_is_locked:
 * @self: a client
 * @key: a settings key ("excluded-apps")
 *
 * Whether the administrator locked @key.
 *
 * Returns: %TRUE if @key is locked
 */
gboolean
sr_policy_client_is_locked (SrPolicyClient *self,
                            const char     *key)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  return g_strv_contains ((const char * const *) self->locked_settings, key);
}

/**
 * sr_policy_client_get_consumers:
 * @self: a client
 *
 * As #SrPolicyClient:consumers.
 *
 * Returns: (transfer none) (nullable): an `a(sx)`, or %NULL until known
 *   (a service older than version 2 has none)
 */
GVariant *
sr_policy_client_get_consumers (SrPolicyClient *self)
{
  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  return value_of (self, "Consumers");
}

/**
 * sr_policy_client_dup_value:
 * @self: a client
 * @property_name: the name of one of the client's mirrored properties
 *   ("max-age-days", "login-restore", "consumers")
 *
 * The value of a property as the service announced it, of the D-Bus type
 * of the `org.gnome.SessionRestore.Policy` property it mirrors (the
 * settings' are the GSettings keys' types: "login-restore" is a string).
 * For tools that show settings generically, as gsettings does.
 *
 * Returns: (transfer full) (nullable): the value, or %NULL if
 *   @property_name is not a mirrored property or its value is not known
 */
GVariant *
sr_policy_client_dup_value (SrPolicyClient *self,
                            const char     *property_name)
{
  GVariant *value = NULL;

  g_return_val_if_fail (SR_IS_POLICY_CLIENT (self), NULL);
  g_return_val_if_fail (property_name != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (mirrors) && value == NULL; i++)
    if (g_str_equal (properties[mirrors[i].prop]->name, property_name))
      value = value_of (self, mirrors[i].dbus_name);
  return value != NULL ? g_variant_ref (value) : NULL;
}
