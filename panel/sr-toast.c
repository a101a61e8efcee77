/* sr-toast.c: telling the user how something went, from anywhere inside
 * the window
 *
 * The pages and dialogs report through the toast overlay they sit in,
 * found from the widget that acted, so that they need not know the window
 * (which includes them): arrows point down only. The window provides the
 * "win.show-details" action a toast's Details button calls.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sr-client.h"
#include "sr-error.h"
#include "sr-toast.h"

/* NULL for a widget no longer in a window: a reply that comes after the
 * window went has no one to tell. */
static AdwToastOverlay *
overlay_of (GtkWidget *widget)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY);

  return overlay != NULL ? ADW_TOAST_OVERLAY (overlay) : NULL;
}

void
sr_toast_show (GtkWidget  *widget,
               const char *text)
{
  AdwToastOverlay *overlay = overlay_of (widget);
  AdwToast *toast;

  if (overlay == NULL)
    return;
  toast = adw_toast_new (text);
  adw_toast_set_timeout (toast, 5);
  adw_toast_overlay_add_toast (overlay, toast);
}

/* A short toast that names what failed (@failed: "Could not turn off
 * Files") and why, in the panel's words; what the service said goes
 * behind "Details", for the faults a person may need to report. */
void
sr_toast_report_error (GtkWidget    *widget,
                       const char   *failed,
                       const GError *error)
{
  AdwToastOverlay *overlay = overlay_of (widget);
  g_autofree char *why = sr_client_describe_error (error);
  g_autofree char *text = NULL;
  AdwToast *toast;

  if (why == NULL || overlay == NULL)
    return;
  /* Translators: what failed ("Could not turn off Files"), then why ("not allowed") */
  text = g_strdup_printf (_("%s: %s"), failed, why);
  g_message ("%s (%s)", text, error->message);
  toast = adw_toast_new (text);
  adw_toast_set_timeout (toast, 5);
  if (!g_error_matches (error, SR_ERROR, SR_ERROR_NOT_ALLOWED) &&
      !g_error_matches (error, SR_ERROR, SR_ERROR_LOCKED))
    {
      adw_toast_set_button_label (toast, _("_Details"));
      adw_toast_set_action_name (toast, "win.show-details");
      adw_toast_set_action_target_value (toast, g_variant_new_string (error->message));
    }
  adw_toast_overlay_add_toast (overlay, toast);
}
