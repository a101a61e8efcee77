/* sr-regular-file.c: opening a file that must be a regular one
 *
 * Anything running as the user can put a FIFO where policyd reads a file
 * (its own state files, a store's files, the drop-ins) or where the portal
 * backend reads its record, and opening a FIFO for reading waits for a
 * writer: either would wait for good, at start-up or in policyd's store
 * worker. A device would be read without end.
 * So each is opened without waiting, and taken only when it is a regular
 * file.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-regular-file"

#include "config.h"

#include <errno.h>
#include <fcntl.h>

#include "sr-fd.h"
#include "sr-regular-file.h"

/* Opens @path (relative to @dir_fd, or AT_FDCWD) for reading, with
 * @flags besides (O_NOFOLLOW), and returns its descriptor, or -1 with
 * @error set when it cannot be opened or is not a regular file.
 * @st: (out): what fstat() said of it. */
int
sr_regular_file_open (int           dir_fd,
                      const char   *path,
                      int           flags,
                      struct stat  *st,
                      GError      **error)
{
  g_auto(SrFd) fd = openat (dir_fd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | flags);

  /* A link refused (O_NOFOLLOW), in the words policyd's store walk
   * uses for one. */
  if (fd < 0 && errno == ELOOP && (flags & O_NOFOLLOW))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "a symbolic link");
      return -1;
    }
  if (fd < 0 || fstat (fd, st) != 0)
    {
      int saved_errno = errno;

      g_set_error_literal (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                           g_strerror (saved_errno));
      return -1;
    }
  if (!S_ISREG (st->st_mode))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "not a regular file");
      return -1;
    }
  return sr_fd_steal (&fd);
}
