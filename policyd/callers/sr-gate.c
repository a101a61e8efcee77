/* sr-gate.c: who may call what
 *
 * Every method call and property read that reaches the main thread passes
 * here, in this order, and the first refusal answers:
 *
 *   1. who is calling, from the bus's credentials (NotAllowed when that
 *      cannot be told);
 *   2. the sandbox rule: a sandboxed caller may only call the methods that
 *      allow it, and only about its own app (NotAllowed);
 *   3. the method's own check: its arguments, and the administrator's
 *      locks (InvalidArgs, Locked);
 *   4. polkit, for the methods that name an action (NotAllowed, or
 *      Unavailable when polkit cannot be reached or does not answer within
 *      SR_POLKIT_WAIT_MS of the call, SR_POLKIT_INTERACTIVE_WAIT_MS when
 *      the call allows interaction);
 *   5. after polkit, whether the caller is still there (Unavailable when it
 *      left the bus): a change it gave up waiting for is not made;
 *
 * and then the method runs. The sandbox rule comes before the arguments
 * and the locks so that a sandboxed caller learns nothing from them: asked
 * about another app, or calling what it may not, it is told NotAllowed
 * whatever it sent, never Locked for an app the administrator excluded or
 * a key he locked, nor InvalidArgs for a value (an app id that is not
 * valid is not its own either). About its own app, with arguments that do
 * not hold, it is told InvalidArgs like anyone. The methods and what each
 * requires are the table in sr-daemon.c. The worker thread's answers
 * (sr-fast-path.c) apply the same sandbox rule, sr_caller_may_ask_about(),
 * in the same order, and leave every refusal to this gate.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-gate"

#include "config.h"

#include "sr-bus.h"
#include "sr-error.h"
#include "sr-gate.h"

struct _SrGate {
  GObject parent_instance;

  SrCallerCache *callers;   /* (owned) */
  SrPolkit *polkit;         /* (owned) */
  SrSettings *settings;     /* (unowned): outlives the gate's calls */
  gpointer owner;           /* (unowned): outlives the gate's calls */
};

G_DEFINE_FINAL_TYPE (SrGate, sr_gate, G_TYPE_OBJECT)

/* A call waiting for the bus (who is calling) or for polkit. */
typedef struct {
  SrGate *gate;                        /* (owned) */
  const SrMethod *method;              /* (unowned): static */
  GDBusMethodInvocation *invocation;   /* (owned) */
  SrCaller *caller;                    /* (owned) (nullable): once known */
  gint64 arrived;                      /* monotonic µs */
} PendingCall;

static void
pending_call_free (PendingCall *call)
{
  g_object_unref (call->gate);
  g_object_unref (call->invocation);
  g_clear_pointer (&call->caller, sr_caller_unref);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PendingCall, pending_call_free)

static PendingCall *
pending_call_new (SrGate                *self,
                  const SrMethod        *method,
                  GDBusMethodInvocation *invocation)
{
  PendingCall *call = g_new0 (PendingCall, 1);

  call->gate = g_object_ref (self);
  call->method = method;
  call->invocation = g_object_ref (invocation);
  call->arrived = g_get_monotonic_time ();
  return call;
}

static void
refuse (const SrMethod        *method,
        GDBusMethodInvocation *invocation,
        const GError          *error)
{
  g_debug ("%s refused: %s", method->name, error->message);
  g_dbus_method_invocation_return_gerror (invocation, error);
}

static void
run (SrGate                *self,
     const SrMethod        *method,
     SrCaller              *caller,
     GDBusMethodInvocation *invocation)
{
  method->run (self->owner, caller, g_dbus_method_invocation_get_parameters (invocation),
               invocation);
}

static void
on_caller_still_there_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_autoptr(PendingCall) call = user_data;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                             result, NULL);
  gboolean there = FALSE;

  if (reply != NULL)
    g_variant_get (reply, "(b)", &there);
  if (there)
    run (call->gate, call->method, call->caller, call->invocation);
  else
    {
      g_autoptr(GError) error =
        g_error_new (SR_ERROR, SR_ERROR_UNAVAILABLE,
                     "The caller left before polkit answered; nothing was changed");
      refuse (call->method, call->invocation, error);
    }
}

/* polkit may take a while (a person at the authentication dialog, a busy
 * polkitd): a caller that gave up meanwhile and left must not find the
 * change made after all. The bus, asked now, knows whether it is there. */
static void
on_authorized_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PendingCall) call = user_data;
  g_autoptr(GError) error = NULL;
  GDBusMethodInvocation *invocation = call->invocation;

  if (!sr_polkit_check_finish (SR_POLKIT (source), result, &error))
    {
      refuse (call->method, call->invocation, error);
      return;
    }
  g_dbus_connection_call (g_dbus_method_invocation_get_connection (invocation),
                          "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                          "NameHasOwner",
                          g_variant_new ("(s)", g_dbus_method_invocation_get_sender (invocation)),
                          G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL,
                          on_caller_still_there_cb, g_steal_pointer (&call));
}

/* Steps 2 to 5, once the caller is known. @arrived: monotonic µs. */
static void
gate_with_caller (SrGate                *self,
                  const SrMethod        *method,
                  SrCaller              *caller,
                  GDBusMethodInvocation *invocation,
                  gint64                 arrived)
{
  GDBusMessage *message = g_dbus_method_invocation_get_message (invocation);
  g_autoptr(GError) error = NULL;
  PendingCall *call;
  gboolean interactive;

  if (caller->kind != SR_CALLER_HOST)
    {
      const char *app_id = NULL;

      if (method->sandboxed_own_app)
        g_variant_get_child (g_dbus_method_invocation_get_parameters (invocation),
                             0, "&s", &app_id);
      if (!method->sandboxed_own_app || !sr_caller_may_ask_about (caller, app_id))
        {
          /* Not the app id it sent: a sandbox may not write into logs. */
          g_set_error (&error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                       "The sandboxed app %s may not call %s%s",
                       caller->app_id, method->name,
                       app_id != NULL ? " about another app" : "");
          refuse (method, invocation, error);
          return;
        }
    }

  if (method->check != NULL &&
      !method->check (self->settings, g_dbus_method_invocation_get_parameters (invocation),
                      &error))
    {
      refuse (method, invocation, error);
      return;
    }

  if (method->polkit_action == NULL)
    {
      run (self, method, caller, invocation);
      return;
    }

  interactive = (g_dbus_message_get_flags (message) &
                 G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION) != 0;
  call = pending_call_new (self, method, invocation);
  call->caller = sr_caller_ref (caller);
  call->arrived = arrived;
  sr_polkit_check_async (self->polkit, caller, method->polkit_action, interactive,
                         arrived + (interactive ? SR_POLKIT_INTERACTIVE_WAIT_MS : SR_POLKIT_WAIT_MS) *
                                   (gint64) 1000,
                         on_authorized_cb, call);
}

static void
on_caller_identified_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(PendingCall) call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(SrCaller) caller = NULL;

  caller = sr_caller_cache_lookup_finish (SR_CALLER_CACHE (source), result, &error);
  if (caller == NULL)
    refuse (call->method, call->invocation, error);
  else
    gate_with_caller (call->gate, call->method, caller, call->invocation, call->arrived);
}

void
sr_gate_call (SrGate                *self,
              const SrMethod        *method,
              GDBusMethodInvocation *invocation)
{
  const char *sender = g_dbus_method_invocation_get_sender (invocation);
  g_autoptr(GError) error = NULL;
  g_autoptr(SrCaller) caller = NULL;

  if (sender == NULL)
    {
      g_set_error_literal (&error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "Calls must come through the bus");
      refuse (method, invocation, error);
      return;
    }

  caller = sr_caller_cache_dup (self->callers, sender);
  if (caller != NULL)
    gate_with_caller (self, method, caller, invocation, g_get_monotonic_time ());
  else
    sr_caller_cache_lookup_async (self->callers, sender, on_caller_identified_cb,
                                  pending_call_new (self, method, invocation));
}

static void
sr_gate_finalize (GObject *object)
{
  SrGate *self = SR_GATE (object);

  g_clear_object (&self->callers);
  g_clear_object (&self->polkit);
  G_OBJECT_CLASS (sr_gate_parent_class)->finalize (object);
}

static void
sr_gate_class_init (SrGateClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sr_gate_finalize;
}

static void
sr_gate_init (SrGate *self)
{
}

SrGate *
sr_gate_new (SrCallerCache *callers,
             SrPolkit      *polkit,
             SrSettings    *settings,
             gpointer       owner)
{
  SrGate *self = g_object_new (SR_TYPE_GATE, NULL);

  self->callers = g_object_ref (callers);
  self->polkit = g_object_ref (polkit);
  self->settings = settings;
  self->owner = owner;
  return self;
}
