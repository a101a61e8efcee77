/* sr-clear-dialog.c: asking before saved sessions are cleared
 *
 * Clearing cannot be undone, so Cancel is the default and what Escape
 * gives; the confirming response is "clear", whatever its label says.
 * The body names what will go, counted as the toast afterwards counts.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-clear-dialog.h"
#include "sr-format.h"

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

static SrClearDialog *
clear_dialog_new (GtkWidget  *parent,
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

/* Clearing everything, or turning everything off, which clears too. */
SrClearDialog *
sr_clear_dialog_new_for_all (GtkWidget *parent,
                             guint      n,
                             guint64    bytes,
                             gboolean   turn_off)
{
  g_autofree char *size = g_format_size (bytes);
  g_autofree char *totals = NULL;
  g_autofree char *body = NULL;

  /* Translators: the start of a sentence; %s is a size */
  totals = n > 0 ? g_strdup_printf (ngettext ("%u saved session (%s)", "%u saved sessions (%s)", n),
                                    n, size)
                 : NULL;
  if (turn_off)
    body = totals != NULL
      ? g_strdup_printf (_("Apps will no longer be saved or restored. %s and the window "
                           "positions kept by the desktop will be cleared. This cannot be undone."),
                         totals)
      : g_strdup (_("Apps will no longer be saved or restored, and window positions kept by "
                    "the desktop will be cleared. This cannot be undone."));
  else
    body = totals != NULL
      ? g_strdup_printf (_("%s and the window positions kept by the desktop will be cleared. "
                           "Apps will start afresh next time. This cannot be undone."), totals)
      : g_strdup (_("Window positions kept by the desktop will be cleared. Apps will start "
                    "afresh next time. This cannot be undone."));

  return clear_dialog_new (parent,
                           turn_off ? _("Turn Off Save and Restore?") : _("Clear Saved Sessions?"),
                           body, turn_off ? _("_Turn Off") : _("C_lear"));
}

/* Clearing one app's saved session, or turning the app off, which
 * clears it too. */
SrClearDialog *
sr_clear_dialog_new_for_app (GtkWidget *parent,
                             SrAppItem *item,
                             gboolean   turn_off)
{
  const char *name = sr_app_item_get_name (item);
  g_autofree char *size = sr_format_session_size (sr_app_item_get_windows (item),
                                                  sr_app_item_get_bytes (item));
  g_autofree char *heading = NULL;
  g_autofree char *body = NULL;

  if (turn_off)
    {
      /* Translators: %s is an app's name */
      heading = g_strdup_printf (_("Turn Off %s?"), name);
      /* Translators: an app's name, then what its saved session holds ("1 window, 260 kB") */
      body = g_strdup_printf (_("%s will no longer be saved or restored, and its saved session "
                                "(%s) will be cleared. This cannot be undone."), name, size);
    }
  else
    {
      heading = g_strdup_printf (_("Clear the Saved Session of %s?"), name);
      /* Translators: what the saved session holds ("1 window, 260 kB"), then an app's name */
      body = g_strdup_printf (_("Its saved session (%s) will be cleared, and %s will start "
                                "afresh next time. This cannot be undone."), size, name);
    }
  return clear_dialog_new (parent, heading, body, turn_off ? _("_Turn Off") : _("C_lear"));
}
