/* sr-app-item.c: one app in the panel's list
 *
 * An installed app (from its GAppInfo), an app that has a saved session,
 * or an app that is excluded, or all three. Rows follow its "changed"
 * notifications, so a change here shows wherever the row is.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-app-item"

#include "config.h"

#include <gio/gdesktopappinfo.h>

#include "sr-app-item.h"

struct _SrAppItem {
  GObject parent_instance;

  char *app_id;            /* (owned) */
  char *name;              /* (owned) the app's name, or its id */
  char *search_text;       /* (owned) casefolded name, id, generic name, keywords */
  GIcon *icon;             /* (owned) */
  gboolean installed;
  guint64 bytes;
  gint64 last_saved;       /* µs, its own newest save; 0: not known */
  gint64 last_written;     /* µs, its files' newest write; 0: not known */
  int windows;             /* -1: not known */
  gboolean at_login;
  gboolean crash_loop;
  SrAppState state;
  gboolean unknown;        /* the last listing failed: state is not known */
  gboolean excluded;
  gboolean admin_excluded;
  gboolean locked;         /* excluded-apps is locked */
};

G_DEFINE_FINAL_TYPE (SrAppItem, sr_app_item, G_TYPE_OBJECT)

/* Sorters and filters read these; rows listen to "notify::usage" and
 * "notify::excluded" and read the getters. */
enum {
  PROP_0,
  PROP_NAME,
  PROP_SEARCH_TEXT,
  PROP_LAST_SAVED,
  PROP_LISTED,
  PROP_USAGE,
  PROP_EXCLUDED,
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
    case PROP_NAME: g_value_set_string (value, self->name); break;
    case PROP_SEARCH_TEXT: g_value_set_string (value, self->search_text); break;
    case PROP_LAST_SAVED: g_value_set_int64 (value, self->last_saved); break;
    case PROP_LISTED: g_value_set_boolean (value, sr_app_item_get_listed (self)); break;
    case PROP_USAGE: g_value_set_boolean (value, sr_app_item_get_has_state (self)); break;
    case PROP_EXCLUDED: g_value_set_boolean (value, self->excluded || self->admin_excluded); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sr_app_item_finalize (GObject *object)
{
  SrAppItem *self = SR_APP_ITEM (object);

  g_free (self->app_id);
  g_free (self->name);
  g_free (self->search_text);
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

  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, NULL, flags);
  properties[PROP_SEARCH_TEXT] = g_param_spec_string ("search-text", NULL, NULL, NULL, flags);
  properties[PROP_LAST_SAVED] = g_param_spec_int64 ("last-saved", NULL, NULL,
                                                    G_MININT64, G_MAXINT64, 0, flags);
  properties[PROP_LISTED] = g_param_spec_boolean ("listed", NULL, NULL, FALSE, flags);
  properties[PROP_USAGE] = g_param_spec_boolean ("usage", NULL, NULL, FALSE, flags);
  properties[PROP_EXCLUDED] = g_param_spec_boolean ("excluded", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sr_app_item_init (SrAppItem *self)
{
  self->windows = -1;
}

SrAppItem *
sr_app_item_new (const char *app_id)
{
  SrAppItem *self = g_object_new (SR_TYPE_APP_ITEM, NULL);

  self->app_id = g_strdup (app_id);
  self->name = g_strdup (app_id);
  self->search_text = g_utf8_casefold (app_id, -1);
  self->icon = g_themed_icon_new ("application-x-executable");
  return self;
}

const char *sr_app_item_get_app_id (SrAppItem *self) { return self->app_id; }
const char *sr_app_item_get_name (SrAppItem *self) { return self->name; }
GIcon *sr_app_item_get_icon (SrAppItem *self) { return self->icon; }
gboolean sr_app_item_get_installed (SrAppItem *self) { return self->installed; }
guint64 sr_app_item_get_bytes (SrAppItem *self) { return self->bytes; }
gint64 sr_app_item_get_last_saved (SrAppItem *self) { return self->last_saved; }

/* What the age of its saved session counts from, as policyd judges it
 * (sr_decide_annotate_listing ()) and retention purges it: its own newest
 * save, or where nothing tells its own time (an entry in gnome-session's
 * file), the time of the newest file that holds it. */
gint64
sr_app_item_get_aged_from (SrAppItem *self)
{
  return self->last_saved > 0 ? self->last_saved : self->last_written;
}

int sr_app_item_get_windows (SrAppItem *self) { return self->windows; }
gboolean sr_app_item_get_at_login (SrAppItem *self) { return self->at_login; }
gboolean sr_app_item_get_crash_loop (SrAppItem *self) { return self->crash_loop; }
SrAppState sr_app_item_get_state (SrAppItem *self) { return self->state; }
gboolean sr_app_item_get_excluded (SrAppItem *self) { return self->excluded; }
gboolean sr_app_item_get_admin_excluded (SrAppItem *self) { return self->admin_excluded; }
gboolean sr_app_item_get_locked (SrAppItem *self) { return self->locked; }

/* Makes rows show the item afresh: after a refused change, the switch
 * goes back to what is in force. */
void
sr_app_item_resync (SrAppItem *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXCLUDED]);
}

gboolean
sr_app_item_get_has_state (SrAppItem *self)
{
  return self->state != SR_APP_STATE_NONE;
}

/* An app that is gone stays while there is something to show or undo. */
gboolean
sr_app_item_get_listed (SrAppItem *self)
{
  return self->installed || self->state != SR_APP_STATE_NONE ||
         self->excluded || self->admin_excluded;
}

void
sr_app_item_set_app_info (SrAppItem *self,
                          GAppInfo  *info)
{
  GIcon *icon = g_app_info_get_icon (info);
  g_autoptr(GString) text = g_string_new (g_app_info_get_display_name (info));

  g_string_append_printf (text, "\n%s", self->app_id);
  if (G_IS_DESKTOP_APP_INFO (info))
    {
      const char *generic = g_desktop_app_info_get_generic_name (G_DESKTOP_APP_INFO (info));
      const char * const *keywords = g_desktop_app_info_get_keywords (G_DESKTOP_APP_INFO (info));

      if (generic != NULL)
        g_string_append_printf (text, "\n%s", generic);
      for (guint i = 0; keywords != NULL && keywords[i] != NULL; i++)
        g_string_append_printf (text, "\n%s", keywords[i]);
    }

  g_free (self->name);
  self->name = g_strdup (g_app_info_get_display_name (info));
  g_free (self->search_text);
  self->search_text = g_utf8_casefold (text->str, -1);
  if (icon != NULL)
    g_set_object (&self->icon, icon);
  self->installed = TRUE;
}

/* @info: (nullable): the app's entry in a ListStoredState listing; NULL
 * when it has none. Returns whether anything changed. */
gboolean
sr_app_item_set_usage (SrAppItem *self,
                       GVariant  *info)
{
  gboolean was_listed = sr_app_item_get_listed (self);
  gboolean was_unknown = self->unknown;
  guint64 bytes = 0;
  gint64 last_saved = 0, last_written = 0;
  guint32 windows = 0;
  gboolean at_login = FALSE, crash_loop = FALSE;
  const char *state_name = "valid";
  SrAppState state = SR_APP_STATE_NONE;

  if (info != NULL)
    {
      g_variant_lookup (info, "bytes", "t", &bytes);
      g_variant_lookup (info, "last-saved", "x", &last_saved);
      g_variant_lookup (info, "last-written", "x", &last_written);
      g_variant_lookup (info, "at-login", "b", &at_login);
      g_variant_lookup (info, "crash-loop", "b", &crash_loop);
      g_variant_lookup (info, "state", "&s", &state_name);
      if (!g_variant_lookup (info, "windows", "u", &windows))
        windows = G_MAXUINT32;
      state = g_str_equal (state_name, "expired") ? SR_APP_STATE_EXPIRED
            : g_str_equal (state_name, "cleared") ? SR_APP_STATE_CLEARED
            : SR_APP_STATE_VALID;
    }

  if (self->bytes == bytes && self->last_saved == last_saved &&
      self->last_written == last_written && self->at_login == at_login &&
      self->crash_loop == crash_loop && self->state == state &&
      self->windows == (windows == G_MAXUINT32 ? -1 : (int) MIN (windows, G_MAXINT)) &&
      !was_unknown)
    return FALSE;

  self->unknown = FALSE;
  self->bytes = bytes;
  self->last_saved = last_saved;
  self->last_written = last_written;
  self->at_login = at_login;
  self->crash_loop = crash_loop;
  self->state = state;
  self->windows = windows == G_MAXUINT32 ? -1 : (int) MIN (windows, G_MAXINT);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_SAVED]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_USAGE]);
  if (was_listed != sr_app_item_get_listed (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LISTED]);
  return TRUE;
}

/* The listing failed: what the app has saved is not known, which is not
 * "nothing saved". */
void
sr_app_item_set_usage_unknown (SrAppItem *self)
{
  sr_app_item_set_usage (self, NULL);
  if (self->unknown)
    return;
  self->unknown = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_USAGE]);
}

gboolean
sr_app_item_get_usage_known (SrAppItem *self)
{
  return !self->unknown;
}

gboolean
sr_app_item_set_excluded (SrAppItem *self,
                          gboolean   excluded,
                          gboolean   admin_excluded,
                          gboolean   locked)
{
  gboolean was_listed = sr_app_item_get_listed (self);

  if (self->excluded == excluded && self->admin_excluded == admin_excluded &&
      self->locked == locked)
    return FALSE;
  self->excluded = excluded;
  self->admin_excluded = admin_excluded;
  self->locked = locked;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_EXCLUDED]);
  if (was_listed != sr_app_item_get_listed (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LISTED]);
  return TRUE;
}
