/* sr-format-gnome-session.h: gnome-session's save/restore state file
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SR_FORMAT_GNOME_SESSION_MAX_SIZE (64 * 1024 * 1024)

/* @reopens: whether the session manager reopens any of the app's
 * instances at login. @saved_at: the newest of its instances' own
 * "saved-at" (µs since the epoch), 0 when none has one. */
typedef void (*SrFormatGnomeSessionAppFunc) (const char *app_id,
                                       guint       entries,
                                       guint64     bytes,
                                       gboolean    reopens,
                                       gint64      saved_at,
                                       gpointer    user_data);

GVariant *sr_format_gnome_session_parse       (const void             *data,
                                        gsize                   size,
                                        GError                **error);
void      sr_format_gnome_session_foreach_app (GVariant               *state,
                                        SrFormatGnomeSessionAppFunc   func,
                                        gpointer                user_data);
GHashTable *sr_format_gnome_session_saved_before (GVariant          *state,
                                                  gint64             older_than,
                                                  gint64             file_time,
                                                  GHashTable        *among);
GVariant *sr_format_gnome_session_without     (GVariant               *state,
                                        GHashTable             *apps,
                                        guint                  *out_entries,
                                        guint64                *out_bytes,
                                        GPtrArray              *out_apps);

/* What sr_format_gnome_session_filter() tells of an instance id it takes
 * away with an instance or an app. */
typedef enum {
  SR_FORMAT_GNOME_SESSION_ID_INSTANCE,   /* an instance's "instance-id" */
  SR_FORMAT_GNOME_SESSION_ID_NEXT,       /* an app's "next-instance-id" */
  SR_FORMAT_GNOME_SESSION_ID_DISCARDED,  /* one of its "discarded-instance-ids" */
} SrFormatGnomeSessionId;

/* Asked of each app (@app_id may be no valid app id), then, of an app
 * that stays, of each of its instances (@instance: its a{sv};
 * @recoverable: whether gnome-session hands it out as RECOVER, because it
 * crashed or the session did, "dirty"); @removed is told of every id
 * that goes. */
typedef struct {
  gboolean (*remove_app)      (const char             *app_id,
                               gpointer                user_data);
  gboolean (*remove_instance) (const char             *app_id,
                               GVariant               *instance,
                               gboolean                recoverable,
                               gpointer                user_data);
  void     (*removed)         (const char             *app_id,
                               const char             *instance_id,
                               SrFormatGnomeSessionId  kind,
                               gpointer                user_data);
} SrFormatGnomeSessionFilter;

GVariant *sr_format_gnome_session_filter      (GVariant                         *state,
                                               const SrFormatGnomeSessionFilter *filter,
                                               gpointer                          user_data);

G_END_DECLS
