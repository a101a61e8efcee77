/* sr-store-file.c: one file in a store, read and replaced safely
 *
 * Reading never follows a link and never waits on a FIFO put in a state
 * file's place (nor on one in a drop-in's: sr_store_file_read_path()). Replacing is how a file of per-app entries loses one app:
 * the new contents go to a hidden temporary file next to it, which is
 * renamed over the file, so that its owner, and a crash of ours, see the
 * old file or the new one, never a mix.
 *
 * The owner rewrites the file whenever it likes (gnome-session saves
 * through a rename of its own), and a rename of ours that lands after its
 * save would put back the older copy we read, silently: its save would be
 * lost. So the file is replaced only while it is still the one that was
 * read: same inode (the one read is held open, so its number cannot be
 * reused meanwhile), size, modification and change times, checked once the
 * copy is durable. Otherwise the caller starts over from the owner's new
 * file. A save can still land between that check and the rename (a thread
 * preempted there, on a busy machine, leaves milliseconds): the copy is
 * therefore swapped in with RENAME_EXCHANGE, which keeps what it displaced
 * under the temporary name, where it is looked at; when that is not the
 * file read but a save of the owner's, the save is swapped back at once.
 * Only a file system without RENAME_EXCHANGE gets a plain rename, and the
 * moment open.
 *
 * A kill between creating the temporary file and the rename leaves it
 * behind: a full copy of the other apps' entries, hidden from the walk.
 * Its name is the file's, a dot before it and a dot and eight hex digits
 * after (".gnome-session@x.state.0123abcd"); nothing else is named so
 * (sr_store_file_is_leftover()), and the walk removes them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-store-file"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sr-fd.h"
#include "sr-regular-file.h"
#include "sr-store-file.h"

/* "." + 8 hex digits after the file's name. */
#define LEFTOVER_SUFFIX_LEN 9

/* Reads the regular file open in @fd, of at most @max_size bytes; @st is
 * what fstat() said of it. */
static GBytes *
read_regular (int                fd,
              gsize              max_size,
              const struct stat *st,
              GError           **error)
{
  g_autofree char *data = NULL;
  gsize done = 0;

  if ((guint64) st->st_size > max_size)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                   "%" G_GUINT64_FORMAT " bytes, more than the %" G_GSIZE_FORMAT " read",
                   (guint64) st->st_size, max_size);
      return NULL;
    }

  data = g_malloc (st->st_size + 1);
  while (done < (gsize) st->st_size)
    {
      gssize n = read (fd, data + done, st->st_size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += n;
    }
  return g_bytes_new_take (g_steal_pointer (&data), done);
}

static GBytes *
open_and_read (int           dir_fd,
               const char   *name,
               int           flags,
               gsize         max_size,
               struct stat  *st,
               int          *out_fd,
               GError      **error)
{
  g_auto(SrFd) fd = sr_regular_file_open (dir_fd, name, flags, st, error);
  GBytes *bytes;

  if (fd < 0)
    return NULL;
  bytes = read_regular (fd, max_size, st, error);
  if (bytes != NULL && out_fd != NULL)
    *out_fd = sr_fd_steal (&fd);
  return bytes;
}

/* Reads the regular file @name below @dir_fd, of at most @max_size bytes,
 * never through a link.
 * @out_fd: (out) (optional): the file, still open, so that what was read
 * can be told from what is there later. */
GBytes *
sr_store_file_read (int           dir_fd,
                    const char   *name,
                    gsize         max_size,
                    struct stat  *st,
                    int          *out_fd,
                    GError      **error)
{
  return open_and_read (dir_fd, name, O_NOFOLLOW, max_size, st, out_fd, error);
}

/* Reads the regular file at @path, of at most @max_size bytes, through
 * links (a drop-in may be one): a FIFO, a device or a file too large is
 * an error, not a wait or a flood. */
GBytes *
sr_store_file_read_path (const char  *path,
                         gsize        max_size,
                         GError     **error)
{
  struct stat st;

  return open_and_read (AT_FDCWD, path, 0, max_size, &st, NULL, error);
}

static gboolean
same_time (const struct timespec *a,
           const struct timespec *b)
{
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Whether @name is still the file that was read into @read_fd. */
static gboolean
unchanged (int                dir_fd,
           const char        *name,
           int                read_fd,
           const struct stat *read)
{
  struct stat held, now;

  /* A write in place shows on the inode held; a save by rename, in the
   * directory entry. */
  return fstat (read_fd, &held) == 0 &&
         held.st_size == read->st_size &&
         same_time (&held.st_mtim, &read->st_mtim) &&
         same_time (&held.st_ctim, &read->st_ctim) &&
         fstatat (dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
         now.st_dev == read->st_dev && now.st_ino == read->st_ino;
}

static gboolean
is_inode (int                dir_fd,
          const char        *name,
          const struct stat *st)
{
  struct stat now;

  return fstatat (dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
         now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/* Puts @tmp (the new contents, @ours) in the place of @name, which was
 * @read when last checked, and removes @tmp. */
static SrStoreFileResult
swap_in (int                dir_fd,
         const char        *tmp,
         const char        *name,
         const struct stat *ours,
         const struct stat *read,
         GError           **error)
{
  gboolean exchanged = renameat2 (dir_fd, tmp, dir_fd, name, RENAME_EXCHANGE) == 0;

  if (!exchanged &&
      ((errno != EINVAL && errno != ENOSYS) || renameat (dir_fd, tmp, dir_fd, name) != 0))
    {
      int saved_errno = errno;

      (void) unlinkat (dir_fd, tmp, 0);
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "could not rewrite: %s; left as it was", g_strerror (saved_errno));
      return SR_STORE_FILE_FAILED;
    }

  /* @tmp now names what was displaced. */
  if (!exchanged || is_inode (dir_fd, tmp, read))
    {
      if (exchanged)
        (void) unlinkat (dir_fd, tmp, 0);
      (void) fsync (dir_fd);
      return SR_STORE_FILE_REPLACED;
    }

  /* A save of the owner's came first: give it back. When yet another
   * came meanwhile (over our copy), that one is newer: it stays. */
  if (renameat2 (dir_fd, tmp, dir_fd, name, RENAME_EXCHANGE) == 0 && is_inode (dir_fd, tmp, ours))
    (void) unlinkat (dir_fd, tmp, 0);
  else if (renameat (dir_fd, tmp, dir_fd, name) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "its owner saved it while it was being rewritten, and its save could "
                   "not be put back (%s): it is in %s", g_strerror (saved_errno), tmp);
      return SR_STORE_FILE_FAILED;
    }
  return SR_STORE_FILE_CHANGED;
}

static int
write_all (int         fd,
           const char *data,
           gsize       size)
{
  gsize done = 0;

  while (done < size)
    {
      gssize n = write (fd, data + done, size - done);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno;
      done += n;
    }
  return 0;
}

/* Writes @contents to @name (the file read into @read_fd, as @read said
 * then) through a temporary file renamed over it, unless the file changed
 * since it was read. */
SrStoreFileResult
sr_store_file_replace (int                dir_fd,
                       const char        *name,
                       int                read_fd,
                       const struct stat *read,
                       GVariant          *contents,
                       GError           **error)
{
  g_autofree char *tmp = NULL;
  int fd = -1, saved_errno = 0;
  gboolean changed = FALSE;
  struct stat ours;

  for (guint attempt = 0; fd < 0 && attempt < 100; attempt++)
    {
      g_free (tmp);
      tmp = g_strdup_printf (".%s.%08x", name, g_random_int ());
      fd = openat (dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   read->st_mode & 0777);
      if (fd < 0 && errno != EEXIST)
        break;
    }
  if (fd < 0)
    {
      saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "could not write a replacement: %s", g_strerror (saved_errno));
      return SR_STORE_FILE_FAILED;
    }

  saved_errno = write_all (fd, g_variant_get_data (contents), g_variant_get_size (contents));
  /* The file keeps its time: it tells when its owner last saved the other
   * apps, which this rewrite did not do. */
  if (saved_errno == 0)
    {
      const struct timespec times[2] = { read->st_atim, read->st_mtim };
      if (futimens (fd, times) != 0)
        saved_errno = errno;
    }
  if (saved_errno == 0 && (fsync (fd) != 0 || fstat (fd, &ours) != 0))
    saved_errno = errno;
  if (close (fd) != 0 && saved_errno == 0)
    saved_errno = errno;
  if (saved_errno == 0)
    changed = !unchanged (dir_fd, name, read_fd, read);
  if (saved_errno == 0 && !changed)
    return swap_in (dir_fd, tmp, name, &ours, read, error);

  (void) unlinkat (dir_fd, tmp, 0);
  if (saved_errno == 0)
    return SR_STORE_FILE_CHANGED;
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               "could not rewrite: %s; left as it was", g_strerror (saved_errno));
  return SR_STORE_FILE_FAILED;
}

/* Whether @name is a temporary file that sr_store_file_replace() made for
 * one of @store's files and a kill left behind. */
gboolean
sr_store_file_is_leftover (const SrStore *store,
                           const char    *name)
{
  gsize len = strlen (name);
  g_autofree char *base = NULL;

  if (len <= 1 + LEFTOVER_SUFFIX_LEN || name[0] != '.' || name[len - LEFTOVER_SUFFIX_LEN] != '.')
    return FALSE;
  for (gsize i = len - LEFTOVER_SUFFIX_LEN + 1; i < len; i++)
    if (!g_ascii_isxdigit (name[i]) || g_ascii_isupper (name[i]))
      return FALSE;
  base = g_strndup (name + 1, len - 1 - LEFTOVER_SUFFIX_LEN);
  return sr_store_match (store, base, NULL);
}
