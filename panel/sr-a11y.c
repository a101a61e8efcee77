/* sr-a11y.c: what GTK 4.8 and libadwaita 1.2 tell screen readers wrongly
 *
 * GTK 4.8 names a button with a mnemonic twice, "_Cancel Cancel": its
 * own label, raw, and the label it is labelled by; a check box reads the
 * underscore. A widget of the generic or widget role, or a list, without a name of
 * its own is named after its class ("AdwSqueezer", "GtkListBox"). A combo
 * row's value is in a list inside it that has no name, and its popup opens
 * on the first choice. These are mended here, on widgets as they are built
 * (libadwaita's included), for every screen the panel shows. GTK 4.8 has
 * no getter for an accessible property: what is mended is recognised by
 * the widget's kind and place, never by its current name.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-a11y.h"

/* "C_lear" → "Clear"; "__" is a literal underscore. */
char *
sr_a11y_strip_mnemonic (const char *label)
{
  GString *out = g_string_sized_new (strlen (label));

  for (const char *p = label; *p != '\0'; p++)
    {
      if (*p == '_')
        {
          p++;
          if (*p == '\0')
            break;
        }
      g_string_append_c (out, *p);
    }
  return g_string_free (out, FALSE);
}

static void
set_label (GtkWidget  *widget,
           const char *label)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}

/* A button or check box with a mnemonic: its label once, without the
 * underscore. A button whose child is a label (AdwAboutWindow's version)
 * GTK names after its class: it is named after the label. */
static void
name_mnemonic (GtkWidget *widget)
{
  const char *label = NULL;
  gboolean underline = FALSE;
  g_autofree char *plain = NULL;

  if (GTK_IS_BUTTON (widget))
    {
      GtkWidget *child = gtk_button_get_child (GTK_BUTTON (widget));

      label = gtk_button_get_label (GTK_BUTTON (widget));
      underline = gtk_button_get_use_underline (GTK_BUTTON (widget));
      if (label == NULL && GTK_IS_LABEL (child))
        {
          set_label (widget, gtk_label_get_text (GTK_LABEL (child)));
          return;
        }
    }
  else if (GTK_IS_CHECK_BUTTON (widget))
    {
      label = gtk_check_button_get_label (GTK_CHECK_BUTTON (widget));
      underline = gtk_check_button_get_use_underline (GTK_CHECK_BUTTON (widget));
    }
  if (label == NULL || !underline)
    return;
  plain = sr_a11y_strip_mnemonic (label);
  set_label (widget, plain);
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
}

/* A preferences group's list is named after the group's title, as
 * libadwaita does when there is one; any other has no name (a list of
 * ours that has one gets it after sr_a11y_tidy()). */
static void
name_list_box (GtkWidget *list)
{
  GtkWidget *group = gtk_widget_get_ancestor (list, ADW_TYPE_PREFERENCES_GROUP);
  const char *title = group != NULL ? adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (group))
                                    : NULL;

  set_label (list, title != NULL ? title : "");
}

static GtkWidget *find_descendant (GtkWidget *root,
                                   GType      type);

/* GTK 4.24 tells a menu's items without names: they are labelled by
 * their label, which it does not tell. Each is named after that label,
 * the first in it (the second is its shortcut's). */
static void
name_menu_item (GtkWidget *item)
{
  GtkWidget *label = find_descendant (item, GTK_TYPE_LABEL);
  g_autofree char *plain = NULL;

  if (label == NULL)
    return;
  plain = sr_a11y_strip_mnemonic (gtk_label_get_label (GTK_LABEL (label)));
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  set_label (item, plain);
}

static void
tidy_widget (GtkWidget *widget)
{
  GtkAccessibleRole role = gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (widget));

  if (role == GTK_ACCESSIBLE_ROLE_GENERIC || role == GTK_ACCESSIBLE_ROLE_WIDGET)
    set_label (widget, "");
  else if (GTK_IS_LIST_BOX (widget))
    name_list_box (widget);
  else if (ADW_IS_COMBO_ROW (widget))
    sr_a11y_follow_combo_row (ADW_COMBO_ROW (widget));
  else if (role == GTK_ACCESSIBLE_ROLE_MENU_ITEM)
    name_menu_item (widget);
  else
    name_mnemonic (widget);
}

/* Everything under @root, @root too: call it once the labels are set
 * (a message dialog's after its responses), and again if they change. */
void
sr_a11y_tidy (GtkWidget *root)
{
  tidy_widget (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    sr_a11y_tidy (child);
}

/* -- Toasts ---------------------------------------------------------------------- */

/* libadwaita 1.2's dismiss button is an icon alone: GTK names it after
 * the image ("GtkImage"). It is the toast's one button without a label. */
static void
name_toast (GtkWidget *toast)
{
  sr_a11y_tidy (toast);
  for (GtkWidget *child = gtk_widget_get_first_child (toast); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_BUTTON (child) && gtk_button_get_label (GTK_BUTTON (child)) == NULL)
      set_label (child, _("Dismiss"));
}

static void
on_overlay_children_changed_cb (GListModel *children,
                                guint       position,
                                guint       removed,
                                guint       added,
                                gpointer    user_data)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(GtkWidget) child = g_list_model_get_item (children, i);

      if (child != gtk_widget_get_first_child (GTK_WIDGET (user_data)))
        name_toast (child);
    }
}

/* A toast's widget is built when it shows, so the overlay's children
 * are watched; a toast is any child but the content, the first. */
void
sr_a11y_follow_toasts (AdwToastOverlay *overlay)
{
  GListModel *children = gtk_widget_observe_children (GTK_WIDGET (overlay));

  g_signal_connect_object (children, "items-changed", G_CALLBACK (on_overlay_children_changed_cb),
                           overlay, 0);
  g_object_set_data_full (G_OBJECT (overlay), "sr-a11y-children", children, g_object_unref);
}

/* -- Combo rows ------------------------------------------------------------------ */

static GtkWidget *
find_descendant (GtkWidget *root,
                 GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = G_TYPE_CHECK_INSTANCE_TYPE (child, type) ? child : find_descendant (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static const char *
selected_string (AdwComboRow *row)
{
  GObject *item = adw_combo_row_get_selected_item (row);

  return GTK_IS_STRING_OBJECT (item) ? gtk_string_object_get_string (GTK_STRING_OBJECT (item)) : NULL;
}

/* The value, which the row shows in a list of its own, is told as the
 * row's description. GTK 4.8 makes a tooltip the description, and takes
 * it away with the tooltip (a lock's "Set by your administrator"): the
 * two are told together, after GTK. GTK 4.24 tells a description from
 * the DESCRIBED_BY relation before the property, and libadwaita 1.10
 * points that at the row's subtitle: the relation goes. It also shows the
 * list that the row marked hidden: its one item is named after the value. */
static void
on_combo_changed_cb (AdwComboRow *row)
{
  const char *value = selected_string (row);
  const char *tooltip = gtk_widget_get_tooltip_text (GTK_WIDGET (row));
  GtkWidget *shown = g_object_get_data (G_OBJECT (row), "sr-a11y-shown");
  g_autofree char *description = NULL;

  if (value == NULL)
    value = "";
  /* Translators: a choice's value, then why it cannot be changed ("30 Days, Set by your administrator") */
  description = tooltip != NULL ? g_strdup_printf (_("%s, %s"), value, tooltip) : g_strdup (value);
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_RELATION_DESCRIBED_BY);
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description, -1);
  if (shown != NULL)
    for (GtkWidget *cell = gtk_widget_get_first_child (shown); cell != NULL;
         cell = gtk_widget_get_next_sibling (cell))
      set_label (cell, value);
}

/* The shown list builds its item when it is first laid out. */
static void
on_shown_children_changed_cb (GListModel *children,
                              guint       position,
                              guint       removed,
                              guint       added,
                              gpointer    user_data)
{
  if (added > 0)
    on_combo_changed_cb (ADW_COMBO_ROW (user_data));
}

/* The popup's choices are named after what they show, and the focus goes
 * to the one selected. GTK 4.8 has no API to focus a position: the list's
 * own action scrolls there, and the choice's widget takes the focus,
 * which moves the list's focus tracker with it. */
static gboolean
on_popup_shown_cb (gpointer user_data)
{
  g_autoptr(GtkWidget) popover = user_data;
  GtkWidget *list = find_descendant (popover, GTK_TYPE_LIST_VIEW);
  AdwComboRow *row = ADW_COMBO_ROW (gtk_widget_get_ancestor (popover, ADW_TYPE_COMBO_ROW));
  const char *value = row != NULL ? selected_string (row) : NULL;

  if (list == NULL || row == NULL || !gtk_widget_get_mapped (popover))
    return G_SOURCE_REMOVE;
  set_label (list, adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  gtk_widget_activate_action (list, "list.scroll-to-item", "u", adw_combo_row_get_selected (row));
  for (GtkWidget *cell = gtk_widget_get_first_child (list); cell != NULL;
       cell = gtk_widget_get_next_sibling (cell))
    {
      GtkWidget *label = find_descendant (cell, GTK_TYPE_LABEL);
      const char *text = label != NULL ? gtk_label_get_text (GTK_LABEL (label)) : NULL;

      if (text == NULL)
        continue;
      set_label (cell, text);
      if (g_strcmp0 (text, value) == 0)
        gtk_widget_grab_focus (cell);
    }
  return G_SOURCE_REMOVE;
}

static void
on_popup_map_cb (GtkWidget *popover)
{
  /* After the popover has given the focus to its first child. */
  g_idle_add (on_popup_shown_cb, g_object_ref (popover));
}

void
sr_a11y_follow_combo_row (AdwComboRow *row)
{
  GtkWidget *popover = find_descendant (GTK_WIDGET (row), GTK_TYPE_POPOVER);
  GtkWidget *shown = find_descendant (GTK_WIDGET (row), GTK_TYPE_LIST_VIEW);

  if (g_object_get_data (G_OBJECT (row), "sr-a11y-followed") != NULL)
    return;
  g_object_set_data (G_OBJECT (row), "sr-a11y-followed", GINT_TO_POINTER (TRUE));
  /* The list that shows the value, outside the popup: an unnamed list
   * with an unnamed item, which the description replaces. */
  if (shown != NULL && (popover == NULL || !gtk_widget_is_ancestor (shown, popover)))
    {
      GListModel *children = gtk_widget_observe_children (shown);

      gtk_accessible_update_state (GTK_ACCESSIBLE (shown), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
      g_object_set_data (G_OBJECT (row), "sr-a11y-shown", shown);
      g_signal_connect_object (children, "items-changed", G_CALLBACK (on_shown_children_changed_cb),
                               row, 0);
      g_object_set_data_full (G_OBJECT (row), "sr-a11y-shown-children", children, g_object_unref);
    }
  g_signal_connect (row, "notify::selected", G_CALLBACK (on_combo_changed_cb), NULL);
  g_signal_connect (row, "notify::tooltip-text", G_CALLBACK (on_combo_changed_cb), NULL);
  on_combo_changed_cb (row);
  if (popover != NULL)
    g_signal_connect (popover, "map", G_CALLBACK (on_popup_map_cb), NULL);
}
