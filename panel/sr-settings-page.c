/* sr-settings-page.c: the settings, on one page
 *
 * Everything shown comes from policyd's properties and is re-read whenever
 * they change, whoever changed them. A change the user makes is sent to
 * policyd and shows once policyd has made it: on a refusal the controls go
 * back to what is in force, and a toast says why. A change that asks first
 * (turning the master switch off, shortening how long saved sessions are
 * kept) leaves its control showing what is in force while it asks: only
 * policyd's answer moves it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <gio/gdesktopappinfo.h>
#include <glib/gi18n.h>

#include "sr-bus.h"
#include "sr-clear-dialog.h"
#include "sr-format.h"
#include "sr-lock-icon.h"
#include "sr-retention.h"
#include "sr-settings-page.h"
#include "sr-toast.h"

static const int keep_days[] = { 1, 7, 30, 90, -1 };
static const char * const login_nicks[] = { "always", "ask", "never" };

struct _SrSettingsPage {
  AdwPreferencesPage parent_instance;

  SrClient *client;               /* (owned) (nullable) */
  SrAppList *apps;                /* (owned) (nullable) */
  gboolean updating;              /* controls are being set from policyd */
  int keep_extra;                 /* a max-age-days value outside keep_days, or 0 */
  gboolean on_gnome;              /* gnome-session, not our backend, answers apps */
  guint resync_id;                /* puts the controls back to what is in force */

  AdwPreferencesGroup *enabled_group;
  GtkSwitch *enabled_switch;
  GtkWidget *enabled_lock;
  AdwPreferencesGroup *when_group;
  AdwComboRow *login_row;
  GtkWidget *login_lock;
  GtkSwitch *crash_switch;
  GtkWidget *crash_lock;
  GtkSwitch *launch_switch;
  GtkWidget *launch_lock;
  AdwPreferencesGroup *saved_group;
  AdwComboRow *keep_row;
  GtkWidget *keep_lock;
  GtkStringList *keep_model;
  GtkWidget *clear_button;
  GtkWidget *clear_lock;
  AdwActionRow *apps_row;
};

G_DEFINE_FINAL_TYPE (SrSettingsPage, sr_settings_page, ADW_TYPE_PREFERENCES_PAGE)

static void
sync_keep_row (SrSettingsPage *self,
               int             days)
{
  guint n = G_N_ELEMENTS (keep_days), selected = n;

  for (guint i = 0; i < n; i++)
    if (keep_days[i] == days)
      selected = i;

  /* A value set by other means (gsettings, the administrator) is shown as
   * what it is, as an extra choice. */
  if (selected == n && self->keep_extra != days)
    {
      g_autofree char *label = g_strdup_printf (ngettext ("%d Day", "%d Days", days), days);
      const char *labels[] = { label, NULL };

      gtk_string_list_splice (self->keep_model, n,
                              g_list_model_get_n_items (G_LIST_MODEL (self->keep_model)) - n,
                              labels);
      self->keep_extra = days;
    }
  adw_combo_row_set_selected (self->keep_row, selected);
}

static void
set_switch (GtkSwitch *sw,
            gboolean   on)
{
  gtk_switch_set_active (sw, on);
  gtk_switch_set_state (sw, on);
}

static void
sync_totals (SrSettingsPage *self)
{
  g_autofree char *totals = NULL;
  gboolean enabled = sr_client_get_connected (self->client) &&
                     sr_policy_client_get_enabled (sr_client_get_policy (self->client));

  gboolean unknown = sr_app_list_get_error (self->apps) != NULL ||
                     sr_app_list_get_incomplete (self->apps);

  if (sr_app_list_get_error (self->apps) != NULL)
    totals = g_strdup (_("Could not read saved sessions"));
  else
    totals = sr_format_totals (sr_app_list_get_n_saved (self->apps),
                               sr_app_list_get_n_expired (self->apps),
                               sr_app_list_get_n_cleared (self->apps),
                               sr_app_list_get_bytes (self->apps),
                               sr_app_list_get_incomplete (self->apps));
  adw_preferences_group_set_description (self->saved_group, totals);
  /* Nothing to clear: nothing to press. A listing that failed, or could
   * not read everything, does not know. */
  sr_lock_icon_apply (self->clear_lock, self->clear_button,
                      sr_client_is_refused (self->client, SR_ACTION_CLEAR),
                      enabled && (sr_app_list_get_n_saved (self->apps) > 0 || unknown));
}

/* "Ask every time" is a promise: say what will happen. */
static void
update_login_subtitle (SrSettingsPage *self)
{
  guint selected = adw_combo_row_get_selected (self->login_row);

  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->login_row),
                               selected == 1 ?
                               _("A window at login lets you choose which apps come back") :
                               _("The apps you had open when you logged out"));
}

/* An SrAppNameFunc: the installed app's name. */
static char *
app_display_name (const char *app_id,
                  gpointer    user_data)
{
  g_autofree char *desktop_id = g_strconcat (app_id, ".desktop", NULL);
  g_autoptr(GDesktopAppInfo) info = g_desktop_app_info_new (desktop_id);

  return info != NULL ? g_strdup (g_app_info_get_display_name (G_APP_INFO (info))) : NULL;
}

/* An SrAppNameFunc: a program's desktop file's name, once the installed
 * apps are read (the list's "listed" comes after). */
static char *
program_display_name (const char *executable,
                      gpointer    user_data)
{
  SrSettingsPage *self = user_data;

  return self->apps != NULL ? sr_app_list_dup_program_name (self->apps, executable) : NULL;
}

/* On GNOME, gnome-session answers apps and asks nobody during the session;
 * the settings reach its list only when session-restore-ctl's "session
 * prepare" runs before the next login. XDG_CURRENT_DESKTOP is a
 * colon-separated list ("ubuntu:GNOME", "GNOME-Classic:GNOME"). */
static gboolean
desktop_is_gnome (void)
{
  g_auto(GStrv) desktops = g_strsplit (g_getenv ("XDG_CURRENT_DESKTOP") ?: "", ":", -1);

  for (guint i = 0; desktops[i] != NULL; i++)
    if (g_ascii_strcasecmp (desktops[i], "GNOME") == 0)
      return TRUE;
  return FALSE;
}

/* The main switch's group says what honours the settings, and on GNOME
 * when: one label, so that a screen reader reads it once. */
static void
sync_consumers (SrSettingsPage *self)
{
  SrPolicyClient *policy = sr_client_get_policy (self->client);
  g_autofree char *consumers = NULL;
  g_autofree char *description = NULL;

  if (policy == NULL)
    return;
  consumers = sr_format_consumers (sr_policy_client_get_consumers (policy), app_display_name,
                                   program_display_name, self);
  if (self->on_gnome)
    description = g_strconcat (consumers, "\n",
                               /* Translators: under "Used by …", when the desktop is GNOME */
                               _("On GNOME, changes take effect at the next login, and apps that "
                                 "crash during a session are restored as GNOME decides"),
                               NULL);
  adw_preferences_group_set_description (self->enabled_group,
                                         description != NULL ? description : consumers);
}

static void
sync_settings (SrSettingsPage *self)
{
  SrPolicyClient *policy = sr_client_get_policy (self->client);
  /* What polkit refuses outright looks locked, as a dconf lock does. */
  gboolean refused = sr_client_is_refused (self->client, SR_ACTION_CONFIGURE);
  gboolean enabled;

  if (policy == NULL)
    return;
  self->updating = TRUE;

  enabled = sr_policy_client_get_enabled (policy);
  set_switch (self->enabled_switch, enabled);
  sr_lock_icon_apply (self->enabled_lock, GTK_WIDGET (self->enabled_switch),
                      refused || sr_client_is_locked (self->client, "enabled"), TRUE);

  /* login_nicks is in the enum's order. */
  adw_combo_row_set_selected (self->login_row, sr_policy_client_get_login_restore (policy));
  update_login_subtitle (self);
  sr_lock_icon_apply (self->login_lock, GTK_WIDGET (self->login_row),
                      refused || sr_client_is_locked (self->client, "login-restore"), enabled);

  set_switch (self->crash_switch, sr_policy_client_get_restore_after_crash (policy));
  sr_lock_icon_apply (self->crash_lock, GTK_WIDGET (self->crash_switch),
                      refused || sr_client_is_locked (self->client, "restore-after-crash"), enabled);
  set_switch (self->launch_switch, sr_policy_client_get_restore_on_launch (policy));
  sr_lock_icon_apply (self->launch_lock, GTK_WIDGET (self->launch_switch),
                      refused || sr_client_is_locked (self->client, "restore-on-launch"), enabled);
  sync_keep_row (self, sr_policy_client_get_max_age_days (policy));
  sr_lock_icon_apply (self->keep_lock, GTK_WIDGET (self->keep_row),
                      refused || sr_client_is_locked (self->client, "max-age-days"), enabled);

  /* Off: what waits for the master switch says so, and why. */
  adw_preferences_group_set_description (self->when_group,
                                         enabled ? NULL : _("Save and Restore Apps is off"));
  adw_action_row_set_subtitle (self->apps_row,
                               enabled ? _("Choose which apps are saved and restored")
                                       : _("Save and Restore Apps is off"));

  sync_consumers (self);

  if (self->apps != NULL)
    sync_totals (self);
  self->updating = FALSE;
}

/* GtkSwitch and AdwComboRow tell of a change once they show it: a
 * change that asks first puts them back right after, before anything
 * else is done (a frame drawn, a screen reader answered), so that
 * neither shows what is not so. */
static gboolean
resync_cb (gpointer user_data)
{
  SrSettingsPage *self = user_data;

  self->resync_id = 0;
  sync_settings (self);
  return G_SOURCE_REMOVE;
}

static void
resync_soon (SrSettingsPage *self)
{
  if (self->resync_id == 0)
    self->resync_id = g_idle_add_full (G_PRIORITY_HIGH, resync_cb, self, NULL);
}

typedef struct {
  SrSettingsPage *self;   /* (owned) */
  char *failed;           /* (owned) the toast's subject on a failure */
} SetRequest;

static void
set_request_free (SetRequest *request)
{
  g_object_unref (request->self);
  g_free (request->failed);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SetRequest, set_request_free)

static void
on_setting_set_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(SetRequest) request = user_data;
  g_autoptr(GError) error = NULL;

  if (!sr_policy_client_set_setting_finish (SR_POLICY_CLIENT (source), result, &error))
    {
      sr_toast_report_error (GTK_WIDGET (request->self), request->failed, error);
      /* Put the controls back to what is in force. */
      sync_settings (request->self);
    }
}

/* @failed: what a toast says if it fails ("Could not change …"). */
static void
set_setting (SrSettingsPage *self,
             const char     *key,
             GVariant       *value,
             const char     *failed)
{
  SetRequest *request = g_new0 (SetRequest, 1);

  request->self = g_object_ref (self);
  request->failed = g_strdup (failed);
  sr_policy_client_set_setting_async (sr_client_peek_policy (self->client), key, value,
                                      SR_CALL_FLAGS_ALLOW_INTERACTION, NULL,
                                      on_setting_set_cb, request);
}

static void
clear_all_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  SrSettingsPage *self = SR_SETTINGS_PAGE (widget);

  sr_clear_dialog_ask_to_clear_all (widget, self->client, self->apps, FALSE);
}

/* -- The controls -------------------------------------------------------------- */

static gboolean
on_enabled_switch_state_set_cb (SrSettingsPage *self,
                                gboolean        state)
{
  if (self->updating || self->client == NULL)
    return FALSE;
  if (state)
    sr_settings_page_turn_on (self);
  else
    {
      /* Turning off clears: it asks first, and the switch stays on
       * until policyd has turned it off. */
      sr_clear_dialog_ask_to_clear_all (GTK_WIDGET (self), self->client, self->apps, TRUE);
      resync_soon (self);
    }
  return TRUE;
}

static gboolean
on_setting_switch_state_set_cb (SrSettingsPage *self,
                                gboolean        state,
                                GtkSwitch      *sw)
{
  if (self->updating || self->client == NULL)
    return FALSE;
  if (sw == self->crash_switch)
    set_setting (self, "restore-after-crash", g_variant_new_boolean (state),
                 _("Could not change Restore After a Crash"));
  else
    set_setting (self, "restore-on-launch", g_variant_new_boolean (state),
                 _("Could not change Restore on a Normal Launch"));
  return TRUE;
}

static void
on_login_row_selected_cb (SrSettingsPage *self)
{
  guint selected = adw_combo_row_get_selected (self->login_row);

  update_login_subtitle (self);
  if (self->updating || self->client == NULL || selected >= G_N_ELEMENTS (login_nicks))
    return;
  set_setting (self, "login-restore", g_variant_new_string (login_nicks[selected]),
               _("Could not change Reopen Apps at Login"));
}

static void
on_keep_row_selected_cb (SrSettingsPage *self)
{
  guint selected = adw_combo_row_get_selected (self->keep_row);

  if (self->updating || self->client == NULL || selected == GTK_INVALID_LIST_POSITION)
    return;
  /* Shortening it may clear saved sessions: that asks first, and the row
   * shows the value in force until policyd has changed it. */
  if (sr_retention_set (GTK_WIDGET (self), self->client, self->apps,
                        selected < G_N_ELEMENTS (keep_days) ? keep_days[selected] : self->keep_extra))
    resync_soon (self);
}

void
sr_settings_page_turn_on (SrSettingsPage *self)
{
  set_setting (self, "enabled", g_variant_new_boolean (TRUE),
               _("Could not turn on Save and Restore Apps"));
}

/* -- The page ---------------------------------------------------------------------- */

static void
sr_settings_page_dispose (GObject *object)
{
  SrSettingsPage *self = SR_SETTINGS_PAGE (object);

  g_clear_handle_id (&self->resync_id, g_source_remove);
  if (self->client != NULL)
    g_signal_handlers_disconnect_by_data (self->client, self);
  if (self->apps != NULL)
    g_signal_handlers_disconnect_by_data (self->apps, self);
  g_clear_object (&self->client);
  g_clear_object (&self->apps);
  gtk_widget_dispose_template (GTK_WIDGET (self), SR_TYPE_SETTINGS_PAGE);
  G_OBJECT_CLASS (sr_settings_page_parent_class)->dispose (object);
}

static void
sr_settings_page_class_init (SrSettingsPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = sr_settings_page_dispose;
  g_type_ensure (SR_TYPE_LOCK_ICON);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/gnome/SessionRestore/sr-settings-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, enabled_group);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, enabled_switch);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, enabled_lock);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, when_group);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, login_row);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, login_lock);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, crash_switch);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, crash_lock);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, launch_switch);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, launch_lock);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, saved_group);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, keep_row);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, keep_lock);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, keep_model);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, clear_button);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, clear_lock);
  gtk_widget_class_bind_template_child (widget_class, SrSettingsPage, apps_row);
  gtk_widget_class_bind_template_callback (widget_class, on_enabled_switch_state_set_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_setting_switch_state_set_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_login_row_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_keep_row_selected_cb);
  gtk_widget_class_install_action (widget_class, "page.clear-all", NULL, clear_all_action);
}

static void
sr_settings_page_init (SrSettingsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->on_gnome = desktop_is_gnome ();

  for (guint i = 0; i < G_N_ELEMENTS (keep_days); i++)
    {
      g_autofree char *label = keep_days[i] < 0 ? g_strdup (_("Forever"))
        : g_strdup_printf (ngettext ("%d Day", "%d Days", keep_days[i]), keep_days[i]);
      gtk_string_list_append (self->keep_model, label);
    }
}

void
sr_settings_page_set_context (SrSettingsPage *self,
                              SrClient       *client,
                              SrAppList      *apps)
{
  g_set_object (&self->client, client);
  g_set_object (&self->apps, apps);
  g_signal_connect_object (client, "changed", G_CALLBACK (sync_settings), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (apps, "listed", G_CALLBACK (sync_totals), self, G_CONNECT_SWAPPED);
  /* The installed apps are read by then: the programs get their names. */
  g_signal_connect_object (apps, "listed", G_CALLBACK (sync_consumers), self, G_CONNECT_SWAPPED);
  sync_settings (self);
}
