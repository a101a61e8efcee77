/* sr-app-id.c: what counts as an application id
 *
 * App ids end up in file names inside state directories, so the checks
 * below are what keeps a caller from naming a path. Each failure gets its
 * own message so that a consumer developer sees what is wrong.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-app-id"

#include "config.h"

#include <gio/gio.h>

#include "sr-app-id.h"
#include "sr-error.h"

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

  /* The validity check below rejects these too; they are named here
   * because they are the ones that would escape a directory. */
  if (strchr (app_id, '/') != NULL || strstr (app_id, "..") != NULL)
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                           "The app id contains “/” or “..”");
      return FALSE;
    }

  if (!g_application_id_is_valid (app_id))
    {
      g_autofree char *shown = g_utf8_make_valid (app_id, -1);
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "“%s” is not a valid application id", shown);
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
