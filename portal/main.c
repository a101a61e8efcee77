/* main.c: session-restore-portal, the save and restore backend that
 * consults session-restore-policyd, with two doors: GTK's calls to
 * org.gnome.SessionManager where no session manager owns that name
 * (sr-portal-sm.c), and the org.freedesktop.impl.portal.SaveRestore
 * backend behind the portal's frontend
 *
 * Without options it is the backend: D-Bus-activated as
 * org.freedesktop.impl.portal.SessionRestore (the DBusName of
 * session-restore.portal), or started by its systemd user unit or
 * autostart entry at login. With --login it asks the backend (starting it)
 * to reopen what the last session left open, and exits; the XDG autostart
 * entry runs that at every login. SIGTERM (the unit stopped with
 * graphical-session.target) ends the session before exiting.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-portal"

#include "config.h"

#include <malloc.h>
#include <stdlib.h>

#include <glib-unix.h>

#include "sr-peer.h"
#include "sr-portal.h"
#include "sr-portal-control.h"
#include "sr-log.h"

/* The lock of the one SrPortal: held by the main thread but while it
 * polls (sr-portal.h). A GPollFunc has no user data. */
static GRecMutex *main_lock;

static int
poll_unlocked (GPollFD *fds,
               guint    n_fds,
               int      timeout)
{
  int ready;

  g_rec_mutex_unlock (main_lock);
  ready = g_poll (fds, n_fds, timeout);
  g_rec_mutex_lock (main_lock);
  return ready;
}

/* For what the main loop does that may wait for GDBus's worker thread;
 * called from the main loop, which holds the lock once. */
void
sr_portal_unlocked_begin (SrPortal *self)
{
  g_rec_mutex_unlock (&self->lock);
}

void
sr_portal_unlocked_end (SrPortal *self)
{
  g_rec_mutex_lock (&self->lock);
}

typedef struct {
  SrPortal *portal;             /* (unowned) */
  guint control_id;             /* the control object's registration */
  int status;
} Backend;

static void
control_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  SrPortal *portal = g_object_get_data (G_OBJECT (invocation), "sr-portal");
  gpointer tag = g_task_get_source_tag (G_TASK (result));
  gboolean ok = tag == sr_portal_login_async ? sr_portal_login_finish (portal, result, &error)
                : tag == sr_record_writer_flush_async
                ? (sr_record_writer_flush_finish (portal->writer, result, &error) &&
                   sr_portal_record_check_written (portal, &error))
                : sr_portal_end_session_finish (portal, result, &error);

  if (ok)
    g_dbus_method_invocation_return_value (invocation, NULL);
  else
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_FAILED,
                                           "%s", error->message);
}

/* The most callers of the control interface remembered as verified;
 * past it they are verified again. ctl makes a new one at each run. */
#define MAX_CONTROL_CALLERS 64

static void
control_run (SrPortal              *portal,
             GDBusMethodInvocation *invocation)
{
  const char *method = g_dbus_method_invocation_get_method_name (invocation);

  g_object_set_data (G_OBJECT (invocation), "sr-portal", portal);
  if (g_str_equal (method, "EndSession"))
    sr_portal_end_session_async (portal, control_done, g_object_ref (invocation));
  else if (g_str_equal (method, "Login"))
    sr_portal_login_async (portal, control_done, g_object_ref (invocation));
  else if (g_str_equal (method, "Sync"))
    sr_portal_record_flush_async (portal, control_done, g_object_ref (invocation));
  else
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD,
                                           "No method %s", method);
}

static void
control_caller_verified (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  SrPortal *portal = g_object_get_data (G_OBJECT (invocation), "sr-portal");
  const char *sender = g_dbus_method_invocation_get_sender (invocation);

  if (!sr_peer_verify_owner_finish (result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      g_message ("Refused %s to %s: %s", g_dbus_method_invocation_get_method_name (invocation),
                 sender, error->message);
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED,
                                             "Only a program of the user outside any sandbox "
                                             "may call %s: %s",
                                             g_dbus_method_invocation_get_method_name (invocation),
                                             error->message);
      return;
    }
  if (g_hash_table_size (portal->control_callers) >= MAX_CONTROL_CALLERS)
    g_hash_table_remove_all (portal->control_callers);
  g_hash_table_add (portal->control_callers, g_strdup (sender));
  control_run (portal, g_steal_pointer (&invocation));
}

/* org.gnome.SessionRestore.Portal, in the main loop, for host processes
 * of the user alone: EndSession decides what the next login reopens, and
 * a sandbox must not. The answers come once done (control_done()). */
static void
control_method_call (GDBusConnection       *connection,
                     const char            *sender,
                     const char            *path,
                     const char            *interface,
                     const char            *method,
                     GVariant              *parameters,
                     GDBusMethodInvocation *invocation,
                     gpointer               user_data)
{
  SrPortal *portal = user_data;

  if (sender != NULL && g_hash_table_contains (portal->control_callers, sender))
    {
      control_run (portal, invocation);
      return;
    }
  g_object_set_data (G_OBJECT (invocation), "sr-portal", portal);
  sr_peer_verify_owner_async (connection, NULL, sender, NULL, portal->frontend_cancellable,
                              control_caller_verified, g_object_ref (invocation));
}

static const GDBusInterfaceVTable control_vtable = {
  .method_call = control_method_call,
};

static void
ended_then_quit (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  SrPortal *portal = user_data;

  /* Whether the apps open are recorded or not, the end of the session
   * has said so in the log (sr-portal-end.c). */
  sr_portal_end_session_finish (portal, result, NULL);
  g_main_loop_quit (portal->loop);
}

static gboolean
on_sigterm (gpointer user_data)
{
  SrPortal *portal = user_data;

  g_message ("Stopped: ending the session");
  sr_portal_end_session_async (portal, ended_then_quit, portal);
  return G_SOURCE_REMOVE;
}

static void
name_lost (GDBusConnection *connection,
           const char      *name,
           gpointer         user_data)
{
  Backend *backend = user_data;

  g_warning ("Lost or could not own %s", name);
  backend->status = EXIT_FAILURE;
  g_main_loop_quit (backend->portal->loop);
}

static void
forget_cleared (const char * const *app_ids,
                gpointer            user_data)
{
  sr_portal_record_forget (user_data, app_ids);
}

static int
run_backend (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autofree char *record_name = NULL;
  /* Static: a reply to a Register may still reach the worker thread
   * after this returns, and take the lock to find it closing. */
  static SrPortal portal;
  Backend backend = { &portal, 0, EXIT_SUCCESS };
  guint owner_id;

  portal.bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (portal.bus == NULL)
    {
      g_printerr ("session-restore-portal: no session bus: %s\n", error->message);
      return EXIT_FAILURE;
    }
  g_dbus_connection_set_exit_on_close (portal.bus, FALSE);
  portal.loop = loop;
  portal.apps = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) sr_app_free);
  portal.sessions = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                           (GDestroyNotify) sr_portal_session_free);
  portal.app_sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  portal.sender_sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  portal.apps_at_bound = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  portal.tombstones = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  portal.control_callers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_mutex_init (&portal.subtree_lock);
  g_rec_mutex_init (&portal.lock);
  g_rec_mutex_lock (&portal.lock);
  main_lock = &portal.lock;
  g_main_context_set_poll_func (NULL, poll_unlocked);

  /* The filter first: it hears policyd's clears from the moment policyd
   * can know the backend. */
  sr_portal_frontend_watch (&portal);
  if (!sr_portal_sessions_export (&portal, &error))
    {
      g_printerr ("session-restore-portal: %s\n", error->message);
      return EXIT_FAILURE;
    }
  /* policyd is identified in the background, while the record is read
   * and the name taken (sr-portal-policy.c). */
  portal.policy = sr_portal_policy_new (portal.bus, forget_cleared, &portal);
  portal.desktop = sr_portal_desktop_identity ();
  record_name = g_strdup_printf ("session-restore-portal@%s.state", portal.desktop);
  portal.record_path = g_build_filename (g_get_user_state_dir (), record_name, NULL);
  portal.writer = sr_record_writer_new (portal.record_path);
  sr_portal_discards_init (&portal);
  sr_portal_record_load (&portal);

  backend.control_id = g_dbus_connection_register_object (portal.bus, SR_PORTAL_CONTROL_PATH,
                                                          (GDBusInterfaceInfo *) &sr_portal_dbus_portal_interface,
                                                          &control_vtable, &portal, NULL, &error);
  if (backend.control_id == 0)
    {
      g_printerr ("session-restore-portal: %s\n", error->message);
      return EXIT_FAILURE;
    }
  sr_portal_watch_logind (&portal);
  g_unix_signal_add (SIGTERM, on_sigterm, &portal);
  g_unix_signal_add (SIGINT, on_sigterm, &portal);

  owner_id = g_bus_own_name_on_connection (portal.bus, SR_PORTAL_BUS_NAME,
                                           G_BUS_NAME_OWNER_FLAGS_NONE, NULL, name_lost,
                                           &backend, NULL);
  /* GTK's own calls, where no session manager answers them. */
  sr_portal_sm_start (&portal);
  g_main_loop_run (loop);

  sr_portal_sm_stop (&portal);
  g_bus_unown_name (owner_id);
  sr_portal_frontend_unwatch (&portal);
  sr_portal_unwatch_logind (&portal);
  sr_portal_sessions_unexport (&portal);
  g_dbus_connection_unregister_object (portal.bus, backend.control_id);
  /* A handler on the worker thread may be waiting for the lock: it finds
   * the backend closing, and once the worker thread has flushed what was
   * sent, none runs any more but the answers to checks that were still
   * waiting for policyd's owner, given as sr_portal_policy_free() goes;
   * they too find the backend closing. */
  portal.closing = TRUE;
  g_rec_mutex_unlock (&portal.lock);
  g_dbus_connection_flush_sync (portal.bus, NULL, NULL);
  g_rec_mutex_lock (&portal.lock);
  sr_portal_record_flush_sync (&portal);
  g_clear_pointer (&portal.writer, sr_record_writer_free);
  sr_portal_discards_free (&portal);
  g_clear_pointer (&portal.policy, sr_portal_policy_free);
  g_clear_pointer (&portal.sessions, g_hash_table_unref);
  g_clear_pointer (&portal.app_sessions, g_hash_table_unref);
  g_clear_pointer (&portal.sender_sessions, g_hash_table_unref);
  g_clear_pointer (&portal.apps_at_bound, g_hash_table_unref);
  g_clear_pointer (&portal.apps, g_hash_table_unref);
  g_clear_pointer (&portal.tombstones, g_hash_table_unref);
  g_clear_pointer (&portal.subtrees, g_hash_table_unref);
  g_clear_pointer (&portal.end_waiters, g_ptr_array_unref);
  g_clear_pointer (&portal.ended_waiters, g_ptr_array_unref);
  g_clear_pointer (&portal.round_waiters, g_ptr_array_unref);
  g_clear_handle_id (&portal.round_timeout_id, g_source_remove);
  g_clear_handle_id (&portal.end_timeout_id, g_source_remove);
  g_clear_handle_id (&portal.ending_timeout_id, g_source_remove);
  g_clear_handle_id (&portal.reopened_timeout_id, g_source_remove);
  g_clear_pointer (&portal.control_callers, g_hash_table_unref);
  g_clear_pointer (&portal.frontend_held, g_ptr_array_unref);
  g_free (portal.frontend);
  g_free (portal.frontend_owner);
  g_free (portal.frontend_refused);
  g_free (portal.frontend_checking);
  g_mutex_clear (&portal.subtree_lock);
  g_free (portal.desktop);
  g_free (portal.record_path);
  g_clear_object (&portal.system_bus);
  g_clear_object (&portal.bus);
  g_rec_mutex_unlock (&portal.lock);
  return backend.status;
}

static char *
name_owner (GDBusConnection *bus,
            const char      *name)
{
  g_autoptr(GVariant) reply = NULL;
  char *owner = NULL;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetNameOwner",
                                       g_variant_new ("(s)", name), G_VARIANT_TYPE ("(s)"),
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  if (reply != NULL)
    g_variant_get (reply, "(s)", &owner);
  return owner;
}

/* Whether a session manager other than this backend (gnome-session)
 * owns org.gnome.SessionManager: it reopens apps itself, and answers
 * GTK. */
static gboolean
other_session_manager (GDBusConnection *bus)
{
  g_autofree char *manager = name_owner (bus, SR_SM_BUS_NAME);
  g_autofree char *backend = NULL;

  if (manager == NULL)
    return FALSE;
  backend = name_owner (bus, SR_PORTAL_BUS_NAME);
  return g_strcmp0 (manager, backend) != 0;
}

/* --if-no-session-manager, the systemd unit's ExecCondition: 0 (start)
 * unless another session manager runs, 1 (skip) if one does. */
static int
run_condition (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);

  if (bus == NULL)
    {
      g_printerr ("session-restore-portal: no session bus: %s\n", error->message);
      return 1;
    }
  if (other_session_manager (bus))
    {
      g_print ("A session manager owns %s: it answers GTK and reopens apps itself.\n",
               SR_SM_BUS_NAME);
      return 1;
    }
  return EXIT_SUCCESS;
}

/* --login: the backend does the work; this only starts it and waits. */
static int
run_login (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_autoptr(GVariant) reply = NULL;

  /* gnome-session reopens its apps itself: nothing to start. */
  if (bus != NULL && other_session_manager (bus))
    {
      g_print ("A session manager owns %s: it reopens apps itself.\n", SR_SM_BUS_NAME);
      return EXIT_SUCCESS;
    }
  if (bus != NULL)
    reply = g_dbus_connection_call_sync (bus, SR_PORTAL_BUS_NAME, SR_PORTAL_CONTROL_PATH,
                                         "org.gnome.SessionRestore.Portal", "Login", NULL, NULL,
                                         G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                                         G_MAXINT, NULL, &error);
  if (reply == NULL)
    {
      g_printerr ("session-restore-portal: could not reopen the last session's apps: %s\n",
                  error->message);
      return EXIT_FAILURE;
    }
  return EXIT_SUCCESS;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (NULL);
  g_autoptr(GError) error = NULL;
  gboolean login = FALSE, version = FALSE, condition = FALSE;
  const GOptionEntry entries[] = {
    { "login", 0, 0, G_OPTION_ARG_NONE, &login,
      "Reopen the apps open at the last session's end, then exit", NULL },
    { "if-no-session-manager", 0, 0, G_OPTION_ARG_NONE, &condition,
      "Exit 0 unless another session manager owns org.gnome.SessionManager, 1 if one does",
      NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Show the version", NULL },
    { NULL }
  };

  /* One malloc arena for every thread: a backend that idles most of the
   * time is better off without glibc's arena per thread (GDBus's worker,
   * which answers Register, the record's writer, GLib's own), each
   * keeping pages of its own. */
  mallopt (M_ARENA_MAX, 1);
  /* GLib's worker threads (policyd's identification, the system bus's
   * connection, the record's writes: one or two at a time) wait for work
   * once idle instead of ending after 15 s, or at once when a second one
   * goes idle beside the first. The first thread to end pages in glibc's
   * code for a thread's end, some 200 KiB of it, scattered; a thread kept
   * costs the few pages of its stack it touched. */
  g_thread_pool_set_max_unused_threads (-1);
  g_thread_pool_set_max_idle_time (0);
  /* Only the character set of the user's locale, taken when something is
   * written (common/sr-log.c), so that it comes out readable. The
   * backend's messages are in English, for logs, as policyd's are; with
   * LC_MESSAGES set, looking up translations of GLib's own strings cost a
   * twentieth of its start-up's instructions. */
  sr_log_init ();
  g_option_context_set_summary (context,
                                "The save and restore backend of Session Restore: GTK's "
                                "org.gnome.SessionManager calls where no session manager "
                                "answers them, and the portal backend "
                                "(org.freedesktop.impl.portal.SaveRestore).");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("session-restore-portal: %s\n", error->message);
      return 2;
    }
  if (version)
    {
      g_print ("session-restore-portal %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }
  if (condition)
    return run_condition ();
  return login ? run_login () : run_backend ();
}
