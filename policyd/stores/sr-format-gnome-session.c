/* sr-format-gnome-session.c: gnome-session's save/restore state file
 *
 * $XDG_STATE_HOME/gnome-session@<session>.state is a serialized a{sv}:
 * "version" (u), "dirty" (b) and "instances", an a{s(a{sv}aa{sv})} keyed by
 * app id, whose aa{sv} holds one dictionary per instance. Clearing an app
 * drops its "instances" entry and keeps every other byte of meaning: other
 * keys, other apps, their order.
 *
 * The file comes from another program; nothing here trusts it beyond what
 * GVariant's own checks allow.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-format-gnome-session"

#include "config.h"

#include <gio/gio.h>

#include "sr-app-id.h"
#include "sr-format-gnome-session.h"
#include "sr-serialized.h"

#define INSTANCES_TYPE G_VARIANT_TYPE ("a{s(a{sv}aa{sv})}")

GVariant *
sr_format_gnome_session_parse (const void  *data,
                        gsize        size,
                        GError     **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, size);
  g_autoptr(GVariant) state = sr_serialized_load (G_VARIANT_TYPE_VARDICT, bytes,
                                                  SR_FORMAT_GNOME_SESSION_MAX_SIZE, error);
  g_autoptr(GVariant) instances = NULL;

  if (state == NULL)
    return NULL;

  instances = g_variant_lookup_value (state, "instances", NULL);
  if (instances != NULL && !g_variant_is_of_type (instances, INSTANCES_TYPE))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "has “instances” of type %s, not a{s(a{sv}aa{sv})}",
                   g_variant_get_type_string (instances));
      return NULL;
    }

  return g_steal_pointer (&state);
}

/* Whether the login reopens an instance. gnome-session 51 relaunches
 * each of its instances whose "crashed" is false (launch_app_instance());
 * one that crashed stays in its file, for the app's next launch to
 * recover, and is not reopened. session-restore-portal's record keeps
 * every instance it has handed out an id, for the app's next launch; it
 * reopens at login only those open at the session's end that had not
 * crashed ("ended-at-session-end", its key). An instance without
 * "crashed" (gnome-session always writes it) is taken not to have. */
static gboolean
instance_reopens (GVariant *instance)
{
  gboolean ended = FALSE, crashed = FALSE;

  g_variant_lookup (instance, "crashed", "b", &crashed);
  if (!g_variant_lookup (instance, "ended-at-session-end", "b", &ended))
    return !crashed;
  return ended && !crashed;
}

/* When the instance itself was saved: session-restore-portal's record
 * says ("saved-at"); gnome-session's file does not, and the file's own
 * time is any app's latest save, not this one's. 0: not known. */
static gint64
instance_saved_at (GVariant *instance)
{
  gint64 saved_at = 0;

  g_variant_lookup (instance, "saved-at", "x", &saved_at);
  return MAX (saved_at, 0);
}

/* The newest "saved-at" of an app's instances (@list, aa{sv}), 0 when
 * none has one. */
static gint64
app_saved_at (GVariant *list)
{
  gint64 saved_at = 0;

  for (gsize j = 0, n = g_variant_n_children (list); j < n; j++)
    {
      g_autoptr(GVariant) instance = g_variant_get_child_value (list, j);
      saved_at = MAX (saved_at, instance_saved_at (instance));
    }
  return saved_at;
}

void
sr_format_gnome_session_foreach_app (GVariant              *state,
                              SrFormatGnomeSessionAppFunc  func,
                              gpointer               user_data)
{
  g_autoptr(GVariant) instances = g_variant_lookup_value (state, "instances", INSTANCES_TYPE);
  gsize n;

  if (instances == NULL)
    return;

  n = g_variant_n_children (instances);
  for (gsize i = 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (instances, i);
      g_autoptr(GVariant) value = g_variant_get_child_value (entry, 1);
      g_autoptr(GVariant) list = g_variant_get_child_value (value, 1);
      gsize n_instances = g_variant_n_children (list);
      gboolean reopens = FALSE;
      const char *app_id;

      g_variant_get_child (entry, 0, "&s", &app_id);
      if (!sr_app_id_validate (app_id, NULL))
        continue;
      for (gsize j = 0; j < n_instances; j++)
        {
          g_autoptr(GVariant) instance = g_variant_get_child_value (list, j);
          reopens = reopens || instance_reopens (instance);
        }
      func (app_id, n_instances, g_variant_get_size (value), reopens, app_saved_at (list),
            user_data);
    }
}

/* The apps (of @among; NULL: of all) whose entries retention removes: all
 * saved before @older_than (µs since the epoch), as the listing judges
 * them (sr_decide_annotate_listing()): by their instances' newest
 * "saved-at", or, where none has one, by @file_time, the file's, which
 * they are no newer than. A whole app goes or stays, as Clear takes it.
 * Keys that are no valid app id are judged alike. */
GHashTable *
sr_format_gnome_session_saved_before (GVariant   *state,
                                      gint64      older_than,
                                      gint64      file_time,
                                      GHashTable *among)
{
  g_autoptr(GVariant) instances = g_variant_lookup_value (state, "instances", INSTANCES_TYPE);
  GHashTable *apps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (gsize i = 0, n = instances != NULL ? g_variant_n_children (instances) : 0; i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (instances, i);
      g_autoptr(GVariant) value = g_variant_get_child_value (entry, 1);
      g_autoptr(GVariant) list = g_variant_get_child_value (value, 1);
      gint64 saved_at = app_saved_at (list);
      const char *app_id;

      g_variant_get_child (entry, 0, "&s", &app_id);
      if ((among == NULL || g_hash_table_contains (among, app_id)) &&
          (saved_at > 0 ? saved_at : file_time) < older_than)
        g_hash_table_add (apps, g_strdup (app_id));
    }
  return apps;
}

/* @state, its other keys as they were, with the instances @kept in place
 * of its own (ending @kept). */
static GVariant *
with_instances (GVariant        *state,
                GVariantBuilder *kept)
{
  g_auto(GVariantBuilder) result = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);
  gboolean replaced = FALSE;
  GVariantIter iter;
  const char *key;
  GVariant *value;

  g_variant_iter_init (&iter, state);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    {
      if (g_str_equal (key, "instances"))
        {
          /* A repeated key is dropped: lookups only ever saw the first. */
          if (!replaced)
            g_variant_builder_add (&result, "{sv}", key, g_variant_builder_end (kept));
          replaced = TRUE;
        }
      else
        g_variant_builder_add (&result, "{sv}", key, value);
    }
  return g_variant_ref_sink (g_variant_builder_end (&result));
}

/* The state without the instances of @apps (NULL: of every app). Returns
 * NULL when nothing would change. Entries whose key is no valid app id can
 * only be removed by clearing everything. */
GVariant *
sr_format_gnome_session_without (GVariant   *state,
                          GHashTable *apps,
                          guint      *out_entries,
                          guint64    *out_bytes,
                          GPtrArray  *out_apps)
{
  g_auto(GVariantBuilder) kept = G_VARIANT_BUILDER_INIT (INSTANCES_TYPE);
  g_autoptr(GVariant) instances = g_variant_lookup_value (state, "instances", INSTANCES_TYPE);
  gboolean changed = FALSE;

  *out_entries = 0;
  *out_bytes = 0;
  if (instances == NULL)
    return NULL;

  for (gsize i = 0, n = g_variant_n_children (instances); i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (instances, i);
      g_autoptr(GVariant) instance = g_variant_get_child_value (entry, 1);
      g_autoptr(GVariant) list = g_variant_get_child_value (instance, 1);
      const char *app_id;

      g_variant_get_child (entry, 0, "&s", &app_id);
      if (apps == NULL || g_hash_table_contains (apps, app_id))
        {
          changed = TRUE;
          *out_entries += g_variant_n_children (list);
          *out_bytes += g_variant_get_size (instance);
          if (out_apps != NULL && sr_app_id_validate (app_id, NULL))
            g_ptr_array_add (out_apps, g_strdup (app_id));
          continue;
        }
      g_variant_builder_add_value (&kept, entry);
    }

  if (!changed)
    return NULL;

  return with_instances (state, &kept);
}

/* Tells @filter of every id the app's entry @value, (a{sv}aa{sv}), holds:
 * its instances', its next instance's and those discarded, whose files
 * GTK would otherwise still be asked to delete or would restore. */
static void
tell_app_ids (const char                       *app_id,
              GVariant                         *value,
              const SrFormatGnomeSessionFilter *filter,
              gpointer                          user_data)
{
  g_autoptr(GVariant) props = g_variant_get_child_value (value, 0);
  g_autoptr(GVariant) list = g_variant_get_child_value (value, 1);
  g_autofree const char **discarded = NULL;
  const char *id;

  for (gsize j = 0, n = g_variant_n_children (list); j < n; j++)
    {
      g_autoptr(GVariant) instance = g_variant_get_child_value (list, j);

      if (g_variant_lookup (instance, "instance-id", "&s", &id))
        filter->removed (app_id, id, SR_FORMAT_GNOME_SESSION_ID_INSTANCE, user_data);
    }
  if (g_variant_lookup (props, "next-instance-id", "&s", &id))
    filter->removed (app_id, id, SR_FORMAT_GNOME_SESSION_ID_NEXT, user_data);
  if (g_variant_lookup (props, "discarded-instance-ids", "^a&s", &discarded))
    for (guint k = 0; discarded[k] != NULL; k++)
      filter->removed (app_id, discarded[k], SR_FORMAT_GNOME_SESSION_ID_DISCARDED, user_data);
}

/* An app's entry without the instances @filter removes; NULL when it
 * keeps them all. */
static GVariant *
filter_instances (const char                       *app_id,
                  GVariant                         *value,
                  gboolean                          dirty,
                  const SrFormatGnomeSessionFilter *filter,
                  gpointer                          user_data)
{
  g_autoptr(GVariant) props = g_variant_get_child_value (value, 0);
  g_autoptr(GVariant) list = g_variant_get_child_value (value, 1);
  g_auto(GVariantBuilder) kept = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("aa{sv}"));
  gboolean lost = FALSE;

  for (gsize j = 0, n = g_variant_n_children (list); j < n; j++)
    {
      g_autoptr(GVariant) instance = g_variant_get_child_value (list, j);
      gboolean crashed = FALSE;
      const char *id;

      g_variant_lookup (instance, "crashed", "b", &crashed);
      if (!filter->remove_instance (app_id, instance, crashed || dirty, user_data))
        {
          g_variant_builder_add_value (&kept, instance);
          continue;
        }
      lost = TRUE;
      if (g_variant_lookup (instance, "instance-id", "&s", &id))
        filter->removed (app_id, id, SR_FORMAT_GNOME_SESSION_ID_INSTANCE, user_data);
    }
  if (!lost)
    return NULL;
  return g_variant_new ("(@a{sv}@aa{sv})", props, g_variant_builder_end (&kept));
}

/* The state without what @filter removes: whole apps, or some of their
 * instances. Everything else keeps its meaning: the other keys
 * ("version", "dirty"), the apps and instances not removed (each as it
 * was, in its order), an app's own keys ("next-instance-id",
 * "discarded-instance-ids") when only instances go. Returns NULL when
 * nothing would change.
 *
 * "dirty" is what gnome-session 51 wrote when the session did not end
 * cleanly: it then hands every instance out as RECOVER. A file without it
 * is one gnome-session does not read at all; its instances are taken as
 * recoverable, the side of caution. */
GVariant *
sr_format_gnome_session_filter (GVariant                         *state,
                                const SrFormatGnomeSessionFilter *filter,
                                gpointer                          user_data)
{
  g_auto(GVariantBuilder) kept = G_VARIANT_BUILDER_INIT (INSTANCES_TYPE);
  g_autoptr(GVariant) instances = g_variant_lookup_value (state, "instances", INSTANCES_TYPE);
  gboolean changed = FALSE, dirty = TRUE;

  if (instances == NULL)
    return NULL;
  g_variant_lookup (state, "dirty", "b", &dirty);

  for (gsize i = 0, n = g_variant_n_children (instances); i < n; i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (instances, i);
      g_autoptr(GVariant) app = g_variant_get_child_value (entry, 1);
      g_autoptr(GVariant) filtered = NULL;
      const char *app_id;

      g_variant_get_child (entry, 0, "&s", &app_id);
      if (filter->remove_app (app_id, user_data))
        {
          tell_app_ids (app_id, app, filter, user_data);
          changed = TRUE;
          continue;
        }
      filtered = filter_instances (app_id, app, dirty, filter, user_data);
      if (filtered == NULL)
        g_variant_builder_add_value (&kept, entry);
      else
        {
          g_variant_builder_add (&kept, "{s@(a{sv}aa{sv})}", app_id, g_steal_pointer (&filtered));
          changed = TRUE;
        }
    }

  if (!changed)
    return NULL;

  return with_instances (state, &kept);
}
