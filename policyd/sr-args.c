/* sr-args.c: each method's arguments, checked before polkit is asked
 *
 * The gate's third step (sr-gate.c), named per method in the table of
 * sr-daemon.c: app ids that are valid, settings keys that exist with a
 * value of their type and range, and that the administrator has not
 * locked. A refusal here is InvalidArgs or Locked; it comes after the
 * sandbox rule (a sandboxed caller learns nothing from it about other
 * apps or the locks) and before polkit is asked; nothing is changed. The method then runs with the
 * settings of its own time (a change may land while polkit answers),
 * and checks again what it must.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-args"

#include "config.h"

#include "sr-app-id.h"
#include "sr-args.h"

/* CheckSave, CheckRestore, NoteExit, ResetCrashGuard: argument 0 is an
 * app id. */
gboolean
sr_args_check_app_id (SrSettings  *settings,
                      GVariant    *params,
                      GError     **error)
{
  /* By index: a format string parsed at each call cost 9,000 of a first
   * call's instructions. */
  g_autoptr(GVariant) app_id = g_variant_get_child_value (params, 0);

  return sr_app_id_validate (g_variant_get_string (app_id, NULL), error);
}

gboolean
sr_args_check_set_setting (SrSettings  *settings,
                           GVariant    *params,
                           GError     **error)
{
  g_autoptr(GVariant) value = NULL;
  const char *key;

  g_variant_get (params, "(&sv)", &key, &value);
  return sr_settings_check_set (settings, key, value, error);
}

gboolean
sr_args_check_reset_setting (SrSettings  *settings,
                             GVariant    *params,
                             GError     **error)
{
  const char *key;

  g_variant_get (params, "(&s)", &key);
  return sr_settings_check_reset (settings, key, error);
}

gboolean
sr_args_check_set_app_excluded (SrSettings  *settings,
                                GVariant    *params,
                                GError     **error)
{
  g_autoptr(GVariant) list = NULL;
  const char *app_id;
  gboolean excluded;

  g_variant_get (params, "(&sb)", &app_id, &excluded);
  if (!sr_app_id_validate (app_id, error))
    return FALSE;
  if (!excluded && !sr_settings_check_include (settings, app_id, error))
    return FALSE;
  list = g_variant_ref_sink (sr_settings_excluded_with (settings, app_id, excluded));
  return sr_settings_check_set (settings, "excluded-apps", list, error);
}

gboolean
sr_args_check_clear (SrSettings  *settings,
                     GVariant    *params,
                     GError     **error)
{
  g_autofree const char **apps = NULL;

  g_variant_get (params, "(^a&s)", &apps);
  return sr_app_id_list_validate (apps, error);
}
