/* sr-portal-ids.c: instance ids
 *
 * The interface asks for short alphanumeric ids that differ between
 * desktop session types, so that an app keeps separate state under Sway
 * and under Hyprland. An id is the first 12 hex digits of a SHA-256 over
 * this backend's name, the desktop's identity, the app id and 8 random
 * bytes: it differs from gnome-session's ids for the same app, and from
 * another desktop's. It is stable because the record hands the id of the
 * app's last cleanly closed instance to its next launch (sr-portal-register.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-ids"

#include "config.h"

#include "sr-portal.h"

#define INSTANCE_ID_LEN 12

/* XDG_CURRENT_DESKTOP's first entry, else XDG_SESSION_DESKTOP, lower case
 * and reduced to [a-z0-9_-]: it names the record file too. */
char *
sr_portal_desktop_identity (void)
{
  const char *desktop = g_getenv ("XDG_CURRENT_DESKTOP");
  g_autofree char *first = NULL;
  GString *out = g_string_new (NULL);

  if (desktop == NULL || *desktop == '\0')
    desktop = g_getenv ("XDG_SESSION_DESKTOP");
  if (desktop == NULL || *desktop == '\0')
    desktop = "default";
  first = g_strndup (desktop, strcspn (desktop, ":"));
  for (const char *p = first; *p != '\0' && out->len < 64; p++)
    {
      char c = g_ascii_tolower (*p);
      if (g_ascii_isalnum (c) || c == '-' || c == '_')
        g_string_append_c (out, c);
    }
  if (out->len == 0)
    g_string_append (out, "default");
  return g_string_free (out, FALSE);
}

char *
sr_portal_new_instance_id (const char *desktop,
                           SrApp      *app)
{
  for (;;)
    {
      g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
      guint32 random[2] = { g_random_int (), g_random_int () };
      g_autofree char *id = NULL;

      g_checksum_update (sum, (const guchar *) "session-restore-portal", -1);
      g_checksum_update (sum, (const guchar *) desktop, -1);
      g_checksum_update (sum, (const guchar *) app->app_id, -1);
      g_checksum_update (sum, (const guchar *) random, sizeof random);
      id = g_strndup (g_checksum_get_string (sum), INSTANCE_ID_LEN);

      /* Never one the app has, had or must still delete. */
      if (sr_portal_app_find_instance (app, id) == NULL &&
          g_strcmp0 (app->next_id, id) != 0 &&
          !g_ptr_array_find_with_equal_func (app->discard, id, g_str_equal, NULL))
        return g_steal_pointer (&id);
    }
}
