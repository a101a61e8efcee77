/* sr-portal-sm.c: the second door, org.gnome.SessionManager as GTK calls it
 *
 * GTK (4.24's save and restore) does not use a portal: at start-up it
 * calls RegisterRestore on org.gnome.SessionManager, deletes the state of
 * the ids it is given to clean up and reports them with
 * DeletedInstanceIds, and calls UnregisterRestore at a clean quit. On
 * GNOME, gnome-session answers that and consults nobody. Elsewhere no one
 * owns the name, and GTK carries on with the instance id "fallback". So
 * where the name has no owner when the backend starts, it takes it —
 * never replacing an owner, never queueing for it, and letting a session
 * manager that asks to replace it have it — and answers from the same
 * record and with the same decisions as its portal door: each
 * RegisterRestore is a session of that door (SR_DOOR_SESSION_MANAGER),
 * which ends cleanly with UnregisterRestore, or as a crash when the
 * registering name leaves the bus without it.
 *
 * Callers are identified as policyd identifies them, once per unique
 * name, on a worker thread: a program in a Flatpak or Snap sandbox may
 * register, unregister and confirm only as its own app; host programs
 * of the user are trusted for any app, as gnome-session trusts them.
 * Calls that come while their sender is identified wait, in order.
 *
 * The ids to clean up are the app's ids to discard and those of state
 * policyd cleared (sr-portal-record.c). GTK reports only the ids whose
 * file it really deleted, and warns at each launch about one it is asked
 * for whose file is gone: each id is asked for until reported, or until
 * its file is found gone (policyd's clear deleted it, or the instance
 * saved nothing), when it is dropped unasked.
 *
 * All of it runs in the main loop, which holds SrPortal.lock
 * (sr-portal.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-sm"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "sr-app-id.h"
#include "sr-peer.h"
#include "sr-portal.h"
#include "sr-portal-sm-iface.h"

#define SM_INTERFACE "org.gnome.SessionManager"
/* gnome-session's error for an instance it does not know. */
#define SM_ERROR_NOT_REGISTERED "org.gnome.SessionManager.NotRegistered"

/* Who called the door, by unique name. */
typedef struct {
  char *name;              /* (owned) */
  gboolean identified;
  gboolean identifying;    /* a worker thread is at it */
  gboolean gone;           /* left the bus while being identified */
  char *sandbox_app;       /* (owned) (nullable) the app whose sandbox it runs
                            * in; NULL: a host program of the user */
  GQueue waiting;          /* (element-type GDBusMethodInvocation) (owned) */
} SmCaller;

static void
sm_caller_free (SmCaller *caller)
{
  GDBusMethodInvocation *invocation;

  while ((invocation = g_queue_pop_head (&caller->waiting)) != NULL)
    g_dbus_method_invocation_return_error_literal (invocation, G_DBUS_ERROR,
                                                   G_DBUS_ERROR_NO_SERVER,
                                                   "session-restore-portal is exiting");
  g_free (caller->name);
  g_free (caller->sandbox_app);
  g_free (caller);
}

/* -- The ids to clean up ----------------------------------------------------- */

/* Whether GTK's state file of @id of @app is there, in $XDG_STATE_HOME
 * or, for a Flatpak app, in its own. An error other than its absence
 * counts as there: it is asked for again. */
static gboolean
state_file_exists (const char *app_id,
                   const char *id)
{
  g_autofree char *name = g_strdup_printf ("%s@%s.state", app_id, id);
  g_autofree char *host = g_build_filename (g_get_user_state_dir (), name, NULL);
  g_autofree char *flatpak = g_build_filename (g_get_home_dir (), ".var", "app", app_id,
                                               ".local", "state", name, NULL);
  struct stat st;

  if (lstat (host, &st) == 0 || errno != ENOENT)
    return TRUE;
  return lstat (flatpak, &st) == 0 || errno != ENOENT;
}

/* Adds to @ids (of GVariant strings, floating) the ids of @list that
 * @app's registering @session is to clean up; drops those whose file is
 * gone: GTK would only warn that it cannot delete it. TRUE if any was
 * dropped. */
static gboolean
add_cleanup_ids (SrPortal        *self,
                 SrApp           *app,
                 SrPortalSession *session,
                 GPtrArray       *list,
                 GPtrArray       *ids)
{
  gboolean dropped = FALSE;

  for (guint i = 0; i < list->len;)
    {
      const char *id = g_ptr_array_index (list, i);

      if (!state_file_exists (app->app_id, id))
        {
          g_ptr_array_remove_index (list, i);
          dropped = TRUE;
          continue;
        }
      g_ptr_array_add (ids, g_variant_new_string (id));
      g_hash_table_add (session->asked_discard, g_strdup (id));
      i++;
    }
  return dropped;
}

/* The ids @session's RegisterRestore asks @app to clean up, into @ids. */
void
sr_portal_sm_cleanup_ids (SrPortal        *self,
                          SrApp           *app,
                          SrPortalSession *session,
                          GPtrArray       *ids)
{
  gboolean dropped = add_cleanup_ids (self, app, session, app->discard, ids);

  dropped |= add_cleanup_ids (self, app, session, app->cleared_ids, ids);
  if (dropped)
    sr_portal_record_save (self);
}

/* Where @session's app runs, from what its caller was found to be: the
 * login reopens a Flatpak app only from Flatpak's desktop file for it. */
void
sr_portal_sm_note_origin (SrPortal        *self,
                          SrPortalSession *session,
                          SrApp           *app)
{
  SmCaller *caller = self->sm_callers != NULL
                     ? g_hash_table_lookup (self->sm_callers, session->frontend) : NULL;
  SrAppOrigin origin;

  if (caller == NULL || !caller->identified)
    return;
  origin = caller->sandbox_app == NULL ? SR_APP_ORIGIN_HOST
           : g_str_equal (caller->sandbox_app, app->app_id) ? SR_APP_ORIGIN_FLATPAK
           : SR_APP_ORIGIN_UNKNOWN;
  app->origin_asked = TRUE;
  if (origin != SR_APP_ORIGIN_UNKNOWN && app->origin != origin)
    {
      app->origin = origin;
      sr_portal_record_save (self);
    }
}

/* -- The calls ---------------------------------------------------------------- */

/* Whether @caller may act for @app_id; if not, @invocation is answered. */
static gboolean
may_act_for (SmCaller              *caller,
             const char            *app_id,
             GDBusMethodInvocation *invocation)
{
  g_autoptr(GError) error = NULL;

  if (!sr_app_id_validate (app_id, &error))
    {
      /* gnome-session's words, and then ours. */
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "Invalid app id specified: %s", error->message);
      return FALSE;
    }
  if (caller->sandbox_app != NULL && !g_str_equal (caller->sandbox_app, app_id))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                             "A sandboxed app may act only as itself, %s",
                                             caller->sandbox_app);
      return FALSE;
    }
  return TRUE;
}

static void
register_restore (SrPortal              *self,
                  SmCaller              *caller,
                  GDBusMethodInvocation *invocation,
                  GVariant              *parameters)
{
  const char *app_id, *dbus_name;
  g_autofree char *handle = NULL;

  g_variant_get (parameters, "(&s&s)", &app_id, &dbus_name);
  /* The name watched for the app's end is the caller's: another name, a
   * sandbox could end at will, and a host program gains nothing by. */
  if (*dbus_name != '\0' && !g_str_equal (dbus_name, caller->name))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                             "dbus_name must be \"\" or the caller's own "
                                             "unique name, %s", caller->name);
      return;
    }
  if (!may_act_for (caller, app_id, invocation))
    return;
  handle = g_strdup_printf ("sm:%s:%" G_GUINT64_FORMAT, caller->name, ++self->sm_serial);
  sr_portal_register_restore (self, invocation, handle, caller->name, app_id);
}

static void
unregister_restore (SrPortal              *self,
                    SmCaller              *caller,
                    GDBusMethodInvocation *invocation,
                    GVariant              *parameters)
{
  const char *app_id, *instance_id;
  GHashTableIter iter;
  SrPortalSession *session, *found = NULL;

  g_variant_get (parameters, "(&s&s)", &app_id, &instance_id);
  if (!may_act_for (caller, app_id, invocation))
    return;
  /* Only the connection that registered it ends it. */
  g_hash_table_iter_init (&iter, self->sessions);
  while (found == NULL && g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    if (session->door == SR_DOOR_SESSION_MANAGER && session->answered && !session->closed &&
        g_str_equal (session->frontend, caller->name) && g_str_equal (session->app_id, app_id) &&
        g_strcmp0 (session->instance_id, instance_id) == 0)
      found = session;
  if (found == NULL)
    {
      g_dbus_method_invocation_return_dbus_error (invocation, SM_ERROR_NOT_REGISTERED,
                                                  "Provided instance not found");
      return;
    }
  g_dbus_method_invocation_return_value (invocation, NULL);
  sr_portal_session_close (self, found, SR_CLOSE_VOLUNTARY);
  sr_portal_session_remove (self, found);
}

static void
deleted_instance_ids (SrPortal              *self,
                      SmCaller              *caller,
                      GDBusMethodInvocation *invocation,
                      GVariant              *parameters)
{
  const char *app_id;
  g_autofree const char **ids = NULL;
  SrApp *app;
  gboolean changed = FALSE;

  g_variant_get (parameters, "(&s^a&s)", &app_id, &ids);
  if (!may_act_for (caller, app_id, invocation))
    return;
  g_dbus_method_invocation_return_value (invocation, NULL);
  app = g_hash_table_lookup (self->apps, app_id);
  if (app == NULL)
    return;
  for (guint i = 0; ids[i] != NULL; i++)
    {
      changed |= sr_portal_app_deleted (app, ids[i]);
    }
  if (changed)
    sr_portal_record_save (self);
}

/* -- What else GTK 3 and the accessibility bus ask of the name ------------ */

static void
other_call (SrPortal              *self,
            SmCaller              *caller,
            GDBusMethodInvocation *invocation,
            const char            *method,
            GVariant              *parameters)
{
  if (g_str_equal (method, "RegisterClient"))
    {
      g_autofree char *path = g_strdup_printf ("/org/gnome/SessionManager/Client%" G_GUINT64_FORMAT,
                                               ++self->sm_serial);
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(o)", path));
    }
  else if (g_str_equal (method, "Inhibit"))
    {
      /* The backend ends no session and suspends nothing: cookie 0, which
       * GTK takes for "could not inhibit", silently, as with no owner. */
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u)", 0));
    }
  else if (g_str_equal (method, "IsInhibited"))
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(b)", FALSE));
  else if (g_str_equal (method, "IsSessionRunning"))
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(b)", TRUE));
  else   /* UnregisterClient, Uninhibit */
    g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
dispatch (SrPortal              *self,
          SmCaller              *caller,
          GDBusMethodInvocation *invocation)
{
  const char *method = g_dbus_method_invocation_get_method_name (invocation);
  GVariant *parameters = g_dbus_method_invocation_get_parameters (invocation);

  if (self->closing)
    g_dbus_method_invocation_return_error_literal (invocation, G_DBUS_ERROR,
                                                   G_DBUS_ERROR_NO_SERVER,
                                                   "session-restore-portal is exiting");
  else if (g_str_equal (method, "RegisterRestore"))
    register_restore (self, caller, invocation, parameters);
  else if (g_str_equal (method, "UnregisterRestore"))
    unregister_restore (self, caller, invocation, parameters);
  else if (g_str_equal (method, "DeletedInstanceIds"))
    deleted_instance_ids (self, caller, invocation, parameters);
  else
    other_call (self, caller, invocation, method, parameters);
}

/* -- Who calls ---------------------------------------------------------------- */

typedef struct {
  SrPortal *self;          /* (unowned) static: outlives the task */
  char *name;              /* (owned) */
} Identify;

static void
identify_free (Identify *identify)
{
  g_free (identify->name);
  g_free (identify);
}

static void
identify_in_thread (GTask        *task,
                    gpointer      source,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  Identify *identify = task_data;
  g_autofree char *sandbox_app = NULL;
  GError *error = NULL;

  if (sr_peer_identify_sync (identify->self->bus, identify->name, &sandbox_app, cancellable,
                             &error))
    g_task_return_pointer (task, sandbox_app != NULL ? g_steal_pointer (&sandbox_app)
                                                     : g_strdup (""), g_free);
  else
    g_task_return_error (task, error);
}

static void
identified (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Identify *identify = g_task_get_task_data (G_TASK (result));
  SrPortal *self = identify->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *sandbox_app = g_task_propagate_pointer (G_TASK (result), &error);
  SmCaller *caller;
  GDBusMethodInvocation *invocation;

  if (self->closing || self->sm_callers == NULL)
    return;
  caller = g_hash_table_lookup (self->sm_callers, identify->name);
  if (caller == NULL)
    return;
  caller->identifying = FALSE;
  if (sandbox_app == NULL || caller->gone)
    {
      if (sandbox_app == NULL)
        g_message ("Refused org.gnome.SessionManager's calls to %s: %s", caller->name,
                   error->message);
      while ((invocation = g_queue_pop_head (&caller->waiting)) != NULL)
        g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR,
                                               G_DBUS_ERROR_ACCESS_DENIED,
                                               "The caller could not be identified: %s",
                                               error != NULL ? error->message
                                                             : "it left the bus");
      g_hash_table_remove (self->sm_callers, identify->name);
      return;
    }
  caller->identified = TRUE;
  if (*sandbox_app != '\0')
    caller->sandbox_app = g_steal_pointer (&sandbox_app);
  while ((invocation = g_queue_pop_head (&caller->waiting)) != NULL)
    dispatch (self, caller, invocation);
}

static void
method_call (GDBusConnection       *connection,
             const char            *sender,
             const char            *path,
             const char            *interface,
             const char            *method,
             GVariant              *parameters,
             GDBusMethodInvocation *invocation,
             gpointer               user_data)
{
  SrPortal *self = user_data;
  SmCaller *caller;
  g_autoptr(GTask) task = NULL;
  Identify *identify;

  if (sender == NULL || self->closing)
    {
      g_dbus_method_invocation_return_error_literal (invocation, G_DBUS_ERROR,
                                                     G_DBUS_ERROR_ACCESS_DENIED,
                                                     "Only callers on a message bus are answered");
      return;
    }
  caller = g_hash_table_lookup (self->sm_callers, sender);
  if (caller != NULL && caller->identified)
    {
      dispatch (self, caller, invocation);
      return;
    }
  if (caller == NULL)
    {
      caller = g_new0 (SmCaller, 1);
      caller->name = g_strdup (sender);
      g_queue_init (&caller->waiting);
      g_hash_table_insert (self->sm_callers, caller->name, caller);
    }
  g_queue_push_tail (&caller->waiting, invocation);
  if (caller->identifying)
    return;
  caller->identifying = TRUE;
  identify = g_new0 (Identify, 1);
  identify->self = self;
  identify->name = g_strdup (sender);
  task = g_task_new (NULL, NULL, identified, NULL);
  g_task_set_task_data (task, identify, (GDestroyNotify) identify_free);
  g_task_run_in_thread (task, identify_in_thread);
}

static GVariant *
get_property (GDBusConnection  *connection,
              const char       *sender,
              const char       *path,
              const char       *interface,
              const char       *property,
              GError          **error,
              gpointer          user_data)
{
  /* RestoreSupported: apps are saved and restored, as the settings say. */
  return g_variant_new_boolean (TRUE);
}

static const GDBusInterfaceVTable vtable = {
  .method_call = method_call,
  .get_property = get_property,
};

/* -- The apps' ends and the name ------------------------------------------- */

/* Ends the door's sessions registered by @name (NULL: all) as @kind. */
static void
close_sessions_of (SrPortal    *self,
                   const char  *name,
                   SrCloseKind  kind)
{
  g_autoptr(GPtrArray) gone = g_ptr_array_new ();
  GHashTableIter iter;
  SrPortalSession *session;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    if (session->door == SR_DOOR_SESSION_MANAGER &&
        (name == NULL || g_str_equal (session->frontend, name)))
      g_ptr_array_add (gone, session);
  for (guint i = 0; i < gone->len; i++)
    {
      session = gone->pdata[i];
      sr_portal_session_close (self, session, kind);
      /* Register's answer still needs it; it goes once answered. */
      if (session->answered)
        sr_portal_session_remove (self, session);
    }
}

static void
name_owner_changed (GDBusConnection *connection,
                    const char      *sender,
                    const char      *path,
                    const char      *interface,
                    const char      *signal,
                    GVariant        *parameters,
                    gpointer         user_data)
{
  SrPortal *self = user_data;
  const char *name, *old_owner, *new_owner;
  SmCaller *caller;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")) || self->closing)
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (name[0] != ':' || *new_owner != '\0')
    return;
  caller = g_hash_table_lookup (self->sm_callers, name);
  if (caller == NULL)
    return;
  /* Gone without UnregisterRestore: its apps crashed. */
  close_sessions_of (self, name, SR_CLOSE_INVOLUNTARY);
  if (caller->identifying)
    caller->gone = TRUE;
  else
    g_hash_table_remove (self->sm_callers, name);
}

static void
name_acquired (GDBusConnection *connection,
               const char      *name,
               gpointer         user_data)
{
  SrPortal *self = user_data;

  self->sm_owned = TRUE;
  g_message ("Answering GTK's save and restore as %s: no session manager owns it", name);
}

static void
name_lost (GDBusConnection *connection,
           const char      *name,
           gpointer         user_data)
{
  SrPortal *self = user_data;

  if (connection == NULL || self->closing)
    return;
  if (!self->sm_owned)
    {
      g_message ("%s has an owner: GTK's save and restore are its to answer", name);
      sr_portal_sm_stop (self);
      return;
    }
  /* A session manager took it over: the apps registered here go on, and
   * their ends reach it, not us. Closed as the portal's old Close closes,
   * with neither a crash nor a clean exit counted. */
  self->sm_owned = FALSE;
  g_message ("%s was taken over by a session manager: it answers GTK from now on", name);
  close_sessions_of (self, NULL, SR_CLOSE_UNKNOWN);
  sr_portal_sm_stop (self);
}

/* Takes org.gnome.SessionManager if no one owns it, and serves it. */
void
sr_portal_sm_start (SrPortal *self)
{
  g_autoptr(GError) error = NULL;

  self->sm_callers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                            (GDestroyNotify) sm_caller_free);
  /* Every unique name's leaving, heard in the order of the calls: a
   * match on each caller's name would cost a round trip to the bus at
   * each app's first call. */
  self->sm_subscription =
    g_dbus_connection_signal_subscribe (self->bus, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                        "NameOwnerChanged", "/org/freedesktop/DBus", NULL,
                                        G_DBUS_SIGNAL_FLAGS_NONE, name_owner_changed, self, NULL);
  self->sm_object_id =
    g_dbus_connection_register_object (self->bus, SR_SM_OBJECT_PATH,
                                       (GDBusInterfaceInfo *) &sr_sm_session_manager_interface,
                                       &vtable, self, NULL, &error);
  if (self->sm_object_id == 0)
    {
      g_warning ("Not answering GTK as %s: %s", SR_SM_BUS_NAME, error->message);
      sr_portal_sm_stop (self);
      return;
    }
  self->sm_owner_id =
    g_bus_own_name_on_connection (self->bus, SR_SM_BUS_NAME,
                                  G_BUS_NAME_OWNER_FLAGS_ALLOW_REPLACEMENT |
                                  G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
                                  name_acquired, name_lost, self, NULL);
}

/* Stops serving the door (but for its sessions, ended by the caller). */
void
sr_portal_sm_stop (SrPortal *self)
{
  if (self->sm_owner_id != 0)
    {
      g_bus_unown_name (self->sm_owner_id);
      self->sm_owner_id = 0;
    }
  if (self->sm_object_id != 0)
    {
      g_dbus_connection_unregister_object (self->bus, self->sm_object_id);
      self->sm_object_id = 0;
    }
  if (self->sm_subscription != 0)
    {
      g_dbus_connection_signal_unsubscribe (self->bus, self->sm_subscription);
      self->sm_subscription = 0;
    }
  self->sm_owned = FALSE;
  g_clear_pointer (&self->sm_callers, g_hash_table_unref);
}
