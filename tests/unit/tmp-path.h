/* tmp-path.h: a file path in a directory of its own, for the unit tests
 * of the modules that write state files
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

static inline char *
tmp_path (const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("sr-state-XXXXXX", NULL);
  return g_build_filename (dir, name, NULL);
}

static inline void
remove_tmp (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *corrupt = g_strconcat (path, ".corrupt", NULL);

  g_unlink (path);
  g_unlink (corrupt);
  g_rmdir (dir);
}
