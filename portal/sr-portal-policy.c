/* sr-portal-policy.c: policyd, through libsessionrestore's SrPolicyClient
 *
 * The client identifies policyd (finds the owner of its name, verifies it
 * as a host process of the user, reads its properties, which also makes
 * the backend one policyd tells of clears) while the backend takes its
 * own name: those round trips are not on the path of the first answer
 * unless the first Register comes before they are done. Until then, and
 * while a new owner of the name is identified, the checks and exits asked
 * for wait here, unsent (nothing naming an app reaches a program not yet
 * verified), and go out in the order they came once the client knows
 * what owns the name (settled()). A StoredStateCleared read meanwhile
 * waits too, counts only if the owner verified sent it, and is taken
 * before those calls go out, as policyd sent it before their answers.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-policy"

#include "config.h"

#include <session-restore.h>

#include "sr-portal-policy.h"

#define POLICY_PATH "/org/gnome/SessionRestore/Policy"
#define POLICY_INTERFACE "org.gnome.SessionRestore.Policy"
/* Of the exit reports policyd does not take, the first is logged, and the
 * rest are counted for this long, then logged as a count. */
#define EXIT_WARNING_SECS 5

/* The exit reports that could not be sent. policyd refuses them past 200
 * at once and 20 a second from one connection, or half that about one
 * app (sr-fast-path.c), so a burst of exits (a crash loop, a few hundred
 * apps closing) would write a warning each. Shared with the calls in
 * flight, which may end after the backend has let go of it; their
 * callbacks run on GDBus's worker thread, the count's timeout in the main
 * loop. */
typedef struct {
  GMutex lock;
  gint64 counting_until;         /* monotonic µs: failures until then are counted */
  guint counted;                 /* … so far */
  char *last_error;              /* (owned) (nullable) the last one counted */
  GSource *due;                  /* (owned) (nullable) logs the count */
} ExitFailures;

static ExitFailures *
exit_failures_ref (ExitFailures *self)
{
  return g_atomic_rc_box_acquire (self);
}

static void
exit_failures_clear (ExitFailures *self)
{
  g_mutex_clear (&self->lock);
  g_free (self->last_error);
  g_clear_pointer (&self->due, g_source_unref);
}

static void
exit_failures_unref (ExitFailures *self)
{
  g_atomic_rc_box_release_full (self, (GDestroyNotify) exit_failures_clear);
}

/* With the lock held. */
static void
log_count (ExitFailures *self)
{
  if (self->counted > 0)
    g_warning ("Could not tell policyd of %u more exits in %d s; the last: %s",
               self->counted, EXIT_WARNING_SECS, self->last_error);
  self->counted = 0;
  g_clear_pointer (&self->last_error, g_free);
}

static gboolean
on_count_due_cb (gpointer user_data)
{
  ExitFailures *self = user_data;

  g_mutex_lock (&self->lock);
  log_count (self);
  g_clear_pointer (&self->due, g_source_unref);
  g_mutex_unlock (&self->lock);
  return G_SOURCE_REMOVE;
}

static void
exit_failed (ExitFailures *self,
             const char   *message)
{
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&self->lock);
  if (now >= self->counting_until)
    {
      g_warning ("Could not tell policyd of an exit: %s", message);
      self->counting_until = now + EXIT_WARNING_SECS * G_USEC_PER_SEC;
    }
  else
    {
      self->counted++;
      g_free (self->last_error);
      self->last_error = g_strdup (message);
      if (self->due == NULL)
        {
          self->due = g_timeout_source_new ((self->counting_until - now) / 1000 + 1);
          g_source_set_callback (self->due, on_count_due_cb, exit_failures_ref (self),
                                 (GDestroyNotify) exit_failures_unref);
          g_source_attach (self->due, NULL);
        }
    }
  g_mutex_unlock (&self->lock);
}

/* As the backend exits: what is still counted is logged now. A report
 * refused after this (its answer read on GDBus's worker thread, which
 * runs on) is counted for a timeout that no main loop will run. */
static void
exit_failures_flush (ExitFailures *self)
{
  g_mutex_lock (&self->lock);
  log_count (self);
  if (self->due != NULL)
    g_source_destroy (self->due);
  g_clear_pointer (&self->due, g_source_unref);
  g_mutex_unlock (&self->lock);
}

/* A call asked for while the client was not settled. */
typedef struct {
  char *app_id;                  /* (owned) */
  GTask *check;                  /* (owned) (nullable) a check; NULL: an exit */
  SrRestoreReason reason;
  gint64 saved_at;
  gboolean interactive;          /* for a check */
  gboolean voluntary;            /* for an exit */
} Waiting;

struct _SrPortalPolicy {
  SrPolicyClient *client;        /* (owned) */
  gboolean initialized;          /* the client's initialization ended */
  gboolean failed;               /* … with an error: it will fail every call */
  GCancellable *cancellable;     /* (owned) its initialization */
  GPtrArray *waiting;            /* (owned) (element-type Waiting) calls made
                                  * while it was not settled */
  GPtrArray *clears;             /* (owned) (element-type GDBusMessage) the
                                  * StoredStateCleared read meanwhile */
  ExitFailures *exit_failures;   /* (owned) */
  SrPortalPolicyClearedFunc cleared; /* forgets cleared apps */
  gpointer cleared_data;         /* (unowned) for @cleared */
};

static void check_now (SrPortalPolicy *self, const char *app_id, SrRestoreReason reason,
                       gint64 saved_at, gboolean interactive, GTask *task);
static void note_exit_now (SrPortalPolicy *self, const char *app_id, gboolean voluntary);

static void
waiting_free (Waiting *waiting)
{
  g_free (waiting->app_id);
  g_clear_object (&waiting->check);
  g_free (waiting);
}

/* The app ids policyd cleared, if @message is its StoredStateCleared and
 * the verified owner sent it; the client's idea of the owner changes only
 * in the main loop, which does not run while this does (SrPortal.lock). */
static char **
cleared_apps (SrPortalPolicy *self,
              GDBusMessage   *message)
{
  GVariant *body = g_dbus_message_get_body (message);
  char **app_ids = NULL;

  if (sr_policy_client_get_service_state (self->client) != SR_SERVICE_STATE_RUNNING ||
      g_strcmp0 (g_dbus_message_get_sender (message),
                 sr_policy_client_get_service_owner (self->client)) != 0 ||
      body == NULL || !g_variant_is_of_type (body, G_VARIANT_TYPE ("(as)")))
    return NULL;
  g_variant_get (body, "(^as)", &app_ids);
  return app_ids;
}

static void
forget_cleared (SrPortalPolicy *self,
                GDBusMessage   *message)
{
  g_auto(GStrv) app_ids = cleared_apps (self, message);

  if (app_ids != NULL)
    self->cleared ((const char * const *) app_ids, self->cleared_data);
}

/* Whether the client knows what owns policyd's name (running, missing or
 * not to be trusted): not before its initialization ends, nor while it
 * identifies a new owner after a change of hands (the name taken by the
 * policyd it started, or by one started again). Calls made meanwhile
 * would fail ("not identified yet"): they wait for it. */
static gboolean
settled (SrPortalPolicy *self)
{
  return self->initialized &&
         (self->failed || sr_policy_client_get_service_state (self->client) != SR_SERVICE_STATE_UNKNOWN);
}

/* In the main loop, which holds SrPortal.lock: the clears first, as
 * policyd sent them before it could answer the calls. */
static void
send_waiting (SrPortalPolicy *self)
{
  g_autoptr(GPtrArray) clears = NULL;
  g_autoptr(GPtrArray) waiting = NULL;

  if (!settled (self) || (self->clears->len == 0 && self->waiting->len == 0))
    return;
  clears = g_steal_pointer (&self->clears);
  self->clears = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < clears->len; i++)
    forget_cleared (self, clears->pdata[i]);
  waiting = g_steal_pointer (&self->waiting);
  self->waiting = g_ptr_array_new_with_free_func ((GDestroyNotify) waiting_free);
  for (guint i = 0; i < waiting->len; i++)
    {
      Waiting *call = waiting->pdata[i];
      if (call->check != NULL)
        check_now (self, call->app_id, call->reason, call->saved_at, call->interactive,
                   g_steal_pointer (&call->check));
      else
        note_exit_now (self, call->app_id, call->voluntary);
    }
}

static void
on_service_state_cb (GObject    *client,
                     GParamSpec *pspec,
                     gpointer    user_data)
{
  send_waiting (user_data);
}

static void
on_client_ready_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  SrPortalPolicy *self;
  g_autoptr(GError) error = NULL;

  if (!g_async_initable_init_finish (G_ASYNC_INITABLE (source), result, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;   /* freed: the backend is exiting */
  self = user_data;
  /* Failed otherwise, the client fails every call it is given: the
   * checks restore nothing and discard nothing, as when policyd cannot
   * be asked. */
  if (error != NULL)
    g_warning ("Could not reach policyd: %s", error->message);
  self->initialized = TRUE;
  self->failed = error != NULL;
  send_waiting (self);
}

SrPortalPolicy *
sr_portal_policy_new (GDBusConnection           *bus,
                      SrPortalPolicyClearedFunc  cleared,
                      gpointer                   user_data)
{
  SrPortalPolicy *self = g_new0 (SrPortalPolicy, 1);

  self->client = sr_policy_client_new (bus, SR_POLICY_CLIENT_FLAGS_NONE);
  self->cancellable = g_cancellable_new ();
  self->waiting = g_ptr_array_new_with_free_func ((GDestroyNotify) waiting_free);
  self->clears = g_ptr_array_new_with_free_func (g_object_unref);
  self->exit_failures = g_atomic_rc_box_new0 (ExitFailures);
  g_mutex_init (&self->exit_failures->lock);
  self->cleared = cleared;
  self->cleared_data = user_data;
  g_signal_connect (self->client, "notify::service-state", G_CALLBACK (on_service_state_cb), self);
  g_async_initable_init_async (G_ASYNC_INITABLE (self->client), G_PRIORITY_DEFAULT,
                               self->cancellable, on_client_ready_cb, self);
  return self;
}

void
sr_portal_policy_free (SrPortalPolicy *self)
{
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  /* Checks still waiting are answered (no): their callers are exiting. */
  for (guint i = 0; i < self->waiting->len; i++)
    {
      Waiting *call = self->waiting->pdata[i];
      if (call->check != NULL)
        {
          g_task_set_task_data (call->check, g_strdup ("the backend is exiting"), g_free);
          g_task_return_int (call->check, SR_PORTAL_VERDICT_KEEP);
        }
    }
  g_clear_pointer (&self->waiting, g_ptr_array_unref);
  g_clear_pointer (&self->clears, g_ptr_array_unref);
  exit_failures_flush (self->exit_failures);
  exit_failures_unref (self->exit_failures);
  /* Its identification may still be under way, holding a reference. */
  g_signal_handlers_disconnect_by_data (self->client, self);
  g_clear_object (&self->client);
  g_free (self);
}

/* StoredStateCleared is taken as GDBus's worker thread reads it (the
 * filter, sr-portal-session.c), not from SrPolicyClient's signal, which
 * comes later in the main loop: a reply to Register read after the signal
 * is then handled after the clear, as policyd sent them. Without the
 * lock: the filter sees every message. */
gboolean
sr_portal_policy_looks_cleared (GDBusMessage *message)
{
  return g_dbus_message_get_message_type (message) == G_DBUS_MESSAGE_TYPE_SIGNAL &&
         g_strcmp0 (g_dbus_message_get_member (message), "StoredStateCleared") == 0 &&
         g_strcmp0 (g_dbus_message_get_interface (message), POLICY_INTERFACE) == 0 &&
         g_strcmp0 (g_dbus_message_get_path (message), POLICY_PATH) == 0;
}

/* With SrPortal.lock held. */
void
sr_portal_policy_take_cleared (SrPortalPolicy *self,
                               GDBusMessage   *message)
{
  if (settled (self))
    forget_cleared (self, message);
  else
    g_ptr_array_add (self->clears, g_object_ref (message));
}

static gboolean
return_verdict (gpointer user_data)
{
  GTask *task = user_data;

  g_task_return_int (task, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "verdict")));
  return G_SOURCE_REMOVE;
}

/* The one place that says which of policyd's refusals make an app delete
 * its state, for Register and for the login alike: the user or the
 * administrator said the state must go (saving off, the app excluded,
 * cleared, past retention). Every other refusal (a setting for this
 * reason, the crash-loop guard, the user's no at the prompt, a prompt
 * that did not answer) only keeps it from being restored now; and
 * without policyd's answer nothing said no at all. */
static SrPortalVerdict
verdict_for (SrVerdict  verdict,
             SrWhy      why,
             GError    *error)
{
  if (error != NULL)
    return SR_PORTAL_VERDICT_KEEP;
  if (verdict == SR_VERDICT_ALLOW)
    return SR_PORTAL_VERDICT_RESTORE;
  switch (why)
    {
    case SR_WHY_DISABLED:
    case SR_WHY_EXCLUDED:
    case SR_WHY_CLEARED:
    case SR_WHY_EXPIRED:
      return SR_PORTAL_VERDICT_DISCARD;
    default:
      return SR_PORTAL_VERDICT_KEEP;
    }
}

/* Asked from GDBus's worker thread (Register), the answer comes back
 * there from inside GDBus's delivery of the reply, with the connection's
 * lock held: a reply sent from there would deadlock. So the answer is
 * returned from an idle of the asking thread's context, which costs no
 * hand-over to another thread. */
static void
checked (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GTask *task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) idle = g_idle_source_new ();
  SrWhy why = SR_WHY_UNKNOWN;
  SrVerdict verdict = sr_policy_client_check_restore_finish (SR_POLICY_CLIENT (source), result,
                                                             &why, &error);

  /* Without an answer nothing is restored, and nothing discarded. */
  g_task_set_task_data (task, g_strdup (error != NULL ? error->message : sr_why_to_string (why)),
                        g_free);
  g_object_set_data (G_OBJECT (task), "verdict", GINT_TO_POINTER (verdict_for (verdict, why, error)));
  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_callback (idle, return_verdict, task, g_object_unref);
  g_source_attach (idle, g_task_get_context (task));
}

static void
check_now (SrPortalPolicy  *self,
           const char      *app_id,
           SrRestoreReason  reason,
           gint64           saved_at,
           gboolean         interactive,
           GTask           *task)
{
  sr_policy_client_check_restore_async (self->client, app_id, reason, saved_at,
                                        interactive ? SR_CALL_FLAGS_ALLOW_INTERACTION : SR_CALL_FLAGS_NONE,
                                        NULL, checked, task);
}

/* A call for @app_id, queued until policyd's owner is known. */
static Waiting *
wait_call (SrPortalPolicy *self,
           const char     *app_id)
{
  Waiting *waiting = g_new0 (Waiting, 1);

  waiting->app_id = g_strdup (app_id);
  g_ptr_array_add (self->waiting, waiting);
  return waiting;
}

void
sr_portal_policy_check_async (SrPortalPolicy      *self,
                              const char          *app_id,
                              SrRestoreReason      reason,
                              gint64               saved_at,
                              gboolean             interactive,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  Waiting *waiting;

  g_task_set_source_tag (task, sr_portal_policy_check_async);
  if (settled (self))
    {
      check_now (self, app_id, reason, saved_at, interactive, task);
      return;
    }
  waiting = wait_call (self, app_id);
  waiting->check = task;
  waiting->reason = reason;
  waiting->saved_at = saved_at;
  waiting->interactive = interactive;
}

/* @self is not used, and may be gone: a check still waiting when the
 * backend exits is answered as it goes (sr_portal_policy_free()). */
SrPortalVerdict
sr_portal_policy_check_finish (SrPortalPolicy  *self,
                               GAsyncResult    *result,
                               char           **out_why)
{
  *out_why = g_strdup (g_task_get_task_data (G_TASK (result)));
  return (SrPortalVerdict) g_task_propagate_int (G_TASK (result), NULL);
}

static void
noted (GObject      *source,
       GAsyncResult *result,
       gpointer      user_data)
{
  ExitFailures *failures = user_data;
  g_autoptr(GError) error = NULL;

  if (!sr_policy_client_note_exit_finish (SR_POLICY_CLIENT (source), result, &error))
    exit_failed (failures, error->message);
  exit_failures_unref (failures);
}

static void
note_exit_now (SrPortalPolicy *self,
               const char     *app_id,
               gboolean        voluntary)
{
  sr_policy_client_note_exit_async (self->client, app_id, voluntary, NULL, noted,
                                    exit_failures_ref (self->exit_failures));
}

/* Sent without waiting for the answer: Close2 is answered at once. */
void
sr_portal_policy_note_exit (SrPortalPolicy *self,
                            const char     *app_id,
                            gboolean        voluntary)
{
  if (settled (self))
    {
      note_exit_now (self, app_id, voluntary);
      return;
    }
  wait_call (self, app_id)->voluntary = voluntary;
}
