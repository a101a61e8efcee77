/* sr-regular-file.h: opening a file that must be a regular one
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <sys/stat.h>

#include <glib.h>

G_BEGIN_DECLS

int sr_regular_file_open (int           dir_fd,
                          const char   *path,
                          int           flags,
                          struct stat  *st,
                          GError      **error);

G_END_DECLS
