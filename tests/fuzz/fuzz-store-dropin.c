/* fuzz-store-dropin.c: store drop-in parsing (policyd/stores/sr-store-dropin.c)
 *
 * The input is a drop-in's text, then optionally a NUL and a file name to
 * match against the store. It is loaded as the system's and as the user's.
 * Beyond not crashing: a store that loads has a root that is absolute, not
 * "/", free of "." and "..", at or below its base and not in policyd's
 * own state, and whatever its pattern matches is a plain UTF-8 file name,
 * with a valid app id if any. What loads as the user's loads as the
 * system's, and is GTK files or gnome-session entries inside the user's
 * state directories.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "fuzz-store-dropin"

#include "config.h"

#include "fuzz.h"
#include "sr-app-id.h"
#include "sr-state-file.h"
#include "sr-store-confine.h"
#include "sr-store-dropin.h"

static void
assert_no_dot_components (const char *path)
{
  g_auto(GStrv) parts = g_strsplit (path, "/", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_assert_cmpstr (parts[i], !=, ".");
      g_assert_cmpstr (parts[i], !=, "..");
    }
}

static void
check_match (const SrStore *store,
             const char    *file_name)
{
  g_autofree char *app_id = NULL;

  if (!sr_store_match (store, file_name, &app_id))
    {
      g_assert_null (app_id);
      return;
    }
  g_assert_null (strchr (file_name, '/'));
  g_assert_true (file_name[0] != '.');
  g_assert_true (g_utf8_validate (file_name, -1, NULL));
  if (app_id != NULL)
    {
      g_assert_true (sr_app_id_validate (app_id, NULL));
      g_assert_nonnull (strstr (file_name, app_id));
      /* GTK's files are named after app ids with a dot. */
      if (store->format == SR_STORE_FORMAT_GTK)
        g_assert_nonnull (strchr (app_id, '.'));
    }
}

static gboolean
is_within (const char *path,
           const char *base)
{
  gsize len = strlen (base);

  return g_str_equal (base, "/") ||
         (strncmp (path, base, len) == 0 && (path[len] == '\0' || path[len] == '/'));
}

static void
check_store (const SrStore *store,
             const char    *file_name)
{
  g_autofree char *own_state = sr_state_file_path (NULL);

  g_assert_cmpstr (store->name, ==, "fuzz");
  g_assert_nonnull (store->description);
  g_assert_true (g_path_is_absolute (store->root));
  g_assert_cmpstr (store->root, !=, "/");
  assert_no_dot_components (store->root);
  g_assert_true (is_within (store->root, store->base));
  g_assert_false (is_within (store->root, own_state));
  g_assert_true (sr_store_root_below_base (store)[0] != '/');
  if (store->app_subdir != NULL)
    assert_no_dot_components (store->app_subdir);
  switch (store->kind)
    {
    case SR_STORE_FILES:
      g_assert_true (store->format == SR_STORE_FORMAT_NONE ||
                     store->format == SR_STORE_FORMAT_GTK);
      break;
    case SR_STORE_ENTRIES:
      g_assert_true (store->format == SR_STORE_FORMAT_GNOME_SESSION);
      g_assert_null (store->app_subdir);
      break;
    case SR_STORE_WHOLE_FILE:
      g_assert_true (store->format == SR_STORE_FORMAT_NONE);
      g_assert_null (store->app_subdir);
      break;
    default:
      g_assert_not_reached ();
    }

  if (file_name != NULL)
    check_match (store, file_name);
  check_match (store, "org.example.App@1.state");
  check_match (store, "gnome-session@gnome.state");
  check_match (store, "session-restore-portal@gnome.state");
  check_match (store, "session.gvdb");
  check_match (store, "");
}

static SrStore *
load (GKeyFile      *file,
      SrStoreOrigin  origin)
{
  g_autoptr(GError) error = NULL;
  SrStore *store = sr_store_load_key_file (file, "fuzz", origin, &error);

  if (store == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      return NULL;
    }
  g_assert_no_error (error);
  g_assert_cmpint (store->origin, ==, origin);
  return store;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *text = (const char *) data;
  const char *nul = memchr (data, '\0', size);
  gsize text_len = nul != NULL ? (gsize) (nul - text) : size;
  g_autofree char *file_name = NULL;
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autoptr(SrStore) system = NULL;
  g_autoptr(SrStore) user = NULL;

  fuzz_set_up ();

  if (nul != NULL)
    file_name = g_strndup (nul + 1, size - text_len - 1);
  if (!g_key_file_load_from_data (file, text, text_len, G_KEY_FILE_NONE, NULL))
    return 0;

  system = load (file, SR_STORE_ORIGIN_SYSTEM);
  user = load (file, SR_STORE_ORIGIN_USER);
  if (system != NULL)
    check_store (system, file_name);
  if (user != NULL)
    {
      g_autofree char *flatpak_apps = g_build_filename (g_get_home_dir (), ".var", "app", NULL);

      g_assert_nonnull (system);
      check_store (user, file_name);
      g_assert_true ((user->kind == SR_STORE_FILES && user->format == SR_STORE_FORMAT_GTK) ||
                     user->kind == SR_STORE_ENTRIES);
      g_assert_true (is_within (user->root, g_get_user_state_dir ()) ||
                     is_within (user->root, g_get_user_data_dir ()) ||
                     is_within (user->root, flatpak_apps));
    }

  return 0;
}
