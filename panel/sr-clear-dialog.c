/* sr-clear-dialog.c: asking before saved sessions are cleared
 *
 * Clearing cannot be undone, so Cancel is the default and what Escape
 * gives; the confirming response is "clear", whatever its label says.
 * The caller words the heading and the body with what will go.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include "sr-clear-dialog.h"

struct _SrClearDialog {
  AdwMessageDialog parent_instance;
};

G_DEFINE_FINAL_TYPE (SrClearDialog, sr_clear_dialog, ADW_TYPE_MESSAGE_DIALOG)

static void
sr_clear_dialog_class_init (SrClearDialogClass *klass)
{
  gtk_widget_class_set_template_from_resource (GTK_WIDGET_CLASS (klass),
                                               "/org/gnome/SessionRestore/sr-clear-dialog.ui");
}

static void
sr_clear_dialog_init (SrClearDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

SrClearDialog *
sr_clear_dialog_new (GtkWidget  *parent,
                     const char *heading,
                     const char *body,
                     const char *confirm_label)
{
  SrClearDialog *self = g_object_new (SR_TYPE_CLEAR_DIALOG,
                                      "transient-for", gtk_widget_get_root (parent),
                                      "heading", heading,
                                      "body", body,
                                      NULL);

  adw_message_dialog_set_response_label (ADW_MESSAGE_DIALOG (self), "clear", confirm_label);
  return self;
}
