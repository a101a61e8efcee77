/* sr-fd.h: a file descriptor that closes itself
 *
 * GLib 2.74 has no g_autofd: g_auto(SrFd) fd = open (…) closes fd when it
 * goes out of scope, and sr_fd_steal() hands it on.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <errno.h>
#include <unistd.h>

#include <glib.h>

typedef int SrFd;

static inline void
sr_fd_close (SrFd fd)
{
  /* close() may change errno, which callers often read after a failure
   * that made them give up on the fd. */
  int saved_errno = errno;

  if (fd >= 0)
    close (fd);
  errno = saved_errno;
}

static inline int
sr_fd_steal (SrFd *fd)
{
  int value = *fd;

  *fd = -1;
  return value;
}

G_DEFINE_AUTO_CLEANUP_FREE_FUNC (SrFd, sr_fd_close, -1)
