/* sr-panel-window.c: the settings window
 *
 * A thin frame: the header, the loading, unavailable and untrusted states, the lock
 * notice, the toasts, and a leaflet that goes from the settings to the
 * Apps subpage. The pages do the work; the client talks to policyd;
 * sr-first-show.c decides when the window first shows. Each page is built
 * when first shown, and the one the window did not open on once the first
 * frame is drawn: it would cost that frame its widgets (the Apps page
 * its rows). So are the main menu's popovers and the status pages of a
 * missing or untrusted service; the lock notice is hidden while there is
 * nothing to notice.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-a11y.h"
#include "sr-app-list.h"
#include "sr-apps-page.h"
#include "sr-client.h"
#include "sr-first-show.h"
#include "sr-panel-window.h"
#include "sr-settings-page.h"
#include "sr-stack.h"
#include "sr-window-size.h"

struct _SrPanelWindow {
  AdwApplicationWindow parent_instance;

  SrClient *client;               /* (owned) */
  SrAppList *apps;                /* (owned) */
  GCancellable *cancellable;      /* (owned) */
  SrFirstShow *first_show;        /* (owned) (nullable): until disposed */
  gboolean was_active;            /* the user has come back if it is again */

  AdwToastOverlay *toast_overlay;
  GtkStack *main_stack;
  GtkStack *status_stack;
  AdwStatusPage *missing_page;   /* (nullable): until the status pages are added */
  AdwLeaflet *leaflet;
  GtkWidget *settings_box;
  GtkRevealer *lock_banner;
  GMenuModel *primary_menu;
  GtkMenuButton *status_menu_button;
  GtkMenuButton *menu_button;
  SrSettingsPage *settings_page;  /* (unowned) (nullable): settings_box's, once built */
  SrAppsPage *apps_page;          /* (unowned) (nullable): the leaflet's, once built */
};

G_DEFINE_FINAL_TYPE (SrPanelWindow, sr_panel_window, ADW_TYPE_APPLICATION_WINDOW)

/* -- Toasts (sr-toast.c adds them) ---------------------------------------------- */

static void
show_details_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (widget), _("What Went Wrong"),
                                              g_variant_get_string (parameter, NULL));

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  sr_a11y_tidy (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The main menu's popover is made as it first opens: the first frame does
 * not show it, and each of the two menu buttons would make its own. */
static void
create_menu_cb (GtkMenuButton *button,
                gpointer       user_data)
{
  SrPanelWindow *self = user_data;

  if (gtk_menu_button_get_popover (button) != NULL)
    return;
  gtk_menu_button_set_menu_model (button, self->primary_menu);
  sr_a11y_tidy (GTK_WIDGET (gtk_menu_button_get_popover (button)));
}

/* -- Pages ----------------------------------------------------------------------- */

static SrSettingsPage *
ensure_settings_page (SrPanelWindow *self)
{
  if (self->settings_page != NULL)
    return self->settings_page;
  self->settings_page = g_object_new (SR_TYPE_SETTINGS_PAGE, "vexpand", TRUE, NULL);
  gtk_box_append (GTK_BOX (self->settings_box), GTK_WIDGET (self->settings_page));
  sr_a11y_tidy (GTK_WIDGET (self->settings_page));
  sr_settings_page_set_context (self->settings_page, self->client, self->apps);
  return self->settings_page;
}

static SrAppsPage *
ensure_apps_page (SrPanelWindow *self)
{
  if (self->apps_page != NULL)
    return self->apps_page;
  self->apps_page = g_object_new (SR_TYPE_APPS_PAGE, "visible", FALSE, NULL);
  adw_leaflet_append (self->leaflet, GTK_WIDGET (self->apps_page));
  sr_a11y_tidy (GTK_WIDGET (self->apps_page));
  sr_apps_page_set_context (self->apps_page, self->client, self->apps);
  return self->apps_page;
}

/* The page not shown is built once the first frame is drawn, so that it
 * is there when asked for. */
static void
after_first_frame (GtkWindow *window)
{
  ensure_settings_page (SR_PANEL_WINDOW (window));
  ensure_apps_page (SR_PANEL_WINDOW (window));
}

/* Only the page shown is in the accessibility tree: the leaflet keeps the
 * other one "visible" otherwise. It goes once the slide has ended. */
static void
on_leaflet_transition_cb (SrPanelWindow *self)
{
  GtkWidget *shown = adw_leaflet_get_visible_child (self->leaflet);

  if (adw_leaflet_get_child_transition_running (self->leaflet))
    return;
  gtk_widget_set_visible (self->settings_box, shown == self->settings_box);
  if (self->apps_page != NULL)
    gtk_widget_set_visible (GTK_WIDGET (self->apps_page), shown == GTK_WIDGET (self->apps_page));
}

void
sr_panel_window_show_view (SrPanelWindow *self,
                           const char    *name)
{
  GtkWidget *child = self->settings_box;

  if (g_str_equal (name, "apps"))
    child = GTK_WIDGET (ensure_apps_page (self));
  else
    ensure_settings_page (self);

  gtk_widget_set_visible (child, TRUE);
  adw_leaflet_set_visible_child (self->leaflet, child);
  if (child == GTK_WIDGET (self->apps_page))
    sr_apps_page_shown (self->apps_page);
  on_leaflet_transition_cb (self);
}

static void
show_apps_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (widget);

  /* Apps keep saving while the panel is open: show fresh sizes. */
  sr_app_list_reload (self->apps);
  sr_panel_window_show_view (self, "apps");
}

static void
show_settings_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (widget);

  sr_app_list_reload (self->apps);
  sr_panel_window_show_view (self, "settings");
}

/* Apps keep saving while the panel is open: the totals are counted
 * afresh whenever the user comes back to the window (not as it first
 * opens: the first listing has just come in, or is on its way). */
static void
on_is_active_changed_cb (SrPanelWindow *self)
{
  if (!gtk_window_is_active (GTK_WINDOW (self)))
    return;
  if (self->was_active && sr_app_list_get_ready (self->apps))
    sr_app_list_reload (self->apps);
  self->was_active = TRUE;
}

static void
search_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  show_apps_action (widget, action_name, parameter);
}

static void
turn_on_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  sr_settings_page_turn_on (ensure_settings_page (SR_PANEL_WINDOW (widget)));
}

/* Shows the window as soon as it can say what is true (sr-first-show.c). */
void
sr_panel_window_present_when_ready (SrPanelWindow *self)
{
  /* Opened on no page in particular, it opens on the settings. */
  if (adw_leaflet_get_visible_child (self->leaflet) == self->settings_box)
    ensure_settings_page (self);
  sr_first_show_when_ready (self->first_show);
}

/* -- policyd coming and going ------------------------------------------------ */

/* The lock notice is hidden, not only slid away, while there is nothing
 * to notice: a revealer that shows nothing still has its wrapping text
 * measured at every layout (20–35 M instructions before the first
 * frame), and a screen reader is not told of a notice that is not there. */
static void
reveal_lock_banner (SrPanelWindow *self,
                    gboolean       reveal)
{
  if (reveal)
    gtk_widget_set_visible (GTK_WIDGET (self->lock_banner), TRUE);
  gtk_revealer_set_reveal_child (self->lock_banner, reveal);
}

static void
on_lock_banner_revealed_cb (SrPanelWindow *self)
{
  if (self->lock_banner != NULL && !gtk_revealer_get_reveal_child (self->lock_banner) &&
      !gtk_revealer_get_child_revealed (self->lock_banner))
    gtk_widget_set_visible (GTK_WIDGET (self->lock_banner), FALSE);
}

/* The pages that say policyd cannot be reached or is not trusted are added
 * to the status stack when one is first shown: the first frame normally
 * shows neither. */
static void
ensure_status_pages (SrPanelWindow *self)
{
  g_autoptr(GtkBuilder) builder = NULL;
  GtkWidget *untrusted;

  if (self->missing_page != NULL)
    return;
  builder = gtk_builder_new_from_resource ("/org/gnome/SessionRestore/sr-status-pages.ui");
  self->missing_page = ADW_STATUS_PAGE (gtk_builder_get_object (builder, "missing_page"));
  untrusted = GTK_WIDGET (gtk_builder_get_object (builder, "untrusted_page"));
  gtk_stack_add_named (self->status_stack, GTK_WIDGET (self->missing_page), "missing");
  gtk_stack_add_named (self->status_stack, untrusted, "untrusted");
  sr_a11y_tidy (GTK_WIDGET (self->missing_page));
  sr_a11y_tidy (untrusted);
}

static void
on_client_changed_cb (SrPanelWindow *self)
{
  SrPolicyClient *policy = sr_client_get_policy (self->client);
  const char * const *locked;
  const char * const *admin;

  if (policy == NULL)
    {
      gboolean distrust = sr_client_get_distrust (self->client) != NULL;

      /* Until the bus has answered, the window is still loading. */
      if (!sr_client_get_missing (self->client) && !distrust)
        return;
      ensure_status_pages (self);
      sr_first_show_now (self->first_show);
      sr_stack_show_only (self->status_stack, distrust ? "untrusted" : "missing");
      sr_stack_show_only (self->main_stack, "status");
      reveal_lock_banner (self, FALSE);
      return;
    }
  sr_stack_show_only (self->main_stack, "content");
  locked = sr_policy_client_get_locked_settings (policy);
  admin = sr_policy_client_get_admin_excluded_apps (policy);
  reveal_lock_banner (self, locked[0] != NULL || admin[0] != NULL);
}

static void
on_service_started_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(SrPanelWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (sr_client_start_service_finish (SR_CLIENT (source), result, &error) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_message ("Could not start the service: %s", error->message);
  ensure_status_pages (self);
  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN))
    adw_status_page_set_description (self->missing_page,
                                     _("Could not start the service: it is not installed on "
                                       "this computer."));
  else
    adw_status_page_set_description (self->missing_page,
                                     _("Could not start the service: it stopped as it started. "
                                       "Try again later, or restart the computer."));
}

static void
retry_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (widget);

  sr_client_start_service (self->client, self->cancellable, on_service_started_cb,
                           g_object_ref (self));
}

/* -- The window ----------------------------------------------------------------- */

static void
sr_panel_window_dispose (GObject *object)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_pointer (&self->first_show, sr_first_show_free);
  self->settings_page = NULL;
  self->apps_page = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (self), SR_TYPE_PANEL_WINDOW);
  g_clear_object (&self->apps);
  g_clear_object (&self->client);
  G_OBJECT_CLASS (sr_panel_window_parent_class)->dispose (object);
}

static void
sr_panel_window_finalize (GObject *object)
{
  g_clear_object (&SR_PANEL_WINDOW (object)->cancellable);
  G_OBJECT_CLASS (sr_panel_window_parent_class)->finalize (object);
}

static gboolean
sr_panel_window_close_request (GtkWindow *window)
{
  sr_window_size_save (window);
  return GTK_WINDOW_CLASS (sr_panel_window_parent_class)->close_request (window);
}

static void
sr_panel_window_class_init (SrPanelWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sr_panel_window_dispose;
  object_class->finalize = sr_panel_window_finalize;
  GTK_WINDOW_CLASS (klass)->close_request = sr_panel_window_close_request;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/gnome/SessionRestore/sr-panel-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, status_stack);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, settings_box);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, lock_banner);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, primary_menu);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, status_menu_button);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, menu_button);
  gtk_widget_class_bind_template_callback (widget_class, on_leaflet_transition_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_lock_banner_revealed_cb);

  gtk_widget_class_install_action (widget_class, "win.show-apps", NULL, show_apps_action);
  gtk_widget_class_install_action (widget_class, "win.show-settings", NULL, show_settings_action);
  gtk_widget_class_install_action (widget_class, "win.turn-on", NULL, turn_on_action);
  gtk_widget_class_install_action (widget_class, "win.retry", NULL, retry_action);
  gtk_widget_class_install_action (widget_class, "win.show-details", "s", show_details_action);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK,
                                       "win.show-settings", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
sr_panel_window_init (SrPanelWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_menu_button_set_create_popup_func (self->status_menu_button, create_menu_cb, self, NULL);
  gtk_menu_button_set_create_popup_func (self->menu_button, create_menu_cb, self, NULL);
  sr_a11y_tidy (GTK_WIDGET (self));
  sr_a11y_follow_toasts (self->toast_overlay);
  sr_window_size_restore (GTK_WINDOW (self));
  sr_stack_show_only (self->status_stack, "loading");
  sr_stack_show_only (self->main_stack, "status");
  self->cancellable = g_cancellable_new ();
  g_signal_connect (self, "notify::is-active", G_CALLBACK (on_is_active_changed_cb), NULL);
}

/* @client and @apps are the application's: they were asked for what they
 * know while the window was being built, and may know it already. */
SrPanelWindow *
sr_panel_window_new (AdwApplication *application,
                     SrClient       *client,
                     SrAppList      *apps)
{
  SrPanelWindow *self = g_object_new (SR_TYPE_PANEL_WINDOW, "application", application, NULL);

  self->client = g_object_ref (client);
  self->apps = g_object_ref (apps);
  g_signal_connect_object (client, "changed", G_CALLBACK (on_client_changed_cb),
                           self, G_CONNECT_SWAPPED);
  self->first_show = sr_first_show_new (GTK_WINDOW (self), client, apps, after_first_frame);
  on_client_changed_cb (self);
  return self;
}
