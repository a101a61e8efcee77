/* sr-app-id.c: what counts as an application id
 *
 * App ids name apps as desktops do: the desktop file id, the .desktop
 * file's name without ".desktop" (Desktop Entry specification). Most are
 * reverse-DNS ("org.gnome.TextEditor", as GApplication wants them), but
 * many packaged apps have none: "firefox-esr", "vlc", "gimp". Matching is
 * exact.
 *
 * App ids end up in file names inside state directories and in store
 * patterns, so the checks below are what keeps a caller from naming a
 * path: letters, digits and "._-+" only, no ".." and no "/", not starting
 * with "." or "-". Each failure gets its own message so that a consumer
 * developer sees what is wrong.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define G_LOG_DOMAIN "sr-app-id"

#include "config.h"

#include <gio/gio.h>

#include "sr-app-id.h"
#include "sr-error.h"

/* Store patterns match an app id with this too (sr-pattern.c): a
 * character allowed here but not there would leave that app's files
 * behind while Clear reported success. */
gboolean
sr_app_id_is_char (char c)
{
  return g_ascii_isalnum (c) || c == '.' || c == '_' || c == '-' || c == '+';
}

gboolean
sr_app_id_validate (const char  *app_id,
                    GError     **error)
{
  gsize len;

  if (app_id == NULL || *app_id == '\0')
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                           "The app id is empty");
      return FALSE;
    }

  len = strlen (app_id);
  if (len > SR_APP_ID_MAX_LEN)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "The app id is %" G_GSIZE_FORMAT " bytes long; at most %d are allowed",
                   len, SR_APP_ID_MAX_LEN);
      return FALSE;
    }

  for (const char *p = app_id; *p != '\0'; p++)
    {
      if (g_ascii_iscntrl (*p))
        {
          g_set_error_literal (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                               "The app id contains a control character");
          return FALSE;
        }
    }

  /* The checks below reject these too; they are named here because they
   * are the ones that would escape a directory. */
  if (strchr (app_id, '/') != NULL || strstr (app_id, "..") != NULL)
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                           "The app id contains “/” or “..”");
      return FALSE;
    }

  if (g_str_has_suffix (app_id, ".desktop"))
    {
      g_autofree char *shown = g_utf8_make_valid (app_id, len - strlen (".desktop"));
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "“%s.desktop” is a file name: the app id is “%s”, without “.desktop”",
                   shown, shown);
      return FALSE;
    }

  for (const char *p = app_id; *p != '\0'; p++)
    if (!sr_app_id_is_char (*p))
      {
        g_autofree char *shown = g_utf8_make_valid (app_id, -1);
        g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                     "“%s” is not a valid application id: only letters, digits and "
                     "“.”, “_”, “-”, “+” may be used", shown);
        return FALSE;
      }

  if (app_id[0] == '.' || app_id[0] == '-' || app_id[len - 1] == '.')
    {
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "“%s” is not a valid application id: it may not start with “.” or “-”, "
                   "or end with “.”", app_id);
      return FALSE;
    }

  return TRUE;
}

gboolean
sr_app_id_list_validate (const char * const  *app_ids,
                         GError             **error)
{
  guint n = 0;

  for (; app_ids != NULL && app_ids[n] != NULL; n++)
    {
      if (n >= SR_APP_LIST_MAX)
        {
          g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                       "The list holds more than %d app ids", SR_APP_LIST_MAX);
          return FALSE;
        }
      if (!sr_app_id_validate (app_ids[n], error))
        return FALSE;
    }

  return TRUE;
}
