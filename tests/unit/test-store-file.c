/* test-store-file.c: a store's file read and replaced safely
 * (policyd/stores/sr-store-file.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-store-file"

#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sr-fd.h"
#include "sr-store-file.h"

typedef struct {
  char *dir;
  int dir_fd;
  char *path;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = g_dir_make_tmp ("sr-store-file-XXXXXX", NULL);
  f->dir_fd = open (f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  f->path = g_build_filename (f->dir, "gnome-session@x.state", NULL);
  g_assert_true (g_file_set_contents (f->path, "read", -1, NULL));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (dir)) != NULL)
    unlinkat (f->dir_fd, name, 0);
  close (f->dir_fd);
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->path);
}

static char *
contents_of (Fixture *f)
{
  char *text = NULL;

  g_assert_true (g_file_get_contents (f->path, &text, NULL, NULL));
  return text;
}

static guint
n_files (Fixture *f)
{
  g_autoptr(GDir) dir = g_dir_open (f->dir, 0, NULL);
  guint n = 0;

  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

static SrStoreFileResult
replace (Fixture           *f,
         int                read_fd,
         const struct stat *st)
{
  g_autoptr(GVariant) contents = g_variant_ref_sink (g_variant_new_bytestring ("new"));
  g_autoptr(GError) error = NULL;
  SrStoreFileResult result = sr_store_file_replace (f->dir_fd, "gnome-session@x.state", read_fd,
                                                    st, contents, &error);

  g_assert_no_error (error);
  return result;
}

static GBytes *
read_it (Fixture     *f,
         struct stat *st,
         int         *fd)
{
  g_autoptr(GError) error = NULL;
  GBytes *bytes = sr_store_file_read (f->dir_fd, "gnome-session@x.state", 1024, st, fd, &error);

  g_assert_no_error (error);
  return bytes;
}

static void
test_store_file_replaced_when_unchanged (Fixture       *f,
                                         gconstpointer  data)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  g_auto(SrFd) fd = -1;
  struct stat st, now;

  bytes = read_it (f, &st, &fd);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (replace (f, fd, &st), ==, SR_STORE_FILE_REPLACED);
  text = contents_of (f);
  g_assert_cmpstr (text, ==, "new");
  /* It keeps its time, and no temporary file is left. */
  g_assert_cmpint (g_stat (f->path, &now), ==, 0);
  g_assert_cmpint (now.st_mtim.tv_sec, ==, st.st_mtim.tv_sec);
  g_assert_cmpint (now.st_mtim.tv_nsec, ==, st.st_mtim.tv_nsec);
  g_assert_cmpuint (n_files (f), ==, 1);
}

static void
test_store_file_owner_saved_by_rename (Fixture       *f,
                                       gconstpointer  data)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  g_auto(SrFd) fd = -1;
  struct stat st;

  bytes = read_it (f, &st, &fd);
  /* The owner saves as gnome-session does, with a rename. */
  g_assert_true (g_file_set_contents (f->path, "owner", -1, NULL));
  g_assert_cmpint (replace (f, fd, &st), ==, SR_STORE_FILE_CHANGED);
  text = contents_of (f);
  g_assert_cmpstr (text, ==, "owner");
  g_assert_cmpuint (n_files (f), ==, 1);
}

static void
test_store_file_owner_wrote_in_place (Fixture       *f,
                                      gconstpointer  data)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *text = NULL;
  g_auto(SrFd) fd = -1;
  FILE *file;
  struct stat st;

  bytes = read_it (f, &st, &fd);
  /* Same inode, new contents (and size). */
  file = fopen (f->path, "w");
  g_assert_nonnull (file);
  fputs ("owner, in place", file);
  fclose (file);
  g_assert_cmpint (replace (f, fd, &st), ==, SR_STORE_FILE_CHANGED);
  text = contents_of (f);
  g_assert_cmpstr (text, ==, "owner, in place");
}

static void
test_store_file_leftover_names (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sr-stores-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "gnome-session.store", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SrStore) store = NULL;

  g_assert_true (g_file_set_contents (path, "[Store]\nKind=entries\nDirectory=$XDG_STATE_HOME\n"
                                      "Pattern=gnome-session@*.state\nFormat=gnome-session\n",
                                      -1, NULL));
  store = sr_store_load_file (path, SR_STORE_ORIGIN_SYSTEM, &error);
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);

  g_assert_true (sr_store_file_is_leftover (store, ".gnome-session@x.state.0a1b2c3d"));
  g_assert_true (sr_store_file_is_leftover (store, ".gnome-session@.state.ffffffff"));
  g_assert_false (sr_store_file_is_leftover (store, "gnome-session@x.state"));
  g_assert_false (sr_store_file_is_leftover (store, "gnome-session@x.state.0a1b2c3d"));
  g_assert_false (sr_store_file_is_leftover (store, ".gnome-session@x.state.0A1B2C3D"));
  g_assert_false (sr_store_file_is_leftover (store, ".gnome-session@x.state.0a1b2c3"));
  g_assert_false (sr_store_file_is_leftover (store, ".gnome-session@x.state.0a1b2c3d4"));
  g_assert_false (sr_store_file_is_leftover (store, ".gnome-session@x.state.0a1b2c3g"));
  g_assert_false (sr_store_file_is_leftover (store, ".gnome-session@x.state0a1b2c3d0"));
  g_assert_false (sr_store_file_is_leftover (store, ".other@x.state.0a1b2c3d"));
  g_assert_false (sr_store_file_is_leftover (store, ".0a1b2c3d"));
  g_assert_false (sr_store_file_is_leftover (store, ".."));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/store-file/replaced-when-unchanged", Fixture, NULL, fixture_set_up,
              test_store_file_replaced_when_unchanged, fixture_tear_down);
  g_test_add ("/store-file/owner-saved-by-rename", Fixture, NULL, fixture_set_up,
              test_store_file_owner_saved_by_rename, fixture_tear_down);
  g_test_add ("/store-file/owner-wrote-in-place", Fixture, NULL, fixture_set_up,
              test_store_file_owner_wrote_in_place, fixture_tear_down);
  g_test_add_func ("/store-file/leftover-names", test_store_file_leftover_names);

  return g_test_run ();
}
