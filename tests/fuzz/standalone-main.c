/* standalone-main.c: replays a fuzz target's corpus without libFuzzer
 *
 * Usage: fuzz-<name>-replay DIRECTORY|FILE...
 * Feeds every file (in name order) to LLVMFuzzerTestOneInput(), each in a
 * buffer of exactly its size so that ASan sees any read past its end. A
 * crash or a GLib critical ends the run; so does an empty corpus, which
 * would test nothing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "standalone-main"

#include "config.h"

#include <stdio.h>

#include "fuzz.h"

static void
run_one (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree guint8 *data = NULL;
  gsize size;

  if (!g_file_get_contents (path, &contents, &size, &error))
    g_error ("%s", error->message);
  /* g_file_get_contents() adds a NUL past the end: not in this copy. */
  data = g_malloc (MAX (size, 1));
  memcpy (data, contents, size);
  g_clear_pointer (&contents, g_free);

  LLVMFuzzerTestOneInput (data, size);
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static guint
run_path (const char *path)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GError) error = NULL;
  const char *name;
  guint n = 0;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      run_one (path);
      return 1;
    }

  dir = g_dir_open (path, 0, &error);
  if (dir == NULL)
    g_error ("%s", error->message);
  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_build_filename (path, name, NULL));
  g_ptr_array_sort (names, compare_paths);

  for (guint i = 0; i < names->len; i++)
    {
      const char *file = names->pdata[i];

      if (g_file_test (file, G_FILE_TEST_IS_REGULAR))
        {
          run_one (file);
          n++;
        }
    }
  return n;
}

int
main (int    argc,
      char **argv)
{
  guint n = 0;

  if (argc < 2)
    {
      fprintf (stderr, "Usage: %s DIRECTORY|FILE...\n", argv[0]);
      return 2;
    }

  for (int i = 1; i < argc; i++)
    n += run_path (argv[i]);

  if (n == 0)
    {
      fprintf (stderr, "%s: no input to replay\n", argv[0]);
      return 1;
    }
  printf ("%u inputs replayed, none crashed\n", n);
  return 0;
}
