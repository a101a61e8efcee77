/* sr-app-item.c: one app in the panel's list
 *
 * An installed app (from its GAppInfo), an app that has stored state, or
 * an app that is excluded, or all three. Rows bind to its properties, so a
 * change here shows wherever the row is.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-app-item"

#include "config.h"

#include "sr-app-item.h"

struct _SrAppItem {
  GObject parent_instance;

  char *app_id;            /* (owned) */
  char *name;              /* (owned) the app's name, or its id */
  GIcon *icon;             /* (owned) */
  guint64 bytes;
  gint64 last_saved;
  gboolean excluded;
  gboolean admin_excluded;
};

G_DEFINE_FINAL_TYPE (SrAppItem, sr_app_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_APP_ID,
  PROP_NAME,
  PROP_ICON,
  PROP_BYTES,
  PROP_LAST_SAVED,
  PROP_EXCLUDED,
  PROP_ADMIN_EXCLUDED,
  PROP_HAS_STATE,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

static void
sr_app_item_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  SrAppItem *self = SR_APP_ITEM (object);

  switch (prop_id)
    {
    case PROP_APP_ID: g_value_set_string (value, self->app_id); break;
    case PROP_NAME: g_value_set_string (value, self->name); break;
    case PROP_ICON: g_value_set_object (value, self->icon); break;
    case PROP_BYTES: g_value_set_uint64 (value, self->bytes); break;
    case PROP_LAST_SAVED: g_value_set_int64 (value, self->last_saved); break;
    case PROP_EXCLUDED: g_value_set_boolean (value, self->excluded); break;
    case PROP_ADMIN_EXCLUDED: g_value_set_boolean (value, self->admin_excluded); break;
    case PROP_HAS_STATE: g_value_set_boolean (value, sr_app_item_get_has_state (self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sr_app_item_finalize (GObject *object)
{
  SrAppItem *self = SR_APP_ITEM (object);

  g_free (self->app_id);
  g_free (self->name);
  g_clear_object (&self->icon);
  G_OBJECT_CLASS (sr_app_item_parent_class)->finalize (object);
}

static void
sr_app_item_class_init (SrAppItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;

  object_class->get_property = sr_app_item_get_property;
  object_class->finalize = sr_app_item_finalize;

  properties[PROP_APP_ID] = g_param_spec_string ("app-id", NULL, NULL, NULL, flags);
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  properties[PROP_ICON] = g_param_spec_object ("icon", NULL, NULL, G_TYPE_ICON, flags);
  properties[PROP_BYTES] = g_param_spec_uint64 ("bytes", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_LAST_SAVED] = g_param_spec_int64 ("last-saved", NULL, NULL,
                                                    G_MININT64, G_MAXINT64, 0, flags);
  properties[PROP_EXCLUDED] = g_param_spec_boolean ("excluded", NULL, NULL, FALSE, flags);
  properties[PROP_ADMIN_EXCLUDED] = g_param_spec_boolean ("admin-excluded", NULL, NULL, FALSE, flags);
  properties[PROP_HAS_STATE] = g_param_spec_boolean ("has-state", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sr_app_item_init (SrAppItem *self)
{
}

SrAppItem *
sr_app_item_new (const char *app_id)
{
  SrAppItem *self = g_object_new (SR_TYPE_APP_ITEM, NULL);

  self->app_id = g_strdup (app_id);
  self->name = g_strdup (app_id);
  self->icon = g_themed_icon_new ("application-x-executable");
  return self;
}

const char *sr_app_item_get_app_id (SrAppItem *self) { return self->app_id; }
const char *sr_app_item_get_name (SrAppItem *self) { return self->name; }
GIcon *sr_app_item_get_icon (SrAppItem *self) { return self->icon; }
guint64 sr_app_item_get_bytes (SrAppItem *self) { return self->bytes; }
gint64 sr_app_item_get_last_saved (SrAppItem *self) { return self->last_saved; }
gboolean sr_app_item_get_excluded (SrAppItem *self) { return self->excluded; }
gboolean sr_app_item_get_admin_excluded (SrAppItem *self) { return self->admin_excluded; }

gboolean
sr_app_item_get_has_state (SrAppItem *self)
{
  return self->bytes > 0 || self->last_saved != 0;
}

void
sr_app_item_set_app_info (SrAppItem *self,
                          GAppInfo  *info)
{
  GIcon *icon = g_app_info_get_icon (info);

  g_free (self->name);
  self->name = g_strdup (g_app_info_get_display_name (info));
  if (icon != NULL)
    g_set_object (&self->icon, icon);
}

void
sr_app_item_set_usage (SrAppItem *self,
                       guint64    bytes,
                       gint64     last_saved)
{
  gboolean had_state = sr_app_item_get_has_state (self);

  if (self->bytes == bytes && self->last_saved == last_saved)
    return;
  self->bytes = bytes;
  self->last_saved = last_saved;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BYTES]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_SAVED]);
  if (had_state != sr_app_item_get_has_state (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_STATE]);
}

void
sr_app_item_set_excluded (SrAppItem *self,
                          gboolean   excluded,
                          gboolean   admin_excluded)
{
  if (self->excluded != excluded)
    {
      self->excluded = excluded;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXCLUDED]);
    }
  if (self->admin_excluded != admin_excluded)
    {
      self->admin_excluded = admin_excluded;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ADMIN_EXCLUDED]);
    }
}
