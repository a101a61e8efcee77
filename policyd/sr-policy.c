/* sr-policy.c: the settings in force, as the decision rules read them
 *
 * Built from GSettings on the main thread whenever dconf says something
 * changed; checks on any thread read a snapshot and never touch GSettings.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-policy"

#include "config.h"

#include "sr-app-id.h"
#include "sr-policy.h"

#define DESKTOP_KEY "save-restore"

static void
add_valid_app_ids (GHashTable *set,
                   GSettings  *settings,
                   const char *key)
{
  g_auto(GStrv) apps = g_settings_get_strv (settings, key);

  for (guint i = 0; apps[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;

      /* gsettings can write anything; an entry that is no app id could
       * never match, but say so rather than hide it. */
      if (!sr_app_id_validate (apps[i], &error))
        g_warning ("Ignoring “%s” in “%s”: %s", apps[i], key, error->message);
      else
        g_hash_table_add (set, g_strdup (apps[i]));
    }
}

/* @desktop: org.gnome.desktop.session where it has "save-restore", or
 * NULL: its switch and ours must both be on. */
SrPolicy *
sr_policy_new (GSettings *settings,
               GSettings *desktop)
{
  SrPolicy *policy = g_atomic_rc_box_new0 (SrPolicy);

  policy->enabled = g_settings_get_boolean (settings, "enabled") &&
                    (desktop == NULL || g_settings_get_boolean (desktop, DESKTOP_KEY));
  policy->login_restore = g_settings_get_enum (settings, "login-restore");
  policy->restore_after_crash = g_settings_get_boolean (settings, "restore-after-crash");
  policy->restore_on_launch = g_settings_get_boolean (settings, "restore-on-launch");
  policy->max_age_days = g_settings_get_int (settings, "max-age-days");
  policy->crash_loop_threshold = g_settings_get_uint (settings, "crash-loop-threshold");
  policy->crash_loop_window = g_settings_get_uint (settings, "crash-loop-window");

  policy->excluded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  add_valid_app_ids (policy->excluded, settings, "excluded-apps");
  add_valid_app_ids (policy->excluded, settings, "admin-excluded-apps");
  return policy;
}

const SrPolicy *
sr_policy_ref (const SrPolicy *policy)
{
  return g_atomic_rc_box_acquire ((SrPolicy *) policy);
}

static void
policy_clear (SrPolicy *policy)
{
  g_hash_table_unref (policy->excluded);
}

void
sr_policy_unref (const SrPolicy *policy)
{
  g_atomic_rc_box_release_full ((SrPolicy *) policy, (GDestroyNotify) policy_clear);
}
