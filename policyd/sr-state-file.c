/* sr-state-file.c: policyd's own small state files
 *
 * Crash counters and clear points live under
 * $XDG_STATE_HOME/session-restore/ as serialized GVariants. They are
 * written whole, atomically and durably: a clear point that is lost after
 * a crash would let cleared state come back.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-state-file"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "sr-serialized.h"
#include "sr-state-file.h"


char *
sr_state_file_path (const char *name)
{
  return g_build_filename (g_get_user_state_dir (), "session-restore", name, NULL);
}

/* Returns NULL without an error when the file does not exist. A file that
 * does not parse is set aside (renamed to *.corrupt) so that it is kept for
 * inspection and the next save does not fail over it. */
GVariant *
sr_state_file_load (const char          *path,
                    const GVariantType  *type,
                    GError             **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GVariant) value = NULL;

  mapped = g_mapped_file_new (path, FALSE, &local_error);
  if (mapped == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return NULL;
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "Could not read %s: ", path);
      return NULL;
    }

  bytes = g_mapped_file_get_bytes (mapped);
  value = sr_serialized_load (type, bytes, SR_STATE_FILE_MAX, &local_error);
  if (value == NULL)
    {
      g_autofree char *aside = g_strconcat (path, ".corrupt", NULL);

      if (g_rename (path, aside) != 0)
        g_clear_pointer (&aside, g_free);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s is not a valid state file (it %s)%s%s; starting afresh",
                   path, local_error->message,
                   aside ? ", moved it to " : "", aside ? aside : "");
      return NULL;
    }

  /* Copy out of the mapping: the file is replaced by rename on save. */
  {
    g_autoptr(GBytes) copy = g_bytes_new (g_variant_get_data (value),
                                          g_variant_get_size (value));
    return g_variant_ref_sink (g_variant_new_from_bytes (type, copy, TRUE));
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
