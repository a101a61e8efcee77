/* sr-prompt.c: the login prompt, asked once for every interactive check
 *
 * With login-restore "ask", a host caller's CheckRestore for RESTORE with
 * the option "interactive" is held here until the user has answered. The
 * first such check starts a round: the stored state is listed (on the
 * store worker), and the panel's prompt (org.gnome.SessionRestore.Prompt
 * on the D-Bus-activatable name org.gnome.SessionRestore) is asked, once,
 * with the apps that have state to reopen at login and those that are
 * waiting. Every check that arrives meanwhile waits for the same answer.
 *
 * The answer holds for the rest of this policyd's life, which is the
 * session bus's: the next login asks again. What counts as an answer:
 * - Restore, with the apps the user unticked: those are DENY "declined",
 *   the others go on through the rules (ALLOW, or "cleared"/"expired");
 * - Don't Restore, the prompt closed, or the prompt gone off the bus
 *   without a reply (it crashed): DENY "declined" for every app;
 * - no answer within the timeout (SR_PROMPT_DEFAULT_TIMEOUT seconds from
 *   the first check, or $SR_PROMPT_TIMEOUT): DENY "ask-timeout", and the
 *   prompt is told to Close;
 * - no prompt to ask (the name cannot be activated, or does not have the
 *   interface), or one that is not the login prompt: DENY "ask-unavailable".
 *
 * Whoever owns org.gnome.SessionRestore would be told every app id and
 * would answer for the user. So the name is only used to start the
 * prompt: its owner is then identified as policyd identifies its callers
 * (sr-caller.c: a host process, not sandboxed) and must be of this user
 * and run the installed session-restore-panel (sr-peer.c;
 * SR_PROMPT_EXECUTABLE names another program, for uninstalled builds and
 * tests). Ask and Close then go to that unique name, which no other
 * connection can ever have; the well-known name may change hands meanwhile.
 *
 * Nothing here blocks: the listing and the prompt's reply arrive on the
 * main loop, which answers everything else meanwhile. When the settings
 * change while checks wait (the master switch off, login-restore locked
 * to "never", an app excluded), the checks that the rules now answer
 * otherwise are answered at once; when none is left waiting, the round
 * ends and the prompt is told to Close.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-prompt"

#include "config.h"

#include <stdlib.h>

#include "sr-error.h"
#include "sr-peer.h"
#include "sr-prompt.h"

typedef enum {
  PROMPT_IDLE,      /* nobody has asked yet, or the last round was dropped */
  PROMPT_LISTING,   /* listing the apps to show, starting and verifying the prompt */
  PROMPT_ASKING,    /* the prompt's Ask call is out */
  PROMPT_SETTLED,   /* answered for good */
} PromptState;

/* One attempt at asking; callbacks outliving it (or the prompt) find
 * prompt cleared. */
typedef struct {
  SrPrompt *prompt;   /* (unowned) (nullable) */
} Round;

typedef struct {
  GVariant *params;                    /* (owned) */
  GDBusMethodInvocation *invocation;   /* (owned) */
} Waiting;

struct _SrPrompt {
  GDBusConnection *bus;          /* (owned) */
  SrStoreWorker *stores;         /* (owned) */
  SrCallerCache *callers;        /* (owned) */
  const char *executable;        /* (unowned): what the prompt must run */
  SrDecisionContextFunc decision_context;
  gpointer owner;                /* (unowned): outlives the prompt */
  guint timeout_secs;

  PromptState state;
  Round *round;                  /* (owned) (nullable): while listing or asking */
  GCancellable *cancellable;     /* (owned) (nullable): the round's calls */
  GVariant *apps;                /* (owned) (nullable): the round's apps to show */
  char *prompt_name;             /* (owned) (nullable): the unique name of the
                                  * round's prompt, once known; asked only
                                  * once verified */
  guint timeout_id;
  GPtrArray *waiting;            /* (owned) Waiting */

  const char *deny_why;          /* the answer, once settled */
  GHashTable *declined;          /* (owned) (nullable) */
};

static void
waiting_free (Waiting *waiting)
{
  g_variant_unref (waiting->params);
  g_clear_object (&waiting->invocation);
  g_free (waiting);
}

static Round *
round_ref (Round *round)
{
  return g_rc_box_acquire (round);
}

static void
round_unref (Round *round)
{
  g_rc_box_release (round);
}

static void
reply (GDBusMethodInvocation *invocation,
       GVariant              *answer,
       GError                *error)
{
  if (answer != NULL)
    g_dbus_method_invocation_return_value (invocation, answer);
  else
    g_dbus_method_invocation_return_gerror (invocation, error);
}

/* Answers @waiting (and frees it) if the rules, given the answer so far,
 * no longer ask the user. */
static gboolean
try_answer (SrPrompt *self,
            Waiting  *waiting)
{
  g_autoptr(GError) error = NULL;
  SrLoginAnswer answer = { self->deny_why, self->declined };
  SrDecisionContext ctx = self->decision_context (self->owner);
  GVariant *result;

  /* The answer to the check now, given the user's (NULL: none yet). */
  ctx.login_answer = self->state == PROMPT_SETTLED ? &answer : NULL;
  result = sr_decide_call (&ctx, TRUE, waiting->params, &error);
  if (result != NULL)
    {
      g_variant_ref_sink (result);
      if (sr_decide_is_interactive (result))
        {
          g_variant_unref (result);
          return FALSE;
        }
    }
  reply (waiting->invocation, result, error);
  g_clear_pointer (&result, g_variant_unref);
  waiting_free (waiting);
  return TRUE;
}

/* Only the prompt that was asked is told: by its unique name. */
static void
close_prompt (SrPrompt *self)
{
  if (self->prompt_name == NULL)
    return;
  g_dbus_connection_call (self->bus, self->prompt_name, SR_PROMPT_OBJECT_PATH,
                          SR_PROMPT_INTERFACE, "Close", NULL, NULL,
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL, NULL, NULL);
}

/* Ends the current round: its callbacks will find nothing to do. */
static void
end_round (SrPrompt *self)
{
  g_clear_handle_id (&self->timeout_id, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->apps, g_variant_unref);
  g_clear_pointer (&self->prompt_name, g_free);
  if (self->round != NULL)
    {
      self->round->prompt = NULL;
      g_clear_pointer (&self->round, round_unref);
    }
}

static void
settle (SrPrompt   *self,
        const char *deny_why,
        GHashTable *declined)
{
  g_autoptr(GPtrArray) waiting = g_steal_pointer (&self->waiting);

  end_round (self);
  self->state = PROMPT_SETTLED;
  self->deny_why = deny_why;
  self->declined = declined;
  self->waiting = g_ptr_array_new_with_free_func ((GDestroyNotify) waiting_free);
  g_message ("The login prompt was answered: %s; %u checks waited",
             deny_why != NULL ? deny_why : "restore", waiting->len);

  /* try_answer() frees each. */
  g_ptr_array_set_free_func (waiting, NULL);
  for (guint i = 0; i < waiting->len; i++)
    {
      /* Settled, the rules never ask again. */
      if (!try_answer (self, waiting->pdata[i]))
        g_assert_not_reached ();
    }
}

static gboolean
on_timeout_cb (gpointer user_data)
{
  SrPrompt *self = user_data;

  self->timeout_id = 0;
  g_message ("Nobody answered the login prompt within %u s", self->timeout_secs);
  close_prompt (self);
  settle (self, "ask-timeout", NULL);
  return G_SOURCE_REMOVE;
}

/* Errors that mean there is no prompt to ask, as against one that went
 * away without answering. */
static gboolean
is_unavailable (const GError *error)
{
  g_autofree char *remote = g_dbus_error_get_remote_error (error);

  return g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_INTERFACE) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_EXEC_FAILED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FORK_FAILED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_CHILD_EXITED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_CHILD_SIGNALED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FAILED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_SETUP_FAILED) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_CONFIG_INVALID) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_SERVICE_INVALID) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_PERMISSIONS_INVALID) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FILE_INVALID) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_NO_MEMORY) ||
         g_strcmp0 (remote, "org.freedesktop.DBus.Error.Spawn.NoMemory") == 0;
}

static void
on_asked_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Round *round = user_data;
  SrPrompt *self = round->prompt;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) answer = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                              result, &error);
  g_autofree const char **declined = NULL;
  gboolean restore = FALSE, remember = FALSE;
  GHashTable *set;

  round_unref (round);
  if (self == NULL)
    return;

  if (answer == NULL)
    {
      g_message ("The login prompt did not answer: %s", error->message);
      settle (self, is_unavailable (error) ? "ask-unavailable" : "declined", NULL);
      return;
    }

  g_variant_get (answer, "(b^a&sb)", &restore, &declined, &remember);
  if (!restore)
    {
      settle (self, "declined", NULL);
      return;
    }
  set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; declined[i] != NULL; i++)
    g_hash_table_add (set, g_strdup (declined[i]));
  settle (self, NULL, set);
}

/* A round's step is done: @error, if any, ends the round ("declined" for a
 * prompt that went away, else "ask-unavailable"). Returns the prompt to go
 * on with, or NULL. */
static SrPrompt *
step_done (Round        *round,
           const GError *error)
{
  SrPrompt *self = round->prompt;

  round_unref (round);
  if (self == NULL || error == NULL)
    return self;
  g_message ("The login prompt did not answer: %s", error->message);
  settle (self, is_unavailable (error) ? "ask-unavailable" : "declined", NULL);
  return NULL;
}

/* Whether @caller, the owner of the prompt's name, is the login prompt. */
static gboolean
is_the_prompt (SrPrompt  *self,
               SrCaller  *caller,
               GError   **error)
{
  return sr_peer_check_identity (caller->uid,
                                 caller->kind != SR_CALLER_HOST ? caller->app_id : NULL,
                                 error) &&
         sr_peer_check_executable (caller->pid, caller->start_time, self->executable, error);
}

static void
on_prompt_identified_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  Round *round = user_data;
  SrPrompt *self = round->prompt;
  g_autoptr(GError) error = NULL;
  g_autoptr(SrCaller) caller = sr_caller_cache_lookup_finish (SR_CALLER_CACHE (source),
                                                              result, &error);

  /* The prompt keeps the round alive while it is its own. */
  round_unref (round);
  if (self == NULL)
    return;
  if (caller == NULL || !is_the_prompt (self, caller, &error))
    {
      g_warning ("Not asking %s (%s): it is not the login prompt: %s",
                 SR_PROMPT_BUS_NAME, self->prompt_name, error->message);
      settle (self, "ask-unavailable", NULL);
      return;
    }

  self->state = PROMPT_ASKING;
  /* The user may take minutes: no call timeout, the round has its own. */
  g_dbus_connection_call (self->bus, self->prompt_name, SR_PROMPT_OBJECT_PATH, SR_PROMPT_INTERFACE,
                          "Ask", g_variant_new_tuple (&self->apps, 1),
                          G_VARIANT_TYPE ("(basb)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, G_MAXINT,
                          self->cancellable, on_asked_cb, round_ref (self->round));
}

static void ask_owner (SrPrompt *self, gboolean started);

static void
on_started_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  Round *round = user_data;
  g_autoptr(GError) error = NULL;
  GVariant *reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                   result, &error);
  SrPrompt *self;

  g_clear_pointer (&reply, g_variant_unref);   /* only whether it came matters */
  self = step_done (round, error);

  if (self != NULL)
    ask_owner (self, TRUE);
}

static void
start_prompt (SrPrompt *self)
{
  g_dbus_connection_call (self->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "StartServiceByName",
                          g_variant_new ("(su)", SR_PROMPT_BUS_NAME, 0), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, self->cancellable, on_started_cb,
                          round_ref (self->round));
}

typedef struct {
  Round *round;        /* (owned) */
  gboolean started;    /* the prompt was started for this round */
} OwnerQuery;

static void
on_owner_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autofree OwnerQuery *query = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                             result, &error);
  SrPrompt *self;

  /* Not running (yet): start it, once. */
  if (reply == NULL && !query->started &&
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER))
    {
      if ((self = step_done (query->round, NULL)) != NULL)
        start_prompt (self);
      return;
    }
  self = step_done (query->round, error);
  if (self == NULL)
    return;
  g_variant_get (reply, "(s)", &self->prompt_name);
  sr_caller_cache_lookup_async (self->callers, self->prompt_name, on_prompt_identified_cb,
                                round_ref (self->round));
}

/* The name may belong to anyone: it is asked nothing, the bus is asked
 * who owns it. */
static void
ask_owner (SrPrompt *self,
           gboolean  started)
{
  OwnerQuery *query = g_new0 (OwnerQuery, 1);

  query->round = round_ref (self->round);
  query->started = started;
  g_dbus_connection_call (self->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetNameOwner",
                          g_variant_new ("(s)", SR_PROMPT_BUS_NAME), G_VARIANT_TYPE ("(s)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, self->cancellable, on_owner_cb, query);
}

static void
on_listed_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Round *round = user_data;
  SrPrompt *self = round->prompt;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) listing = sr_store_worker_finish (SR_STORE_WORKER (source), result, &error);
  g_autoptr(GVariant) shown = NULL;
  g_autoptr(GHashTable) seen = NULL;
  g_auto(GVariantBuilder) apps = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sa{sv})"));
  SrDecisionContext ctx;
  GVariantIter iter;
  const char *app_id;
  GVariant *info;

  if (self == NULL)
    {
      round_unref (round);
      return;
    }
  if (listing == NULL)
    {
      g_warning ("Could not list the stored state for the login prompt: %s", error->message);
      listing = g_variant_ref_sink (g_variant_new_array (G_VARIANT_TYPE ("(sa{sv})"), NULL, 0));
    }

  /* The apps with state to reopen, then the waiting ones not among them. */
  ctx = self->decision_context (self->owner);
  shown = g_variant_ref_sink (sr_decide_login_apps (&ctx, listing));
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_variant_iter_init (&iter, shown);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &app_id, &info))
    {
      g_hash_table_add (seen, (gpointer) app_id);
      g_variant_builder_add (&apps, "(s@a{sv})", app_id, info);
      g_variant_unref (info);
    }
  for (guint i = 0; i < self->waiting->len; i++)
    {
      Waiting *one = self->waiting->pdata[i];

      g_variant_get_child (one->params, 0, "&s", &app_id);
      if (!g_hash_table_contains (seen, app_id))
        {
          g_hash_table_add (seen, (gpointer) app_id);
          g_variant_builder_add (&apps, "(s@a{sv})", app_id,
                                 g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0));
        }
    }

  self->apps = g_variant_ref_sink (g_variant_builder_end (&apps));
  round_unref (round);
  ask_owner (self, FALSE);
}

static void
start_round (SrPrompt *self)
{
  self->state = PROMPT_LISTING;
  self->round = g_rc_box_new0 (Round);
  self->round->prompt = self;
  self->cancellable = g_cancellable_new ();
  self->timeout_id = g_timeout_add_seconds (self->timeout_secs, on_timeout_cb, self);
  sr_store_worker_list_async (self->stores, on_listed_cb, round_ref (self->round));
}

void
sr_prompt_hold (SrPrompt              *self,
                GVariant              *params,
                GDBusMethodInvocation *invocation)
{
  Waiting *waiting = g_new0 (Waiting, 1);

  waiting->params = g_variant_ref (params);
  waiting->invocation = g_object_ref (invocation);
  if (self->state == PROMPT_SETTLED)
    {
      if (!try_answer (self, waiting))
        g_assert_not_reached ();
      return;
    }
  g_ptr_array_add (self->waiting, waiting);
  if (self->state == PROMPT_IDLE)
    start_round (self);
}

void
sr_prompt_reconsider (SrPrompt *self)
{
  if (self->state != PROMPT_LISTING && self->state != PROMPT_ASKING)
    return;

  for (guint i = self->waiting->len; i > 0; i--)
    {
      Waiting *one = self->waiting->pdata[i - 1];

      if (try_answer (self, one))
        g_ptr_array_steal_index (self->waiting, i - 1);
    }
  if (self->waiting->len == 0)
    {
      g_message ("No check waits for the login prompt any more: closing it");
      if (self->state == PROMPT_ASKING)
        close_prompt (self);
      end_round (self);
      self->state = PROMPT_IDLE;
    }
}

static guint
timeout_from_env (void)
{
  const char *text = g_getenv ("SR_PROMPT_TIMEOUT");
  guint64 secs;

  if (text == NULL)
    return SR_PROMPT_DEFAULT_TIMEOUT;
  if (!g_ascii_string_to_unsigned (text, 10, 1, 24 * 3600, &secs, NULL))
    {
      g_warning ("SR_PROMPT_TIMEOUT=%s is not a number of seconds from 1 to 86400; using %u",
                 text, SR_PROMPT_DEFAULT_TIMEOUT);
      return SR_PROMPT_DEFAULT_TIMEOUT;
    }
  return (guint) secs;
}

SrPrompt *
sr_prompt_new (GDBusConnection       *bus,
               SrStoreWorker         *stores,
               SrCallerCache         *callers,
               SrDecisionContextFunc  decision_context,
               gpointer               owner)
{
  SrPrompt *self = g_new0 (SrPrompt, 1);

  self->bus = g_object_ref (bus);
  self->stores = g_object_ref (stores);
  self->callers = g_object_ref (callers);
  self->executable = sr_peer_expected_executable ("SR_PROMPT_EXECUTABLE", SR_PANEL_EXECUTABLE);
  self->decision_context = decision_context;
  self->owner = owner;
  self->timeout_secs = timeout_from_env ();
  self->waiting = g_ptr_array_new_with_free_func ((GDestroyNotify) waiting_free);
  return self;
}

/* Checks still waiting are told no prompt could be shown. */
void
sr_prompt_free (SrPrompt *self)
{
  end_round (self);
  for (guint i = 0; i < self->waiting->len; i++)
    {
      Waiting *one = self->waiting->pdata[i];

      g_dbus_method_invocation_return_value (one->invocation,
                                             g_variant_new ("(us)", SR_VERDICT_DENY,
                                                            "ask-unavailable"));
    }
  g_ptr_array_unref (self->waiting);
  g_clear_pointer (&self->declined, g_hash_table_unref);
  g_object_unref (self->callers);
  g_object_unref (self->stores);
  g_object_unref (self->bus);
  g_free (self);
}
