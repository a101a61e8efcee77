/* fuzz-format-gnome-session.c: gnome-session's state file
 * (policyd/stores/sr-format-gnome-session.c)
 *
 * The input is a state file. Beyond not crashing: every app listed has a
 * valid id, and what clearing writes back parses again, without what was
 * cleared and with everything else.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "fuzz-format-gnome-session"

#include "config.h"

#include "fuzz.h"
#include "sr-app-id.h"
#include "sr-format-gnome-session.h"

static void
count_app (const char *app_id,
           guint       entries,
           guint64     bytes,
           gboolean    reopens,
           gint64      saved_at,
           gpointer    user_data)
{
  GHashTable *apps = user_data;
  guint before = GPOINTER_TO_UINT (g_hash_table_lookup (apps, app_id));

  g_assert_true (sr_app_id_validate (app_id, NULL));
  g_hash_table_insert (apps, g_strdup (app_id), GUINT_TO_POINTER (before + entries));
}

static GHashTable *
list_apps (GVariant *state)
{
  GHashTable *apps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  sr_format_gnome_session_foreach_app (state, count_app, apps);
  return apps;
}

/* What clearing would write, read back as policyd would read it. */
static GVariant *
reparse (GVariant *written)
{
  g_autoptr(GError) error = NULL;
  GVariant *state = sr_format_gnome_session_parse (g_variant_get_data (written),
                                            g_variant_get_size (written), &error);

  g_assert_no_error (error);
  return state;
}

static void
check_clear_all (GVariant *state)
{
  g_autoptr(GHashTable) before = list_apps (state);
  g_autoptr(GPtrArray) removed = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GVariant) without = NULL;
  g_autoptr(GVariant) after = NULL;
  g_autoptr(GHashTable) left = NULL;
  guint entries;
  guint64 bytes;

  without = sr_format_gnome_session_without (state, NULL, &entries, &bytes, removed);
  if (without == NULL)
    {
      g_assert_cmpuint (g_hash_table_size (before), ==, 0);
      return;
    }
  g_assert_cmpuint (removed->len, >=, g_hash_table_size (before));
  after = reparse (without);
  left = list_apps (after);
  g_assert_cmpuint (g_hash_table_size (left), ==, 0);
}

static void
check_clear_one (GVariant   *state,
                 const char *app_id)
{
  g_autoptr(GHashTable) before = list_apps (state);
  g_autoptr(GHashTable) which = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GVariant) without = NULL;
  g_autoptr(GVariant) after = NULL;
  g_autoptr(GHashTable) left = NULL;
  GHashTableIter iter;
  gpointer key, value;
  guint entries;
  guint64 bytes;

  g_hash_table_add (which, (gpointer) app_id);
  without = sr_format_gnome_session_without (state, which, &entries, &bytes, NULL);
  g_assert_nonnull (without);
  g_assert_cmpuint (entries, ==, GPOINTER_TO_UINT (g_hash_table_lookup (before, app_id)));

  after = reparse (without);
  left = list_apps (after);
  g_assert_false (g_hash_table_contains (left, app_id));
  g_assert_cmpuint (g_hash_table_size (left), ==, g_hash_table_size (before) - 1);
  g_hash_table_iter_init (&iter, left);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_assert_cmpuint (GPOINTER_TO_UINT (value), ==,
                      GPOINTER_TO_UINT (g_hash_table_lookup (before, key)));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) state = NULL;
  g_autoptr(GHashTable) apps = NULL;
  GHashTableIter iter;
  gpointer app_id;

  fuzz_set_up ();

  state = sr_format_gnome_session_parse (data, size, &error);
  if (state == NULL)
    {
      g_assert_nonnull (error);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      return 0;
    }
  g_assert_no_error (error);
  g_assert_true (g_variant_is_normal_form (state));
  fuzz_walk_variant (state);

  check_clear_all (state);

  apps = list_apps (state);
  g_hash_table_iter_init (&iter, apps);
  if (g_hash_table_iter_next (&iter, &app_id, NULL))
    check_clear_one (state, app_id);

  return 0;
}
