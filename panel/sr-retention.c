/* sr-retention.c: changing how long saved sessions are kept
 *
 * Shortening "Keep Saved Sessions For" past saved sessions clears them
 * (policyd purges what is older as soon as the setting changes): that
 * asks first, naming how many go, and says what went. What goes is the
 * apps' whose newest save is older than the new limit, counted as policyd
 * judges and purges it (sr_app_item_get_aged_from ()): an app in a
 * session file that another app rewrote since is judged by its own save,
 * an app that tells no time of its own by the file's, and an app that
 * saved since keeps a saved session. Lengthening, or a limit that reaches
 * nothing, asks nothing. While it counts and asks, the old value stays in
 * force, and Cancel leaves it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-clear-dialog.h"
#include "sr-format.h"
#include "sr-retention.h"
#include "sr-toast.h"

#define USEC_PER_DAY (G_USEC_PER_SEC * (gint64) 86400)

typedef struct {
  GtkWidget *from;      /* (owned) */
  SrClient *client;     /* (owned) */
  SrAppList *apps;      /* (owned) */
  int days;
  guint n_older;        /* saved sessions all older than the new limit;
                         * SR_CLEAR_DIALOG_UNKNOWN: they could not be counted */
} Retention;

static void
retention_free (Retention *r)
{
  g_object_unref (r->from);
  g_object_unref (r->client);
  g_object_unref (r->apps);
  g_free (r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Retention, retention_free)

static void
on_set_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(Retention) r = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (!sr_policy_client_set_setting_finish (SR_POLICY_CLIENT (source), result, &error))
    {
      sr_toast_report_error (r->from, _("Could not change Keep Saved Sessions For"), error);
      /* The combo goes back to what is in force. */
      sr_client_refresh (r->client);
      return;
    }
  if (r->n_older == 0)
    return;
  if (r->n_older == SR_CLEAR_DIALOG_UNKNOWN)
    {
      sr_app_list_reload (r->apps);
      return;
    }
  /* SetSetting reports nothing: what went is what the dialog counted. */
  text = sr_format_cleared (r->n_older);
  sr_toast_show (r->from, text);
  sr_app_list_reload (r->apps);
}

static void
set_days (Retention *r)
{
  sr_policy_client_set_setting_async (sr_client_peek_policy (r->client), "max-age-days",
                                      g_variant_new_int32 (r->days),
                                      SR_CALL_FLAGS_ALLOW_INTERACTION, NULL, on_set_cb, r);
}

static void
on_response_cb (AdwMessageDialog *dialog,
                const char       *response,
                gpointer          user_data)
{
  Retention *r = g_object_steal_data (G_OBJECT (dialog), "retention");

  if (r == NULL)
    return;
  if (g_str_equal (response, "clear"))
    set_days (r);
  else
    {
      sr_client_refresh (r->client);
      retention_free (r);
    }
}

/* The saved sessions are counted afresh, as the clear dialogs count them:
 * the list may be minutes old. */
static void
on_counted_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(Retention) r = user_data;
  g_autoptr(GError) error = NULL;
  gint64 limit = g_get_real_time () - r->days * USEC_PER_DAY;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (r->apps));
  SrClearDialog *dialog;

  if (!sr_app_list_reload_finish (r->apps, result, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  /* Not counted (the listing refused, or polkit not answering): what
   * would go is not known, so the user is asked all the same. */
  if (error != NULL)
    r->n_older = SR_CLEAR_DIALOG_UNKNOWN;
  for (guint i = 0; error == NULL && i < n; i++)
    {
      g_autoptr(SrAppItem) item = g_list_model_get_item (G_LIST_MODEL (r->apps), i);

      if (sr_app_item_get_has_state (item) && sr_app_item_get_aged_from (item) < limit)
        r->n_older++;
    }
  if (r->n_older == 0)
    {
      set_days (g_steal_pointer (&r));
      return;
    }
  dialog = sr_clear_dialog_new_for_retention (r->from, r->n_older, r->days);
  g_signal_connect (dialog, "response", G_CALLBACK (on_response_cb), NULL);
  g_object_set_data_full (G_OBJECT (dialog), "retention", g_steal_pointer (&r),
                          (GDestroyNotify) retention_free);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Sets "max-age-days" to @days (-1: forever), asking first when that
 * clears saved sessions. Returns whether it may ask: the saved sessions
 * are counted first, and the value in force stays until the user
 * confirms (or nothing is older). */
gboolean
sr_retention_set (GtkWidget *from,
                  SrClient  *client,
                  SrAppList *apps,
                  int        days)
{
  SrPolicyClient *policy = sr_client_get_policy (client);
  int old = policy != NULL ? sr_policy_client_get_max_age_days (policy) : -1;
  Retention *r = g_new0 (Retention, 1);

  r->from = g_object_ref (from);
  r->client = g_object_ref (client);
  r->apps = g_object_ref (apps);
  r->days = days;
  if (days < 0 || (old >= 0 && days >= old))
    {
      set_days (r);
      return FALSE;
    }
  sr_app_list_reload_async (apps, NULL, on_counted_cb, r);
  return TRUE;
}
