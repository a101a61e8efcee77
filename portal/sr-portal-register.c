/* sr-portal-register.c: Register, and what apps confirm
 *
 * The restore reason comes from the record: an instance the login
 * reopened → RESTORE; one whose session closed without a voluntary close
 * (and not because the desktop session ended) → RECOVER; otherwise
 * LAUNCH, with the id of the app's last cleanly closed instance when
 * there is one, so that light state carries over. policyd is asked about
 * that reason with the instance's saved-at; its DENY makes it PRISTINE,
 * and the instance's old id goes to the ids to discard while the app
 * gets a fresh one.
 *
 * The frontend forwards DiscardedInstanceIds and SaveHintResponse from
 * any client with any handle, so they count only as confirmations of what
 * this backend asked of that very handle, and only from the connection
 * that registered it.
 *
 * All of it runs on GDBus's worker thread, holding SrPortal.lock
 * (sr-portal.h): the handlers, and policyd's answer, which comes back to
 * the thread that asked. Register is taken by the connection's filter as
 * it is read, as the do-nothing backend of the benchmark answers it,
 * without GDBus's dispatch in between (a method invocation, a turn of the
 * worker's loop): its arguments are checked here, and its answer is a
 * message of our own. Between Register picking an instance and
 * policyd's answer the main loop may run, and policyd may have cleared
 * the app meanwhile (StoredStateCleared): then the instance is gone
 * whatever the answer, and the app gets PRISTINE and a fresh id.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-register"

#include "config.h"

#include "sr-app-id.h"
#include "sr-portal.h"
#include "sr-vardict.h"

typedef struct {
  SrPortal *self;                    /* (unowned) */
  GDBusConnection *connection;       /* (owned) */
  GDBusMessage *message;             /* (owned) the Register call */
  GDBusMethodInvocation *invocation; /* (owned) (nullable) … or the
                                      * RegisterRestore call of the
                                      * SessionManager door (sr-portal-sm.c),
                                      * answered as gnome-session does */
  SrPortalSession *session;          /* (unowned) kept until answered */
  SrRestoreReason reason;
  gboolean had_state;                /* the instance had state to restore */
  gboolean from_next_id;             /* … and was the app's next-instance-id */
  gint64 saved_at;                   /* … saved then */
  gboolean was_crashed;              /* … and how it had ended */
  gboolean was_at_session_end;
} RegisterCall;

/* Register's answer, unless the caller asked for none. */
static void
send_reply (GDBusConnection *connection,
            GDBusMessage    *call,
            GDBusMessage    *reply)
{
  if (!(g_dbus_message_get_flags (call) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED))
    g_dbus_connection_send_message (connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
}

static void return_error (GDBusConnection *connection, GDBusMessage *call, GQuark domain,
                          int code, const char *format, ...) G_GNUC_PRINTF (5, 6);

static void
return_error (GDBusConnection *connection,
              GDBusMessage    *call,
              GQuark           domain,
              int              code,
              const char      *format,
              ...)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GDBusMessage) reply = NULL;
  va_list args;

  va_start (args, format);
  error = g_error_new_valist (domain, code, format, args);
  va_end (args);
  name = g_dbus_error_encode_gerror (error);
  reply = g_dbus_message_new_method_error_literal (call, name, error->message);
  send_reply (connection, call, reply);
}

static void
register_call_free (RegisterCall *call)
{
  g_object_unref (call->connection);
  g_object_unref (call->message);
  g_clear_object (&call->invocation);
  g_free (call);
}

/* The backend is exiting: Register or RegisterRestore gets no answer of
 * substance. */
static void
return_exiting (RegisterCall *call)
{
  if (call->invocation != NULL)
    g_dbus_method_invocation_return_error_literal (g_steal_pointer (&call->invocation),
                                                   G_DBUS_ERROR, G_DBUS_ERROR_NO_SERVER,
                                                   "session-restore-portal is exiting");
  else
    return_error (call->connection, call->message, G_DBUS_ERROR, G_DBUS_ERROR_NO_SERVER,
                  "session-restore-portal is exiting");
}

static gboolean
handle_is_valid (const char *handle)
{
  const char *rest;
  const char *slash;

  if (!g_str_has_prefix (handle, SR_PORTAL_SESSION_PREFIX))
    return FALSE;
  rest = handle + strlen (SR_PORTAL_SESSION_PREFIX);
  slash = strchr (rest, '/');
  return slash != NULL && slash != rest && slash[1] != '\0' && strchr (slash + 1, '/') == NULL;
}

static void
add_discards (GPtrArray       *ids,
              SrPortalSession *session,
              GPtrArray       *list)
{
  for (guint i = 0; i < list->len; i++)
    {
      const char *id = g_ptr_array_index (list, i);
      g_ptr_array_add (ids, g_variant_new_string (id));
      g_hash_table_add (session->asked_discard, g_strdup (id));
    }
}

/* RegisterRestore's answer: (reason, instance id, ids to clean up), as
 * gnome-session gives it; "" for an app given no id (as many of it
 * running as the record keeps). */
static void
finish_register_restore (RegisterCall    *call,
                         SrApp           *app,
                         SrRestoreReason  reason)
{
  SrPortalSession *session = call->session;
  g_autoptr(GPtrArray) ids = g_ptr_array_new ();

  if (app != NULL && session->instance_id != NULL)
    sr_portal_sm_cleanup_ids (call->self, app, session, ids);
  g_dbus_method_invocation_return_value (g_steal_pointer (&call->invocation),
                                         g_variant_new ("(us@as)", reason,
                                                        session->instance_id != NULL
                                                        ? session->instance_id : "",
                                                        g_variant_new_array (G_VARIANT_TYPE_STRING,
                                                                             (GVariant **) ids->pdata,
                                                                             ids->len)));
}

static void
finish_register (RegisterCall    *call,
                 SrRestoreReason  reason)
{
  SrPortal *self = call->self;
  SrPortalSession *session = call->session;
  SrApp *app = *session->app_id != '\0' ? g_hash_table_lookup (self->apps, session->app_id) : NULL;
  g_autoptr(GDBusMessage) reply = NULL;
  GVariant *registration[3];
  GVariant *dict;
  guint n = 0;

  if (call->invocation != NULL)
    {
      finish_register_restore (call, app, reason);
      goto answered;
    }
  registration[n++] = sr_vardict_entry ("restore-reason", g_variant_new_uint32 (reason));
  if (session->instance_id != NULL)
    {
      g_autoptr(GPtrArray) ids = g_ptr_array_new ();

      registration[n++] = sr_vardict_entry ("instance-id", g_variant_new_string (session->instance_id));
      if (app != NULL)
        {
          add_discards (ids, session, app->discard);
          add_discards (ids, session, app->cleared_ids);
        }
      registration[n++] = sr_vardict_entry ("discard-instance-ids",
                                         g_variant_new_array (G_VARIANT_TYPE_STRING,
                                                              (GVariant **) ids->pdata, ids->len));
    }
  dict = g_variant_new_array (G_VARIANT_TYPE ("{sv}"), registration, n);
  reply = g_dbus_message_new_method_reply (call->message);
  g_dbus_message_set_body (reply, g_variant_new_tuple (&dict, 1));
  send_reply (call->connection, call->message, reply);
answered:
  sr_portal_watch_logind_now (self);
  /* Written after the reply, so that the app does not wait for the disk;
   * the record keeps its old state until then. */
  if (app != NULL)
    {
      sr_portal_record_save (self);
      /* Once a run, not at every Register: an app's sandbox does not
       * change while the backend runs. */
      if (session->door == SR_DOOR_SESSION_MANAGER)
        sr_portal_sm_note_origin (self, session, app);
      else if (!app->origin_asked)
        {
          app->origin_asked = TRUE;
          sr_portal_origin_note (self, session->handle, session->app_id);
        }
    }

  session->answered = TRUE;
  /* Closed while policyd was being asked: nothing more will come. */
  if (session->closed && g_hash_table_lookup (self->sessions, session->handle) == session)
    sr_portal_session_remove (self, session);
  register_call_free (call);
}

/* policyd said the state must go (SR_PORTAL_VERDICT_DISCARD): nothing
 * is restored, and the instance's state is done with; the app keeps
 * running under a fresh id. */
static void
discard_instance (SrPortal        *self,
                  SrPortalSession *session,
                  gboolean         had_state)
{
  SrApp *app = g_hash_table_lookup (self->apps, session->app_id);
  SrInstance *instance;

  if (app == NULL || !had_state || session->cleared)
    return;
  instance = sr_portal_app_find_instance (app, session->instance_id);
  sr_portal_app_discard (app, session->instance_id);
  g_free (session->instance_id);
  session->instance_id = sr_portal_new_instance_id (self->desktop, app);
  if (instance != NULL)
    {
      g_free (instance->id);
      instance->id = g_strdup (session->instance_id);
      instance->saved_at = 0;
    }
}

/* Not restored now, but nothing said the state must go
 * (SR_PORTAL_VERDICT_KEEP: a setting for this reason, the crash-loop
 * guard, the user's no, or no answer from policyd): the instance goes
 * back into the record as it was, for a later launch, and the app runs
 * under a fresh id, so that what it saves now does not overwrite it. */
static void
keep_instance (SrPortal     *self,
               RegisterCall *call)
{
  SrPortalSession *session = call->session;
  SrApp *app = g_hash_table_lookup (self->apps, session->app_id);
  SrInstance *instance;

  /* Closed meanwhile, the close has said what became of it. */
  if (app == NULL || !call->had_state || session->cleared || session->closed)
    return;
  instance = sr_portal_app_find_instance (app, session->instance_id);
  if (instance != NULL && instance->live == session)
    {
      if (call->from_next_id && app->next_id == NULL)
        {
          app->next_id = g_strdup (instance->id);
          app->next_saved_at = call->saved_at;
          sr_portal_app_remove_instance (app, instance);
        }
      else
        {
          /* Not reopened: a login's mark is the login's only. */
          instance->live = NULL;
          instance->kept = TRUE;
          instance->crashed = call->was_crashed;
          instance->at_session_end = call->was_at_session_end;
        }
    }
  g_clear_pointer (&session->instance_id, g_free);
  if (!sr_portal_app_make_room (app))
    return;   /* as many running as the record keeps: no id */
  session->instance_id = sr_portal_new_instance_id (self->desktop, app);
  sr_portal_app_add_instance (app, g_strdup (session->instance_id))->live = session;
}

/* policyd cleared the app while it was asked: the instance picked went
 * with the rest (sr_portal_record_forget() put its id among those to
 * discard), so the session runs under a fresh id, which it does not keep
 * in the record either. */
static void
forget_cleared_instance (SrPortal        *self,
                         SrPortalSession *session)
{
  SrApp *app = sr_portal_record_app (self, session->app_id);

  g_free (session->instance_id);
  session->instance_id = sr_portal_new_instance_id (self->desktop, app);
}

static void
checked (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  RegisterCall *call = user_data;
  SrPortal *self = call->self;
  g_autoptr(GRecMutexLocker) locker G_GNUC_UNUSED = g_rec_mutex_locker_new (&self->lock);
  g_autofree char *why = NULL;
  SrPortalVerdict verdict = sr_portal_policy_check_finish (self->policy, result, &why);

  if (self->closing)
    {
      return_exiting (call);
      register_call_free (call);
      return;
    }
  if (call->session->cleared)
    {
      forget_cleared_instance (self, call->session);
      finish_register (call, SR_RESTORE_REASON_PRISTINE);
      return;
    }
  if (verdict == SR_PORTAL_VERDICT_RESTORE)
    {
      finish_register (call, call->reason);
      return;
    }
  g_message ("%s: not restoring (%s), %s: %s", call->session->app_id,
             call->reason == SR_RESTORE_REASON_RESTORE ? "restore" :
             call->reason == SR_RESTORE_REASON_RECOVER ? "recover" : "launch",
             verdict == SR_PORTAL_VERDICT_DISCARD ? "discarding its state" : "keeping its state",
             why);
  if (verdict == SR_PORTAL_VERDICT_DISCARD)
    discard_instance (self, call->session, call->had_state);
  else
    keep_instance (self, call);
  finish_register (call, SR_RESTORE_REASON_PRISTINE);
}

/* Picks the instance the new session uses, and the reason it gets. */
static SrRestoreReason
pick_instance (SrPortal        *self,
               SrPortalSession *session,
               RegisterCall    *call,
               gboolean        *out_interactive)
{
  gint64 *out_saved_at = &call->saved_at;
  gboolean *out_had_state = &call->had_state;
  SrApp *app = sr_portal_record_app (self, session->app_id);
  SrInstance *instance = NULL;
  SrRestoreReason reason = SR_RESTORE_REASON_LAUNCH;

  /* One the login reopened first: this may be it. One kept from an
   * earlier refusal only when the app has no cleanly closed one since:
   * that is newer, and the kept one may be what crashed it. */
  for (guint i = 0; i < app->instances->len; i++)
    {
      SrInstance *candidate = g_ptr_array_index (app->instances, i);
      if (candidate->live != NULL || (candidate->kept && app->next_id != NULL))
        continue;
      if (instance == NULL || (candidate->reopened && !instance->reopened) ||
          (instance->kept && !candidate->kept))
        instance = candidate;
    }

  *out_interactive = FALSE;
  *out_had_state = TRUE;
  if (instance == NULL && !sr_portal_app_make_room (app))
    {
      /* As many instances of it running as the record keeps: this one
       * gets no id, so that it saves nothing the record would not know. */
      g_debug ("%s: %u instances running already", app->app_id, app->instances->len);
      *out_had_state = FALSE;
      *out_saved_at = 0;
      return SR_RESTORE_REASON_PRISTINE;
    }
  if (instance == NULL)
    {
      gint64 saved_at = 0;
      char *id;

      if (app->next_id != NULL)
        {
          id = g_steal_pointer (&app->next_id);
          saved_at = app->next_saved_at;
          call->from_next_id = TRUE;
        }
      else
        {
          id = sr_portal_new_instance_id (self->desktop, app);
          *out_had_state = FALSE;
        }
      instance = sr_portal_app_add_instance (app, id);
      instance->saved_at = saved_at;
    }
  else if (instance->reopened)
    {
      reason = SR_RESTORE_REASON_RESTORE;
      *out_interactive = TRUE;
    }
  else if (instance->crashed)
    reason = SR_RESTORE_REASON_RECOVER;

  /* Running again: how it ends next decides what it is. */
  call->was_crashed = instance->crashed;
  call->was_at_session_end = instance->at_session_end;
  instance->reopened = FALSE;
  instance->kept = FALSE;
  instance->closed_ending = 0;
  instance->crashed = FALSE;
  instance->at_session_end = FALSE;
  instance->live = session;
  session->instance_id = g_strdup (instance->id);
  *out_saved_at = instance->saved_at;
  return reason;
}

/* SR_PORTAL_MAX_SESSIONS, or a test's lower bound. */
static guint
max_sessions (void)
{
#if SR_TEST_BUILD
  const char *test_max = g_getenv ("SR_PORTAL_MAX_SESSIONS");

  if (test_max != NULL)
    return (guint) g_ascii_strtoull (test_max, NULL, 10);
#endif
  return SR_PORTAL_MAX_SESSIONS;
}

/* Register or RegisterRestore, its session made: the instance is
 * picked, and policyd asked about it. @closed_before: the session was
 * closed before it registered. */
static void
start_register (SrPortal     *self,
                RegisterCall *call,
                gboolean      closed_before)
{
  SrPortalSession *session = call->session;
  gboolean interactive = FALSE;

  /* A host process the frontend could not identify: nothing to tell its
   * state apart by. */
  if (*session->app_id == '\0')
    {
      session->closed = closed_before;
      finish_register (call, SR_RESTORE_REASON_PRISTINE);
      return;
    }

  call->reason = pick_instance (self, session, call, &interactive);
  if (session->instance_id == NULL)
    {
      session->closed = closed_before;
      finish_register (call, call->reason);
      return;
    }
  if (closed_before)
    sr_portal_session_close (self, session, SR_CLOSE_INVOLUNTARY);
  sr_portal_policy_check_async (self->policy, session->app_id, call->reason, call->saved_at,
                                interactive, checked, call);
}

/* Whether another session may be opened for @bound_key; if not, says why
 * in @error (LimitsExceeded) and, once, in the log. */
static gboolean
sessions_bounded (SrPortal    *self,
                  const char  *bound_key,
                  const char  *app_id,
                  GError     **error)
{
  if (g_hash_table_size (self->sessions) >= max_sessions ())
    {
      if (!self->sessions_at_bound)
        g_message ("%u sessions open, the most all apps together may have: Registers are "
                   "refused until some have closed", max_sessions ());
      self->sessions_at_bound = TRUE;
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                   "%u sessions are open already, the most the backend keeps: close one first",
                   max_sessions ());
      return FALSE;
    }
  if (sr_portal_app_sessions (self, bound_key) >= SR_PORTAL_MAX_APP_SESSIONS)
    {
      if (g_hash_table_add (self->apps_at_bound, g_strdup (bound_key)))
        g_message ("%s: %u sessions open, the most one app may have: its Registers are "
                   "refused while it has that many",
                   *app_id != '\0' ? app_id : "An app not identified", SR_PORTAL_MAX_APP_SESSIONS);
      g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_LIMITS_EXCEEDED,
                   "The app has %u sessions open already, the most one app may have: "
                   "close one first", SR_PORTAL_MAX_APP_SESSIONS);
      return FALSE;
    }
  return TRUE;
}

/* RegisterRestore of the SessionManager door (sr-portal-sm.c), for
 * @app_id (valid, and one the caller may register as): as Register,
 * under a session of that door whose sender is @sender, the name whose
 * leaving ends it. In the main loop, holding SrPortal.lock. */
void
sr_portal_register_restore (SrPortal              *self,
                            GDBusMethodInvocation *invocation,
                            const char            *handle,
                            const char            *sender,
                            const char            *app_id)
{
  g_autoptr(GError) error = NULL;
  RegisterCall *call;

  if (self->closing)
    {
      g_dbus_method_invocation_return_error_literal (invocation, G_DBUS_ERROR,
                                                     G_DBUS_ERROR_NO_SERVER,
                                                     "session-restore-portal is exiting");
      return;
    }
  if (!sessions_bounded (self, app_id, app_id, &error))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  call = g_new0 (RegisterCall, 1);
  call->self = self;
  call->connection = g_object_ref (g_dbus_method_invocation_get_connection (invocation));
  call->message = g_object_ref (g_dbus_method_invocation_get_message (invocation));
  call->invocation = g_object_ref (invocation);
  call->session = sr_portal_session_new (self, handle, sender, app_id);
  call->session->door = SR_DOOR_SESSION_MANAGER;
  start_register (self, call, FALSE);
}

static void
handle_register (SrPortal        *self,
                 GDBusConnection *connection,
                 GDBusMessage    *message,
                 const char      *handle,
                 const char      *app_id)
{
  g_autoptr(GRecMutexLocker) locker G_GNUC_UNUSED = g_rec_mutex_locker_new (&self->lock);
  g_autoptr(GError) error = NULL;
  SrPortalSession *session;
  RegisterCall *call;
  gboolean closed_before;
  g_autofree char *bound_key = NULL;

  if (self->closing)
    {
      return_error (connection, message, G_DBUS_ERROR, G_DBUS_ERROR_NO_SERVER,
                    "session-restore-portal is exiting");
      return;
    }
  session = g_hash_table_lookup (self->sessions, handle);
  if (!handle_is_valid (handle))
    {
      return_error (connection, message, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                    "“%s” is not a session handle", handle);
      return;
    }
  /* A closed session waiting for its answer still holds the path. */
  if (session != NULL && (!session->closed || !session->answered))
    {
      return_error (connection, message, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                    "“%s” is registered already", handle);
      return;
    }

  if (*app_id != '\0' && !sr_app_id_validate (app_id, &error))
    {
      /* Its words, not the id itself: a caller's id may be megabytes
       * long, or hold a line break and a log line of its own. */
      g_message ("Register: %s: restoring nothing", error->message);
      app_id = "";
    }
  /* Said the first time, not at each refusal, nor each time the app comes
   * back to the bound: it may send as many as it likes
   * (SR_PORTAL_MAX_APP_SESSIONS in sr-portal.h). Said again once it has
   * closed every session (count_session()), 2,048 calls later at the
   * least; so the table holds only apps with sessions open. */
  bound_key = sr_portal_session_bound_key (handle, app_id);
  if (!sessions_bounded (self, bound_key, app_id, &error))
    {
      return_error (connection, message, G_DBUS_ERROR, error->code, "%s", error->message);
      sr_portal_session_refused (self, handle);
      return;
    }

  closed_before = g_hash_table_remove (self->tombstones, handle);
  call = g_new0 (RegisterCall, 1);
  call->self = self;
  call->connection = g_object_ref (connection);
  call->message = g_object_ref (message);
  call->session = sr_portal_session_new (self, handle, g_dbus_message_get_sender (message),
                                         app_id);
  start_register (self, call, closed_before);
}

/* Whether @message is a Register call the filter takes
 * (sr_portal_register_take()). A call whose arguments are not Register's
 * goes on to GDBus, which answers it with InvalidArgs from the
 * interface's description. */
gboolean
sr_portal_register_is_call (GDBusMessage *message)
{
  GVariant *args = g_dbus_message_get_body (message);
  const char *interface = g_dbus_message_get_interface (message);

  return g_dbus_message_get_message_type (message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL &&
         g_strcmp0 (g_dbus_message_get_member (message), "Register") == 0 &&
         g_strcmp0 (g_dbus_message_get_path (message), SR_PORTAL_OBJECT_PATH) == 0 &&
         (interface == NULL || g_str_equal (interface, sr_impl_save_restore_interface.name)) &&
         args != NULL && g_variant_is_of_type (args, G_VARIANT_TYPE ("(osa{sv})"));
}

/* Register, taken by the filter (sr-portal-session.c) as it arrives on
 * GDBus's worker thread rather than dispatched to the object: the check
 * goes to policyd in the same turn of the worker's loop; or in the main
 * loop, held until the frontend was verified (sr-portal-frontend.c). */
void
sr_portal_register_take (SrPortal        *self,
                         GDBusConnection *connection,
                         GDBusMessage    *message)
{
  GVariant *args = g_dbus_message_get_body (message);
  g_autoptr(GVariant) handle = NULL;
  g_autoptr(GVariant) app_id = NULL;

  /* The children by index: g_variant_get() parses its format string. */
  handle = g_variant_get_child_value (args, 0);
  app_id = g_variant_get_child_value (args, 1);
  handle_register (self, connection, message, g_variant_get_string (handle, NULL),
                   g_variant_get_string (app_id, NULL));
}

/* The session at @handle, if @invocation comes from whoever registered it. */
static SrPortalSession *
confirming_session (SrPortal              *self,
                    GDBusMethodInvocation *invocation,
                    const char            *handle)
{
  SrPortalSession *session = self->closing ? NULL : g_hash_table_lookup (self->sessions, handle);

  if (session == NULL || session->closed ||
      g_strcmp0 (session->frontend, g_dbus_method_invocation_get_sender (invocation)) != 0)
    return NULL;
  return session;
}

static void
handle_discarded (SrPortal              *self,
                  GDBusMethodInvocation *invocation,
                  const char            *handle,
                  const char * const    *ids)
{
  g_autoptr(GRecMutexLocker) locker G_GNUC_UNUSED = g_rec_mutex_locker_new (&self->lock);
  SrPortalSession *session = confirming_session (self, invocation, handle);
  SrApp *app = session != NULL ? g_hash_table_lookup (self->apps, session->app_id) : NULL;
  gboolean changed = FALSE;

  g_dbus_method_invocation_return_value (invocation, NULL);
  if (app == NULL)
    return;
  for (guint i = 0; ids[i] != NULL; i++)
    {
      /* Only what this handle was asked to discard. */
      if (!g_hash_table_remove (session->asked_discard, ids[i]))
        continue;
      sr_portal_app_deleted (app, ids[i]);
      changed = TRUE;
    }
  if (changed)
    sr_portal_record_save (self);
}

static void
handle_save_hint_response (SrPortal              *self,
                           GDBusMethodInvocation *invocation,
                           const char            *handle)
{
  g_autoptr(GRecMutexLocker) locker G_GNUC_UNUSED = g_rec_mutex_locker_new (&self->lock);
  SrPortalSession *session = confirming_session (self, invocation, handle);

  g_dbus_method_invocation_return_value (invocation, NULL);
  if (session != NULL && session->save_hint_sent)
    sr_portal_save_hint_response (self, session);
}

/* GDBus has checked the arguments against the interface's description. */
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
  const char *handle;

  if (g_str_equal (method, "DiscardedInstanceIds"))
    {
      g_autofree const char **ids = NULL;

      g_variant_get (parameters, "(&o^a&s)", &handle, &ids);
      handle_discarded (user_data, invocation, handle, ids);
    }
  else if (g_str_equal (method, "SaveHintResponse"))
    {
      g_variant_get (parameters, "(&o)", &handle);
      handle_save_hint_response (user_data, invocation, handle);
    }
  else
    g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD,
                                           "No method %s", method);
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
  return g_variant_new_uint32 (SR_PORTAL_SAVE_RESTORE_VERSION);
}

const GDBusInterfaceVTable sr_portal_register_vtable = {
  .method_call = method_call,
  .get_property = get_property,
};
