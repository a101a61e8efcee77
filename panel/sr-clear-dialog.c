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

#include "sr-a11y.h"
#include "sr-clear-dialog.h"
#include "sr-format.h"
#include "sr-toast.h"

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
  sr_a11y_tidy (GTK_WIDGET (self));
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
      if (!sr_app_item_get_usage_known (item))
        /* Translators: %s is an app's name; the saved sessions could not be listed */
        body = g_strdup_printf (_("%s will no longer be saved or restored, and its saved session, "
                                  "if it has one, will be cleared. This cannot be undone."), name);
      else
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

/* Shortening how long saved sessions are kept, which clears the @n_saved
 * saved sessions older than @days. */
SrClearDialog *
sr_clear_dialog_new_for_retention (GtkWidget *parent,
                                   guint      n_saved,
                                   int        days)
{
  /* Translators: how long saved sessions are kept, in a sentence ("older than 7 days") */
  g_autofree char *limit = g_strdup_printf (ngettext ("%d day", "%d days", days), days);
  g_autofree char *body = NULL;

  if (n_saved == SR_CLEAR_DIALOG_UNKNOWN)
    /* Translators: %s is "7 days" */
    body = g_strdup_printf (_("Saved sessions older than %s will be cleared. They could not "
                              "be counted. This cannot be undone."), limit);
  else
    /* Translators: %s is "7 days" */
    body = g_strdup_printf (ngettext ("%u saved session is older than %s and will be cleared. "
                                      "This cannot be undone.",
                                      "%u saved sessions are older than %s and will be cleared. "
                                      "This cannot be undone.", n_saved),
                            n_saved, limit);
  return clear_dialog_new (parent, _("Clear Older Saved Sessions?"), body, _("C_lear"));
}

/* -- Clearing everything, or turning everything off --------------------------- */

typedef struct {
  GtkWidget *from;      /* (owned) */
  SrClient *client;     /* (owned) */
  SrAppList *apps;      /* (owned) */
  gboolean turn_off;
  guint n_saved;        /* what the dialog said */
} ClearAll;

static void
clear_all_free (ClearAll *c)
{
  g_object_unref (c->from);
  g_object_unref (c->client);
  g_object_unref (c->apps);
  g_free (c);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ClearAll, clear_all_free)

static void
on_clear_all_done_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(ClearAll) c = user_data;
  SrPolicyClient *policy = SR_POLICY_CLIENT (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) report = NULL;
  g_autofree const char **apps = NULL;
  g_autofree char *text = NULL;
  gboolean done;

  if (c->turn_off)
    done = sr_policy_client_set_setting_finish (policy, result, &error);
  else
    done = (report = sr_policy_client_clear_finish (policy, result, &error)) != NULL;
  if (!done)
    {
      sr_toast_report_error (c->from, c->turn_off ? _("Could not turn off Save and Restore Apps")
                                                  : _("Could not clear saved sessions"),
                             error);
      /* The master switch goes back to what is in force. */
      sr_client_refresh (c->client);
      return;
    }
  if (c->turn_off)
    /* SetSetting reports nothing: what went is what the dialog counted. */
    text = c->n_saved > 0 ? sr_format_cleared (c->n_saved)
                          : g_strdup (_("Save and Restore Apps is off"));
  else
    {
      g_variant_lookup (report, "apps", "^a&s", &apps);
      text = sr_format_cleared (apps != NULL ? g_strv_length ((char **) apps) : 0);
    }
  sr_toast_show (c->from, text);
  sr_app_list_reload (c->apps);
}

static void
on_clear_all_response_cb (AdwMessageDialog *dialog,
                          const char       *response,
                          gpointer          user_data)
{
  ClearAll *c = g_object_steal_data (G_OBJECT (dialog), "clear-all");

  if (c == NULL)
    return;
  if (!g_str_equal (response, "clear"))
    {
      sr_client_refresh (c->client);
      clear_all_free (c);
    }
  else if (c->turn_off)
    sr_policy_client_set_setting_async (sr_client_peek_policy (c->client), "enabled",
                                        g_variant_new_boolean (FALSE),
                                        SR_CALL_FLAGS_ALLOW_INTERACTION, NULL,
                                        on_clear_all_done_cb, c);
  else
    sr_policy_client_clear_async (sr_client_peek_policy (c->client), NULL,
                                  SR_CALL_FLAGS_ALLOW_INTERACTION, NULL, on_clear_all_done_cb, c);
}

/* The dialog says exactly what will go: it is counted afresh, not taken
 * from the list, which may be minutes old. */
static void
on_counted_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(ClearAll) c = user_data;
  g_autoptr(GError) error = NULL;
  SrClearDialog *dialog;

  if (sr_app_list_reload_finish (c->apps, result, &error))
    c->n_saved = sr_app_list_get_n_saved (c->apps);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  dialog = sr_clear_dialog_new_for_all (c->from, c->n_saved, sr_app_list_get_bytes (c->apps),
                                        c->turn_off);
  g_signal_connect (dialog, "response", G_CALLBACK (on_clear_all_response_cb), NULL);
  g_object_set_data_full (G_OBJECT (dialog), "clear-all", g_steal_pointer (&c),
                          (GDestroyNotify) clear_all_free);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Asks before clearing every saved session, or before turning the master
 * switch off (which clears them too), then does it and says what went. */
void
sr_clear_dialog_ask_to_clear_all (GtkWidget *from,
                                  SrClient  *client,
                                  SrAppList *apps,
                                  gboolean   turn_off)
{
  ClearAll *c = g_new0 (ClearAll, 1);

  c->from = g_object_ref (from);
  c->client = g_object_ref (client);
  c->apps = g_object_ref (apps);
  c->turn_off = turn_off;
  sr_app_list_reload_async (apps, NULL, on_counted_cb, c);
}
