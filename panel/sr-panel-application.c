/* sr-panel-application.c: session-restore-panel
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-a11y.h"
#include "sr-panel-application.h"
#include "sr-panel-window.h"
#include "sr-prompt-service.h"

struct _SrPanelApplication {
  AdwApplication parent_instance;

  char *page;          /* (owned) (nullable): the view to open on, from --page */
  SrClient *client;    /* (owned) (nullable): once there is a window to show */
  SrAppList *apps;     /* (owned) (nullable): as client */
};

G_DEFINE_FINAL_TYPE (SrPanelApplication, sr_panel_application, ADW_TYPE_APPLICATION)

/* policyd and the installed apps are asked first, so that the answers
 * come in while GTK starts and the window is built. */
static void
ensure_client (SrPanelApplication *self)
{
  if (self->client != NULL)
    return;
  self->client = sr_client_new ();
  self->apps = sr_app_list_new (self->client);
}

static void
sr_panel_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  SrPanelApplication *self = SR_PANEL_APPLICATION (app);

  if (window == NULL)
    {
      ensure_client (self);
      window = GTK_WINDOW (sr_panel_window_new (ADW_APPLICATION (app), self->client, self->apps));
    }
  if (self->page != NULL)
    sr_panel_window_show_view (SR_PANEL_WINDOW (window), self->page);
  sr_panel_window_present_when_ready (SR_PANEL_WINDOW (window));
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  GtkApplication *app = user_data;
  const char *developers[] = { "The Session Restore developers", NULL };
  GtkWidget *about = adw_about_window_new ();

  g_object_set (about,
                "transient-for", gtk_application_get_active_window (app),
                "application-name", _("Session Restore"),
                "application-icon", APP_ID,
                "version", PACKAGE_VERSION,
                "developer-name", _("The Session Restore developers"),
                "developers", developers,
                "license-type", GTK_LICENSE_GPL_2_0,
                "comments", _("Control which apps come back after you log out, restart or a crash"),
                "translator-credits", _("translator-credits"),
                NULL);
  sr_a11y_tidy (about);
  gtk_window_present (GTK_WINDOW (about));
}

/* Help is a Mallard document, opened with help:. Without a help viewer,
 * the manual page (man:, which some desktops open in a terminal or a
 * browser) is the next best thing; without even that, the user is told
 * where the help lives rather than left with a button that does nothing.
 * Not the README: it is written for developers. */
#define SR_MAN_URI "man:session-restore-panel(1)"

static void
on_man_page_shown_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  GtkWindow *window = GTK_WINDOW (source);
  g_autoptr(GError) error = NULL;
  GtkWidget *dialog;

  if (gtk_show_uri_full_finish (window, result, &error))
    return;
  g_message ("Could not open %s: %s", SR_MAN_URI, error->message);
  dialog = adw_message_dialog_new (window, _("Help Could Not Be Opened"), NULL);
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (dialog),
                               _("No help viewer is installed. Install Yelp to read the "
                                 "help, or read the manual page: run “man "
                                 "session-restore-panel” in a terminal."));
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  sr_a11y_tidy (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_help_shown_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GtkWindow *window = GTK_WINDOW (source);
  g_autoptr(GError) error = NULL;

  if (gtk_show_uri_full_finish (window, result, &error))
    return;
  g_message ("Could not open help:%s: %s", GETTEXT_PACKAGE, error->message);
  gtk_show_uri_full (window, SR_MAN_URI, GDK_CURRENT_TIME, NULL, on_man_page_shown_cb, NULL);
}

static void
help_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  GtkApplication *app = user_data;
  GtkWindow *window = gtk_application_get_active_window (app);

  gtk_show_uri_full (window, "help:" GETTEXT_PACKAGE, GDK_CURRENT_TIME, NULL,
                     on_help_shown_cb, NULL);
}

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  GtkApplication *app = user_data;
  g_autolist(GtkWindow) windows = g_list_copy (gtk_application_get_windows (app));

  /* Closed, not destroyed: a window remembers its size as it closes. */
  for (GList *l = windows; l != NULL; l = l->next)
    g_object_ref (l->data);
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (l->data);
}

static const GActionEntry app_actions[] = {
  { "about", about_action },
  { "help", help_action },
  { "quit", quit_action },
};

static void
sr_panel_application_startup (GApplication *app)
{
  const char *quit_accels[] = { "<Control>q", NULL };
  const char *help_accels[] = { "F1", NULL };
  g_autoptr(GtkCssProvider) provider = NULL;

  /* Run as the login prompt's service, there may never be a window. */
  if (!(g_application_get_flags (app) & G_APPLICATION_IS_SERVICE))
    ensure_client (SR_PANEL_APPLICATION (app));
  G_APPLICATION_CLASS (sr_panel_application_parent_class)->startup (app);

  /* The style sheet, loaded here rather than through a resource base
   * path (sr_panel_application_new()). */
  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (provider, "/org/gnome/SessionRestore/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.help", help_accels);
}

static int
sr_panel_application_handle_local_options (GApplication *app,
                                           GVariantDict *options)
{
  SrPanelApplication *self = SR_PANEL_APPLICATION (app);
  const char *page = NULL;

  if (g_variant_dict_lookup (options, "page", "&s", &page))
    {
      if (!g_str_equal (page, "settings") && !g_str_equal (page, "apps"))
        {
          g_printerr (_("--page takes “settings” or “apps”\n"));
          return 2;
        }
      g_free (self->page);
      self->page = g_strdup (page);
    }
  return -1;
}

/* The login prompt (sr-prompt-service.c) is exported before the name is
 * taken: policyd's call may be what activated us. */
static gboolean
sr_panel_application_dbus_register (GApplication     *app,
                                    GDBusConnection  *connection,
                                    const char       *object_path,
                                    GError          **error)
{
  GApplicationClass *parent = G_APPLICATION_CLASS (sr_panel_application_parent_class);

  if (parent->dbus_register != NULL && !parent->dbus_register (app, connection, object_path, error))
    return FALSE;
  return sr_prompt_service_register (GTK_APPLICATION (app), connection, error);
}

static void
sr_panel_application_dbus_unregister (GApplication    *app,
                                      GDBusConnection *connection,
                                      const char      *object_path)
{
  GApplicationClass *parent = G_APPLICATION_CLASS (sr_panel_application_parent_class);

  sr_prompt_service_unregister (GTK_APPLICATION (app));
  if (parent->dbus_unregister != NULL)
    parent->dbus_unregister (app, connection, object_path);
}

static void
sr_panel_application_dispose (GObject *object)
{
  SrPanelApplication *self = SR_PANEL_APPLICATION (object);

  g_clear_object (&self->apps);
  g_clear_object (&self->client);
  G_OBJECT_CLASS (sr_panel_application_parent_class)->dispose (object);
}

static void
sr_panel_application_finalize (GObject *object)
{
  g_free (SR_PANEL_APPLICATION (object)->page);
  G_OBJECT_CLASS (sr_panel_application_parent_class)->finalize (object);
}

static void
sr_panel_application_class_init (SrPanelApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = sr_panel_application_dispose;
  G_OBJECT_CLASS (klass)->finalize = sr_panel_application_finalize;
  app_class->handle_local_options = sr_panel_application_handle_local_options;
  app_class->activate = sr_panel_application_activate;
  app_class->startup = sr_panel_application_startup;
  app_class->dbus_register = sr_panel_application_dbus_register;
  app_class->dbus_unregister = sr_panel_application_dbus_unregister;
}

static void
sr_panel_application_init (SrPanelApplication *self)
{
  const GOptionEntry entries[] = {
    { "page", 0, 0, G_OPTION_ARG_STRING, NULL,
      N_("Open on a page: “settings” or “apps”"), N_("PAGE") },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
}

SrPanelApplication *
sr_panel_application_new (void)
{
  return g_object_new (SR_TYPE_PANEL_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_DEFAULT_FLAGS,
                       /* None: GtkApplication would add its icons folder to
                        * the icon theme, which throws away the theme GTK has
                        * loaded on a worker thread meanwhile, if it has, so
                        * that the first icon shown loads it again on the main
                        * thread (some 65 M instructions before the first
                        * frame). There are no icons, menus or help overlay in
                        * the resources; the style sheet is loaded at startup. */
                       "resource-base-path", NULL,
                       NULL);
}
