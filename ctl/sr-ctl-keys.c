/* sr-ctl-keys.c: the settings keys, their properties and their values
 *
 * The keys are the GSettings schema's; each is mirrored by a policyd
 * property, whose D-Bus type (from the generated interface description)
 * is the key's type. Ranges and choices come from the schema when it is
 * installed, as it is wherever policyd is; policyd checks them anyway.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include "sr-ctl-keys.h"
#include "sr-ctl-output.h"
#include "sr-schema-range.h"
#include "sr-dbus-iface.h"
#include "sr-error.h"

static const SrCtlKey keys[] = {
  { "enabled", "Enabled" },
  { "login-restore", "LoginRestore" },
  { "restore-after-crash", "RestoreAfterCrash" },
  { "restore-on-launch", "RestoreOnLaunch" },
  { "excluded-apps", "ExcludedApps" },
  { "admin-excluded-apps", "AdminExcludedApps" },
  { "max-age-days", "MaxAgeDays" },
  { "crash-loop-threshold", "CrashLoopThreshold" },
  { "crash-loop-window", "CrashLoopWindow" },
};

const SrCtlKey *
sr_ctl_keys (guint *n_keys)
{
  *n_keys = G_N_ELEMENTS (keys);
  return keys;
}

const SrCtlKey *
sr_ctl_key_lookup (const char  *key,
                   GError     **error)
{
  g_autoptr(GString) names = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      if (g_str_equal (keys[i].key, key))
        return &keys[i];
      g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", keys[i].key);
    }
  g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
               "There is no setting “%s”; the settings are %s", key, names->str);
  return NULL;
}

const SrCtlKey *
sr_ctl_key_for_property (const char *property)
{
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    if (g_str_equal (keys[i].property, property))
      return &keys[i];
  return NULL;
}

const GVariantType *
sr_ctl_key_type (const SrCtlKey *key)
{
  GDBusPropertyInfo *info;

  info = g_dbus_interface_info_lookup_property ((GDBusInterfaceInfo *) &sr_dbus_policy_interface,
                                                key->property);
  g_assert (info != NULL);   /* the table above names the contract's properties */
  return G_VARIANT_TYPE (info->signature);
}

static GSettingsSchemaKey *
schema_key (const SrCtlKey *key)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source == NULL)
    return NULL;
  schema = g_settings_schema_source_lookup (source, SR_SETTINGS_SCHEMA, TRUE);
  if (schema == NULL || !g_settings_schema_has_key (schema, key->key))
    return NULL;
  return g_settings_schema_get_key (schema, key->key);
}

/* The values a key takes, for completion: NULL when they cannot be listed. */
char **
sr_ctl_key_choices (const SrCtlKey *key)
{
  g_autoptr(GSettingsSchemaKey) skey = NULL;
  g_autoptr(GVariant) range = NULL;
  g_autoptr(GVariant) detail = NULL;
  const char *kind;

  if (g_variant_type_equal (sr_ctl_key_type (key), G_VARIANT_TYPE_BOOLEAN))
    {
      const char *both[] = { "true", "false", NULL };
      return g_strdupv ((char **) both);
    }
  skey = schema_key (key);
  if (skey == NULL)
    return NULL;
  range = g_settings_schema_key_get_range (skey);
  g_variant_get (range, "(&sv)", &kind, &detail);
  if (g_str_equal (kind, "enum") || g_str_equal (kind, "choices"))
    return g_variant_dup_strv (detail, NULL);
  return NULL;
}

/* In words, for messages and help: "true or false", "one of always, ask,
 * never", "a whole number from -1 to 3650". */
char *
sr_ctl_key_allowed (const SrCtlKey *key)
{
  const GVariantType *type = sr_ctl_key_type (key);
  g_autoptr(GSettingsSchemaKey) skey = NULL;
  g_auto(GStrv) choices = NULL;

  if (g_variant_type_equal (type, G_VARIANT_TYPE_BOOLEAN))
    return g_strdup ("true or false");
  if (g_variant_type_equal (type, G_VARIANT_TYPE_STRING_ARRAY))
    return g_strdup ("a list of application ids, like “['org.example.App']”");

  choices = sr_ctl_key_choices (key);
  if (choices != NULL)
    {
      g_autofree char *joined = g_strjoinv (", ", choices);
      return g_strdup_printf ("one of %s", joined);
    }

  skey = schema_key (key);
  if (skey != NULL)
    {
      g_autofree char *range = sr_schema_range_describe (skey);

      if (range != NULL && g_str_has_prefix (range, "from "))
        return g_strdup_printf ("a whole number %s", range);
    }
  if (g_variant_type_equal (type, G_VARIANT_TYPE_UINT32))
    return g_strdup ("a whole number, 0 or more");
  if (g_variant_type_equal (type, G_VARIANT_TYPE_INT32))
    return g_strdup ("a whole number");
  return g_strdup_printf ("a value of type %s", g_variant_type_peek_string (type));
}

/* A value for a person or a shell script, as "get" prints it by default:
 * "always", not "'always'"; a list one item a line (none for an empty
 * list), so that "while read" and "mapfile" take it as it is. Strings
 * come from the service, and so from whatever wrote dconf: escaped
 * (sr_ctl_escape()), so that an item holds no newline of its own. No
 * final newline. */
char *
sr_ctl_value_plain (GVariant *value)
{
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
    return sr_ctl_escape (g_variant_get_string (value, NULL));
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
    {
      g_autoptr(GString) out = g_string_new (NULL);

      for (gsize i = 0; i < g_variant_n_children (value); i++)
        {
          g_autoptr(GVariant) item = g_variant_get_child_value (value, i);
          g_autofree char *shown = sr_ctl_escape (g_variant_get_string (item, NULL));

          g_string_append_printf (out, "%s%s", i > 0 ? "\n" : "", shown);
        }
      return g_string_free (g_steal_pointer (&out), FALSE);
    }
  /* Booleans and numbers print as gsettings prints them. */
  return g_variant_print (value, FALSE);
}

/* A value on one line, for "status" and "monitor": as "get" prints it,
 * but a list's items separated by ", ", and an empty list @empty. */
char *
sr_ctl_value_inline (GVariant   *value,
                     const char *empty)
{
  if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
    {
      g_autoptr(GString) out = g_string_new (NULL);

      if (g_variant_n_children (value) == 0)
        return g_strdup (empty);
      for (gsize i = 0; i < g_variant_n_children (value); i++)
        {
          g_autoptr(GVariant) item = g_variant_get_child_value (value, i);
          g_autofree char *shown = sr_ctl_escape (g_variant_get_string (item, NULL));

          g_string_append_printf (out, "%s%s", i > 0 ? ", " : "", shown);
        }
      return g_string_free (g_steal_pointer (&out), FALSE);
    }
  return sr_ctl_value_plain (value);
}

/* "value" and "locked" of a setting, in an object the caller opened;
 * @value NULL (the service did not tell it) is null. */
void
sr_ctl_key_json_fields (SrJson   *json,
                        GVariant *value,
                        gboolean  locked)
{
  sr_json_key (json, "value");
  if (value != NULL)
    sr_json_variant (json, value);
  else
    sr_json_null (json);
  sr_json_key (json, "locked");
  sr_json_bool (json, locked);
}

/* As "gsettings set" parses: GVariant text of the key's type, and for a
 * string key the text itself when it is not quoted. */
GVariant *
sr_ctl_key_parse (const SrCtlKey  *key,
                  const char      *text,
                  GError         **error)
{
  const GVariantType *type = sr_ctl_key_type (key);
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GError) parse_error = NULL;

  value = g_variant_parse (type, text, NULL, NULL, &parse_error);
  if (value == NULL && g_variant_type_equal (type, G_VARIANT_TYPE_STRING))
    value = g_variant_ref_sink (g_variant_new_string (text));
  if (value == NULL)
    {
      g_autofree char *allowed = sr_ctl_key_allowed (key);
      g_autofree char *shown = g_utf8_make_valid (text, -1);
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "“%s” is not a value of “%s”, which takes %s",
                   shown, key->key, allowed);
      return NULL;
    }
  return g_steal_pointer (&value);
}

/* While the service is not running, what it will read: the schema's keys
 * as GSettings has them (the user's dconf, the administrator's defaults
 * and locks), "enabled" ANDed with GNOME's switch, and locked when either
 * is, as policyd does. */
struct _SrCtlLocalSettings {
  GSettings *settings;   /* (owned) */
  GSettings *desktop;    /* (owned) (nullable): where GNOME's key is installed */
};

#define DESKTOP_SCHEMA "org.gnome.desktop.session"
#define DESKTOP_KEY "save-restore"

SrCtlLocalSettings *
sr_ctl_local_settings_new (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettingsSchema) desktop = NULL;
  SrCtlLocalSettings *local;

  if (source == NULL)
    return NULL;
  schema = g_settings_schema_source_lookup (source, SR_SETTINGS_SCHEMA, TRUE);
  if (schema == NULL)
    return NULL;
  local = g_new0 (SrCtlLocalSettings, 1);
  local->settings = g_settings_new_full (schema, NULL, NULL);
  desktop = g_settings_schema_source_lookup (source, DESKTOP_SCHEMA, TRUE);
  if (desktop != NULL && g_settings_schema_has_key (desktop, DESKTOP_KEY))
    local->desktop = g_settings_new_full (desktop, NULL, NULL);
  return local;
}

void
sr_ctl_local_settings_free (SrCtlLocalSettings *local)
{
  g_clear_object (&local->settings);
  g_clear_object (&local->desktop);
  g_free (local);
}

/* The value in force of @key, or NULL when the schema lacks it. */
GVariant *
sr_ctl_local_settings_get (SrCtlLocalSettings *local,
                           const SrCtlKey     *key,
                           gboolean           *out_locked)
{
  g_autoptr(GSettingsSchema) schema = NULL;
  GVariant *value;

  g_object_get (local->settings, "settings-schema", &schema, NULL);
  if (!g_settings_schema_has_key (schema, key->key))
    return NULL;
  value = g_settings_get_value (local->settings, key->key);
  *out_locked = !g_settings_is_writable (local->settings, key->key);
  if (local->desktop != NULL && g_str_equal (key->key, "enabled"))
    {
      gboolean desktop_on = g_settings_get_boolean (local->desktop, DESKTOP_KEY);

      *out_locked = *out_locked || !g_settings_is_writable (local->desktop, DESKTOP_KEY);
      if (!desktop_on)
        {
          g_variant_unref (value);
          value = g_variant_ref_sink (g_variant_new_boolean (FALSE));
        }
    }
  return value;
}
