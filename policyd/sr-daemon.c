/* sr-daemon.c: the org.gnome.SessionRestore.Policy object
 *
 * Every method call goes through gate(): validate the arguments (and the
 * locks), identify the caller, apply the sandbox rule, ask polkit where the
 * method changes something, and only then run it. The methods themselves
 * are the table below.
 *
 * CheckSave and CheckRestore, most of what policyd is asked, usually do
 * not wait for the main thread at all: see "The fast path" below.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-daemon"

#include "config.h"

#include <malloc.h>

#include "sr-bus.h"
#include "sr-app-id.h"
#include "sr-polkit.h"
#include "sr-caller.h"
#include "sr-clear-points.h"
#include "sr-crash-guard.h"
#include "sr-daemon.h"
#include "sr-decide.h"
#include "sr-error.h"
#include "sr-dbus-iface.h"
#include "sr-state-file.h"
#include "sr-store-worker.h"
#include "sr-store-dropin.h"

#define USEC_PER_DAY (G_USEC_PER_SEC * (gint64) 86400)
#define MAINTENANCE_INTERVAL_SECS (24 * 60 * 60)
#define FIRST_MAINTENANCE_QUIET_SECS 1
#define FIRST_MAINTENANCE_LATEST_SECS 30

struct _SrDaemon {
  SrSettings *settings;          /* (owned) */
  SrCrashGuard *crash_guard;     /* (owned) */
  SrClearPoints *clear_points;   /* (owned) */
  SrPolkit *authority;        /* (owned) */
  SrStoreWorker *storage;            /* (owned) */
  SrCallerCache *callers;        /* (owned) (nullable): once exported */
  GDBusConnection *bus;          /* (owned) (nullable): once exported */
  guint registration_id;
  guint filter_id;
  gulong settings_changed_id;
  gulong state_to_clear_id;
  guint maintenance_id;
  guint first_maintenance_id;
  gint64 exported_at;            /* monotonic µs */
};

typedef struct _Method Method;

/* check: argument validation and lock checks, before anything else.
 * run: the method itself, once the caller is authorized. */
struct _Method {
  const char *name;
  const char *polkit_action;      /* NULL: no polkit (the hot path) */
  gboolean sandboxed_own_app;     /* sandboxed callers may call it about
                                   * their own app id, given as argument 0 */
  gboolean (*check) (SrDaemon *self, GVariant *params, GError **error);
  void (*run) (SrDaemon *self, GVariant *params, GDBusMethodInvocation *invocation);
};

/* @policy: the main thread's, or a snapshot on another thread */
static SrDecisionContext
decision_context (SrDaemon       *self,
                  const SrPolicy *policy)
{
  return (SrDecisionContext) {
    .policy = policy,
    .crash_guard = self->crash_guard,
    .clear_points = self->clear_points,
    .now = g_get_real_time (),
  };
}

/* The hot path reads its arguments and builds its answers without
 * GVariant format strings: parsing them costs more than the decision.
 * GDBus has already checked @params against the introspection data. */
static void
return_verdict (GDBusMethodInvocation *invocation,
                gboolean               ok,
                SrVerdict              verdict,
                const char            *why,
                GError                *error)
{
  GVariant *answer[2];

  if (!ok)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  answer[0] = g_variant_new_uint32 (verdict);
  answer[1] = g_variant_new_string (why);
  g_dbus_method_invocation_return_value (invocation, g_variant_new_tuple (answer, 2));
}

/* Argument @i of @params, a string; valid while @params lives. */
static const char *
string_arg (GVariant *params,
            gsize     i)
{
  g_autoptr(GVariant) child = g_variant_get_child_value (params, i);

  /* A child shares its parent's data, serialized or not, so the string
   * outlives the child's reference. */
  return g_variant_get_string (child, NULL);
}

static gboolean
check_app_id_arg (SrDaemon  *self,
                  GVariant  *params,
                  GError   **error)
{
  return sr_app_id_validate (string_arg (params, 0), error);
}

static void
run_check_save (SrDaemon              *self,
                GVariant              *params,
                GDBusMethodInvocation *invocation)
{
  SrDecisionContext ctx = decision_context (self, sr_settings_get_policy (self->settings));
  g_autoptr(GError) error = NULL;
  const char *app_id, *why = NULL;
  SrVerdict verdict = SR_VERDICT_DENY;
  gboolean ok;

  app_id = string_arg (params, 0);
  ok = sr_decide_save (&ctx, app_id, &verdict, &why, &error);
  return_verdict (invocation, ok, verdict, why, error);
}

static void
run_check_restore (SrDaemon              *self,
                   GVariant              *params,
                   GDBusMethodInvocation *invocation)
{
  SrDecisionContext ctx = decision_context (self, sr_settings_get_policy (self->settings));
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reason_arg = g_variant_get_child_value (params, 1);
  g_autoptr(GVariant) options = g_variant_get_child_value (params, 2);
  const char *app_id = string_arg (params, 0), *why = NULL;
  guint32 reason = g_variant_get_uint32 (reason_arg);
  SrVerdict verdict = SR_VERDICT_DENY;
  gboolean ok;

  ok = sr_decide_restore (&ctx, app_id, reason, options, &verdict, &why, &error);
  return_verdict (invocation, ok, verdict, why, error);
}

static void
run_note_exit (SrDaemon              *self,
               GVariant              *params,
               GDBusMethodInvocation *invocation)
{
  const SrPolicy *policy = sr_settings_get_policy (self->settings);
  g_autoptr(GError) error = NULL;
  const char *app_id;
  gboolean voluntary;

  g_variant_get (params, "(&sb)", &app_id, &voluntary);

  /* The guard has counted the exit in memory either way; a disk that will
   * not take the counters is the administrator's problem, not the
   * consumer's, so the call still succeeds. */
  if (!sr_crash_guard_note_exit (self->crash_guard, app_id, voluntary,
                                 g_get_real_time (), policy->crash_loop_window,
                                 &error))
    g_warning ("Could not save crash counters: %s", error->message);

  g_dbus_method_invocation_return_value (invocation, NULL);
}

static gboolean
check_set_setting (SrDaemon  *self,
                   GVariant  *params,
                   GError   **error)
{
  g_autoptr(GVariant) value = NULL;
  const char *key;

  g_variant_get (params, "(&sv)", &key, &value);
  return sr_settings_check_set (self->settings, key, value, error);
}

static void
on_storage_settled_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;

  g_dbus_method_invocation_return_value (invocation, NULL);
}

/* A change that excluded apps or turned the switch off has queued their
 * removal (see on_state_to_clear_cb); the reply waits until it is done. */
static void
return_after_storage_settles (SrDaemon              *self,
                              GDBusMethodInvocation *invocation)
{
  sr_store_worker_barrier_async (self->storage, on_storage_settled_cb, g_object_ref (invocation));
}

static void
run_set_setting (SrDaemon              *self,
                 GVariant              *params,
                 GDBusMethodInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) value = NULL;
  const char *key;

  g_variant_get (params, "(&sv)", &key, &value);
  if (!sr_settings_set (self->settings, key, value, &error))
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    return_after_storage_settles (self, invocation);
}

static gboolean
check_set_app_excluded (SrDaemon  *self,
                        GVariant  *params,
                        GError   **error)
{
  g_autoptr(GVariant) list = NULL;
  const char *app_id;
  gboolean excluded;

  g_variant_get (params, "(&sb)", &app_id, &excluded);
  if (!sr_app_id_validate (app_id, error))
    return FALSE;
  list = g_variant_ref_sink (sr_settings_excluded_with (self->settings, app_id, excluded));
  return sr_settings_check_set (self->settings, "excluded-apps", list, error);
}

static void
run_set_app_excluded (SrDaemon              *self,
                      GVariant              *params,
                      GDBusMethodInvocation *invocation)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) list = NULL;
  const char *app_id;
  gboolean excluded;

  /* The list is rebuilt from the settings of now, not of when the call
   * arrived: another change may have landed while polkit answered. */
  g_variant_get (params, "(&sb)", &app_id, &excluded);
  list = g_variant_ref_sink (sr_settings_excluded_with (self->settings, app_id, excluded));
  if (!sr_settings_set (self->settings, "excluded-apps", list, &error))
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    return_after_storage_settles (self, invocation);
}

/* The one way state is cleared: the clear point first, durably, so that
 * the clear holds whatever happens next; then the signal, so that owners
 * drop their copies; then the removal. @strict: when the clear point
 * cannot be written, fail and remove nothing (an explicit Clear); otherwise
 * warn and remove anyway (an exclusion or the switch, which the rules
 * enforce on their own). @apps NULL or empty: everything. */
static gboolean
clear_state (SrDaemon             *self,
             const char * const   *apps,
             gboolean              strict,
             GAsyncReadyCallback   callback,
             gpointer              user_data,
             GError              **error)
{
  gboolean all = apps == NULL || apps[0] == NULL;
  g_autoptr(GError) local_error = NULL;

  if (!sr_clear_points_record (self->clear_points, all ? NULL : apps,
                               g_get_real_time (), &local_error))
    {
      if (strict)
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                      "Nothing was cleared: ");
          return FALSE;
        }
      g_warning ("Clearing without a clear point: %s", local_error->message);
    }

  if (self->registration_id != 0)
    g_dbus_connection_emit_signal (self->bus, NULL, SR_OBJECT_PATH, sr_dbus_policy_interface.name,
                                   "StoredStateCleared",
                                   g_variant_new ("(@as)",
                                                  g_variant_new_strv (all ? NULL : apps,
                                                                      all ? 0 : -1)),
                                   NULL);

  sr_store_worker_remove_async (self->storage, all ? NULL : apps, 0, callback, user_data);
  return TRUE;
}

static void
log_removal (const char *what,
             GVariant   *report)
{
  guint entries = 0;
  guint64 bytes = 0;

  if (report == NULL)
    return;
  g_variant_lookup (report, "entries", "u", &entries);
  g_variant_lookup (report, "bytes", "t", &bytes);
  if (entries > 0)
    g_message ("%s: removed %u entries, %" G_GUINT64_FORMAT " bytes", what, entries, bytes);
}

static void
on_settings_cleared_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(GVariant) report = sr_store_worker_finish (NULL, result, NULL);

  log_removal ("Opt-out", report);
}

static void
on_state_to_clear_cb (SrSettings  *settings,
                      const char **apps,
                      SrDaemon    *self)
{
  clear_state (self, apps, FALSE, on_settings_cleared_cb, NULL, NULL);
}

static gboolean
check_clear (SrDaemon  *self,
             GVariant  *params,
             GError   **error)
{
  g_autofree const char **apps = NULL;

  g_variant_get (params, "(^a&s)", &apps);
  return sr_app_id_list_validate (apps, error);
}

/* The reply to Clear (a report) or ListStoredState (a listing). */
static void
on_storage_answer_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GDBusMethodInvocation) invocation = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) answer = sr_store_worker_finish (NULL, result, &error);

  if (answer == NULL)
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    g_dbus_method_invocation_return_value (invocation, g_variant_new_tuple (&answer, 1));
}

static void
run_clear (SrDaemon              *self,
           GVariant              *params,
           GDBusMethodInvocation *invocation)
{
  g_autofree const char **apps = NULL;
  g_autoptr(GError) error = NULL;

  g_variant_get (params, "(^a&s)", &apps);
  if (!clear_state (self, apps, TRUE, on_storage_answer_cb, g_object_ref (invocation), &error))
    {
      g_object_unref (invocation);
      g_dbus_method_invocation_return_gerror (invocation, error);
    }
}

static void
run_list_stored_state (SrDaemon              *self,
                       GVariant              *params,
                       GDBusMethodInvocation *invocation)
{
  sr_store_worker_list_async (self->storage, on_storage_answer_cb, g_object_ref (invocation));
}

static void
on_maintained_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GVariant) report = sr_store_worker_finish (NULL, result, NULL);

  log_removal (user_data, report);
}

/* At start-up (once idle) and daily: what the settings say must not be
 * kept is removed. The rules already refuse to restore it; this frees the
 * disk and keeps the promise of "max-age-days". */
static gboolean
run_maintenance (gpointer user_data)
{
  SrDaemon *self = user_data;
  const SrPolicy *policy = sr_settings_get_policy (self->settings);

  if (!policy->enabled)
    {
      sr_store_worker_remove_async (self->storage, NULL, 0, on_maintained_cb, (gpointer) "Switched off");
      return G_SOURCE_CONTINUE;
    }

  if (policy->max_age_days >= 0)
    sr_store_worker_remove_async (self->storage, NULL,
                             g_get_real_time () - policy->max_age_days * USEC_PER_DAY,
                             on_maintained_cb, (gpointer) "Retention");

  if (g_hash_table_size (policy->excluded) > 0)
    {
      g_autofree const char **apps =
        (const char **) g_hash_table_get_keys_as_array (policy->excluded, NULL);
      sr_store_worker_remove_async (self->storage, apps, 0, on_maintained_cb, (gpointer) "Excluded apps");
    }

  return G_SOURCE_CONTINUE;
}

/* Method calls seen by the filter since the last look; see below. */
static gint calls_seen;

/* The start-up maintenance waits for start-up's burst of calls to pass (at
 * login, the session manager asks about every app it restores): it runs
 * once a second has gone by without a call, or at the latest 30 s on, so
 * that the first answers do not share the machine with a search of the
 * stores. */
static gboolean
run_first_maintenance (gpointer user_data)
{
  SrDaemon *self = user_data;

  if (g_atomic_int_exchange (&calls_seen, 0) != 0 &&
      g_get_monotonic_time () - self->exported_at < FIRST_MAINTENANCE_LATEST_SECS * G_USEC_PER_SEC)
    return G_SOURCE_CONTINUE;

  self->first_maintenance_id = 0;
  run_maintenance (self);
  return G_SOURCE_REMOVE;
}

/* Properties go through the gate too: a sandboxed caller may not read
 * them (ExcludedApps names other apps). GDBus has checked that the
 * interface is ours and, for Get, that the property exists. */
static void
run_get_property (SrDaemon              *self,
                  GVariant              *params,
                  GDBusMethodInvocation *invocation)
{
  g_autoptr(GVariant) value = NULL;
  const char *name;

  g_variant_get (params, "(&s&s)", NULL, &name);
  value = sr_settings_get_property (self->settings, name);
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(v)", value));
}

static void
run_get_all_properties (SrDaemon              *self,
                        GVariant              *params,
                        GDBusMethodInvocation *invocation)
{
  g_auto(GVariantBuilder) all = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  for (guint i = 0; sr_dbus_policy_interface.properties[i] != NULL; i++)
    {
      const char *name = sr_dbus_policy_interface.properties[i]->name;
      g_autoptr(GVariant) value = sr_settings_get_property (self->settings, name);

      g_variant_builder_add (&all, "{sv}", name, value);
    }
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(a{sv})", &all));
}

static const Method property_methods[] = {
  { "Get", NULL, FALSE, NULL, run_get_property },
  { "GetAll", NULL, FALSE, NULL, run_get_all_properties },
};

static const Method methods[] = {
  { "CheckSave", NULL, TRUE, check_app_id_arg, run_check_save },
  { "CheckRestore", NULL, TRUE, check_app_id_arg, run_check_restore },
  { "NoteExit", NULL, TRUE, check_app_id_arg, run_note_exit },
  { "SetSetting", SR_ACTION_CONFIGURE, FALSE, check_set_setting, run_set_setting },
  { "SetAppExcluded", SR_ACTION_CONFIGURE, FALSE, check_set_app_excluded, run_set_app_excluded },
  { "ListStoredState", SR_ACTION_LIST, FALSE, NULL, run_list_stored_state },
  { "Clear", SR_ACTION_CLEAR, FALSE, check_clear, run_clear },
};

/* A call waiting for the bus (who is calling) or for polkit. */
typedef struct {
  SrDaemon *daemon;                    /* (unowned) */
  const Method *method;                /* (unowned) */
  GDBusMethodInvocation *invocation;   /* (owned) */
} PendingCall;

static void
pending_call_free (PendingCall *call)
{
  g_object_unref (call->invocation);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PendingCall, pending_call_free)

static PendingCall *
pending_call_new (SrDaemon              *self,
                  const Method          *method,
                  GDBusMethodInvocation *invocation)
{
  PendingCall *call = g_new0 (PendingCall, 1);

  call->daemon = self;
  call->method = method;
  call->invocation = g_object_ref (invocation);
  return call;
}

static void
run (SrDaemon              *self,
     const Method          *method,
     GDBusMethodInvocation *invocation)
{
  method->run (self, g_dbus_method_invocation_get_parameters (invocation), invocation);
}

static void
on_authorized_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PendingCall) call = user_data;
  g_autoptr(GError) error = NULL;

  if (!sr_polkit_check_finish (call->daemon->authority, result, &error))
    {
      g_debug ("%s refused: %s", call->method->name, error->message);
      g_dbus_method_invocation_return_gerror (call->invocation, error);
      return;
    }
  run (call->daemon, call->method, call->invocation);
}

static void
gate_with_caller (SrDaemon              *self,
                  const Method          *method,
                  const SrCaller        *caller,
                  GDBusMethodInvocation *invocation)
{
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  gboolean interactive;

  if (caller->kind != SR_CALLER_HOST)
    {
      const char *app_id = NULL;

      if (method->sandboxed_own_app)
        g_variant_get_child (g_dbus_method_invocation_get_parameters (invocation),
                             0, "&s", &app_id);
      if (app_id == NULL || g_strcmp0 (app_id, caller->app_id) != 0)
        {
          g_dbus_method_invocation_return_error (invocation, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                                                 "The sandboxed app %s may not call %s%s%s",
                                                 caller->app_id, method->name,
                                                 app_id ? " about " : "",
                                                 app_id ? app_id : "");
          return;
        }
    }

  if (method->polkit_action == NULL)
    {
      run (self, method, invocation);
      return;
    }

  interactive = (g_dbus_message_get_flags (message) &
                 G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;
  sr_polkit_check_async (self->authority, caller, method->polkit_action, interactive,
                            on_authorized_cb, pending_call_new (self, method, invocation));
}

static void
on_caller_identified_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(PendingCall) call = user_data;
  g_autoptr(GError) error = NULL;
  const SrCaller *caller;

  caller = sr_caller_cache_lookup_finish (call->daemon->callers, result, &error);
  if (caller == NULL)
    {
      g_debug ("%s refused: %s", call->method->name, error->message);
      g_dbus_method_invocation_return_gerror (call->invocation, error);
      return;
    }
  gate_with_caller (call->daemon, call->method, caller, call->invocation);
}

static void
gate (SrDaemon              *self,
      const Method          *method,
      GDBusMethodInvocation *invocation)
{
  const char *sender = g_dbus_method_invocation_get_sender (invocation);
  g_autoptr(GError) error = NULL;
  const SrCaller *caller;

  if (method->check != NULL &&
      !method->check (self, g_dbus_method_invocation_get_parameters (invocation), &error))
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }

  if (sender == NULL)
    {
      g_dbus_method_invocation_return_error_literal (invocation, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                                                     "Calls must come through the bus");
      return;
    }

  caller = sr_caller_cache_peek (self->callers, sender);
  if (caller != NULL)
    gate_with_caller (self, method, caller, invocation);
  else
    sr_caller_cache_lookup_async (self->callers, sender, on_caller_identified_cb,
                                  pending_call_new (self, method, invocation));
}

static void
on_method_call (GDBusConnection       *bus,
                const char            *sender,
                const char            *object_path,
                const char            *interface_name,
                const char            *method_name,
                GVariant              *parameters,
                GDBusMethodInvocation *invocation,
                gpointer               user_data)
{
  SrDaemon *self = user_data;
  const Method *table = methods;
  guint n = G_N_ELEMENTS (methods);

  if (g_str_equal (interface_name, "org.freedesktop.DBus.Properties"))
    {
      table = property_methods;
      n = G_N_ELEMENTS (property_methods);
    }

  for (guint i = 0; i < n; i++)
    {
      if (g_str_equal (table[i].name, method_name))
        {
          gate (self, &table[i], invocation);
          return;
        }
    }

  /* GDBus only lets through methods of the interface description, and
   * answers Set itself: no property is writable. */
  g_assert_not_reached ();
}

/* No get_property: GDBus then hands Get and GetAll to on_method_call,
 * and so to the gate. */
static const GDBusInterfaceVTable vtable = {
  .method_call = on_method_call,
};

/* The fast path.
 *
 * A method call normally reaches on_method_call() through the main loop:
 * GDBus reads it on its worker thread and hands it over, which costs a
 * wake-up and two context switches, a third of a round trip. GDBus
 * answers org.freedesktop.DBus.Peer.Ping on the worker thread itself; so
 * does policyd for the checks that need nothing but memory: CheckSave and
 * CheckRestore from a caller already identified that may ask about that
 * app, with arguments the rules accept. The policy, the crash counters,
 * the clear points and the caller cache are safe to read from any thread.
 *
 * Anything else goes on to the main thread and the gate, as before: a
 * connection's first call (its caller is not known yet), refusals and
 * errors (which the gate words), and every other method. The rules are
 * the same functions either way.
 *
 * The filter may still run while sr_daemon_free() removes it, so it
 * reaches the daemon through a static pointer under a lock: one daemon
 * per process. */
static GRWLock fast_lock;
static SrDaemon *fast_daemon;   /* (unowned) (nullable): guarded by fast_lock */

/* NoteExit calls handed to the main thread and not finished yet. A check
 * sent after a NoteExit must see that exit, as it did when everything ran
 * in order on the main thread (a consumer may send both without waiting
 * for the first reply): while one is pending, checks go the main thread's
 * way too, behind it. Exits are rare; checks are not held up otherwise. */
static gint pending_exits;

static gboolean
is_note_exit (GDBusMessage *message)
{
  return g_strcmp0 (g_dbus_message_get_member (message), "NoteExit") == 0 &&
         g_strcmp0 (g_dbus_message_get_signature (message), "sb") == 0;
}

/* When a NoteExit's message goes: after its reply, whatever the outcome
 * (GDBus keeps the message with the call until then). */
static void
on_exit_done (gpointer data)
{
  g_atomic_int_add (&pending_exits, -1);
}

/* On GDBus's worker thread. TRUE when @message was answered. */
static gboolean
answer_on_worker (SrDaemon        *self,
                  GDBusConnection *bus,
                  GDBusMessage    *message)
{
  const char *member = g_dbus_message_get_member (message);
  const char *signature = g_dbus_message_get_signature (message);
  const char *sender = g_dbus_message_get_sender (message);
  GVariant *params = g_dbus_message_get_body (message);
  g_autoptr(GDBusMessage) reply = NULL;
  SrDecisionContext ctx;
  const char *app_id, *why = NULL;
  SrVerdict verdict = SR_VERDICT_DENY;
  GVariant *answer[2];
  gboolean save, ok;

  if (g_strcmp0 (g_dbus_message_get_path (message), SR_OBJECT_PATH) != 0 ||
      g_strcmp0 (g_dbus_message_get_interface (message), sr_dbus_policy_interface.name) != 0 ||
      sender == NULL || params == NULL)
    return FALSE;
  if (is_note_exit (message))
    {
      g_atomic_int_inc (&pending_exits);
      g_object_set_data_full (G_OBJECT (message), "sr-pending-exit", message, on_exit_done);
      return FALSE;
    }
  if (g_atomic_int_get (&pending_exits) > 0)
    return FALSE;
  if (g_strcmp0 (member, "CheckSave") == 0 && g_strcmp0 (signature, "s") == 0)
    save = TRUE;
  else if (g_strcmp0 (member, "CheckRestore") == 0 && g_strcmp0 (signature, "sua{sv}") == 0)
    save = FALSE;
  else
    return FALSE;

  /* The sandbox rule; an app id that is not valid fails in the rules. */
  app_id = string_arg (params, 0);
  if (!sr_caller_cache_may_ask_about (self->callers, sender, app_id))
    return FALSE;

  ctx = decision_context (self, sr_settings_dup_policy (self->settings));
  if (save)
    {
      ok = sr_decide_save (&ctx, app_id, &verdict, &why, NULL);
    }
  else
    {
      g_autoptr(GVariant) reason = g_variant_get_child_value (params, 1);
      g_autoptr(GVariant) options = g_variant_get_child_value (params, 2);

      ok = sr_decide_restore (&ctx, app_id, g_variant_get_uint32 (reason), options,
                              &verdict, &why, NULL);
    }
  sr_policy_unref (ctx.policy);
  if (!ok)
    return FALSE;

  if ((g_dbus_message_get_flags (message) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) != 0)
    return TRUE;
  answer[0] = g_variant_new_uint32 (verdict);
  answer[1] = g_variant_new_string (why);
  reply = g_dbus_message_new_method_reply (message);
  g_dbus_message_set_body (reply, g_variant_new_tuple (answer, 2));
  /* Fails only when the connection is closing; policyd then exits. */
  g_dbus_connection_send_message (bus, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
  return TRUE;
}

/* GDBus parses every incoming message on its worker thread into many small
 * allocations that the main thread frees later; glibc keeps what is freed
 * in the worker's arena, so a burst of calls or one huge message would
 * leave policyd tens of MiB bigger for good (58 MiB after the D-Bus
 * fuzzer, 15.6 after a trim). Give it back once calls have stopped for a
 * moment: an incoming message schedules one trim, TRIM_DELAY_SECS on,
 * unless one is already due. */
#define TRIM_DELAY_SECS 2

static gint trim_due;

static gboolean
on_trim_cb (gpointer user_data)
{
  g_atomic_int_set (&trim_due, 0);
  malloc_trim (0);
  return G_SOURCE_REMOVE;
}

/* On GDBus's worker thread, for every message: the one filter policyd
 * has. Timeouts are added to the main context. */
static GDBusMessage *
on_message_cb (GDBusConnection *bus,
               GDBusMessage    *message,
               gboolean         incoming,
               gpointer         user_data)
{
  if (!incoming)
    return message;
  if (g_atomic_int_compare_and_exchange (&trim_due, 0, 1))
    g_timeout_add_seconds_full (G_PRIORITY_LOW, TRIM_DELAY_SECS, on_trim_cb, NULL, NULL);
  if (g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    return message;

  g_atomic_int_set (&calls_seen, 1);
  g_rw_lock_reader_lock (&fast_lock);
  if (fast_daemon != NULL && answer_on_worker (fast_daemon, bus, message))
    g_clear_object (&message);
  g_rw_lock_reader_unlock (&fast_lock);
  return message;
}

static void
close_fast_path (SrDaemon *self)
{
  if (self->filter_id == 0)
    return;
  g_rw_lock_writer_lock (&fast_lock);
  fast_daemon = NULL;
  g_rw_lock_writer_unlock (&fast_lock);
  g_dbus_connection_remove_filter (self->bus, self->filter_id);
  self->filter_id = 0;
}

static void
open_fast_path (SrDaemon *self)
{
  g_rw_lock_writer_lock (&fast_lock);
  g_assert (fast_daemon == NULL);
  fast_daemon = self;
  g_rw_lock_writer_unlock (&fast_lock);
  self->filter_id = g_dbus_connection_add_filter (self->bus, on_message_cb, NULL, NULL);
}

static void
on_settings_properties_changed_cb (SrSettings  *settings,
                                   const char **names,
                                   SrDaemon    *self)
{
  g_auto(GVariantBuilder) changed = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GError) error = NULL;

  if (self->registration_id == 0)
    return;

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GVariant) value = sr_settings_get_property (settings, names[i]);
      g_variant_builder_add (&changed, "{sv}", names[i], value);
    }

  if (!g_dbus_connection_emit_signal (self->bus, NULL, SR_OBJECT_PATH,
                                      "org.freedesktop.DBus.Properties",
                                      "PropertiesChanged",
                                      g_variant_new ("(sa{sv}@as)", sr_dbus_policy_interface.name,
                                                     &changed,
                                                     g_variant_new_strv (NULL, 0)),
                                      &error))
    g_warning ("Could not emit PropertiesChanged: %s", error->message);
}

SrDaemon *
sr_daemon_new (SrSettings *settings)
{
  SrDaemon *self = g_new0 (SrDaemon, 1);
  g_autofree char *crash_path = sr_state_file_path ("crash-counters");
  g_autofree char *clear_path = sr_state_file_path ("clear-points");

  self->settings = g_object_ref (settings);
  self->crash_guard = sr_crash_guard_new (crash_path);
  self->clear_points = sr_clear_points_new (clear_path);
  self->authority = sr_polkit_new ();
  {
    g_auto(GStrv) dirs = sr_store_default_dirs ();
    self->storage = sr_store_worker_new ((const char * const *) dirs);
  }
  self->state_to_clear_id =
    g_signal_connect (settings, "state-to-clear", G_CALLBACK (on_state_to_clear_cb), self);
  self->settings_changed_id =
    g_signal_connect (settings, "properties-changed",
                      G_CALLBACK (on_settings_properties_changed_cb), self);
  return self;
}

void
sr_daemon_free (SrDaemon *self)
{
  close_fast_path (self);
  if (self->registration_id != 0)
    g_dbus_connection_unregister_object (self->bus, self->registration_id);
  g_clear_signal_handler (&self->settings_changed_id, self->settings);
  g_clear_signal_handler (&self->state_to_clear_id, self->settings);
  g_clear_handle_id (&self->maintenance_id, g_source_remove);
  g_clear_handle_id (&self->first_maintenance_id, g_source_remove);
  /* Waits for queued removals: a clear that was promised is carried out. */
  g_clear_pointer (&self->storage, sr_store_worker_free);
  g_clear_pointer (&self->callers, sr_caller_cache_free);
  g_clear_object (&self->bus);
  g_clear_pointer (&self->authority, sr_polkit_free);
  g_clear_pointer (&self->clear_points, sr_clear_points_free);
  g_clear_pointer (&self->crash_guard, sr_crash_guard_free);
  g_clear_object (&self->settings);
  g_free (self);
}

gboolean
sr_daemon_export (SrDaemon         *self,
                  GDBusConnection  *bus,
                  GError          **error)
{
  g_return_val_if_fail (self->registration_id == 0, FALSE);

  self->registration_id =
    g_dbus_connection_register_object (bus, SR_OBJECT_PATH,
                                       (GDBusInterfaceInfo *) &sr_dbus_policy_interface,
                                       &vtable, self, NULL, error);
  if (self->registration_id == 0)
    return FALSE;

  self->bus = g_object_ref (bus);
  self->callers = sr_caller_cache_new (bus);
  open_fast_path (self);

  self->exported_at = g_get_monotonic_time ();
  self->first_maintenance_id =
    g_timeout_add_seconds_full (G_PRIORITY_LOW, FIRST_MAINTENANCE_QUIET_SECS,
                                run_first_maintenance, self, NULL);
  self->maintenance_id = g_timeout_add_seconds (MAINTENANCE_INTERVAL_SECS, run_maintenance, self);
  return TRUE;
}
