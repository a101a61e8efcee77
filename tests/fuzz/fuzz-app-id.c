/* fuzz-app-id.c: app id validation (common/sr-app-id.c)
 *
 * The input is one app id, and also, split at newlines, a list of them.
 * Beyond not crashing: whatever passes must be safe as a file name
 * component, and every refusal must carry a readable (UTF-8) message, as
 * it goes back over D-Bus.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "fuzz-app-id"

#include "config.h"

#include <gio/gio.h>

#include "fuzz.h"
#include "sr-app-id.h"
#include "sr-error.h"

static gboolean
check_one (const char *app_id)
{
  g_autoptr(GError) error = NULL;
  gboolean valid = sr_app_id_validate (app_id, &error);

  if (valid)
    {
      g_assert_no_error (error);
      g_assert_cmpuint (strlen (app_id), >, 0);
      g_assert_cmpuint (strlen (app_id), <=, SR_APP_ID_MAX_LEN);
      g_assert_null (strchr (app_id, '/'));
      g_assert_null (strstr (app_id, ".."));
      g_assert_true (g_ascii_isalnum (app_id[0]) || app_id[0] == '_' || app_id[0] == '+');
      g_assert_false (g_str_has_suffix (app_id, ".desktop"));
      for (const char *p = app_id; *p != '\0'; p++)
        g_assert_true (g_ascii_isalnum (*p) || strchr ("._-+", *p) != NULL);
    }
  else
    {
      /* Every id GApplication takes is one, but for file names. */
      g_assert_false (g_application_id_is_valid (app_id) && app_id[0] != '-' &&
                      !g_str_has_suffix (app_id, ".desktop"));
      g_assert_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    }
  return valid;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *text = g_strndup ((const char *) data, size);
  g_auto(GStrv) list = NULL;
  g_autoptr(GError) error = NULL;
  gboolean all_valid = TRUE;
  guint n;

  fuzz_set_up ();

  check_one (text);

  list = g_strsplit (text, "\n", -1);
  n = g_strv_length (list);
  for (guint i = 0; i < n && i <= SR_APP_LIST_MAX; i++)
    all_valid = check_one (list[i]) && all_valid;
  g_assert_true (sr_app_id_list_validate ((const char * const *) list, &error) ==
                 (all_valid && n <= SR_APP_LIST_MAX));
  g_assert_true ((error == NULL) == (all_valid && n <= SR_APP_LIST_MAX));

  return 0;
}
