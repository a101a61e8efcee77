/* sr-settings.c: the user's settings, the administrator's locks
 *
 * One object owns the GSettings of org.gnome.SessionRestore (and, where it
 * is installed, org.gnome.desktop.session "save-restore"). It keeps what
 * the decision rules read in an SrPolicy, rebuilt whenever dconf says
 * something changed, so that checks never touch GSettings. A policy is
 * never changed once built: a new one replaces it, so that GDBus's worker
 * thread can hold one while the main thread moves on. It also keeps
 * each D-Bus property's last value, so that "properties-changed" names
 * exactly the properties whose value changed, whatever changed them: the
 * service, gsettings, dconf or a new system database.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-settings"

#include "config.h"

#include "sr-app-id.h"
#include "sr-error.h"
#include "sr-policy.h"
#include "sr-schema-range.h"
#include "sr-settings.h"
#include "sr-string-array.h"

#define DESKTOP_SCHEMA "org.gnome.desktop.session"
#define DESKTOP_KEY "save-restore"

typedef enum {
  PROP_VERSION,
  PROP_ENABLED,
  PROP_LOGIN_RESTORE,
  PROP_RESTORE_AFTER_CRASH,
  PROP_RESTORE_ON_LAUNCH,
  PROP_EXCLUDED_APPS,
  PROP_ADMIN_EXCLUDED_APPS,
  PROP_MAX_AGE_DAYS,
  PROP_CRASH_LOOP_THRESHOLD,
  PROP_CRASH_LOOP_WINDOW,
  PROP_LOCKED_SETTINGS,
  N_PROPS
} Prop;

/* Property ↔ key; NULL key for the properties that are not a key. */
static const struct {
  const char *property;
  const char *key;
} props[N_PROPS] = {
  [PROP_VERSION] = { "Version", NULL },
  [PROP_ENABLED] = { "Enabled", "enabled" },
  [PROP_LOGIN_RESTORE] = { "LoginRestore", "login-restore" },
  [PROP_RESTORE_AFTER_CRASH] = { "RestoreAfterCrash", "restore-after-crash" },
  [PROP_RESTORE_ON_LAUNCH] = { "RestoreOnLaunch", "restore-on-launch" },
  [PROP_EXCLUDED_APPS] = { "ExcludedApps", "excluded-apps" },
  [PROP_ADMIN_EXCLUDED_APPS] = { "AdminExcludedApps", "admin-excluded-apps" },
  [PROP_MAX_AGE_DAYS] = { "MaxAgeDays", "max-age-days" },
  [PROP_CRASH_LOOP_THRESHOLD] = { "CrashLoopThreshold", "crash-loop-threshold" },
  [PROP_CRASH_LOOP_WINDOW] = { "CrashLoopWindow", "crash-loop-window" },
  [PROP_LOCKED_SETTINGS] = { "LockedSettings", NULL },
};

struct _SrSettings {
  GObject parent_instance;

  GSettings *settings;           /* (owned) */
  GSettingsSchema *schema;       /* (owned) */
  GSettings *desktop;            /* (owned) (nullable): where installed */

  /* (owned) Replaced, never changed. Written on the main thread only;
   * other threads take a reference under policy_lock. */
  SrPolicy *policy;
  GMutex policy_lock;
  GVariant *values[N_PROPS];     /* (owned) last value of each property */
};

G_DEFINE_FINAL_TYPE (SrSettings, sr_settings, G_TYPE_OBJECT)

enum {
  SIGNAL_PROPERTIES_CHANGED,
  SIGNAL_STATE_TO_CLEAR,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static gboolean
key_is_writable (SrSettings *self,
                 const char *key)
{
  if (!g_settings_is_writable (self->settings, key))
    return FALSE;
  if (self->desktop != NULL && g_str_equal (key, "enabled"))
    return g_settings_is_writable (self->desktop, DESKTOP_KEY);
  return TRUE;
}

/* The value of every key, read once for each refresh: the policy and the
 * properties are made from the same reading. */
typedef struct {
  GVariant *keys[N_PROPS];       /* (owned) (nullable): the properties that are keys */
  GVariant *desktop_enabled;     /* (owned) (nullable): where installed */
} Reading;

/* The lists come from dconf untrusted, which GLib 2.74 reads, compares
 * and sends in time quadratic in their length: made trusted once here. */
static GVariant *
get_value (GSettings  *settings,
           const char *key)
{
  g_autoptr(GVariant) value = g_settings_get_value (settings, key);

  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
    return sr_string_array_normalize (value);
  return g_steal_pointer (&value);
}

static void
read_keys (SrSettings *self,
           Reading    *reading)
{
  for (guint i = 0; i < N_PROPS; i++)
    reading->keys[i] = props[i].key != NULL ? get_value (self->settings, props[i].key) : NULL;
  reading->desktop_enabled = self->desktop != NULL ? g_settings_get_value (self->desktop, DESKTOP_KEY)
                                                   : NULL;
}

static void
reading_clear (Reading *reading)
{
  for (guint i = 0; i < N_PROPS; i++)
    g_clear_pointer (&reading->keys[i], g_variant_unref);
  g_clear_pointer (&reading->desktop_enabled, g_variant_unref);
}

/* Returns a new (non-floating) reference. */
static GVariant *
compute_property (SrSettings    *self,
                  const Reading *reading,
                  Prop           prop)
{
  switch (prop)
    {
    case PROP_VERSION:
      return g_variant_ref_sink (g_variant_new_uint32 (SR_API_VERSION));

    case PROP_ENABLED:
      return g_variant_ref_sink (g_variant_new_boolean (self->policy->enabled));

    case PROP_LOCKED_SETTINGS:
      {
        g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
        g_auto(GStrv) locked = NULL;

        for (guint i = 0; i < N_PROPS; i++)
          if (props[i].key != NULL && !key_is_writable (self, props[i].key))
            g_strv_builder_add (builder, props[i].key);
        locked = g_strv_builder_end (builder);
        return g_variant_ref_sink (g_variant_new_strv ((const char * const *) locked, -1));
      }

    case PROP_LOGIN_RESTORE:
    case PROP_RESTORE_AFTER_CRASH:
    case PROP_RESTORE_ON_LAUNCH:
    case PROP_EXCLUDED_APPS:
    case PROP_ADMIN_EXCLUDED_APPS:
    case PROP_MAX_AGE_DAYS:
    case PROP_CRASH_LOOP_THRESHOLD:
    case PROP_CRASH_LOOP_WINDOW:
      return g_variant_ref (reading->keys[prop]);

    case N_PROPS:
    default:
      g_assert_not_reached ();
    }
}

static void
reload_policy (SrSettings    *self,
               const Reading *reading)
{
  const SrPolicyKeys keys = {
    .enabled = reading->keys[PROP_ENABLED],
    .login_restore = reading->keys[PROP_LOGIN_RESTORE],
    .restore_after_crash = reading->keys[PROP_RESTORE_AFTER_CRASH],
    .restore_on_launch = reading->keys[PROP_RESTORE_ON_LAUNCH],
    .excluded_apps = reading->keys[PROP_EXCLUDED_APPS],
    .admin_excluded_apps = reading->keys[PROP_ADMIN_EXCLUDED_APPS],
    .max_age_days = reading->keys[PROP_MAX_AGE_DAYS],
    .crash_loop_threshold = reading->keys[PROP_CRASH_LOOP_THRESHOLD],
    .crash_loop_window = reading->keys[PROP_CRASH_LOOP_WINDOW],
    .desktop_enabled = reading->desktop_enabled,
  };
  SrPolicy *policy = sr_policy_new (&keys);
  SrPolicy *old;

  g_mutex_lock (&self->policy_lock);
  old = g_steal_pointer (&self->policy);
  self->policy = policy;
  g_mutex_unlock (&self->policy_lock);

  if (old != NULL)
    sr_policy_unref (old);
}

/* Rebuilds everything and reports the properties whose value changed.
 * Cheap enough to do on any change: a handful of keys. */
/* The switch going off forgets everything; an app becoming excluded (by
 * any route: the service, gsettings, a new system database) forgets it. */
static void
report_state_to_clear (SrSettings *self,
                       gboolean    was_enabled,
                       GHashTable *was_excluded)
{
  g_autoptr(GPtrArray) newly = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer app;

  if (was_enabled && !self->policy->enabled)
    {
      g_signal_emit (self, signals[SIGNAL_STATE_TO_CLEAR], 0, NULL);
      return;
    }
  if (!self->policy->enabled)
    return;

  g_hash_table_iter_init (&iter, self->policy->excluded);
  while (g_hash_table_iter_next (&iter, &app, NULL))
    if (!g_hash_table_contains (was_excluded, app))
      g_ptr_array_add (newly, app);
  if (newly->len == 0)
    return;
  g_ptr_array_add (newly, NULL);
  g_signal_emit (self, signals[SIGNAL_STATE_TO_CLEAR], 0, newly->pdata);
}

static void
refresh (SrSettings *self)
{
  g_autoptr(GPtrArray) changed = g_ptr_array_new ();
  const SrPolicy *was = self->policy ? sr_policy_ref (self->policy) : NULL;
  Reading reading;

  read_keys (self, &reading);
  reload_policy (self, &reading);
  if (was != NULL)
    {
      report_state_to_clear (self, was->enabled, was->excluded);
      sr_policy_unref (was);
    }

  for (Prop i = 0; i < N_PROPS; i++)
    {
      g_autoptr(GVariant) value = compute_property (self, &reading, i);

      if (self->values[i] != NULL && g_variant_equal (self->values[i], value))
        continue;
      g_clear_pointer (&self->values[i], g_variant_unref);
      self->values[i] = g_steal_pointer (&value);
      g_ptr_array_add (changed, (gpointer) props[i].property);
    }
  reading_clear (&reading);

  if (changed->len > 0)
    {
      g_ptr_array_add (changed, NULL);
      g_signal_emit (self, signals[SIGNAL_PROPERTIES_CHANGED], 0, changed->pdata);
    }
}

static void
on_settings_changed_cb (GSettings  *settings,
                        const char *key,
                        SrSettings *self)
{
  refresh (self);
}

static void
on_settings_writable_changed_cb (GSettings  *settings,
                                 const char *key,
                                 SrSettings *self)
{
  refresh (self);
}

static GSettings *
watch_settings (SrSettings *self,
                GSettings  *settings)
{
  g_signal_connect_object (settings, "changed",
                           G_CALLBACK (on_settings_changed_cb), self, 0);
  g_signal_connect_object (settings, "writable-changed",
                           G_CALLBACK (on_settings_writable_changed_cb), self, 0);
  return settings;
}

static void
sr_settings_finalize (GObject *object)
{
  SrSettings *self = SR_SETTINGS (object);

  for (guint i = 0; i < N_PROPS; i++)
    g_clear_pointer (&self->values[i], g_variant_unref);
  g_clear_pointer (&self->policy, sr_policy_unref);
  g_mutex_clear (&self->policy_lock);
  g_clear_object (&self->desktop);
  g_clear_object (&self->settings);
  g_clear_pointer (&self->schema, g_settings_schema_unref);

  G_OBJECT_CLASS (sr_settings_parent_class)->finalize (object);
}

static void
sr_settings_class_init (SrSettingsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sr_settings_finalize;

  /**
   * SrSettings::properties-changed:
   * @names: (array zero-terminated=1): the D-Bus properties whose value changed
   */
  signals[SIGNAL_PROPERTIES_CHANGED] =
    g_signal_new ("properties-changed", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRV);

  /**
   * SrSettings::state-to-clear:
   * @apps: (nullable) (array zero-terminated=1): apps newly excluded, or
   *   %NULL when the master switch went off and everything goes
   */
  signals[SIGNAL_STATE_TO_CLEAR] =
    g_signal_new ("state-to-clear", G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRV);
}

static void
sr_settings_init (SrSettings *self)
{
  g_mutex_init (&self->policy_lock);
}

SrSettings *
sr_settings_new (GError **error)
{
  g_autoptr(SrSettings) self = NULL;
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) desktop_schema = NULL;

  g_autoptr(GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, SR_SETTINGS_SCHEMA, TRUE);
  if (schema == NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_FAILED,
                   "The GSettings schema %s is not installed", SR_SETTINGS_SCHEMA);
      return NULL;
    }

  self = g_object_new (SR_TYPE_SETTINGS, NULL);
  self->schema = g_steal_pointer (&schema);
  self->settings = watch_settings (self, g_settings_new_full (self->schema, NULL, NULL));

  desktop_schema = g_settings_schema_source_lookup (source, DESKTOP_SCHEMA, TRUE);
  if (desktop_schema != NULL && g_settings_schema_has_key (desktop_schema, DESKTOP_KEY))
    self->desktop = watch_settings (self, g_settings_new_full (desktop_schema, NULL, NULL));
  g_debug ("%s %s: %s", DESKTOP_SCHEMA, DESKTOP_KEY,
           self->desktop != NULL ? "installed, honoured" : "not installed");

  refresh (self);
  return g_steal_pointer (&self);
}

/* On the main thread: valid until the settings next change. */
const SrPolicy *
sr_settings_get_policy (SrSettings *self)
{
  return self->policy;
}

/* On any thread: the policy in force now, to give back with
 * sr_policy_unref(). */
const SrPolicy *
sr_settings_dup_policy (SrSettings *self)
{
  const SrPolicy *policy;

  g_mutex_lock (&self->policy_lock);
  policy = sr_policy_ref (self->policy);
  g_mutex_unlock (&self->policy_lock);
  return policy;
}

GVariant *
sr_settings_get_property (SrSettings *self,
                          const char *property)
{
  for (guint i = 0; i < N_PROPS; i++)
    if (g_str_equal (props[i].property, property))
      return g_variant_ref (self->values[i]);
  return NULL;
}

/* The key exists and is the user's to change. */
static gboolean
check_user_key (SrSettings  *self,
                const char  *key,
                GError     **error)
{
  if (!g_settings_schema_has_key (self->schema, key))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "There is no setting “%s”", key);
      return FALSE;
    }

  if (g_str_equal (key, "admin-excluded-apps"))
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                           "“admin-excluded-apps” is set by the administrator "
                           "in the system dconf database");
      return FALSE;
    }
  return TRUE;
}

static gboolean
check_writable (SrSettings  *self,
                const char  *key,
                GError     **error)
{
  if (!key_is_writable (self, key))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_LOCKED,
                   "“%s” is locked by the administrator", key);
      return FALSE;
    }
  return TRUE;
}

/* Everything short of polkit: the key exists and is the user's, the value
 * has the key's type and range, and the key is not locked. */
gboolean
sr_settings_check_set (SrSettings  *self,
                       const char  *key,
                       GVariant    *value,
                       GError     **error)
{
  g_autoptr(GSettingsSchemaKey) schema_key = NULL;
  const GVariantType *type;

  if (!check_user_key (self, key, error))
    return FALSE;

  schema_key = g_settings_schema_get_key (self->schema, key);
  type = g_settings_schema_key_get_value_type (schema_key);
  if (!g_variant_is_of_type (value, type))
    {
      g_autofree char *expected = g_variant_type_dup_string (type);
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "“%s” takes a value of type “%s”, not “%s”",
                   key, expected, g_variant_get_type_string (value));
      return FALSE;
    }

  if (g_str_equal (key, "excluded-apps"))
    {
      g_autofree const char **apps = g_variant_get_strv (value, NULL);
      g_autoptr(GError) local_error = NULL;

      if (!sr_app_id_list_validate (apps, &local_error))
        {
          g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                      "“%s”: ", key);
          return FALSE;
        }
    }
  else if (!g_settings_schema_key_range_check (schema_key, value))
    {
      g_autofree char *shown = g_variant_print (value, FALSE);
      g_autofree char *allowed = sr_schema_range_describe (schema_key);
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "%s is not an allowed value of “%s” (%s)", shown, key,
                   allowed ? allowed : "of another type");
      return FALSE;
    }

  return check_writable (self, key, error);
}

/* As sr_settings_check_set(), for a reset: the key exists, is the
 * user's, and is not locked. */
gboolean
sr_settings_check_reset (SrSettings  *self,
                         const char  *key,
                         GError     **error)
{
  return check_user_key (self, key, error) && check_writable (self, key, error);
}

static void
block_changes (SrSettings *self,
               gboolean    block)
{
  GSettings *both[] = { self->settings, self->desktop };

  for (guint i = 0; i < G_N_ELEMENTS (both); i++)
    {
      if (block)
        g_signal_handlers_block_by_func (both[i], on_settings_changed_cb, self);
      else
        g_signal_handlers_unblock_by_func (both[i], on_settings_changed_cb, self);
    }
}

/* Where GNOME's switch is installed, the master switch is two keys, and
 * the pair is written straight through, never in delay mode: GSettings
 * has no way out of g_settings_delay(), and every later write to an
 * object left in it stays in that object's memory, which policyd's
 * properties show and dconf never gets. GSettings cannot put two schemas
 * into one dconf change anyway: these are two writes, which the caller's
 * g_settings_sync() waits for together. Either order is safe, since both
 * keys ANDed pass only through the old or the new value; the handlers are
 * held so that policyd acts once, on the outcome. Both keys were writable
 * a moment ago (sr_settings_check_set()); should a lock land between the
 * writes, the first is undone, so that a refusal changes nothing. */
static gboolean
set_both_switches (SrSettings *self,
                   GVariant   *value)
{
  g_autoptr(GVariant) was = g_settings_get_user_value (self->settings, "enabled");
  gboolean written;

  block_changes (self, TRUE);
  written = g_settings_set_value (self->settings, "enabled", value);
  if (written && !g_settings_set_value (self->desktop, DESKTOP_KEY, value))
    {
      if (was != NULL)
        g_settings_set_value (self->settings, "enabled", was);
      else
        g_settings_reset (self->settings, "enabled");
      written = FALSE;
    }
  block_changes (self, FALSE);
  refresh (self);
  return written;
}

/* Writes the value and waits until dconf has it, so that a reply means
 * "gsettings get" already shows it. */
gboolean
sr_settings_set (SrSettings  *self,
                 const char  *key,
                 GVariant    *value,
                 GError     **error)
{
  gboolean written;

  /* A lock may have arrived while polkit was being asked. */
  if (!sr_settings_check_set (self, key, value, error))
    return FALSE;

  if (self->desktop != NULL && g_str_equal (key, "enabled"))
    written = set_both_switches (self, value);
  else
    written = g_settings_set_value (self->settings, key, value);

  if (!written)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_LOCKED,
                   "“%s” could not be written: it is locked", key);
      return FALSE;
    }

  g_settings_sync ();
  return TRUE;
}

/* Whether @key of @settings has no value of the user's now: dconf refuses
 * the reset of a key locked meanwhile, and g_settings_reset() does not
 * say so; a reset it took shows at once, before it reaches the disk. */
static gboolean
user_value_gone (GSettings  *settings,
                 const char *key)
{
  g_autoptr(GVariant) value = g_settings_get_user_value (settings, key);

  return value == NULL;
}

/* The pair back to the defaults (the site database's, where it has
 * them), on the terms of set_both_switches(): straight through, the
 * handlers held, and the first undone should the second be refused. */
static gboolean
reset_both_switches (SrSettings *self)
{
  g_autoptr(GVariant) was = g_settings_get_user_value (self->settings, "enabled");
  gboolean written;

  block_changes (self, TRUE);
  g_settings_reset (self->settings, "enabled");
  written = user_value_gone (self->settings, "enabled");
  if (written)
    {
      g_settings_reset (self->desktop, DESKTOP_KEY);
      if (!user_value_gone (self->desktop, DESKTOP_KEY))
        {
          if (was != NULL)
            g_settings_set_value (self->settings, "enabled", was);
          written = FALSE;
        }
    }
  block_changes (self, FALSE);
  refresh (self);
  return written;
}

/* Removes the user's value, so that the default is in force (the site
 * database's, where it sets one), and waits until dconf has it, as
 * sr_settings_set() does. */
gboolean
sr_settings_reset (SrSettings  *self,
                   const char  *key,
                   GError     **error)
{
  gboolean written;

  /* A lock may have arrived while polkit was being asked. */
  if (!sr_settings_check_reset (self, key, error))
    return FALSE;

  if (self->desktop != NULL && g_str_equal (key, "enabled"))
    written = reset_both_switches (self);
  else
    {
      g_settings_reset (self->settings, key);
      written = user_value_gone (self->settings, key);
    }

  if (!written)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_LOCKED,
                   "“%s” could not be reset: it is locked", key);
      return FALSE;
    }

  g_settings_sync ();
  return TRUE;
}

/* Opting an app back in is refused when the administrator keeps it out:
 * the user's list would change, and the app would stay excluded. */
gboolean
sr_settings_check_include (SrSettings  *self,
                           const char  *app_id,
                           GError     **error)
{
  g_autoptr(GVariant) list = get_value (self->settings, "admin-excluded-apps");
  g_autofree const char **admin = g_variant_get_strv (list, NULL);

  if (g_strv_contains ((const char * const *) admin, app_id))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_LOCKED,
                   "“%s” is turned off by the administrator (“admin-excluded-apps”)",
                   app_id);
      return FALSE;
    }
  return TRUE;
}

/* The user's list with @app_id added or removed, order kept. */
GVariant *
sr_settings_excluded_with (SrSettings *self,
                           const char *app_id,
                           gboolean    excluded)
{
  g_autoptr(GVariant) list = get_value (self->settings, "excluded-apps");
  g_autofree const char **apps = g_variant_get_strv (list, NULL);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) result = NULL;
  gboolean present = FALSE;

  for (guint i = 0; apps[i] != NULL; i++)
    {
      /* Entries that are no app id never matched anything; they would
       * make the whole list fail validation. */
      if (!sr_app_id_validate (apps[i], NULL))
        continue;
      if (g_str_equal (apps[i], app_id))
        {
          present = TRUE;
          if (!excluded)
            continue;
        }
      g_strv_builder_add (builder, apps[i]);
    }
  if (excluded && !present)
    g_strv_builder_add (builder, app_id);

  result = g_strv_builder_end (builder);
  return g_variant_new_strv ((const char * const *) result, -1);
}
