/* sr-daemon.c: the org.gnome.SessionRestore.Policy object
 *
 * Every method call goes through gate(): validate the arguments (and the
 * locks), identify the caller, apply the sandbox rule, ask polkit where the
 * method changes something, and only then run it. The methods themselves
 * are the table below.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-daemon"

#include "config.h"

#include "sr-app-id.h"
#include "sr-authority.h"
#include "sr-caller.h"
#include "sr-clear-points.h"
#include "sr-crash-guard.h"
#include "sr-daemon.h"
#include "sr-decide.h"
#include "sr-error.h"
#include "sr-policy-iface.h"
#include "sr-state-file.h"

#define ACTION_CONFIGURE "org.gnome.SessionRestore.configure"

struct _SrDaemon {
  SrSettings *settings;          /* (owned) */
  SrCrashGuard *crash_guard;     /* (owned) */
  SrClearPoints *clear_points;   /* (owned) */
  SrAuthority *authority;        /* (owned) */
  SrCallerCache *callers;        /* (owned) (nullable): once exported */
  GDBusConnection *bus;          /* (owned) (nullable): once exported */
  guint registration_id;
  gulong settings_changed_id;
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

static SrDecisionContext
decision_context (SrDaemon *self)
{
  return (SrDecisionContext) {
    .policy = sr_settings_get_policy (self->settings),
    .crash_guard = self->crash_guard,
    .clear_points = self->clear_points,
    .now = g_get_real_time (),
  };
}

static void
return_verdict (GDBusMethodInvocation *invocation,
                gboolean               ok,
                SrVerdict              verdict,
                const char            *why,
                GError                *error)
{
  if (ok)
    g_dbus_method_invocation_return_value (invocation,
                                           g_variant_new ("(us)", (guint32) verdict, why));
  else
    g_dbus_method_invocation_return_gerror (invocation, error);
}

static gboolean
check_app_id_arg (SrDaemon  *self,
                  GVariant  *params,
                  GError   **error)
{
  const char *app_id;

  g_variant_get_child (params, 0, "&s", &app_id);
  return sr_app_id_validate (app_id, error);
}

static void
run_check_save (SrDaemon              *self,
                GVariant              *params,
                GDBusMethodInvocation *invocation)
{
  SrDecisionContext ctx = decision_context (self);
  g_autoptr(GError) error = NULL;
  const char *app_id, *why = NULL;
  SrVerdict verdict = SR_VERDICT_DENY;
  gboolean ok;

  g_variant_get (params, "(&s)", &app_id);
  ok = sr_decide_save (&ctx, app_id, &verdict, &why, &error);
  return_verdict (invocation, ok, verdict, why, error);
}

static void
run_check_restore (SrDaemon              *self,
                   GVariant              *params,
                   GDBusMethodInvocation *invocation)
{
  SrDecisionContext ctx = decision_context (self);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) options = NULL;
  const char *app_id, *why = NULL;
  SrVerdict verdict = SR_VERDICT_DENY;
  guint32 reason;
  gboolean ok;

  g_variant_get (params, "(&su@a{sv})", &app_id, &reason, &options);
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
    g_dbus_method_invocation_return_value (invocation, NULL);
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
    g_dbus_method_invocation_return_value (invocation, NULL);
}

static const Method methods[] = {
  { "CheckSave", NULL, TRUE, check_app_id_arg, run_check_save },
  { "CheckRestore", NULL, TRUE, check_app_id_arg, run_check_restore },
  { "NoteExit", NULL, TRUE, check_app_id_arg, run_note_exit },
  { "SetSetting", ACTION_CONFIGURE, FALSE, check_set_setting, run_set_setting },
  { "SetAppExcluded", ACTION_CONFIGURE, FALSE, check_set_app_excluded, run_set_app_excluded },
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

  if (!sr_authority_check_finish (call->daemon->authority, result, &error))
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
  sr_authority_check_async (self->authority, caller, method->polkit_action, interactive,
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

  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      if (g_str_equal (methods[i].name, method_name))
        {
          gate (self, &methods[i], invocation);
          return;
        }
    }

  /* GDBus only lets through methods of the interface description. */
  g_assert_not_reached ();
}

static GVariant *
on_get_property (GDBusConnection  *bus,
                 const char       *sender,
                 const char       *object_path,
                 const char       *interface_name,
                 const char       *property_name,
                 GError          **error,
                 gpointer          user_data)
{
  SrDaemon *self = user_data;

  return sr_settings_get_property (self->settings, property_name);
}

static const GDBusInterfaceVTable vtable = {
  .method_call = on_method_call,
  .get_property = on_get_property,
};

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
    g_variant_builder_add (&changed, "{s@v}", names[i],
                           g_variant_new_variant (sr_settings_get_property (settings, names[i])));

  if (!g_dbus_connection_emit_signal (self->bus, NULL, SR_OBJECT_PATH,
                                      "org.freedesktop.DBus.Properties",
                                      "PropertiesChanged",
                                      g_variant_new ("(sa{sv}@as)", sr_policy_interface.name,
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
  self->authority = sr_authority_new ();
  self->settings_changed_id =
    g_signal_connect (settings, "properties-changed",
                      G_CALLBACK (on_settings_properties_changed_cb), self);
  return self;
}

void
sr_daemon_free (SrDaemon *self)
{
  if (self->registration_id != 0)
    g_dbus_connection_unregister_object (self->bus, self->registration_id);
  g_clear_signal_handler (&self->settings_changed_id, self->settings);
  g_clear_pointer (&self->callers, sr_caller_cache_free);
  g_clear_object (&self->bus);
  g_clear_pointer (&self->authority, sr_authority_free);
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
                                       (GDBusInterfaceInfo *) &sr_policy_interface,
                                       &vtable, self, NULL, error);
  if (self->registration_id == 0)
    return FALSE;

  self->bus = g_object_ref (bus);
  self->callers = sr_caller_cache_new (bus);
  return TRUE;
}
