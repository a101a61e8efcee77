/* test-store-dropin.c: store drop-ins, parsed, matched and read from their
 * directories, and what they may reach (policyd/stores/sr-store-dropin.c,
 * sr-store-confine.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-store-dropin"

#include "config.h"

#include <glib/gstdio.h>

#include "sr-error.h"
#include "sr-store-confine.h"
#include "sr-store-dropin.h"
#include "sr-store-walk.h"

static SrStore *
load_text_from (SrStoreOrigin   origin,
                const char     *text,
                GError        **error)
{
  g_autofree char *dir = g_dir_make_tmp ("sr-stores-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "test.store", NULL);
  SrStore *store;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  store = sr_store_load_file (path, origin, error);
  g_unlink (path);
  g_rmdir (dir);
  return store;
}

static SrStore *
load_text (const char  *text,
           GError     **error)
{
  return load_text_from (SR_STORE_ORIGIN_SYSTEM, text, error);
}

static void
test_dropin_files (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrStore) store = load_text ("[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\n"
                                        "Pattern={app}@*.state\n", &error);
  g_autofree char *app = NULL;

  g_assert_no_error (error);
  g_assert_cmpstr (store->name, ==, "test");
  g_assert_cmpstr (store->root, ==, g_get_user_state_dir ());
  g_assert_null (store->app_subdir);
  g_assert_true (sr_store_match (store, "org.example.App@a1b2.state", &app));
  g_assert_cmpstr (app, ==, "org.example.App");
  g_clear_pointer (&app, g_free);
  g_assert_true (sr_store_match (store, "foo+bar@1.state", &app));
  g_assert_cmpstr (app, ==, "foo+bar");
  g_assert_false (sr_store_match (store, "not valid@1.state", NULL));
  g_assert_false (sr_store_match (store, ".org.example.App@1.state", NULL));
  g_assert_false (sr_store_match (store, "org.example.App@1.state.tmp", NULL));
  g_assert_false (sr_store_match (store, "-org.example.App@1.state", NULL));
  /* Not UTF-8 (a UTF-16 surrogate), which GRegex's JIT used to match. */
  g_assert_false (sr_store_match (store, "org.example.App@\xed\xa0\x80.state", NULL));
}

static void
test_dropin_app_directory (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrStore) store = load_text ("[Store]\nKind=files\n"
                                        "Directory=$HOME/.var/app/{app}/.local/state\n"
                                        "Pattern={app}@*.state\n", &error);
  g_autofree char *root = g_build_filename (g_get_home_dir (), ".var", "app", NULL);

  g_assert_no_error (error);
  g_assert_cmpstr (store->root, ==, root);
  g_assert_cmpstr (store->app_subdir, ==, ".local/state");
}

static void
test_dropin_whole_file (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrStore) store = load_text ("[Store]\nKind=whole-file\nDirectory=$XDG_DATA_HOME/mutter\n"
                                        "Pattern=session.gvdb\n", &error);
  g_autofree char *app = NULL;

  g_assert_no_error (error);
  g_assert_cmpint (store->kind, ==, SR_STORE_WHOLE_FILE);
  g_assert_true (sr_store_match (store, "session.gvdb", &app));
  g_assert_null (app);
  g_assert_false (sr_store_match (store, "session.gvdb~", NULL));
}

static void
test_dropin_rejected (void)
{
  const char *bad[] = {
    "not a key file",
    "[Store]\nKind=files\nDirectory=$HOME\n",
    "[Store]\nKind=other\nDirectory=$HOME\nPattern={app}.x\n",
    "[Store]\nKind=files\nDirectory=$HOME/../x\nPattern={app}.x\n",
    "[Store]\nKind=files\nDirectory=$HOME/./x\nPattern={app}.x\n",
    "[Store]\nKind=files\nDirectory=x/y\nPattern={app}.x\n",
    "[Store]\nKind=files\nDirectory=$NOPE\nPattern={app}.x\n",
    "[Store]\nKind=files\nDirectory=$HOME\nPattern=a/{app}\n",
    "[Store]\nKind=files\nDirectory=$HOME\nPattern={app}{app}\n",
    "[Store]\nKind=files\nDirectory=$HOME\nPattern=*.state\n",
    "[Store]\nKind=files\nDirectory=$HOME/x{app}/y\nPattern=*.state\n",
    "[Store]\nKind=files\nDirectory=/{app}\nPattern=*.state\n",
    "[Store]\nKind=whole-file\nDirectory=/\nPattern=*\n",
    "[Store]\nKind=whole-file\nDirectory=$HOME\nPattern={app}.gvdb\n",
    "[Store]\nKind=entries\nDirectory=$HOME\nPattern=*.state\n",
    "[Store]\nKind=entries\nDirectory=$HOME\nPattern={app}.state\nFormat=gnome-session\n",
    "[Store]\nKind=entries\nDirectory=$HOME\nPattern=*.state\nFormat=gtk\n",
    "[Store]\nKind=files\nDirectory=$HOME\nPattern={app}.state\nFormat=sqlite\n",
    "[Store]\nKind=files\nDirectory=$HOME\nPattern={app}.state\nFormat=gnome-session\n",
    "[Store]\nKind=whole-file\nDirectory=$HOME\nPattern=x.gvdb\nFormat=gtk\n",
    /* Invalid escapes, for which GKeyFile returns a value and an error. */
    "[Store]\nKind=files\nDirectory=$HOME\nPattern={app}\\q\n",
    "[Store]\nKind=files\nDirectory=$HOME\\q\nPattern={app}\n",
    "[Store]\nKind=files\nDirectory=$HOME\nPattern={app}\nFormat=gtk\\q\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SrStore) store = load_text (bad[i], &error);

      g_assert_null (store);
      g_assert_nonnull (error);
    }
}

static void
test_dropin_format (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrStore) gtk = load_text ("[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\n"
                                      "Pattern={app}@*.state\nFormat=gtk\n", &error);
  g_autoptr(SrStore) plain = load_text ("[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\n"
                                        "Pattern={app}.x\n", &error);
  g_autoptr(SrStore) session = load_text ("[Store]\nKind=entries\nDirectory=$XDG_STATE_HOME\n"
                                          "Pattern=gnome-session@*.state\n"
                                          "Format=gnome-session\n", &error);

  g_assert_no_error (error);
  g_assert_cmpint (gtk->format, ==, SR_STORE_FORMAT_GTK);
  g_assert_cmpint (plain->format, ==, SR_STORE_FORMAT_NONE);
  g_assert_cmpint (session->format, ==, SR_STORE_FORMAT_GNOME_SESSION);
}

static void
test_dropin_later_dir_wins (void)
{
  g_autofree char *first = g_dir_make_tmp ("sr-stores-XXXXXX", NULL);
  g_autofree char *second = g_dir_make_tmp ("sr-stores-XXXXXX", NULL);
  g_autofree char *a = g_build_filename (first, "same.store", NULL);
  g_autofree char *b = g_build_filename (second, "same.store", NULL);
  g_autofree char *c = g_build_filename (first, "other.store", NULL);
  const char *dirs[] = { first, "/nonexistent", second, NULL };
  g_autoptr(GPtrArray) stores = NULL;

  g_assert_true (g_file_set_contents (a, "[Store]\nKind=files\nDirectory=/a\nPattern={app}.x\n", -1, NULL));
  g_assert_true (g_file_set_contents (b, "[Store]\nKind=files\nDirectory=/b\nPattern={app}.x\n", -1, NULL));
  g_assert_true (g_file_set_contents (c, "[Store]\nKind=files\nDirectory=/c\nPattern={app}.x\n", -1, NULL));
  stores = sr_store_load_dirs (dirs, G_N_ELEMENTS (dirs));
  g_assert_cmpuint (stores->len, ==, 2);
  g_assert_cmpstr (((SrStore *) stores->pdata[0])->name, ==, "other");
  g_assert_cmpstr (((SrStore *) stores->pdata[1])->name, ==, "same");
  g_assert_cmpstr (((SrStore *) stores->pdata[1])->root, ==, "/b");
  g_unlink (a);
  g_unlink (b);
  g_unlink (c);
  g_rmdir (first);
  g_rmdir (second);
}

/* Issue 13, B: retention and Clear delete what a store matches. A pattern
 * that matches every name is refused from any drop-in... */
static void
test_dropin_pattern_needs_literal_suffix (void)
{
  const char *bad[] = { "*", "{app}*", "{app}", "{app}@*", "x*", "*.state*" };
  const char *good[] = { "{app}@*.state", "session.gvdb", "*.gvdb", "{app}.x" };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    for (SrStoreOrigin origin = SR_STORE_ORIGIN_SYSTEM; origin <= SR_STORE_ORIGIN_USER; origin++)
      {
        g_autoptr(GError) error = NULL;
        g_autofree char *text =
          g_strdup_printf ("[Store]\nKind=whole-file\nDirectory=$XDG_STATE_HOME/x\nPattern=%s\n",
                           bad[i]);
        g_autofree char *files =
          g_strdup_printf ("[Store]\nKind=files\nDirectory=$XDG_STATE_HOME/{app}\nPattern=%s\n",
                           bad[i]);
        g_autoptr(SrStore) store = load_text_from (origin, strstr (bad[i], "{app}") ? files : text,
                                                   &error);

        g_assert_null (store);
        g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
        g_assert_nonnull (strstr (error->message, "Pattern"));
      }
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    for (SrStoreOrigin origin = SR_STORE_ORIGIN_SYSTEM; origin <= SR_STORE_ORIGIN_USER; origin++)
      {
        g_autoptr(GError) error = NULL;
        gboolean has_app = strstr (good[i], "{app}") != NULL;
        g_autofree char *text =
          g_strdup_printf ("[Store]\nKind=%s\nDirectory=$XDG_STATE_HOME\nPattern=%s\n",
                           has_app ? "files\nFormat=gtk" : "whole-file", good[i]);
        g_autoptr(SrStore) store = NULL;

        /* A user's drop-in declares no whole-file store (below). */
        if (origin == SR_STORE_ORIGIN_USER && !has_app)
          continue;
        store = load_text_from (origin, text, &error);
        g_assert_no_error (error);
        g_assert_nonnull (store);
      }
}

/* ... and a user's drop-in may only name stores inside the user's state
 * directories; the system's may name others. */
static void
test_dropin_user_root_confined (void)
{
  const char *gtk = "[Store]\nKind=files\nFormat=gtk\n";
  g_autofree char *above_state = g_path_get_dirname (g_get_user_state_dir ());
  g_autofree char *above_state_dir = g_strdup_printf ("Directory=%s/{app}\nPattern=x.state\n",
                                                      above_state);
  g_autofree char *state_prefix_dir =
    g_strdup_printf ("Directory=%s-not\nPattern={app}.state\n", g_get_user_state_dir ());
  const char *refused[] = {
    "Directory=$HOME\nPattern={app}.odt\n",
    "Directory=$HOME/{app}\nPattern=x.odt\n",
    "Directory=$XDG_CONFIG_HOME\nPattern={app}.conf\n",
    "Directory=$XDG_CACHE_HOME\nPattern={app}.x\n",
    "Directory=$HOME/.var/{app}\nPattern=x.state\n",
    "Directory=/etc/{app}\nPattern=passwd\n",
    "Directory=/tmp\nPattern={app}.state\n",
    above_state_dir,
    state_prefix_dir,
  };
  const char *allowed[] = {
    "Directory=$XDG_STATE_HOME\nPattern={app}@*.state\n",
    "Directory=$XDG_STATE_HOME/a//b\nPattern={app}@*.state\n",
    "Directory=$XDG_DATA_HOME/{app}\nPattern=*.state\n",
    "Directory=$HOME/.var/app/{app}/.local/state\nPattern={app}@*.state\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = g_strconcat (gtk, refused[i], NULL);
      g_autoptr(SrStore) user = load_text_from (SR_STORE_ORIGIN_USER, text, &error);
      g_autoptr(SrStore) system = NULL;

      g_assert_null (user);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
      g_assert_nonnull (strstr (error->message, "outside the user's state directories"));
      g_clear_error (&error);
      system = load_text_from (SR_STORE_ORIGIN_SYSTEM, text, &error);
      g_assert_no_error (error);
      g_assert_nonnull (system);
    }
  for (guint i = 0; i < G_N_ELEMENTS (allowed); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = g_strconcat (gtk, allowed[i], NULL);
      g_autoptr(SrStore) store = load_text_from (SR_STORE_ORIGIN_USER, text, &error);

      g_assert_no_error (error);
      g_assert_nonnull (store);
    }
}

/* Issue 22: a user's drop-in declares only what policyd reads before it
 * deletes: GTK files and gnome-session entries. Whole-file stores, and
 * files of no format ("Pattern=*.keyring" deleted the login keyring), are
 * the system's alone. */
static void
test_dropin_user_kinds (void)
{
  const char *system_only[] = {
    "[Store]\nKind=whole-file\nDirectory=$XDG_DATA_HOME/mutter\nPattern=session.gvdb\n",
    "[Store]\nKind=whole-file\nDirectory=$XDG_STATE_HOME/x\nPattern=*.odt\n",
    "[Store]\nKind=files\nDirectory=$XDG_DATA_HOME/{app}\nPattern=*.keyring\n",
    "[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\nPattern={app}@*.state\n",
  };
  const char *both[] = {
    "[Store]\nKind=files\nDirectory=$XDG_DATA_HOME/{app}\nPattern=*.keyring\nFormat=gtk\n",
    ("[Store]\nKind=entries\nDirectory=$XDG_STATE_HOME\nPattern=gnome-session@*.state\n"
     "Format=gnome-session\n"),
  };

  for (guint i = 0; i < G_N_ELEMENTS (system_only); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SrStore) user = load_text_from (SR_STORE_ORIGIN_USER, system_only[i], &error);
      g_autoptr(SrStore) system = NULL;

      g_assert_null (user);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
      g_clear_error (&error);
      system = load_text_from (SR_STORE_ORIGIN_SYSTEM, system_only[i], &error);
      g_assert_no_error (error);
      g_assert_cmpint (system->origin, ==, SR_STORE_ORIGIN_SYSTEM);
    }
  for (guint i = 0; i < G_N_ELEMENTS (both); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SrStore) user = load_text_from (SR_STORE_ORIGIN_USER, both[i], &error);

      g_assert_no_error (error);
      g_assert_cmpint (user->origin, ==, SR_STORE_ORIGIN_USER);
    }
}

/* Issue 22: no drop-in, the system's neither, names policyd's own state
 * (a store over "clear-points" undid a Clear at the next start). */
static void
test_dropin_own_state_refused (void)
{
  const char *state = g_get_user_state_dir ();
  g_autofree char *spelled = g_strdup_printf ("%s//session-restore/", state);
  g_autofree char *below = g_strdup_printf ("%s/session-restore/sub", state);
  g_autofree char *app_below = g_strdup_printf ("%s/session-restore/{app}", state);
  const char *refused[] = { "$XDG_STATE_HOME/session-restore", spelled, below, app_below };
  g_autofree char *next_door = g_strdup_printf ("%s/session-restore-x", state);

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    for (SrStoreOrigin origin = SR_STORE_ORIGIN_SYSTEM; origin <= SR_STORE_ORIGIN_USER; origin++)
      {
        g_autoptr(GError) error = NULL;
        g_autofree char *text =
          g_strdup_printf ("[Store]\nKind=%s\nDirectory=%s\nPattern=clear-points\n",
                           strstr (refused[i], "{app}") ? "files\nFormat=gtk" : "whole-file",
                           refused[i]);
        g_autoptr(SrStore) store = load_text_from (origin, text, &error);

        g_assert_null (store);
        g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
        g_assert_nonnull (strstr (error->message, "policyd's own state"));
      }
  {
    g_autoptr(GError) error = NULL;
    g_autofree char *text =
      g_strdup_printf ("[Store]\nKind=files\nFormat=gtk\nDirectory=%s\nPattern={app}.x\n",
                       next_door);
    g_autoptr(SrStore) store = load_text_from (SR_STORE_ORIGIN_USER, text, &error);

    g_assert_no_error (error);
    g_assert_nonnull (store);
  }
}

/* Where a store's root is reached from, following links: the longest of
 * the user's base directories that holds it, else "/". */
static void
test_dropin_base (void)
{
  g_autofree char *flatpak_apps = g_build_filename (g_get_home_dir (), ".var", "app", NULL);
  struct {
    const char *directory;
    const char *base;
    const char *below;
  } cases[] = {
    { "$XDG_STATE_HOME", g_get_user_state_dir (), "" },
    { "$XDG_STATE_HOME/a//b/", g_get_user_state_dir (), "a/b" },
    { "$XDG_DATA_HOME/mutter", g_get_user_data_dir (), "mutter" },
    { "$HOME/.var/app/{app}/.local/state", flatpak_apps, "" },
    { "$HOME/Documents", g_get_home_dir (), "Documents" },
    { "/var/lib/x", "/", "var/lib/x" },
    { "//var//lib", "/", "var/lib" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text =
        g_strdup_printf ("[Store]\nKind=files\nDirectory=%s\nPattern={app}.x\n",
                         cases[i].directory);
      g_autoptr(SrStore) store = load_text_from (SR_STORE_ORIGIN_SYSTEM, text, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (store->base, ==, cases[i].base);
      g_assert_cmpstr (sr_store_root_below_base (store), ==, cases[i].below);
    }
}

/* The loader tells the user's directories from the system's by position:
 * the same drop-in is refused from the user's and loaded from the system's. */
static void
test_dropin_dirs_user_confined (void)
{
  g_autofree char *system = g_dir_make_tmp ("sr-stores-XXXXXX", NULL);
  g_autofree char *user = g_dir_make_tmp ("sr-stores-XXXXXX", NULL);
  g_autofree char *a = g_build_filename (system, "wide.store", NULL);
  g_autofree char *b = g_build_filename (user, "home.store", NULL);
  g_autofree char *c = g_build_filename (user, "gtk.store", NULL);
  const char *dirs[] = { system, user, NULL };
  const char *text = "[Store]\nKind=files\nFormat=gtk\nDirectory=$HOME\nPattern={app}.odt\n";
  g_autoptr(GPtrArray) stores = NULL;

  g_assert_true (g_file_set_contents (a, text, -1, NULL));
  g_assert_true (g_file_set_contents (b, text, -1, NULL));
  g_assert_true (g_file_set_contents (c, "[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\n"
                                      "Pattern={app}@*.state\nFormat=gtk\n", -1, NULL));
  g_test_expect_message ("sr-store-dropin", G_LOG_LEVEL_WARNING,
                         "Refusing the user's store drop-in *home.store*outside*");
  stores = sr_store_load_dirs (dirs, 1);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (stores->len, ==, 2);
  g_assert_cmpstr (((SrStore *) stores->pdata[0])->name, ==, "gtk");
  g_assert_cmpstr (((SrStore *) stores->pdata[1])->name, ==, "wide");
  g_unlink (a);
  g_unlink (b);
  g_unlink (c);
  g_rmdir (system);
  g_rmdir (user);
}

/* The shipped drop-ins load as the system's (where they are installed);
 * as the user's, the whole-file ones would be refused. */
static void
test_dropin_shipped_load (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "stores.d", NULL);
  const char *dirs[] = { dir, NULL };
  g_autoptr(GPtrArray) as_system = sr_store_load_dirs (dirs, 1);
  g_autoptr(GPtrArray) as_user = NULL;

  /* gtk, gtk-flatpak, gnome-session, session-restore-portal and its
   * unreadable records, mutter and gnome-shell. */
  g_assert_cmpuint (as_system->len, ==, 7);
  g_test_expect_message ("sr-store-dropin", G_LOG_LEVEL_WARNING,
                         "Refusing the user's store drop-in *whole-file*");
  g_test_expect_message ("sr-store-dropin", G_LOG_LEVEL_WARNING,
                         "Refusing the user's store drop-in *whole-file*");
  g_test_expect_message ("sr-store-dropin", G_LOG_LEVEL_WARNING,
                         "Refusing the user's store drop-in *whole-file*");
  as_user = sr_store_load_dirs (dirs, 0);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (as_user->len, ==, 4);
}

static void
write_file (const char *dir,
            const char *name,
            GVariant   *contents)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, contents != NULL ? g_variant_get_data (contents) : "x",
                                      contents != NULL ? (gssize) g_variant_get_size (contents) : 1,
                                      NULL));
}

static gboolean
exists_in (const char *dir,
           const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static GHashTable *
list_store (const SrStore *store)
{
  GHashTable *usage = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify) sr_app_usage_free);
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);

  sr_store_walk_list (store, usage, errors);
  g_assert_cmpuint (errors->len, ==, 0);
  return usage;
}

/* Removes @app's (NULL: everything) from @store; the report's entries. */
static guint
clear_store (const SrStore *store,
             const char    *app)
{
  g_autoptr(GHashTable) apps = NULL;
  SrStoreReport report;
  guint entries;

  if (app != NULL)
    {
      apps = g_hash_table_new (g_str_hash, g_str_equal);
      g_hash_table_add (apps, (gpointer) app);
    }
  sr_store_report_init (&report);
  sr_store_walk_remove (store, apps, 0, &report);
  g_assert_cmpuint (report.errors->len, ==, 0);
  entries = report.entries;
  sr_store_report_clear (&report);
  return entries;
}

/* The shipped GTK drop-ins, walked over GTK's real names: each
 * "<app-id>@<instance-id>.state" and "<app-id>@fallback.state" is an
 * entry, listed and cleared, in $XDG_STATE_HOME and in a Flatpak app's own
 * directory. What shares the directory and the "@" but is no app's
 * (gnome-session's record, session-restore-portal's and the ones it set
 * aside), dot-less names and the copies GTK is writing are never taken,
 * not even by "clear everything". */
static void
test_dropin_shipped_gtk_names (void)
{
  g_autofree char *dir = g_test_build_filename (G_TEST_DIST, "..", "..", "data", "stores.d", NULL);
  g_autofree char *gtk_path = g_build_filename (dir, "gtk.store", NULL);
  g_autofree char *flatpak_path = g_build_filename (dir, "gtk-flatpak.store", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SrStore) gtk = sr_store_load_file (gtk_path, SR_STORE_ORIGIN_SYSTEM, &error);
  g_autoptr(SrStore) flatpak = sr_store_load_file (flatpak_path, SR_STORE_ORIGIN_SYSTEM, &error);
  g_autoptr(GVariant) two_windows =
    g_variant_ref_sink (g_variant_new_parsed ("({'a': <1>}, {'b': <2>}, "
                                              "[({'c': <3>}, {'d': <4>}), ({'e': <5>}, {'f': <6>})])"));
  const char *state = g_get_user_state_dir ();
  g_autofree char *apps_dir = g_build_filename (g_get_home_dir (), ".var", "app", NULL);
  g_autofree char *flat_dir = g_build_filename (apps_dir, "org.example.Flat", ".local", "state", NULL);
  g_autofree char *dotless_dir = g_build_filename (apps_dir, "vlc", ".local", "state", NULL);
  const char *app_files[] = { "org.example.App@a1b2c3.state", "org.example.App@fallback.state" };
  const char *not_apps[] = {
    "gnome-session@gnome.state",
    "session-restore-portal@sway.state",
    "session-restore-portal@sway.state.20261207T101500Z.unreadable",
    "firefox-esr@1.state",
    "org.example.App@1.state.QX3ZK2",    /* GTK's copy, mid-write */
    ".org.example.App@1.state",
  };
  const char *flat_not_apps[] = {
    "org.example.Flat@1.state.QX3ZK2",
    "org.example.App@1.state",           /* not this directory's app */
    "gnome-session@gnome.state",
  };
  g_autoptr(GHashTable) usage = NULL;
  SrAppUsage *app;

  g_assert_no_error (error);
  g_assert_nonnull (gtk);
  g_assert_nonnull (flatpak);
  g_assert_cmpint (gtk->format, ==, SR_STORE_FORMAT_GTK);
  g_assert_cmpint (flatpak->format, ==, SR_STORE_FORMAT_GTK);

  for (gsize i = 0; i < G_N_ELEMENTS (not_apps); i++)
    {
      g_assert_false (sr_store_match (gtk, not_apps[i], NULL));
      g_assert_false (sr_store_match (flatpak, not_apps[i], NULL));
      write_file (state, not_apps[i], NULL);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (app_files); i++)
    write_file (state, app_files[i], two_windows);
  write_file (state, "org.example.Other@1.state", two_windows);
  write_file (flat_dir, "org.example.Flat@d4e5f6.state", two_windows);
  write_file (flat_dir, "org.example.Flat@fallback.state", two_windows);
  for (gsize i = 0; i < G_N_ELEMENTS (flat_not_apps); i++)
    write_file (flat_dir, flat_not_apps[i], two_windows);
  write_file (dotless_dir, "vlc@1.state", two_windows);

  usage = list_store (gtk);
  g_assert_cmpuint (g_hash_table_size (usage), ==, 2);
  app = g_hash_table_lookup (usage, "org.example.App");
  g_assert_nonnull (app);
  g_assert_cmpuint (app->entries, ==, 2);
  g_assert_cmpuint (app->windows, ==, 4);
  app = g_hash_table_lookup (usage, "org.example.Other");
  g_assert_nonnull (app);
  g_assert_cmpuint (app->entries, ==, 1);
  g_clear_pointer (&usage, g_hash_table_unref);

  usage = list_store (flatpak);
  g_assert_cmpuint (g_hash_table_size (usage), ==, 1);
  app = g_hash_table_lookup (usage, "org.example.Flat");
  g_assert_nonnull (app);
  g_assert_cmpuint (app->entries, ==, 2);
  g_assert_cmpuint (app->windows, ==, 4);
  g_clear_pointer (&usage, g_hash_table_unref);

  /* One app, then everything. */
  g_assert_cmpuint (clear_store (gtk, "org.example.App"), ==, 2);
  for (gsize i = 0; i < G_N_ELEMENTS (app_files); i++)
    g_assert_false (exists_in (state, app_files[i]));
  g_assert_true (exists_in (state, "org.example.Other@1.state"));
  g_assert_cmpuint (clear_store (gtk, "gnome-session"), ==, 0);
  g_assert_cmpuint (clear_store (gtk, NULL), ==, 1);
  g_assert_false (exists_in (state, "org.example.Other@1.state"));
  g_assert_cmpuint (clear_store (flatpak, NULL), ==, 2);
  g_assert_false (exists_in (flat_dir, "org.example.Flat@d4e5f6.state"));
  g_assert_false (exists_in (flat_dir, "org.example.Flat@fallback.state"));

  for (gsize i = 0; i < G_N_ELEMENTS (not_apps); i++)
    g_assert_true (exists_in (state, not_apps[i]));
  for (gsize i = 0; i < G_N_ELEMENTS (flat_not_apps); i++)
    g_assert_true (exists_in (flat_dir, flat_not_apps[i]));
  g_assert_true (exists_in (dotless_dir, "vlc@1.state"));
  usage = list_store (gtk);
  g_assert_cmpuint (g_hash_table_size (usage), ==, 0);
  g_clear_pointer (&usage, g_hash_table_unref);
  usage = list_store (flatpak);
  g_assert_cmpuint (g_hash_table_size (usage), ==, 0);
}

int
main (int argc, char **argv)
{
  /* Each test its own $HOME and XDG directories: some walk them. */
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/store-dropin/files", test_dropin_files);
  g_test_add_func ("/store-dropin/app-directory", test_dropin_app_directory);
  g_test_add_func ("/store-dropin/whole-file", test_dropin_whole_file);
  g_test_add_func ("/store-dropin/rejected", test_dropin_rejected);
  g_test_add_func ("/store-dropin/format", test_dropin_format);
  g_test_add_func ("/store-dropin/later-dir-wins", test_dropin_later_dir_wins);
  g_test_add_func ("/store-dropin/pattern-needs-literal-suffix",
                   test_dropin_pattern_needs_literal_suffix);
  g_test_add_func ("/store-dropin/user-root-confined", test_dropin_user_root_confined);
  g_test_add_func ("/store-dropin/user-kinds", test_dropin_user_kinds);
  g_test_add_func ("/store-dropin/own-state-refused", test_dropin_own_state_refused);
  g_test_add_func ("/store-dropin/base", test_dropin_base);
  g_test_add_func ("/store-dropin/dirs-user-confined", test_dropin_dirs_user_confined);
  g_test_add_func ("/store-dropin/shipped-load", test_dropin_shipped_load);
  g_test_add_func ("/store-dropin/shipped-gtk-names", test_dropin_shipped_gtk_names);

  return g_test_run ();
}
