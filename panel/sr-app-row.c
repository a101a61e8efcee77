/* sr-app-row.c: a row of the Apps list
 *
 * Rows are recycled by the list view: the item changes under the row, so
 * everything shown is re-read from the item on every change. The row does
 * not talk to the service: its switch and buttons activate the Apps
 * page's actions, and the row follows the item once the service has answered.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-app-row.h"
#include "sr-format.h"
#include "sr-lock-icon.h"

struct _SrAppRow {
  GtkWidget parent_instance;

  SrAppItem *item;          /* (owned) (nullable) */
  gulong notify_id;
  guint resync_id;          /* puts the switch back to what is in force */

  GtkImage *icon;
  GtkLabel *name_label;
  GtkLabel *subtitle_label;
  GtkWidget *lock_icon;
  GtkWidget *reset_button;
  GtkWidget *forget_button;
  GtkSwitch *save_switch;
};

G_DEFINE_FINAL_TYPE (SrAppRow, sr_app_row, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_ITEM,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

/* What will come back, in a line: "2 windows, 260 kB · reopens at login ·
 * saved 5 minutes ago". State that will not be restored says so first.
 * @separator goes between the parts: " · " to see, ", " to hear. */
static char *
describe (SrAppItem  *item,
          const char *separator)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  gboolean has_state = sr_app_item_get_has_state (item);

  if (!sr_app_item_get_installed (item))
    g_ptr_array_add (parts, g_strdup (_("Not installed")));
  if (sr_app_item_get_admin_excluded (item))
    g_ptr_array_add (parts, g_strdup (_("Turned off by your administrator")));
  if (sr_app_item_get_crash_loop (item))
    g_ptr_array_add (parts, g_strdup (_("Held back after repeated crashes")));

  switch (sr_app_item_get_state (item))
    {
    case SR_APP_STATE_EXPIRED:
      g_ptr_array_add (parts, g_strdup (_("Too old to be restored")));
      break;
    case SR_APP_STATE_CLEARED:
      g_ptr_array_add (parts, g_strdup (_("Cleared, will not be restored")));
      break;
    case SR_APP_STATE_VALID:
      g_ptr_array_add (parts, sr_format_session_size (sr_app_item_get_windows (item),
                                                      sr_app_item_get_bytes (item)));
      g_ptr_array_add (parts, g_strdup (sr_app_item_get_at_login (item)
                                        ? _("reopens at login")
                                        : _("comes back when you open it")));
      break;
    case SR_APP_STATE_NONE:
    default:
      /* Not known: the page says so once, above the list. */
      if (!sr_app_item_get_admin_excluded (item) && sr_app_item_get_usage_known (item))
        g_ptr_array_add (parts, sr_format_nothing_saved (sr_app_item_get_excluded (item)));
      break;
    }
  /* No time is better than a shared file's, which is another app's. */
  if (has_state && sr_app_item_get_last_saved (item) > 0)
    g_ptr_array_add (parts, sr_format_time_ago (sr_app_item_get_last_saved (item),
                                                g_get_real_time ()));
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (separator, (char **) parts->pdata);
}

static void
sync_usage (SrAppRow *self)
{
  /* Translators: what separates the parts of an app's description */
  g_autofree char *subtitle = describe (self->item, _(" · "));
  gboolean has_state = sr_app_item_get_has_state (self->item);
  GtkWidget *cell = gtk_widget_get_parent (GTK_WIDGET (self));

  gtk_label_set_label (self->subtitle_label, subtitle);
  gtk_widget_set_visible (GTK_WIDGET (self->subtitle_label), *subtitle != '\0');
  /* The focus lands on the list's cell, which GTK 4.8 names after its
   * class ("GtkListItemWidget"): it reads as the app and what it has,
   * "Files, 1 window, 41.2 kB, reopens at login, saved 5 minutes ago". */
  if (cell != NULL)
    {
      /* Translators: what separates the parts of an app's description, read aloud */
      g_autofree char *spoken = describe (self->item, _(", "));
      g_autofree char *label = NULL;

      if (*spoken == '\0')
        label = g_strdup (sr_app_item_get_name (self->item));
      else
        /* Translators: the accessible name of a row of the Apps list: an app's name, then its description */
        label = g_strdup_printf (_("%s, %s"), sr_app_item_get_name (self->item), spoken);

      gtk_accessible_update_property (GTK_ACCESSIBLE (cell), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
    }
  /* Nothing saved: nothing to clear, no trash can. */
  gtk_widget_set_visible (self->forget_button, has_state);
  gtk_widget_set_visible (self->reset_button, sr_app_item_get_crash_loop (self->item));
}

/* GTK 4.8's list view keeps rows built that are off screen: what only
 * matters on screen (the switch, accessible names) is done when the row
 * is mapped. */
static void
sync_from_item (SrAppRow *self)
{
  g_autofree char *switch_label = NULL;
  g_autofree char *forget_label = NULL;
  g_autofree char *reset_label = NULL;
  gboolean admin, included, locked;
  const char *name;

  if (self->item == NULL)
    return;

  name = sr_app_item_get_name (self->item);
  gtk_image_set_from_gicon (self->icon, sr_app_item_get_icon (self->item));
  gtk_label_set_label (self->name_label, name);
  sync_usage (self);
  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;

  admin = sr_app_item_get_admin_excluded (self->item);
  locked = sr_app_item_get_locked (self->item);
  included = !sr_app_item_get_excluded (self->item) && !admin;

  gtk_switch_set_active (self->save_switch, included);
  gtk_switch_set_state (self->save_switch, included);
  sr_lock_icon_apply (self->lock_icon, GTK_WIDGET (self->save_switch), admin || locked, TRUE);
  /* A lock on the whole list is said once, above it (sr-apps-page.ui);
   * an app the administrator turned off says so itself. */
  gtk_widget_set_visible (self->lock_icon, admin && !locked);

  /* Translators: the accessible name of an app's switch */
  switch_label = g_strdup_printf (_("Save and restore %s"), name);
  /* Translators: the accessible name of an app's clear button */
  forget_label = g_strdup_printf (_("Clear saved session of %s"), name);
  /* Translators: what the Allow Recovery button of an app does, read after its name */
  reset_label = g_strdup_printf (_("Lets %s restore after a crash again"), name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->save_switch),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, switch_label, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->forget_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, forget_label, -1);
  /* Its name is what it shows, for voice control ("click Allow Recovery"). */
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->reset_button),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, reset_label, -1);
}

/* Saved sessions change for many apps at once (every listing); they only
 * touch the description. */
static void
on_item_notify_cb (SrAppRow   *self,
                   GParamSpec *pspec)
{
  if (g_str_equal (pspec->name, "usage"))
    sync_usage (self);
  else if (g_str_equal (pspec->name, "excluded"))
    sync_from_item (self);
}

static gboolean
resync_cb (gpointer user_data)
{
  SrAppRow *self = user_data;

  self->resync_id = 0;
  if (self->item != NULL)
    sync_from_item (self);
  return G_SOURCE_REMOVE;
}

static gboolean
on_save_switch_state_set_cb (SrAppRow *self,
                             gboolean  state)
{
  if (self->item == NULL)
    return TRUE;

  /* The state follows the service's answer (sync_from_item); until then
   * the switch shows where the user put it, unless that asks first. */
  if (state == (!sr_app_item_get_excluded (self->item) && !sr_app_item_get_admin_excluded (self->item)))
    return FALSE;
  gtk_widget_activate_action (GTK_WIDGET (self), "apps.set-excluded", "(sb)",
                              sr_app_item_get_app_id (self->item), !state);
  /* Turning off what may have a saved session asks first (sr-apps-page.c):
   * while it asks the switch stays on. GtkSwitch tells of the change once
   * it shows it: it is put back before anything else is done (a frame
   * drawn, a screen reader answered). */
  if (!state && (sr_app_item_get_has_state (self->item) || !sr_app_item_get_usage_known (self->item)) &&
      self->resync_id == 0)
    self->resync_id = g_idle_add_full (G_PRIORITY_HIGH, resync_cb, self, NULL);
  return TRUE;
}

static void
on_forget_button_clicked_cb (SrAppRow *self)
{
  if (self->item != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "apps.forget", "s",
                                sr_app_item_get_app_id (self->item));
}

static void
on_reset_button_clicked_cb (SrAppRow *self)
{
  if (self->item != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "apps.reset-crash-guard", "s",
                                sr_app_item_get_app_id (self->item));
}


static void
sr_app_row_set_item (SrAppRow  *self,
                     SrAppItem *item)
{
  if (self->item == item)
    return;
  if (self->item != NULL)
    g_clear_signal_handler (&self->notify_id, self->item);
  g_set_object (&self->item, item);
  if (item != NULL)
    self->notify_id = g_signal_connect_swapped (item, "notify",
                                                G_CALLBACK (on_item_notify_cb), self);
  sync_from_item (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ITEM]);
}

static void
sr_app_row_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  SrAppRow *self = SR_APP_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM: g_value_set_object (value, self->item); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sr_app_row_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  SrAppRow *self = SR_APP_ROW (object);

  switch (prop_id)
    {
    case PROP_ITEM:
      sr_app_row_set_item (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sr_app_row_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (sr_app_row_parent_class)->map (widget);
  sync_from_item (SR_APP_ROW (widget));
}

/* Between the parts of a line, and between the lines. */
#define SPACING 12
#define LINE_SPACING 6

/* The list has one column, as wide as the page: a row's width never
 * depends on its text. Measuring the wrapping description for it, as the
 * grid view does for every row each time it lays out, cost most of the
 * Apps page's first frame. So a row asks for what its other parts need,
 * plus room for a few words of the app's name. */
#define TEXT_MIN_WIDTH 96

/* Narrower than this beside the icon and the controls, the description
 * goes under them, across the whole row: at 360 px it had some 150 px
 * there, and a crash-looping app's ran to seven lines in German. It
 * starts under the icon, not the name: three lines need all the room. */
#define NARROW_TEXT_WIDTH 300

static int
natural_width (GtkWidget *widget)
{
  int width = 0;

  if (gtk_widget_get_visible (widget))
    gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
  return width;
}

static int
height_for (GtkWidget *widget,
            int        width)
{
  int height = 0;

  if (gtk_widget_get_visible (widget))
    gtk_widget_measure (widget, GTK_ORIENTATION_VERTICAL, width, NULL, &height, NULL, NULL);
  return height;
}

static void
place (GtkWidget *child,
       int        row_width,
       int        x,
       int        y,
       int        width,
       int        height)
{
  if (!gtk_widget_get_visible (child))
    return;
  if (gtk_widget_get_direction (child) == GTK_TEXT_DIR_RTL)
    x = row_width - x - width;
  gtk_widget_size_allocate (child, &(GtkAllocation) { x, y, width, height }, -1);
}

/* The controls at the end of the first line, each after a space: how
 * wide, and how high that line is at least (the icon's height too). The
 * lock, with its words, is one of them only @with_lock. */
static int
measure_controls (SrAppRow *self,
                  gboolean  with_lock,
                  int      *line_height)
{
  GtkWidget *controls[] = { self->lock_icon, self->forget_button, GTK_WIDGET (self->save_switch) };
  int width = 0;

  *line_height = height_for (GTK_WIDGET (self->icon), -1);
  for (guint i = with_lock ? 0 : 1; i < G_N_ELEMENTS (controls); i++)
    if (gtk_widget_get_visible (controls[i]))
      {
        width += natural_width (controls[i]) + SPACING;
        *line_height = MAX (*line_height, height_for (controls[i], -1));
      }
  return width;
}

/* A line of its own under the first, lined up at @x: the lock with its
 * words when narrow, Allow Recovery. Returns where the next one starts. */
static int
place_under (GtkWidget *child,
             int        width,
             int        x,
             int        y,
             gboolean   allocate)
{
  int height;

  if (!gtk_widget_get_visible (child))
    return y;
  height = height_for (child, -1);
  if (allocate)
    place (child, width, x, y + LINE_SPACING, width - x, height);
  return y + LINE_SPACING + height;
}

/* The icon, the name and the controls (lock, clear, switch) on a line;
 * the description beside the name or, when narrow, under the line, and
 * the lock with its words under that; Allow Recovery last, lined up with
 * the description. Returns the height the row needs at @width, and
 * allocates the children there when @allocate. */
static int
lay_out (SrAppRow *self,
         int       width,
         gboolean  allocate)
{
  GtkWidget *controls[] = { self->lock_icon, self->forget_button, GTK_WIDGET (self->save_switch) };
  int text_x = natural_width (GTK_WIDGET (self->icon)) + SPACING;
  int line, controls_width = measure_controls (self, TRUE, &line);
  gboolean narrow = width - text_x - controls_width < NARROW_TEXT_WIDTH;
  int under_x = narrow ? 0 : text_x;   /* where the description and Allow Recovery start */
  int text_width, name_height, subtitle_height, y;

  if (narrow)
    controls_width = measure_controls (self, FALSE, &line);
  text_width = MAX (width - text_x - controls_width, 0);
  name_height = height_for (GTK_WIDGET (self->name_label), text_width);
  subtitle_height = height_for (GTK_WIDGET (self->subtitle_label), narrow ? width : text_width);
  line = MAX (line, narrow ? name_height : name_height + subtitle_height);

  if (allocate)
    {
      int x = width;
      guint first = narrow ? 1 : 0;   /* the lock goes under, when narrow */

      place (GTK_WIDGET (self->icon), width, 0, 0, text_x - SPACING, line);
      for (guint i = G_N_ELEMENTS (controls); i-- > first;)
        if (gtk_widget_get_visible (controls[i]))
          {
            x -= natural_width (controls[i]);
            place (controls[i], width, x, 0, natural_width (controls[i]), line);
            x -= SPACING;
          }
      y = narrow ? (line - name_height) / 2 : (line - name_height - subtitle_height) / 2;
      place (GTK_WIDGET (self->name_label), width, text_x, y, text_width, name_height);
      if (narrow)
        place (GTK_WIDGET (self->subtitle_label), width, 0, line, width, subtitle_height);
      else
        place (GTK_WIDGET (self->subtitle_label), width, text_x, y + name_height, text_width, subtitle_height);
    }

  y = narrow ? line + subtitle_height : line;
  if (narrow)
    y = place_under (self->lock_icon, width, under_x, y, allocate);
  return place_under (self->reset_button, width, under_x, y, allocate);
}

static void
sr_app_row_measure (GtkWidget      *widget,
                    GtkOrientation  orientation,
                    int             for_size,
                    int            *minimum,
                    int            *natural,
                    int            *minimum_baseline,
                    int            *natural_baseline)
{
  SrAppRow *self = SR_APP_ROW (widget);
  int text_x = natural_width (GTK_WIDGET (self->icon)) + SPACING;
  int line_height;
  /* Allow Recovery, and the lock when narrow, go under the rest; each is
   * lined up with the text only where that is wide. */
  int width = MAX (text_x + TEXT_MIN_WIDTH + measure_controls (self, FALSE, &line_height),
                   MAX (natural_width (self->reset_button), natural_width (self->lock_icon)));

  if (orientation == GTK_ORIENTATION_VERTICAL)
    *minimum = *natural = lay_out (self, for_size < 0 ? width : for_size, FALSE);
  else
    *minimum = *natural = width;
}

/* Without a layout manager a widget is taken to be of constant size: the
 * description would then never wrap. */
static GtkSizeRequestMode
sr_app_row_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
sr_app_row_size_allocate (GtkWidget *widget,
                          int        width,
                          int        height,
                          int        baseline)
{
  lay_out (SR_APP_ROW (widget), width, TRUE);
}

static void
sr_app_row_dispose (GObject *object)
{
  SrAppRow *self = SR_APP_ROW (object);

  g_clear_handle_id (&self->resync_id, g_source_remove);
  sr_app_row_set_item (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), SR_TYPE_APP_ROW);
  G_OBJECT_CLASS (sr_app_row_parent_class)->dispose (object);
}

static void
sr_app_row_class_init (SrAppRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = sr_app_row_get_property;
  object_class->set_property = sr_app_row_set_property;
  object_class->dispose = sr_app_row_dispose;
  widget_class->map = sr_app_row_map;
  widget_class->measure = sr_app_row_measure;
  widget_class->get_request_mode = sr_app_row_get_request_mode;
  widget_class->size_allocate = sr_app_row_size_allocate;

  properties[PROP_ITEM] =
    g_param_spec_object ("item", NULL, NULL, SR_TYPE_APP_ITEM,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (SR_TYPE_LOCK_ICON);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/gnome/SessionRestore/sr-app-row.ui");
  gtk_widget_class_bind_template_child (widget_class, SrAppRow, icon);
  gtk_widget_class_bind_template_child (widget_class, SrAppRow, name_label);
  gtk_widget_class_bind_template_child (widget_class, SrAppRow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, SrAppRow, reset_button);
  gtk_widget_class_bind_template_child (widget_class, SrAppRow, lock_icon);
  gtk_widget_class_bind_template_child (widget_class, SrAppRow, forget_button);
  gtk_widget_class_bind_template_child (widget_class, SrAppRow, save_switch);
  gtk_widget_class_bind_template_callback (widget_class, on_save_switch_state_set_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_forget_button_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_reset_button_clicked_cb);
}

static void
sr_app_row_init (SrAppRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* Not "SrAppRow": its cell has the row's name. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, "", -1);
}

SrAppItem *
sr_app_row_get_item (SrAppRow *self)
{
  return self->item;
}
