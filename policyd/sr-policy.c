/* sr-policy.c: the settings in force, as the decision rules read them
 *
 * Built from the settings' values (sr-settings.c reads each key once) on
 * the main thread whenever dconf says something changed; checks on any
 * thread read a snapshot and never touch GSettings.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-policy"

#include "config.h"

#include "sr-app-id.h"
#include "sr-policy.h"
#include "sr-string-array.h"

typedef struct {
  GHashTable *set;
  const char *key;
} Adding;

static void
add_if_valid (const char *app_id,
              gpointer    user_data)
{
  Adding *adding = user_data;
  g_autoptr(GError) error = NULL;

  /* gsettings can write anything; an entry that is no app id could
   * never match, but say so rather than hide it. */
  if (!sr_app_id_validate (app_id, &error))
    g_warning ("Ignoring “%s” in “%s”: %s", app_id, adding->key, error->message);
  else
    g_hash_table_add (adding->set, (gpointer) app_id);
}

/* Linear in the list's length, trusted or not (sr-string-array.c). The
 * set's keys point into @apps, which the policy keeps: 10,000 excluded
 * apps are not copied. */
static void
add_valid_app_ids (GHashTable *set,
                   GVariant   *apps,
                   const char *key)
{
  Adding adding = { set, key };

  sr_string_array_foreach (apps, add_if_valid, &adding);
}

/* GSettings only hands out nicks of the key's enum. */
static SrLoginRestore
login_restore_of (GVariant *nick)
{
  const char *text = g_variant_get_string (nick, NULL);

  if (g_str_equal (text, "never"))
    return SR_LOGIN_RESTORE_NEVER;
  if (g_str_equal (text, "ask"))
    return SR_LOGIN_RESTORE_ASK;
  return SR_LOGIN_RESTORE_ALWAYS;
}

/* Where GNOME's switch is installed, it and ours must both be on. */
SrPolicy *
sr_policy_new (const SrPolicyKeys *keys)
{
  SrPolicy *policy = g_atomic_rc_box_new0 (SrPolicy);

  policy->enabled = g_variant_get_boolean (keys->enabled) &&
                    (keys->desktop_enabled == NULL || g_variant_get_boolean (keys->desktop_enabled));
  policy->login_restore = login_restore_of (keys->login_restore);
  policy->restore_after_crash = g_variant_get_boolean (keys->restore_after_crash);
  policy->restore_on_launch = g_variant_get_boolean (keys->restore_on_launch);
  policy->max_age_days = g_variant_get_int32 (keys->max_age_days);
  policy->crash_loop_threshold = g_variant_get_uint32 (keys->crash_loop_threshold);
  policy->crash_loop_window = g_variant_get_uint32 (keys->crash_loop_window);

  policy->excluded = g_hash_table_new (g_str_hash, g_str_equal);
  policy->excluded_lists[0] = g_variant_ref (keys->excluded_apps);
  policy->excluded_lists[1] = g_variant_ref (keys->admin_excluded_apps);
  add_valid_app_ids (policy->excluded, keys->excluded_apps, "excluded-apps");
  add_valid_app_ids (policy->excluded, keys->admin_excluded_apps, "admin-excluded-apps");
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
  for (guint i = 0; i < G_N_ELEMENTS (policy->excluded_lists); i++)
    g_clear_pointer (&policy->excluded_lists[i], g_variant_unref);
}

void
sr_policy_unref (const SrPolicy *policy)
{
  g_atomic_rc_box_release_full ((SrPolicy *) policy, (GDestroyNotify) policy_clear);
}
