/* sr-ctl-complete.c: words for the shell's completion
 *
 * "session-restore-ctl _complete keys|settable|values KEY|apps|excluded" prints one
 * word a line; the bash completion script asks it, so that the keys, their
 * values and the app ids live here and in the service, not in the script.
 * Never interactive, never an error message: a completion that cannot be
 * had is just empty.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include "sr-app-id.h"
#include "sr-ctl.h"
#include "sr-ctl-keys.h"

static void
print_strv (const char *const *words)
{
  for (guint i = 0; words != NULL && words[i] != NULL; i++)
    g_print ("%s\n", words[i]);
}

/* From the service: "excluded-apps" may hold anything gsettings wrote,
 * and only an app id is a word worth offering (and safe to print). */
static void
print_app_id (const char *app_id)
{
  if (sr_app_id_validate (app_id, NULL))
    g_print ("%s\n", app_id);
}

int
sr_ctl_cmd_complete (SrCtl  *ctl,
                     int     argc,
                     char  **argv)
{
  const char *what = argc > 1 ? argv[1] : "";

  ctl->interactive = FALSE;
  if (g_str_equal (what, "keys"))
    {
      guint n_keys;
      const SrCtlKey *keys = sr_ctl_keys (&n_keys);
      for (guint i = 0; i < n_keys; i++)
        g_print ("%s\n", keys[i].key);
    }
  /* What "set" and "reset" take: not admin-excluded-apps, which only the
   * administrator sets, nor a key the administrator locked, when the
   * service says which. */
  else if (g_str_equal (what, "settable"))
    {
      guint n_keys;
      const SrCtlKey *keys = sr_ctl_keys (&n_keys);
      gboolean connected = sr_ctl_connect (ctl, NULL);

      for (guint i = 0; i < n_keys; i++)
        if (!g_str_equal (keys[i].key, "admin-excluded-apps") &&
            !(connected && sr_policy_client_is_locked (ctl->client, keys[i].key)))
          g_print ("%s\n", keys[i].key);
    }
  else if (g_str_equal (what, "values") && argc > 2)
    {
      const SrCtlKey *key = sr_ctl_key_lookup (argv[2], NULL);
      g_auto(GStrv) choices = key != NULL ? sr_ctl_key_choices (key) : NULL;
      print_strv ((const char *const *) choices);
    }
  else if (g_str_equal (what, "apps") || g_str_equal (what, "excluded"))
    {
      g_autoptr(GVariant) apps = NULL;
      const char *const *excluded;

      if (!sr_ctl_connect (ctl, NULL))
        return SR_CTL_EXIT_UNAVAILABLE;
      excluded = sr_policy_client_get_excluded_apps (ctl->client);
      for (guint i = 0; excluded[i] != NULL; i++)
        print_app_id (excluded[i]);
      if (g_str_equal (what, "apps"))
        apps = sr_policy_client_list_stored_state_sync (ctl->client, SR_CALL_FLAGS_NONE, NULL,
                                                        NULL);
      if (apps != NULL)
        {
          GVariantIter iter;
          const char *app_id;

          g_variant_iter_init (&iter, apps);
          while (g_variant_iter_next (&iter, "(&s@a{sv})", &app_id, NULL))
            if (*app_id != '\0')
              print_app_id (app_id);
        }
    }
  return SR_CTL_EXIT_OK;
}
