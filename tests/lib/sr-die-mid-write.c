/* sr-die-mid-write.c: a program killed in the middle of writing a file
 *
 * LD_PRELOADed into a program under test (tests/portal): its first
 * write(2) to a file whose path begins with $SR_DIE_MID_WRITE writes half
 * of its bytes, and then the program gets SIGKILL, as the OOM killer or a
 * power cut would leave it. Temporary files next to a path share its
 * beginning, or are hidden ones named after it (".<name>.0123abcd", as
 * the portal backend and policyd name theirs), so they count too: what is
 * left on disk is what a kill at that moment leaves, whichever way the
 * program writes.
 *
 * With $SR_WRITE_DELAY_MS set it kills nothing: each such write waits that
 * long first, as a slow disk would, and the file written is appended to
 * $SR_WRITE_LOG (one line per write), so that a test counts the writes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*WriteFunc) (int fd, const void *buf, size_t count);

static int
writes_to_doomed_file (int fd)
{
  const char *prefix = getenv ("SR_DIE_MID_WRITE");
  char link[64], target[PATH_MAX], hidden[PATH_MAX + 3];
  const char *slash;
  ssize_t length;

  if (prefix == NULL || *prefix == '\0')
    return 0;
  snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  length = readlink (link, target, sizeof target - 1);
  if (length <= 0)
    return 0;
  target[length] = '\0';
  if (strncmp (target, prefix, strlen (prefix)) == 0)
    return 1;
  /* ".<name>." beside it */
  slash = strrchr (prefix, '/');
  if (slash == NULL)
    return 0;
  snprintf (hidden, sizeof hidden, "%.*s/.%s.", (int) (slash - prefix), prefix, slash + 1);
  return strncmp (target, hidden, strlen (hidden)) == 0;
}

ssize_t
write (int         fd,
       const void *buf,
       size_t      count)
{
  static WriteFunc real_write;

  if (real_write == NULL)
    real_write = (WriteFunc) dlsym (RTLD_NEXT, "write");
  if (count > 1 && getenv ("SR_WRITE_DELAY_MS") != NULL && writes_to_doomed_file (fd))
    {
      const char *log = getenv ("SR_WRITE_LOG");
      char link[64], target[PATH_MAX];
      ssize_t length;
      FILE *file;

      usleep (1000 * atoi (getenv ("SR_WRITE_DELAY_MS")));
      snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
      length = readlink (link, target, sizeof target - 1);
      if (log != NULL && length > 0 && (file = fopen (log, "a")) != NULL)
        {
          fprintf (file, "%.*s\n", (int) length, target);
          fclose (file);
        }
      return real_write (fd, buf, count);
    }
  if (count > 1 && writes_to_doomed_file (fd))
    {
      real_write (fd, buf, count / 2);
      raise (SIGKILL);
    }
  return real_write (fd, buf, count);
}
