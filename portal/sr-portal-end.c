/* sr-portal-end.c: the end of the desktop session, and suspend
 *
 * The session ends when the unit is stopped with graphical-session.target
 * (SIGTERM), when logind announces a shutdown (PrepareForShutdown,
 * sr-portal-logind.c), or when session-restore-ctl session end says so
 * (EndSession, for desktops with neither). Every registered app gets SaveHint; after their
 * SaveHintResponse, or 3 s, the record says durably which apps were open
 * (dirty false), for the next login. From then on an app leaving the bus
 * is the session ending, not a crash nor a voluntary close; until a
 * login (Login), or until the ending is called off: logind cancelled the
 * shutdown (PrepareForShutdown(false)), or ENDING_TIMEOUT_S passed and
 * the backend still runs, so the session went on after all (a session
 * end said by session-restore-ctl, and no logout after it). Then the
 * apps still open are open again, and those that closed meanwhile are
 * taken as they closed (sr_portal_end_called_off()).
 *
 * Before suspend (PrepareForSleep) apps only get SaveHint, and the round
 * is over once they answered or 3 s have passed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-end"

#include "config.h"

#include "sr-portal.h"

/* How long an ended session may go on without a login before the ending
 * is called off: a logout that follows a session end has stopped the
 * backend long before (its unit stops with the graphical session, and
 * systemd gives that 90 s at most, most of it to apps that hang). */
#define ENDING_TIMEOUT_S 120

/* SaveHint to every registered app; returns how many. */
static guint
save_hint_all (SrPortal *self)
{
  GHashTableIter iter;
  SrPortalSession *session;
  guint sent = 0;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    {
      /* GTK, at the SessionManager door, saves by itself, every 15 s. */
      if (!session->answered || session->closed || session->instance_id == NULL ||
          session->door != SR_DOOR_PORTAL)
        continue;
      sr_portal_send_to_session (self, session, "SaveHint");
      session->save_hint_sent = TRUE;
      sent++;
    }
  return sent;
}


static SrInstance *
live_instance (SrPortal        *self,
               SrPortalSession *session)
{
  SrApp *app;

  if (session->cleared || session->instance_id == NULL)
    return NULL;
  app = g_hash_table_lookup (self->apps, session->app_id);
  return app != NULL ? sr_portal_app_find_instance (app, session->instance_id) : NULL;
}

static void finish_end (SrPortal *self);

static guint
ending_timeout_ms (void)
{
#if SR_TEST_BUILD
  const char *test_ms = g_getenv ("SR_PORTAL_ENDING_TIMEOUT_MS");

  if (test_ms != NULL)
    return (guint) g_ascii_strtoull (test_ms, NULL, 10);
#endif
  return ENDING_TIMEOUT_S * 1000;
}

static gboolean
ending_timed_out (gpointer user_data)
{
  SrPortal *self = user_data;

  self->ending_timeout_id = 0;
  sr_portal_end_called_off (self, "the session went on without a login");
  return G_SOURCE_REMOVE;
}

/* The ending is called off (@why, for the log): the session goes on. The
 * apps still open run on, and the apps that closed while it was ending
 * are taken as they closed: an app the user closed is not reopened at
 * the next login, and one that crashed is a crash. */
void
sr_portal_end_called_off (SrPortal   *self,
                          const char *why)
{
  GHashTableIter iter;
  SrApp *app;
  guint running = 0, closed = 0;

  if (!self->ending)
    return;
  /* A SaveHint round still under way ends first, as it would have. */
  if (self->end_waiters != NULL)
    finish_end (self);
  self->ending = FALSE;
  g_clear_handle_id (&self->ending_timeout_id, g_source_remove);
  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    for (guint i = 0; i < app->instances->len;)
      {
        SrInstance *instance = g_ptr_array_index (app->instances, i);
        guint before = app->instances->len;

        if (instance->live != NULL)
          {
            instance->at_session_end = FALSE;
            running++;
          }
        else if (instance->closed_ending != 0)
          {
            SrCloseKind kind = instance->closed_ending - 1;

            if (kind != SR_CLOSE_UNKNOWN)
              sr_portal_policy_note_exit (self->policy, app->app_id, kind == SR_CLOSE_VOLUNTARY);
            sr_portal_instance_closed (app, instance, kind);
            closed++;
          }
        /* A voluntary close took it out of the list. */
        if (app->instances->len == before)
          i++;
      }
  g_message ("The session's end was called off (%s): %u apps run on, %u closed meanwhile",
             why, running, closed);
  sr_portal_record_save (self);
}

static void
end_flushed (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  SrPortal *self = user_data;
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&self->ended_waiters);
  g_autoptr(GError) error = NULL;

  /* The record on disk is the last snapshot that fit, when this one did
   * not: the apps open now are not in it. */
  if (!sr_record_writer_flush_finish (self->writer, result, &error) ||
      !sr_portal_record_check_written (self, &error))
    g_warning ("Could not record the apps open at the session's end: %s", error->message);
  else
    g_message ("The session ended; the open apps are recorded");

  for (guint i = 0; waiters != NULL && i < waiters->len; i++)
    {
      GTask *task = g_ptr_array_index (waiters, i);
      if (error != NULL)
        g_task_return_error (task, g_error_copy (error));
      else
        g_task_return_boolean (task, TRUE);
    }
}

/* Every instance open now (or that left since the session began to end)
 * is one to reopen; the record is written clean, and the session's end is
 * done only once it is on disk. */
static void
finish_end (SrPortal *self)
{
  GHashTableIter iter;
  SrPortalSession *session;
  guint open = 0;

  g_clear_handle_id (&self->end_timeout_id, g_source_remove);
  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    {
      SrInstance *instance = session->closed ? NULL : live_instance (self, session);
      if (instance == NULL)
        continue;
      instance->at_session_end = TRUE;
      session->save_hint_sent = FALSE;
      open++;
    }
  g_message ("The session is ending with %u apps open", open);
  sr_portal_record_save_now (self);
  if (self->ending_timeout_id == 0)
    self->ending_timeout_id = g_timeout_add (ending_timeout_ms (), ending_timed_out, self);

  if (self->ended_waiters == NULL)
    self->ended_waiters = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_extend_and_steal (self->ended_waiters, g_steal_pointer (&self->end_waiters));
  sr_record_writer_flush_async (self->writer, end_flushed, self);
}

static gboolean
end_timed_out (gpointer user_data)
{
  SrPortal *self = user_data;

  self->end_timeout_id = 0;
  g_message ("Not every app answered SaveHint within %u ms", SR_PORTAL_SAVE_HINT_TIMEOUT_MS);
  finish_end (self);
  return G_SOURCE_REMOVE;
}

static gboolean
waiting_for_responses (SrPortal *self)
{
  GHashTableIter iter;
  SrPortalSession *session;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    if (session->save_hint_sent && !session->closed)
      return TRUE;
  return FALSE;
}

static void
finish_round (SrPortal *self)
{
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&self->round_waiters);

  g_clear_handle_id (&self->round_timeout_id, g_source_remove);
  for (guint i = 0; waiters != NULL && i < waiters->len; i++)
    g_task_return_boolean (g_ptr_array_index (waiters, i), TRUE);
}

static gboolean
round_timed_out (gpointer user_data)
{
  SrPortal *self = user_data;

  self->round_timeout_id = 0;
  g_message ("Not every app answered SaveHint within %u ms", SR_PORTAL_SAVE_HINT_TIMEOUT_MS);
  finish_round (self);
  return G_SOURCE_REMOVE;
}

/* SaveHint to every registered app; done when they all answered, or
 * after 3 s. */
void
sr_portal_save_hint_round_async (SrPortal            *self,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, callback, user_data);
  guint sent;

  g_task_set_source_tag (task, sr_portal_save_hint_round_async);
  if (self->round_waiters == NULL)
    self->round_waiters = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (self->round_waiters, g_steal_pointer (&task));
  sent = save_hint_all (self);
  g_message ("Asked %u apps to save", sent);
  if (!waiting_for_responses (self))
    finish_round (self);
  else if (self->round_timeout_id == 0)
    self->round_timeout_id = g_timeout_add (SR_PORTAL_SAVE_HINT_TIMEOUT_MS, round_timed_out, self);
}

/* @session answered its SaveHint; NULL: sessions went away without it. */
void
sr_portal_save_hint_response (SrPortal        *self,
                              SrPortalSession *session)
{
  SrInstance *instance = session != NULL ? live_instance (self, session) : NULL;

  if (session != NULL)
    session->save_hint_sent = FALSE;
  if (instance != NULL)
    {
      instance->saved_at = g_get_real_time ();
      if (self->end_waiters == NULL)
        sr_portal_record_save (self);
    }
  if (self->end_waiters != NULL && !waiting_for_responses (self))
    finish_end (self);
  if (self->round_waiters != NULL && !waiting_for_responses (self))
    finish_round (self);
}

void
sr_portal_end_session_async (SrPortal            *self,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, callback, user_data);

  g_task_set_source_tag (task, sr_portal_end_session_async);
  if (self->end_waiters != NULL)
    {
      /* One under way already: this one ends with it. */
      g_ptr_array_add (self->end_waiters, g_steal_pointer (&task));
      return;
    }
  self->ending = TRUE;
  /* The login's reopened apps that never came are not waited for. */
  sr_portal_login_forget_marks (self);
  self->end_waiters = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (self->end_waiters, g_steal_pointer (&task));
  if (save_hint_all (self) == 0)
    {
      finish_end (self);
      return;
    }
  self->end_timeout_id = g_timeout_add (SR_PORTAL_SAVE_HINT_TIMEOUT_MS, end_timed_out, self);
}

gboolean
sr_portal_end_session_finish (SrPortal      *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
