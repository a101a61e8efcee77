/* sr-state-file.c: policyd's own small state files
 *
 * Crash counters, clear points, the clears under way and the consumers
 * live under $XDG_STATE_HOME/session-restore/ as serialized GVariants.
 * They are written whole, atomically and durably: a clear point that is
 * lost after a crash would let cleared state come back.
 *
 * An atomic write is a temporary file, NAME.XXXXXX (GLib's
 * g_file_set_contents()), renamed over NAME. A kill between the two
 * leaves the temporary file for good, with what it held (app ids, times):
 * sr_state_file_remove_leftovers() removes them, at start-up and when
 * everything is cleared.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-state-file"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "sr-fd.h"
#include "sr-regular-file.h"
#include "sr-serialized.h"
#include "sr-state-file.h"

/* Every file policyd writes there: only their temporary files are ever
 * removed. */
static const char * const state_files[] = {
  SR_STATE_FILE_CRASH_COUNTERS,
  SR_STATE_FILE_CLEAR_POINTS,
  SR_STATE_FILE_PENDING_CLEARS,
  SR_STATE_FILE_CONSUMERS,
};
/* What g_mkstemp() puts in place of XXXXXX. */
#define TEMP_SUFFIX_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
#define TEMP_SUFFIX_LEN 6

char *
sr_state_file_path (const char *name)
{
  return g_build_filename (g_get_user_state_dir (), "session-restore", name, NULL);
}

/* Maps @path, which must be a regular file: opening a FIFO put in its
 * place would wait for a writer, before policyd answers anything. */
GMappedFile *
sr_state_file_map (const char  *path,
                   GError     **error)
{
  struct stat st;
  g_auto(SrFd) fd = sr_regular_file_open (AT_FDCWD, path, 0, &st, error);

  if (fd < 0)
    return NULL;
  return g_mapped_file_new_from_fd (fd, FALSE, error);
}

/* Returns NULL without an error when the file does not exist. A file that
 * does not parse stays where it is, so that its time still tells when it
 * was last written (sr-clear-points.c falls back on that) until the next
 * save replaces it; a copy is kept as *.corrupt (a hard link, replacing an
 * older one) for inspection. */
GVariant *
sr_state_file_load (const char          *path,
                    const GVariantType  *type,
                    GError             **error)
{
  const GVariantType *types[] = { type, NULL };

  return sr_state_file_load_any (path, types, error);
}

/* The same, for a file whose format changed: the first of @types (NULL
 * terminated; the current one first, then older ones) it parses as. */
GVariant *
sr_state_file_load_any (const char                 *path,
                        const GVariantType * const *types,
                        GError                    **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GVariant) value = NULL;
  guint i;

  mapped = sr_state_file_map (path, &local_error);
  if (mapped == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return NULL;
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "Could not read %s: ", path);
      return NULL;
    }

  bytes = g_mapped_file_get_bytes (mapped);
  /* The error told is the current format's. */
  for (i = 0; types[i] != NULL && value == NULL; i++)
    value = sr_serialized_load (types[i], bytes, SR_STATE_FILE_MAX,
                                local_error == NULL ? &local_error : NULL);
  if (value == NULL)
    {
      g_autofree char *aside = g_strconcat (path, ".corrupt", NULL);

      (void) g_unlink (aside);
      if (link (path, aside) != 0)
        g_clear_pointer (&aside, g_free);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s is not a valid state file (it %s)%s%s",
                   path, local_error->message,
                   aside ? "; a copy is kept as " : "", aside ? aside : "");
      return NULL;
    }

  /* Copy out of the mapping: the file is replaced by rename on save. */
  {
    g_autoptr(GBytes) copy = g_bytes_new (g_variant_get_data (value),
                                          g_variant_get_size (value));
    return g_variant_ref_sink (g_variant_new_from_bytes (types[i - 1], copy, TRUE));
  }
}

/* @value: (transfer floating) */
gboolean
sr_state_file_save (const char  *path,
                    GVariant    *value,
                    GError     **error)
{
  g_autoptr(GVariant) owned = g_variant_ref_sink (value);
  g_autoptr(GVariant) normal = g_variant_get_normal_form (owned);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) local_error = NULL;
  int dir_fd;

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   "Could not create %s: %s", dir, g_strerror (saved_errno));
      return FALSE;
    }

  if (!g_file_set_contents_full (path,
                                 g_variant_get_data (normal),
                                 g_variant_get_size (normal),
                                 G_FILE_SET_CONTENTS_CONSISTENT |
                                 G_FILE_SET_CONTENTS_DURABLE,
                                 0600, &local_error))
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "Could not write %s: ", path);
      return FALSE;
    }

  /* The rename is only durable once the directory entry is. */
  dir_fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0)
    {
      (void) fsync (dir_fd);
      close (dir_fd);
    }

  return TRUE;
}

static gboolean
is_temp_name (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (state_files); i++)
    {
      gsize len = strlen (state_files[i]);

      if (strncmp (name, state_files[i], len) == 0 && name[len] == '.' &&
          strlen (name + len + 1) == TEMP_SUFFIX_LEN &&
          strspn (name + len + 1, TEMP_SUFFIX_CHARS) == TEMP_SUFFIX_LEN)
        return TRUE;
    }
  return FALSE;
}

/* Removes the temporary files that writes of policyd's own state files
 * left behind when they were interrupted: regular files named as the
 * writer names them, never links, through the directory's fd. Only the
 * main thread writes state files, so none of these is a write under way.
 * Returns how many went. */
guint
sr_state_file_remove_leftovers (void)
{
  g_autofree char *dir_path = g_build_filename (g_get_user_state_dir (), "session-restore", NULL);
  g_auto(SrFd) dir_fd = open (dir_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  g_auto(SrFd) list_fd = -1;
  DIR *dir;
  struct dirent *entry;
  guint removed = 0;

  if (dir_fd < 0 || (list_fd = dup (dir_fd)) < 0 ||
      (dir = fdopendir (list_fd)) == NULL)
    return 0;
  sr_fd_steal (&list_fd);
  while ((entry = readdir (dir)) != NULL)
    {
      struct stat st;

      if (!is_temp_name (entry->d_name) ||
          fstatat (dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
          !S_ISREG (st.st_mode))
        continue;
      if (unlinkat (dir_fd, entry->d_name, 0) == 0)
        removed++;
      else
        g_warning ("Could not remove %s/%s: %s", dir_path, entry->d_name, g_strerror (errno));
    }
  closedir (dir);
  if (removed > 0)
    g_message ("Removed %u temporary files left by interrupted writes in %s", removed, dir_path);
  return removed;
}
