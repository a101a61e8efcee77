/* sr-daemon.c: the org.gnome.SessionRestore.Policy object
 *
 * The object, the methods and who may call them (the table below), the
 * run_* handlers and PropertiesChanged. Every call that reaches the main
 * thread passes the gate (sr-gate.c), its arguments first (sr-args.c),
 * before it runs here. Most CheckSave and CheckRestore calls are answered
 * before they get here, on GDBus's worker thread (sr-fast-path.c), by the
 * same rules (sr-decide.c). The handlers hand on to sr-stored-state.c
 * (listing and clearing), sr-session-prepare.c (the settings applied to
 * the session manager's record before login), sr-prompt.c (the login
 * prompt) and sr-properties.c; the purges at start-up and daily are sr-maintenance.c's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-daemon"

#include "config.h"

#include "sr-args.h"
#include "sr-bus.h"
#include "sr-caller-cache.h"
#include "sr-clear.h"
#include "sr-clear-points.h"
#include "sr-consumers.h"
#include "sr-crash-guard.h"
#include "sr-daemon.h"
#include "sr-dbus-iface.h"
#include "sr-decide.h"
#include "sr-error.h"
#include "sr-fast-path.h"
#include "sr-gate.h"
#include "sr-maintenance.h"
#include "sr-pending-clears.h"
#include "sr-polkit.h"
#include "sr-prompt.h"
#include "sr-properties.h"
#include "sr-schema-range.h"
#include "sr-session-prepare.h"
#include "sr-state-file.h"
#include "sr-store-dropin.h"
#include "sr-stored-state.h"
#include "sr-store-worker.h"
#include "sr-tell.h"

struct _SrDaemon {
  SrSettings *settings;          /* (owned) */
  SrCrashGuard *crash_guard;     /* (owned) */
  SrClearPoints *clear_points;   /* (owned) */
  SrPendingClears *pending_clears; /* (owned) */
  SrConsumers *consumers;        /* (owned) */
  SrStoreWorker *stores;         /* (owned) */
  SrCallerCache *callers;        /* (owned) (nullable): once exported */
  SrGate *gate;                  /* (owned) (nullable): once exported */
  SrFastPath *fast_path;         /* (owned) (nullable): once exported */
  SrMaintenance *maintenance;    /* (owned) (nullable): once exported */
  SrPrompt *prompt;              /* (owned) (nullable): once exported */
  GDBusConnection *bus;          /* (owned) (nullable): once exported */
  guint registration_id;
  gulong settings_changed_id;
  gulong state_to_clear_id;
};

/* An SrDecisionContextFunc. */
static SrDecisionContext
decision_context (gpointer owner)
{
  SrDaemon *self = owner;

  return (SrDecisionContext) {
    .policy = sr_settings_get_policy (self->settings),
    .crash_guard = self->crash_guard,
    .clear_points = self->clear_points,
    .now = g_get_real_time (),
  };
}

static void
emit_properties_changed (SrDaemon           *self,
                         GVariant           *changed,
                         const char * const *invalidated)
{
  g_autoptr(GError) error = NULL;

  if (self->registration_id == 0)
    return;
  if (!g_dbus_connection_emit_signal (self->bus, NULL, SR_OBJECT_PATH,
                                      "org.freedesktop.DBus.Properties",
                                      "PropertiesChanged",
                                      g_variant_new ("(s@a{sv}@as)", SR_INTERFACE_NAME,
                                                     changed,
                                                     g_variant_new_strv (invalidated,
                                                                         invalidated ? -1 : 0)),
                                      &error))
    g_warning ("Could not emit PropertiesChanged: %s", error->message);
}

/* A check or exit report came from @caller on the main thread. Checks
 * note it after their answer: a new consumer's PropertiesChanged (and
 * reading the list of consumers, at the first) is no part of it. */
static void
note_consumer (SrDaemon *self,
               SrCaller *caller,
               gint64    now)
{
  static const char * const consumers[] = { "Consumers", NULL };

  if (sr_consumers_note (self->consumers, caller, now))
    emit_properties_changed (self, g_variant_new_array (G_VARIANT_TYPE ("{sv}"), NULL, 0),
                             consumers);
}

static void
return_check (SrDaemon              *self,
              SrCaller              *caller,
              gboolean               restore,
              GVariant              *params,
              GDBusMethodInvocation *invocation)
{
  SrDecisionContext ctx = decision_context (self);
  g_autoptr(GError) error = NULL;
  GVariant *answer = sr_decide_call (&ctx, restore, params, &error);

  if (answer == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  g_dbus_method_invocation_return_value (invocation, answer);
  note_consumer (self, caller, ctx.now);
}

static void
run_check_save (gpointer               owner,
                SrCaller              *caller,
                GVariant              *params,
                GDBusMethodInvocation *invocation)
{
  return_check (owner, caller, FALSE, params, invocation);
}

/* Who tells the crash guard of a start without saved state, or of an
 * exit (sr-crash-guard.c): a host consumer, by its unique name, or NULL
 * for a sandboxed app speaking of itself. */
static const char *
consumer_of (const SrCaller *caller)
{
  return caller->kind == SR_CALLER_HOST ? caller->sender : NULL;
}

/* A CheckRestore "interactive" in ask mode waits for the login prompt
 * (sr-prompt.c); a sandboxed caller may not open it, and is told ASK. A
 * DENY "crash-loop" is a held start (as on the worker thread,
 * sr-fast-path.c). */
static void
run_check_restore (gpointer               owner,
                   SrCaller              *caller,
                   GVariant              *params,
                   GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;
  SrDecisionContext ctx = decision_context (self);
  g_autoptr(GError) error = NULL;
  GVariant *answer = sr_decide_call (&ctx, TRUE, params, &error);
  const char *app_id;

  if (answer == NULL)
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      return;
    }
  g_variant_ref_sink (answer);
  if (sr_decide_is_interactive (answer))
    {
      g_variant_unref (answer);
      if (caller->app_id == NULL && self->prompt != NULL)
        {
          note_consumer (self, caller, ctx.now);
          sr_prompt_hold (self->prompt, params, invocation);
          return;
        }
      answer = g_variant_ref_sink (g_variant_new ("(us)", SR_VERDICT_ASK, "ask"));
    }
  if (sr_decide_is_crash_loop (answer))
    {
      g_variant_get_child (params, 0, "&s", &app_id);
      sr_crash_guard_note_held_start (self->crash_guard, app_id, consumer_of (caller));
    }
  g_dbus_method_invocation_return_value (invocation, answer);
  g_variant_unref (answer);
  note_consumer (self, caller, ctx.now);
}

/* The panel shows which apps the guard holds back: it hears when that
 * changes, rather than finding out at its next listing. */
static void
tell_crash_guard_changed (SrDaemon   *self,
                          const char *app_id)
{
  const char *apps[] = { app_id, NULL };

  if (self->callers != NULL)
    sr_tell_callers (self->callers, self->bus, "CrashGuardChanged", apps);
}

static gboolean
in_crash_loop (SrDaemon   *self,
               const char *app_id,
               gint64      now)
{
  const SrPolicy *policy = sr_settings_get_policy (self->settings);

  return sr_crash_guard_in_loop (self->crash_guard, app_id, now, policy->crash_loop_threshold,
                                 policy->crash_loop_window);
}

static void
run_note_exit (gpointer               owner,
               SrCaller              *caller,
               GVariant              *params,
               GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;
  const SrPolicy *policy = sr_settings_get_policy (self->settings);
  g_autoptr(GError) error = NULL;
  gint64 now = g_get_real_time ();
  const char *app_id;
  gboolean voluntary, was_held;

  g_variant_get (params, "(&sb)", &app_id, &voluntary);
  was_held = in_crash_loop (self, app_id, now);

  /* The guard has counted the exit in memory either way, and the rules
   * use it; but counters that did not reach the disk are lost at the next
   * start, and a caller told "done" would not know: it is an error. */
  note_consumer (self, caller, now);
  if (!sr_crash_guard_note_exit (self->crash_guard, app_id, voluntary, consumer_of (caller), now,
                                 policy->crash_loop_threshold, policy->crash_loop_window, &error))
    {
      g_warning ("Could not save crash counters: %s", error->message);
      g_dbus_method_invocation_return_error (invocation, SR_ERROR, SR_ERROR_FAILED,
                                             "The exit was counted, but the crash counters "
                                             "could not be saved, so it will be forgotten "
                                             "when the service restarts: %s", error->message);
      return;
    }
  g_dbus_method_invocation_return_value (invocation, NULL);
  if (in_crash_loop (self, app_id, now) != was_held)
    tell_crash_guard_changed (self, app_id);
}

static void
run_reset_crash_guard (gpointer               owner,
                       SrCaller              *caller,
                       GVariant              *params,
                       GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;
  g_autoptr(GError) error = NULL;
  const char *app_id;
  gboolean was_held;

  g_variant_get (params, "(&s)", &app_id);
  was_held = in_crash_loop (self, app_id, g_get_real_time ());
  if (!sr_crash_guard_reset (self->crash_guard, app_id, &error))
    g_dbus_method_invocation_return_error (invocation, SR_ERROR, SR_ERROR_FAILED,
                                           "Could not save crash counters: %s", error->message);
  else
    g_dbus_method_invocation_return_value (invocation, NULL);
  if (was_held)
    tell_crash_guard_changed (self, app_id);
}

static void
run_set_setting (gpointer               owner,
                 SrCaller              *caller,
                 GVariant              *params,
                 GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) value = NULL;
  const char *key;

  g_variant_get (params, "(&sv)", &key, &value);
  if (!sr_settings_set (self->settings, key, value, &error))
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    sr_stored_state_return_when_settled (self->stores, invocation);
}

/* As SetSetting: the settings change, and so may what is stored (the
 * switch reset to a site's "off" clears everything). */
static void
run_reset_setting (gpointer               owner,
                   SrCaller              *caller,
                   GVariant              *params,
                   GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;
  g_autoptr(GError) error = NULL;
  const char *key;

  g_variant_get (params, "(&s)", &key);
  if (!sr_settings_reset (self->settings, key, &error))
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    sr_stored_state_return_when_settled (self->stores, invocation);
}

static void
run_set_app_excluded (gpointer               owner,
                      SrCaller              *caller,
                      GVariant              *params,
                      GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) list = NULL;
  const char *app_id;
  gboolean excluded;

  /* The list is rebuilt from the settings of now, not of when the call
   * arrived: another change may have landed while polkit answered. */
  g_variant_get (params, "(&sb)", &app_id, &excluded);
  list = g_variant_ref_sink (sr_settings_excluded_with (self->settings, app_id, excluded));
  if ((!excluded && !sr_settings_check_include (self->settings, app_id, &error)) ||
      !sr_settings_set (self->settings, "excluded-apps", list, &error))
    g_dbus_method_invocation_return_gerror (invocation, error);
  else
    sr_stored_state_return_when_settled (self->stores, invocation);
}

static SrClearTargets
clear_targets (SrDaemon *self)
{
  return (SrClearTargets) {
    .clear_points = self->clear_points,
    .pending_clears = self->pending_clears,
    .stores = self->stores,
    .bus = self->bus,
    .callers = self->callers,
  };
}

/* An app opted out, or the switch went off (sr-stored-state.c). */
static void
on_state_to_clear_cb (SrSettings  *settings,
                      const char **apps,
                      SrDaemon    *self)
{
  SrClearTargets targets = clear_targets (self);

  sr_stored_state_clear_opt_outs (&targets, apps);
}

static void
run_clear (gpointer               owner,
           SrCaller              *caller,
           GVariant              *params,
           GDBusMethodInvocation *invocation)
{
  SrClearTargets targets = clear_targets (owner);

  sr_stored_state_clear (&targets, params, invocation);
}

static void
run_list_stored_state (gpointer               owner,
                       SrCaller              *caller,
                       GVariant              *params,
                       GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;

  sr_stored_state_list (self->stores, decision_context, self, invocation);
}

/* No polkit, and host callers only: sr-session-prepare.c says why. */
static void
run_prepare_session (gpointer               owner,
                     SrCaller              *caller,
                     GVariant              *params,
                     GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;
  SrDecisionContext ctx = decision_context (self);

  sr_session_prepare (self->stores, &ctx, self->bus, invocation);
}

/* Properties go through the gate too: a sandboxed caller may not read
 * them (ExcludedApps names other apps). GDBus has checked that the
 * interface is ours and, for Get, that the property exists. */
static void
run_get_property (gpointer               owner,
                  SrCaller              *caller,
                  GVariant              *params,
                  GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;
  g_autoptr(GVariant) value = NULL;
  const char *name;

  g_variant_get (params, "(&s&s)", NULL, &name);
  value = sr_properties_get (self->settings, self->consumers, name);
  g_dbus_method_invocation_return_value (invocation, g_variant_new ("(v)", value));
}

static void
run_get_all_properties (gpointer               owner,
                        SrCaller              *caller,
                        GVariant              *params,
                        GDBusMethodInvocation *invocation)
{
  SrDaemon *self = owner;
  GVariant *all = sr_properties_get_all (self->settings, self->consumers);

  g_dbus_method_invocation_return_value (invocation, g_variant_new_tuple (&all, 1));
}

/* Who may call what: the polkit action (NULL: none) and whether a
 * sandboxed caller may call it about its own app. The gate applies it. */
static const SrMethod property_methods[] = {
  { "Get", NULL, FALSE, NULL, run_get_property },
  { "GetAll", NULL, FALSE, NULL, run_get_all_properties },
};

static const SrMethod methods[] = {
  { "CheckSave", NULL, TRUE, sr_args_check_app_id, run_check_save },
  { "CheckRestore", NULL, TRUE, sr_args_check_app_id, run_check_restore },
  { "NoteExit", NULL, TRUE, sr_args_check_app_id, run_note_exit },
  { "SetSetting", SR_ACTION_CONFIGURE, FALSE, sr_args_check_set_setting, run_set_setting },
  { "ResetSetting", SR_ACTION_CONFIGURE, FALSE, sr_args_check_reset_setting, run_reset_setting },
  { "SetAppExcluded", SR_ACTION_CONFIGURE, FALSE, sr_args_check_set_app_excluded,
    run_set_app_excluded },
  { "ResetCrashGuard", SR_ACTION_CONFIGURE, FALSE, sr_args_check_app_id, run_reset_crash_guard },
  { "ListStoredState", SR_ACTION_LIST, FALSE, NULL, run_list_stored_state },
  { "Clear", SR_ACTION_CLEAR, FALSE, sr_args_check_clear, run_clear },
  { "PrepareSession", NULL, FALSE, NULL, run_prepare_session },
};

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
  const SrMethod *table = methods;
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
          sr_gate_call (self->gate, &table[i], invocation);
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

/* Every connection on the bus could read PropertiesChanged, and a
 * sandboxed app may not learn which apps others are: the app lists go out
 * as invalidated, to be read with Get, which the gate guards. */
static gboolean
names_apps (const char *property)
{
  return g_str_equal (property, "ExcludedApps") || g_str_equal (property, "AdminExcludedApps");
}

static void
on_settings_properties_changed_cb (SrSettings  *settings,
                                   const char **names,
                                   SrDaemon    *self)
{
  g_auto(GVariantBuilder) changed = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  g_autoptr(GStrvBuilder) invalidated = g_strv_builder_new ();
  g_auto(GStrv) invalidated_names = NULL;

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GVariant) value = NULL;

      if (g_str_equal (names[i], "MaxAgeDays") && self->maintenance != NULL)
        sr_maintenance_purge_now (self->maintenance);
      if (names_apps (names[i]))
        {
          g_strv_builder_add (invalidated, names[i]);
          continue;
        }
      value = sr_settings_get_property (settings, names[i]);
      g_variant_builder_add (&changed, "{sv}", names[i], value);
    }
  invalidated_names = g_strv_builder_end (invalidated);
  emit_properties_changed (self, g_variant_builder_end (&changed),
                           (const char * const *) invalidated_names);
  if (self->prompt != NULL)
    sr_prompt_reconsider (self->prompt);
}

/* Once start-up's calls have quieted down (sr-maintenance.c): what kills
 * left behind in policyd's own state. */
static void
run_start_up_chores (gpointer user_data)
{
  SrDaemon *self = user_data;

  sr_state_file_remove_leftovers ();
  sr_pending_clears_finish (self->pending_clears, self->stores);
}

/* The widest crash-loop-window the schema allows: the crash guard keeps
 * exits that long, whatever the window in force. sr_settings_new() has
 * found the schema. */
static guint
max_crash_loop_window (void)
{
  g_autoptr(GSettingsSchema) schema =
    g_settings_schema_source_lookup (g_settings_schema_source_get_default (),
                                     SR_SETTINGS_SCHEMA, TRUE);
  g_autoptr(GSettingsSchemaKey) key = g_settings_schema_get_key (schema, "crash-loop-window");

  return sr_schema_range_max_uint32 (key);
}

SrDaemon *
sr_daemon_new (SrSettings *settings)
{
  SrDaemon *self = g_new0 (SrDaemon, 1);
  g_autofree char *crash_path = sr_state_file_path (SR_STATE_FILE_CRASH_COUNTERS);
  g_autofree char *clear_path = sr_state_file_path (SR_STATE_FILE_CLEAR_POINTS);
  g_autofree char *consumers_path = sr_state_file_path (SR_STATE_FILE_CONSUMERS);
  g_autofree char *pending_path = sr_state_file_path (SR_STATE_FILE_PENDING_CLEARS);
  guint first_user_dir;
  g_auto(GStrv) dirs = sr_store_default_dirs (&first_user_dir);

  self->settings = g_object_ref (settings);
  self->crash_guard = sr_crash_guard_new (crash_path, max_crash_loop_window ());
  self->clear_points = sr_clear_points_new (clear_path);
  self->pending_clears = sr_pending_clears_new (pending_path);
  sr_pending_clears_record_points (self->pending_clears, self->clear_points);
  self->consumers = sr_consumers_new (consumers_path);
  self->stores = sr_store_worker_new ((const char * const *) dirs, first_user_dir);
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
  if (self->fast_path != NULL)
    sr_fast_path_close (g_steal_pointer (&self->fast_path));
  if (self->registration_id != 0)
    g_dbus_connection_unregister_object (self->bus, self->registration_id);
  g_clear_pointer (&self->prompt, sr_prompt_free);
  g_clear_pointer (&self->maintenance, sr_maintenance_stop);
  g_clear_signal_handler (&self->settings_changed_id, self->settings);
  g_clear_signal_handler (&self->state_to_clear_id, self->settings);
  /* Waits for queued removals: a clear that was promised is carried out. */
  sr_store_worker_shutdown (self->stores);
  sr_pending_clears_end_queued (self->pending_clears);
  g_clear_object (&self->stores);
  g_clear_object (&self->gate);
  /* Learns the last questions of the callers still on the bus. */
  sr_crash_guard_flush (self->crash_guard);
  g_clear_pointer (&self->consumers, sr_consumers_free);
  g_clear_object (&self->callers);
  g_clear_object (&self->bus);
  g_clear_pointer (&self->pending_clears, sr_pending_clears_free);
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
  g_autoptr(SrPolkit) polkit = NULL;
  SrFastPathSources sources;

  g_return_val_if_fail (self->registration_id == 0, FALSE);

  self->registration_id =
    g_dbus_connection_register_object (bus, SR_OBJECT_PATH,
                                       (GDBusInterfaceInfo *) &sr_dbus_policy_interface,
                                       &vtable, self, NULL, error);
  if (self->registration_id == 0)
    return FALSE;

  self->bus = g_object_ref (bus);
  self->callers = sr_caller_cache_new (bus);
  sr_consumers_watch (self->consumers, self->callers);
  polkit = sr_polkit_new ();
  self->gate = sr_gate_new (self->callers, polkit, self->settings, self);

  sources = (SrFastPathSources) {
    .settings = self->settings,
    .callers = self->callers,
    .crash_guard = self->crash_guard,
    .clear_points = self->clear_points,
  };
  self->fast_path = sr_fast_path_open (bus, &sources);
  self->maintenance = sr_maintenance_start (self->settings, self->stores, self->fast_path);
  sr_maintenance_at_first_purge (self->maintenance, run_start_up_chores, self);
  self->prompt = sr_prompt_new (bus, self->stores, self->callers, decision_context, self);
  return TRUE;
}
