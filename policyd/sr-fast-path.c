/* sr-fast-path.c: checks answered on GDBus's worker thread
 *
 * A method call normally reaches the daemon through the main loop: GDBus
 * reads it on its worker thread and hands it over, which costs a wake-up
 * and two context switches, a fifth of a round trip. GDBus answers
 * org.freedesktop.DBus.Peer.Ping on the worker thread itself; so does
 * policyd for the checks that need nothing but memory: CheckSave and
 * CheckRestore from a caller already identified that may ask about that
 * app (sr_caller_may_ask_about(), the gate's own rule), with arguments the
 * rules accept. The policy, the crash counters, the clear points and the
 * caller cache are safe to read from any thread; the answer is built by
 * sr_decide_call(), as on the main thread. A DENY "crash-loop" to a host
 * caller is noted as its held start (sr-crash-guard.c), in memory under
 * the guard's lock, as the main thread notes it.
 *
 * Anything else goes on to the main thread and the gate: a connection's
 * first call (its caller is not known yet) and first check (which names
 * its program among the consumers), refusals and errors (which the
 * gate words), a CheckRestore "interactive" that would ask the user (it
 * waits there for the login prompt), and every other method.
 *
 * A check waits for the NoteExit calls its own connection sent before it:
 * while one of them is unfinished, that connection's checks go the main
 * thread's way too, behind it, and see the exit. Other connections are not
 * held up by it (a flood of exits from one client would otherwise stall
 * everyone's checks).
 *
 * NoteExit is also rate-limited per connection, here, before it reaches
 * the main thread: NOTE_EXIT_BURST at once, then NOTE_EXIT_RATE a second.
 * A session manager reports a few exits at a time; 20,000 in two seconds
 * from one sandbox kept the main thread (and every new caller's first
 * call) busy for 15 s. Within a connection's budget, each app id has half
 * of it (NOTE_EXIT_APP_BURST, NOTE_EXIT_APP_RATE): every app's exits come
 * through the portal backend's one connection, and one app crashing in a
 * fast loop used up the budget, so that the others' crashes went uncounted.
 * Beyond either limit, calls are answered Failed at once and count nothing.
 *
 * The filter's state is its user data, freed by GDBus's destroy notify
 * once the filter can no longer run; sr_fast_path_close() only detaches
 * the daemon's objects from it, under its lock.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-fast-path"

#include "config.h"

#include <malloc.h>
#include <string.h>

#include "sr-app-id.h"
#include "sr-bus.h"
#include "sr-decide.h"
#include "sr-error.h"
#include "sr-fast-path.h"

/* GDBus parses every incoming message on its worker thread into many small
 * allocations that the main thread frees later; glibc keeps what is freed
 * in the worker's arena, so a burst of calls or one huge message would
 * leave policyd tens of MiB bigger for good (58 MiB after the D-Bus
 * fuzzer, 15.6 after a trim). Give it back once calls have stopped for a
 * moment: an incoming message schedules one trim, TRIM_DELAY_SECS on,
 * unless one is already due. A message of LARGE_MESSAGE bytes or more
 * (one of 64 MiB costs about 1.3 GiB while it is parsed and answered)
 * schedules one for as soon as the main thread is done with it. */
#define TRIM_DELAY_SECS 2
#define NOTE_EXIT_RATE 20
#define NOTE_EXIT_BURST 200
#define NOTE_EXIT_APP_RATE (NOTE_EXIT_RATE / 2)
#define NOTE_EXIT_APP_BURST (NOTE_EXIT_BURST / 2)
/* The apps whose shares a connection's entry keeps: one whole again (an
 * exit's share comes back in 0.1 s) is forgotten to make room. Past this
 * many at once (a few hundred apps closing together, at the end of a
 * session), the others have the connection's budget alone. */
#define MAX_APPS_PER_SENDER 32
/* Past this many connections in the table, idle ones are forgotten. */
#define MAX_SENDERS 4096
#define LARGE_MESSAGE (1024 * 1024)

struct _SrFastPath {
  GDBusConnection *bus;          /* (owned) */
  guint filter_id;

  GRWLock lock;                  /* guards open and sources */
  gboolean open;
  SrFastPathSources sources;     /* valid while open */

  GMutex exits_lock;
  GHashTable *senders;           /* (owned) sender → (owned) Sender */

  gint trim_due;                 /* (atomic) */
  gint calls_seen;               /* (atomic) method calls since last asked */
};

static SrFastPath *
fast_path_ref (SrFastPath *self)
{
  return g_atomic_rc_box_acquire (self);
}

static void
fast_path_clear (SrFastPath *self)
{
  g_object_unref (self->bus);
  g_rw_lock_clear (&self->lock);
  g_mutex_clear (&self->exits_lock);
  g_hash_table_unref (self->senders);
}

static void
fast_path_unref (SrFastPath *self)
{
  g_atomic_rc_box_release_full (self, (GDestroyNotify) fast_path_clear);
}

/* NoteExit calls one may still make now: refilled at @rate a second, up
 * to @burst. */
typedef struct {
  double tokens;
  gint64 refilled_at;      /* monotonic µs */
} Budget;

/* TRUE when the budget is whole again. */
static gboolean
budget_refill (Budget *budget,
               guint   burst,
               guint   rate,
               gint64  now)
{
  budget->tokens = MIN (burst, budget->tokens + (now - budget->refilled_at) * rate /
                                                (double) G_USEC_PER_SEC);
  budget->refilled_at = now;
  return budget->tokens >= burst;
}

/* What the filter keeps of a connection that reports exits. */
typedef struct {
  guint pending;           /* its NoteExit calls not finished yet */
  Budget budget;           /* the connection's */
  GHashTable *apps;        /* (owned) app id → (owned) Budget, each app's share */
} Sender;

static void
sender_free (Sender *sender)
{
  g_hash_table_unref (sender->apps);
  g_free (sender);
}

/* With exits_lock held. */
static Sender *
lookup_sender (SrFastPath *self,
               const char *name,
               gint64      now)
{
  Sender *sender = g_hash_table_lookup (self->senders, name);

  if (sender == NULL)
    {
      if (g_hash_table_size (self->senders) >= MAX_SENDERS)
        {
          GHashTableIter iter;
          gpointer value;

          g_hash_table_iter_init (&iter, self->senders);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            if (((Sender *) value)->pending == 0)
              g_hash_table_iter_remove (&iter);
        }
      sender = g_new0 (Sender, 1);
      sender->budget = (Budget) { NOTE_EXIT_BURST, now };
      sender->apps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      g_hash_table_insert (self->senders, g_strdup (name), sender);
    }
  budget_refill (&sender->budget, NOTE_EXIT_BURST, NOTE_EXIT_RATE, now);
  return sender;
}

/* With exits_lock held: @app_id's share of @sender's budget, refilled;
 * NULL when there is no room for it, or for an id longer than any valid
 * one (refused on the main thread). */
static Budget *
lookup_app_budget (Sender     *sender,
                   const char *app_id,
                   gint64      now)
{
  gboolean keep = strnlen (app_id, SR_APP_ID_MAX_LEN + 1) <= SR_APP_ID_MAX_LEN;
  Budget *budget = keep ? g_hash_table_lookup (sender->apps, app_id) : NULL;

  if (budget == NULL && keep)
    {
      if (g_hash_table_size (sender->apps) >= MAX_APPS_PER_SENDER)
        {
          GHashTableIter iter;
          gpointer value;

          g_hash_table_iter_init (&iter, sender->apps);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            if (budget_refill (value, NOTE_EXIT_APP_BURST, NOTE_EXIT_APP_RATE, now))
              g_hash_table_iter_remove (&iter);
        }
      if (g_hash_table_size (sender->apps) < MAX_APPS_PER_SENDER)
        {
          budget = g_new (Budget, 1);
          *budget = (Budget) { NOTE_EXIT_APP_BURST, now };
          g_hash_table_insert (sender->apps, g_strdup (app_id), budget);
        }
    }
  if (budget != NULL)
    budget_refill (budget, NOTE_EXIT_APP_BURST, NOTE_EXIT_APP_RATE, now);
  return budget;
}

/* A NoteExit still being handled; freed with its message, after its
 * reply, whatever the outcome (GDBus keeps the message with the call
 * until then). */
typedef struct {
  SrFastPath *fast_path;   /* (owned) */
  char *sender;            /* (owned) */
} PendingExit;

static void
pending_exit_done (PendingExit *exit)
{
  SrFastPath *self = exit->fast_path;
  Sender *sender;

  g_mutex_lock (&self->exits_lock);
  sender = g_hash_table_lookup (self->senders, exit->sender);
  if (sender != NULL && sender->pending > 0)
    sender->pending--;
  g_mutex_unlock (&self->exits_lock);

  g_free (exit->sender);
  fast_path_unref (exit->fast_path);
  g_free (exit);
}

/* NULL when the exit goes on to the main thread; otherwise why it is
 * refused: the connection, or the app within it, is over its rate. */
static const char *
note_pending_exit (SrFastPath   *self,
                   GDBusMessage *message,
                   const char   *name)
{
  g_autoptr(GVariant) app_arg = g_variant_get_child_value (g_dbus_message_get_body (message), 0);
  gint64 now = g_get_monotonic_time ();
  PendingExit *exit;
  Sender *sender;
  Budget *app;

  g_mutex_lock (&self->exits_lock);
  sender = lookup_sender (self, name, now);
  app = lookup_app_budget (sender, g_variant_get_string (app_arg, NULL), now);
  if (sender->budget.tokens < 1)
    {
      g_mutex_unlock (&self->exits_lock);
      return "Too many exit reports from this connection; this one was not counted";
    }
  if (app != NULL && app->tokens < 1)
    {
      g_mutex_unlock (&self->exits_lock);
      return "Too many exit reports of this app from this connection; this one was not counted";
    }
  sender->budget.tokens -= 1;
  if (app != NULL)
    app->tokens -= 1;
  sender->pending++;
  g_mutex_unlock (&self->exits_lock);

  exit = g_new0 (PendingExit, 1);
  exit->fast_path = fast_path_ref (self);
  exit->sender = g_strdup (name);
  g_object_set_data_full (G_OBJECT (message), "sr-pending-exit", exit,
                          (GDestroyNotify) pending_exit_done);
  return NULL;
}

static gboolean
has_pending_exits (SrFastPath *self,
                   const char *name)
{
  Sender *sender;
  gboolean pending;

  g_mutex_lock (&self->exits_lock);
  sender = g_hash_table_lookup (self->senders, name);
  pending = sender != NULL && sender->pending > 0;
  g_mutex_unlock (&self->exits_lock);
  return pending;
}

static void
reply_error (SrFastPath   *self,
             GDBusMessage *message,
             SrError       code,
             const char   *text)
{
  g_autoptr(GDBusMessage) reply = NULL;
  g_autoptr(GError) error = g_error_new_literal (SR_ERROR, code, text);
  g_autofree char *name = g_dbus_error_encode_gerror (error);

  if ((g_dbus_message_get_flags (message) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) != 0)
    return;
  reply = g_dbus_message_new_method_error_literal (message, name, text);
  g_dbus_connection_send_message (self->bus, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
}

/* With the reader lock held, the sources open. TRUE when @message was
 * answered. */
static gboolean
answer_on_worker (SrFastPath   *self,
                  GDBusMessage *message)
{
  const SrFastPathSources *sources = &self->sources;
  const char *member = g_dbus_message_get_member (message);
  const char *signature = g_dbus_message_get_signature (message);
  const char *sender = g_dbus_message_get_sender (message);
  GVariant *params = g_dbus_message_get_body (message);
  g_autoptr(GDBusMessage) reply = NULL;
  g_autoptr(SrCaller) caller = NULL;
  g_autoptr(GVariant) app_arg = NULL;
  g_autoptr(GVariant) answer = NULL;
  SrDecisionContext ctx;
  gboolean restore;

  if (g_strcmp0 (g_dbus_message_get_path (message), SR_OBJECT_PATH) != 0 ||
      g_strcmp0 (g_dbus_message_get_interface (message), SR_INTERFACE_NAME) != 0 ||
      sender == NULL || params == NULL)
    return FALSE;
  if (g_strcmp0 (member, "NoteExit") == 0 && g_strcmp0 (signature, "sb") == 0)
    {
      const char *refused = note_pending_exit (self, message, sender);

      if (refused == NULL)
        return FALSE;
      reply_error (self, message, SR_ERROR_FAILED, refused);
      return TRUE;
    }
  if (g_strcmp0 (member, "CheckSave") == 0 && g_strcmp0 (signature, "s") == 0)
    restore = FALSE;
  else if (g_strcmp0 (member, "CheckRestore") == 0 && g_strcmp0 (signature, "sua{sv}") == 0)
    restore = TRUE;
  else
    return FALSE;
  if (has_pending_exits (self, sender))
    return FALSE;

  /* The gate's order: the sandbox rule, then the arguments (an app id
   * that is not valid fails in the rules); refusals go to the gate. */
  caller = sr_caller_cache_dup (sources->callers, sender);
  app_arg = g_variant_get_child_value (params, 0);
  if (caller == NULL || !sr_caller_may_ask_about (caller, g_variant_get_string (app_arg, NULL)))
    return FALSE;
  /* A connection's first check notes its program as a consumer, on the
   * main thread (sr-consumers.c): one that read the properties or listed
   * first was known here, and never named. */
  if (__atomic_load_n (&caller->last_call, __ATOMIC_RELAXED) == 0)
    return FALSE;

  ctx = (SrDecisionContext) {
    .policy = sr_settings_dup_policy (sources->settings),
    .crash_guard = sources->crash_guard,
    .clear_points = sources->clear_points,
    .now = g_get_real_time (),
  };
  answer = sr_decide_call (&ctx, restore, params, NULL);
  sr_policy_unref (ctx.policy);
  if (answer == NULL)
    return FALSE;
  g_variant_ref_sink (answer);
  /* A check that would ask the user waits on the main thread for the
   * login prompt (sr-prompt.c), or is told ASK there if it may not. */
  if (restore && sr_decide_is_interactive (answer))
    return FALSE;
  /* The guard's DENY to a host consumer: it starts the app without its
   * state, a held start, as on the main thread (sr-daemon.c). */
  if (restore && sr_decide_is_crash_loop (answer))
    sr_crash_guard_note_held_start (sources->crash_guard, g_variant_get_string (app_arg, NULL),
                                    caller->kind == SR_CALLER_HOST ? caller->sender : NULL);
  __atomic_store_n (&caller->last_call, ctx.now, __ATOMIC_RELAXED);

  if ((g_dbus_message_get_flags (message) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) != 0)
    return TRUE;
  reply = g_dbus_message_new_method_reply (message);
  g_dbus_message_set_body (reply, answer);
  /* Fails only when the connection is closing; policyd then exits. */
  g_dbus_connection_send_message (self->bus, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
  return TRUE;
}

static gboolean
on_trim_cb (gpointer user_data)
{
  SrFastPath *self = user_data;

  g_atomic_int_set (&self->trim_due, 0);
  malloc_trim (0);
  return G_SOURCE_REMOVE;
}

static gboolean
on_large_message_freed_cb (gpointer user_data)
{
  malloc_trim (0);
  return G_SOURCE_REMOVE;
}

/* When a large message goes (after its answer, whatever the outcome):
 * the trim runs next, once what the message held is freed too. */
static void
on_large_message_done (gpointer data)
{
  g_idle_add_full (G_PRIORITY_LOW, on_large_message_freed_cb, NULL, NULL);
}

static gboolean
is_large (GDBusMessage *message)
{
  GVariant *body = g_dbus_message_get_body (message);

  return body != NULL && g_variant_get_size (body) >= LARGE_MESSAGE;
}

/* On GDBus's worker thread, for every message: the one filter policyd
 * has. Timeouts are added to the main context. */
static GDBusMessage *
on_message_cb (GDBusConnection *bus,
               GDBusMessage    *message,
               gboolean         incoming,
               gpointer         user_data)
{
  SrFastPath *self = user_data;

  if (!incoming)
    return message;
  if (g_atomic_int_compare_and_exchange (&self->trim_due, 0, 1))
    g_timeout_add_seconds_full (G_PRIORITY_LOW, TRIM_DELAY_SECS, on_trim_cb,
                                fast_path_ref (self), (GDestroyNotify) fast_path_unref);
  if (is_large (message))
    g_object_set_data_full (G_OBJECT (message), "sr-large-message", message,
                            on_large_message_done);
  if (g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    return message;

  g_atomic_int_set (&self->calls_seen, 1);
  g_rw_lock_reader_lock (&self->lock);
  if (self->open && answer_on_worker (self, message))
    g_clear_object (&message);
  g_rw_lock_reader_unlock (&self->lock);
  return message;
}

SrFastPath *
sr_fast_path_open (GDBusConnection         *bus,
                   const SrFastPathSources *sources)
{
  SrFastPath *self = g_atomic_rc_box_new0 (SrFastPath);

  self->bus = g_object_ref (bus);
  g_rw_lock_init (&self->lock);
  g_mutex_init (&self->exits_lock);
  self->senders = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) sender_free);
  self->sources = *sources;
  self->open = TRUE;
  /* The filter holds a reference, given back by GDBus once the filter can
   * no longer run; the caller holds the one sr_fast_path_close() drops. */
  self->filter_id = g_dbus_connection_add_filter (bus, on_message_cb, fast_path_ref (self),
                                                  (GDestroyNotify) fast_path_unref);
  return self;
}

/* After this, no answer is given on the worker thread, and the sources may
 * go. */
void
sr_fast_path_close (SrFastPath *self)
{
  g_rw_lock_writer_lock (&self->lock);
  self->open = FALSE;
  self->sources = (SrFastPathSources) { NULL };
  g_rw_lock_writer_unlock (&self->lock);
  g_dbus_connection_remove_filter (self->bus, self->filter_id);
  fast_path_unref (self);
}

/* Whether a method call came since the last time this was asked. */
gboolean
sr_fast_path_take_calls_seen (SrFastPath *self)
{
  return g_atomic_int_exchange (&self->calls_seen, 0) != 0;
}
