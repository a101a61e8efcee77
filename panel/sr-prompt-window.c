/* sr-prompt-window.c: the login prompt, "Restore Apps From Your Last Session?"
 *
 * A normal window (an AdwMessageDialog without a parent, so it needs no
 * shell): one row per app, with its icon, name and window count and a
 * check box, checked (described by the window count too); a line on
 * what no answer does; "Remember my choice"; Don't Restore and Restore.
 * The window is titled by its question.
 * Escape and closing the window are Don't Restore. Keyboard: Tab moves
 * through the boxes and the buttons, Space toggles, Enter restores.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <gio/gdesktopappinfo.h>
#include <glib/gi18n.h>

#include "sr-a11y.h"
#include "sr-prompt-window.h"

#define MAX_UNSCROLLED 5

/* Without a parent, an AdwMessageDialog of libadwaita 1.2 grows to 372 px
 * for its heading and body: wider than a 360 px screen. The prompt keeps
 * to 300 px, the width the panel's dialogs take in a window of 360. */
#define PROMPT_WIDTH 300

#define SR_TYPE_PROMPT_DIALOG (sr_prompt_dialog_get_type ())
G_DECLARE_FINAL_TYPE (SrPromptDialog, sr_prompt_dialog, SR, PROMPT_DIALOG, AdwMessageDialog)

struct _SrPromptDialog {
  AdwMessageDialog parent_instance;
};

G_DEFINE_FINAL_TYPE (SrPromptDialog, sr_prompt_dialog, ADW_TYPE_MESSAGE_DIALOG)

static void
sr_prompt_dialog_measure (GtkWidget      *widget,
                          GtkOrientation  orientation,
                          int             for_size,
                          int            *minimum,
                          int            *natural,
                          int            *minimum_baseline,
                          int            *natural_baseline)
{
  GTK_WIDGET_CLASS (sr_prompt_dialog_parent_class)->measure (widget, orientation, for_size, minimum,
                                                             natural, minimum_baseline, natural_baseline);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *natural = MAX (*minimum, MIN (*natural, PROMPT_WIDTH));
}

static void
sr_prompt_dialog_class_init (SrPromptDialogClass *klass)
{
  GTK_WIDGET_CLASS (klass)->measure = sr_prompt_dialog_measure;
}

static void
sr_prompt_dialog_init (SrPromptDialog *self)
{
}

typedef struct {
  SrPromptAnswered answered;
  gpointer user_data;
  gboolean done;
  GPtrArray *app_ids;      /* (owned) */
  GPtrArray *checks;       /* (owned) GtkCheckButton, as app_ids */
  GtkWidget *remember;     /* (unowned) */
} Prompt;

static void
prompt_free (Prompt *prompt)
{
  g_ptr_array_unref (prompt->app_ids);
  g_ptr_array_unref (prompt->checks);
  g_free (prompt);
}

static void
answer (Prompt   *prompt,
        gboolean  restore)
{
  g_autoptr(GPtrArray) declined = g_ptr_array_new ();

  if (prompt->done)
    return;
  prompt->done = TRUE;
  for (guint i = 0; i < prompt->app_ids->len; i++)
    if (!gtk_check_button_get_active (prompt->checks->pdata[i]))
      g_ptr_array_add (declined, prompt->app_ids->pdata[i]);
  g_ptr_array_add (declined, NULL);
  prompt->answered (restore, (const char * const *) declined->pdata,
                    gtk_widget_get_visible (prompt->remember) &&
                    gtk_check_button_get_active (GTK_CHECK_BUTTON (prompt->remember)),
                    prompt->user_data);
}

static void
on_response_cb (AdwMessageDialog *dialog,
                const char       *response,
                Prompt           *prompt)
{
  answer (prompt, g_str_equal (response, "restore"));
}

/* Closed without an answer (a Close from policyd, the application going
 * away): Don't Restore. The window's children are gone by now, so the
 * boxes are not read: there is nothing to decline and nothing to
 * remember. */
static void
on_destroy_cb (GtkWidget *window,
               Prompt    *prompt)
{
  const char *none[] = { NULL };

  if (prompt->done)
    return;
  prompt->done = TRUE;
  prompt->answered (FALSE, none, FALSE, prompt->user_data);
}

/* Restore makes sense only with something checked. */
static void
on_toggled_cb (GtkCheckButton *check,
               GtkWindow      *window)
{
  Prompt *prompt = g_object_get_data (G_OBJECT (window), "sr-prompt");
  gboolean any = prompt->checks->len == 0;

  for (guint i = 0; i < prompt->checks->len && !any; i++)
    any = gtk_check_button_get_active (prompt->checks->pdata[i]);
  adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (window), "restore", any);
}

static GtkWidget *
app_row (const char *app_id,
         GVariant   *info,
         GtkWidget **out_check)
{
  g_autofree char *desktop_id = g_strconcat (app_id, ".desktop", NULL);
  g_autoptr(GDesktopAppInfo) app_info = g_desktop_app_info_new (desktop_id);
  g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (info);
  const char *name = app_info != NULL ? g_app_info_get_name (G_APP_INFO (app_info)) : app_id;
  GIcon *icon = app_info != NULL ? g_app_info_get_icon (G_APP_INFO (app_info)) : NULL;
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *image, *check;
  g_autofree char *subtitle = NULL;
  guint32 windows;

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  if (g_variant_dict_lookup (&dict, "windows", "u", &windows) && windows > 0)
    subtitle = g_strdup_printf (ngettext ("%u window", "%u windows", windows), windows);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  image = icon != NULL ? gtk_image_new_from_gicon (icon)
                       : gtk_image_new_from_icon_name ("application-x-executable");
  gtk_image_set_icon_size (GTK_IMAGE (image), GTK_ICON_SIZE_LARGE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (image), GTK_ACCESSIBLE_PROPERTY_LABEL, "", -1);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), image);

  check = gtk_check_button_new ();
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
  gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
  /* The screen reader reads the box as the app's name. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), check);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
  /* libadwaita labels it by the row's title too: "Files Files". */
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
  /* It describes it by the subtitle label, which GTK 4.8 reads as the
   * label's own description, empty: the box is described by the window
   * count itself, where the listing has one. */
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_RELATION_DESCRIBED_BY);
  if (subtitle != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                    subtitle, -1);
  *out_check = check;
  return row;
}

GtkWindow *
sr_prompt_window_new (GtkApplication   *app,
                      GVariant         *apps,
                      gboolean          can_remember,
                      SrPromptAnswered  answered,
                      gpointer          user_data)
{
  Prompt *prompt = g_new0 (Prompt, 1);
  GtkWidget *dialog = g_object_new (SR_TYPE_PROMPT_DIALOG,
                                    "heading", _("Restore Apps From Your Last Session?"),
                                    NULL);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *no_answer;
  GVariantIter iter;
  const char *app_id;
  GVariant *info;
  gsize n = g_variant_n_children (apps);

  prompt->answered = answered;
  prompt->user_data = user_data;
  prompt->app_ids = g_ptr_array_new_with_free_func (g_free);
  prompt->checks = g_ptr_array_new ();
  g_object_set_data_full (G_OBJECT (dialog), "sr-prompt", prompt, (GDestroyNotify) prompt_free);

  gtk_window_set_application (GTK_WINDOW (dialog), app);
  /* Named by its question: what a screen reader announces, and what a
   * window list shows. */
  gtk_window_set_title (GTK_WINDOW (dialog), _("Restore Apps From Your Last Session?"));
  gtk_window_set_icon_name (GTK_WINDOW (dialog), APP_ID);
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (dialog),
                               n > 0 ? _("These apps were open when you last logged out. "
                                         "Uncheck those you do not want back.")
                                     : _("Apps that were open when you last logged out can "
                                         "be opened again."));

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  g_variant_iter_init (&iter, apps);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &app_id, &info))
    {
      GtkWidget *check;

      gtk_list_box_append (GTK_LIST_BOX (list), app_row (app_id, info, &check));
      g_ptr_array_add (prompt->app_ids, g_strdup (app_id));
      g_ptr_array_add (prompt->checks, check);
      g_signal_connect_object (check, "toggled", G_CALLBACK (on_toggled_cb), dialog, 0);
      g_variant_unref (info);
    }
  /* A few apps fit as they are; more scroll, in a list of fixed height
   * (a message dialog does not give a scrolled window its natural one). */
  if (n > MAX_UNSCROLLED)
    {
      gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER,
                                      GTK_POLICY_AUTOMATIC);
      gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 320);
      gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), list);
      gtk_box_append (GTK_BOX (box), scrolled);
    }
  else
    {
      g_object_ref_sink (scrolled);
      g_object_unref (scrolled);
      gtk_widget_set_visible (list, n > 0);
      gtk_box_append (GTK_BOX (box), list);
    }

  /* What policyd does when nobody answers in time ("ask-timeout"):
   * nothing reopens at this login, and the state stays for later. */
  no_answer = gtk_label_new (_("If you do not answer, the apps are not reopened now; "
                               "their saved sessions are kept."));
  gtk_label_set_wrap (GTK_LABEL (no_answer), TRUE);
  gtk_label_set_xalign (GTK_LABEL (no_answer), 0);
  gtk_widget_add_css_class (no_answer, "dim-label");
  gtk_box_append (GTK_BOX (box), no_answer);

  prompt->remember = gtk_check_button_new_with_mnemonic (_("Re_member my choice"));
  gtk_widget_set_tooltip_text (prompt->remember,
                               _("Always restore, or never, without asking again. "
                                 "You can change this in Session Restore."));
  gtk_widget_set_visible (prompt->remember, can_remember);
  gtk_box_append (GTK_BOX (box), prompt->remember);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), box);

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "dont", _("_Don’t Restore"),
                                    "restore", _("_Restore"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "restore",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "restore");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "dont");
  sr_a11y_tidy (dialog);
  gtk_accessible_update_property (GTK_ACCESSIBLE (list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Apps to restore"), -1);

  g_signal_connect (dialog, "response", G_CALLBACK (on_response_cb), prompt);
  g_signal_connect (dialog, "destroy", G_CALLBACK (on_destroy_cb), prompt);
  return GTK_WINDOW (dialog);
}

void
sr_prompt_window_dismiss (GtkWindow *window)
{
  gtk_window_destroy (window);
}
