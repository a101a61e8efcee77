/* sr-portal-discards.c: the ids apps are to delete, apart from the record
 *
 * $XDG_STATE_HOME/session-restore-portal@<desktop>.discard: a serialized
 * a{sas}, app id → the ids whose state the app is to delete (SrApp's
 * discard and cleared_ids), asked for at each of its registrations, at
 * either door, until it reports them deleted. They are kept apart from
 * the record of what to restore (sr-portal-record.c), which policyd lists
 * and clears: when policyd clears an app, or opts it out, its entry goes
 * from the record, and the ids of what it had saved then — which it may
 * have written again since, running on — must still be asked for, after
 * a restart of the backend too. This file holds no saved state, only
 * names of it; no store drop-in names it, so no clear removes it.
 *
 * Written with the record's snapshot, by a writer of its own
 * (sr-portal-writer.c: temp file, fsync, rename), when what it would hold
 * changed. Read once at start, after the record: one that cannot be read
 * or does not parse is said in the log and left as it is, until the next
 * write replaces it; losing it loses no state, only the asking.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-discards"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sr-app-id.h"
#include "sr-fd.h"
#include "sr-portal.h"
#include "sr-regular-file.h"

/* MAX_APPS apps with MAX_DISCARD ids each (sr-portal-record.c), at 64
 * bytes an id: far within. */
#define DISCARDS_MAX_SIZE (16 * 1024 * 1024)

void
sr_portal_discards_init (SrPortal *self)
{
  g_autofree char *name = g_strdup_printf ("session-restore-portal@%s.discard", self->desktop);

  self->discards_path = g_build_filename (g_get_user_state_dir (), name, NULL);
  self->discards_writer = sr_record_writer_new (self->discards_path);
}

void
sr_portal_discards_free (SrPortal *self)
{
  g_clear_pointer (&self->discards_writer, sr_record_writer_free);
  g_clear_pointer (&self->discards_written, g_bytes_unref);
  g_clear_pointer (&self->discards_path, g_free);
}

static gboolean
id_is_valid (const char *id)
{
  gsize length = strlen (id);

  /* As the instance ids of either door look, and nothing that could
   * make GTK's file name leave its folder. */
  return length > 0 && length <= 255 && g_utf8_validate (id, length, NULL) &&
         strchr (id, '/') == NULL && !g_str_equal (id, ".") && !g_str_equal (id, "..");
}

static void
take_in (SrPortal   *self,
         GVariant   *discards)
{
  GVariantIter iter;
  const char *app_id;
  GVariant *ids;

  g_variant_iter_init (&iter, discards);
  while (g_variant_iter_loop (&iter, "{&s@as}", &app_id, &ids))
    {
      g_autofree const char **list = g_variant_get_strv (ids, NULL);
      SrApp *app;

      if (!sr_app_id_validate (app_id, NULL))
        continue;
      app = sr_portal_record_app (self, app_id);
      for (guint i = 0; list[i] != NULL; i++)
        if (id_is_valid (list[i]) &&
            !g_ptr_array_find_with_equal_func (app->discard, list[i], g_str_equal, NULL) &&
            !g_ptr_array_find_with_equal_func (app->cleared_ids, list[i], g_str_equal, NULL))
          sr_portal_app_add_cleared (app, list[i]);
    }
}

/* At start, after the record was read. */
void
sr_portal_discards_load (SrPortal *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMappedFile) file = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GVariant) discards = NULL;
  g_auto(SrFd) fd = -1;
  struct stat st;

  sr_record_writer_remove_leftovers (self->discards_writer);
  if (faccessat (AT_FDCWD, self->discards_path, F_OK, AT_SYMLINK_NOFOLLOW) != 0 &&
      errno == ENOENT)
    return;
  fd = sr_regular_file_open (AT_FDCWD, self->discards_path, O_NOFOLLOW, &st, &error);
  if (fd < 0)
    {
      g_warning ("%s could not be read (%s): the ids in it are not asked for",
                 self->discards_path, error->message);
      return;
    }
  if (st.st_size == 0)
    return;
  if (st.st_size > DISCARDS_MAX_SIZE)
    {
      g_warning ("%s is larger than %u bytes: the ids in it are not asked for",
                 self->discards_path, DISCARDS_MAX_SIZE);
      return;
    }
  file = g_mapped_file_new_from_fd (fd, FALSE, &error);
  if (file == NULL)
    {
      g_warning ("%s could not be read (%s): the ids in it are not asked for",
                 self->discards_path, error->message);
      return;
    }
  bytes = g_mapped_file_get_bytes (file);
  discards = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE ("a{sas}"), bytes,
                                                           FALSE));
  if (!g_variant_is_normal_form (discards))
    {
      g_warning ("%s does not parse: the ids in it are not asked for", self->discards_path);
      return;
    }
  self->discards_written = g_bytes_ref (bytes);
  take_in (self, discards);
}

static void
add_ids (GVariantBuilder *ids,
         GPtrArray       *list)
{
  for (guint i = 0; i < list->len; i++)
    g_variant_builder_add (ids, "s", g_ptr_array_index (list, i));
}

/* With each snapshot of the record (sr_portal_record_save_now()), apps in
 * @sorted order: written only when it changed. */
void
sr_portal_discards_save (SrPortal *self,
                         GList    *sorted)
{
  GVariantBuilder builder;
  g_autoptr(GVariant) discards = NULL;
  g_autoptr(GBytes) bytes = NULL;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{sas}"));
  for (GList *l = sorted; l != NULL; l = l->next)
    {
      SrApp *app = g_hash_table_lookup (self->apps, l->data);
      GVariantBuilder ids;

      if (app == NULL || app->discard->len + app->cleared_ids->len == 0)
        continue;
      g_variant_builder_init (&ids, G_VARIANT_TYPE_STRING_ARRAY);
      add_ids (&ids, app->discard);
      add_ids (&ids, app->cleared_ids);
      g_variant_builder_add (&builder, "{sas}", app->app_id, &ids);
    }
  discards = g_variant_ref_sink (g_variant_builder_end (&builder));
  bytes = g_variant_get_data_as_bytes (discards);
  if (self->discards_written != NULL && g_bytes_equal (bytes, self->discards_written))
    return;
  /* None to ask for, and no file yet: none to write. */
  if (self->discards_written == NULL && g_variant_n_children (discards) == 0)
    return;
  g_clear_pointer (&self->discards_written, g_bytes_unref);
  self->discards_written = g_bytes_ref (bytes);
  sr_record_writer_write (self->discards_writer, bytes);
}
