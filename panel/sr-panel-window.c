/* sr-panel-window.c: the settings window
 *
 * Everything shown comes from policyd's properties and is re-read whenever
 * they change, whoever changed them (this window, another instance,
 * gsettings, the administrator). A change the user makes is sent to
 * policyd and shows once policyd has made it: on a refusal the controls
 * go back to what is in force, and a toast says why.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-app-item.h"
#include "sr-app-row.h"
#include "sr-panel-window.h"
#include "sr-bus.h"
#include "sr-dbus-policy.h"
#include "sr-error.h"

#define LOCK_TOOLTIP _("Set by your administrator")

static const int keep_days[] = { 1, 7, 30, 90, -1 };

struct _SrPanelWindow {
  AdwApplicationWindow parent_instance;

  SrDBusPolicy *policy;               /* (owned) (nullable): while policyd runs */
  GCancellable *cancellable;      /* (owned) */
  guint watch_id;
  gboolean updating;              /* controls are being set from policyd */
  gboolean apps_loaded;
  gboolean usage_listed;
  GVariant *pending_usage;        /* (owned) (nullable): a listing that came
                                   * before the installed apps were read */
  gboolean first_frame_seen;
  gulong after_paint_id;

  GListStore *apps;               /* (owned) SrAppItem */
  GHashTable *items;              /* (owned) app id → SrAppItem (unowned) */
  GtkCustomFilter *filter;        /* (owned) */
  GtkStringList *keep_model;      /* (owned) */
  int keep_extra;                 /* a max-age-days value outside keep_days, or 0 */

  AdwToastOverlay *toast_overlay;
  GtkRevealer *lock_banner;
  GtkStack *main_stack;
  AdwViewStack *view_stack;
  GtkWidget *when_group;
  GtkSwitch *enabled_switch;
  GtkWidget *enabled_lock;
  AdwComboRow *login_row;
  GtkWidget *login_lock;
  GtkSwitch *crash_switch;
  GtkWidget *crash_lock;
  GtkSwitch *launch_switch;
  GtkWidget *launch_lock;
  AdwComboRow *keep_row;
  GtkWidget *keep_lock;
  GtkWidget *clear_button;
  GtkWidget *apps_page;
  GtkGridView *apps_view;
  GtkSearchEntry *search_entry;
};

G_DEFINE_FINAL_TYPE (SrPanelWindow, sr_panel_window, ADW_TYPE_APPLICATION_WINDOW)

static void sync_settings (SrPanelWindow *self);
static void watch_first_frame (SrPanelWindow *self);
static void on_usage_listed (SrPanelWindow *self, GVariant *reply, gpointer data);

/* Only the page shown is visible: GtkStack alone leaves hidden pages
 * "visible" to assistive technologies. */
static void
show_page (SrPanelWindow *self,
           const char    *name)
{
  GtkSelectionModel *pages = gtk_stack_get_pages (self->main_stack);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (pages));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (pages), i);
      GtkStackPage *page = GTK_STACK_PAGE (item);

      gtk_widget_set_visible (gtk_stack_page_get_child (page),
                              g_str_equal (gtk_stack_page_get_name (page), name));
    }
  g_object_unref (pages);
  gtk_stack_set_visible_child_name (self->main_stack, name);
}
static void reload_usage (SrPanelWindow *self);

/* -- Talking to policyd ---------------------------------------------------- */

static void
toast (SrPanelWindow *self,
       const char    *text)
{
  AdwToast *toast = adw_toast_new (text);

  adw_toast_set_timeout (toast, 5);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* What a person should read when policyd said no. */
static char *
describe_error (const GError *error)
{
  g_autoptr(GError) copy = g_error_copy (error);

  if (g_error_matches (error, SR_ERROR, SR_ERROR_NOT_ALLOWED))
    return g_strdup (_("You are not allowed to make this change"));
  if (g_error_matches (error, SR_ERROR, SR_ERROR_LOCKED))
    return g_strdup (_("This is set by your administrator"));
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return NULL;
  g_dbus_error_strip_remote_error (copy);
  return g_strdup (copy->message);
}

typedef void (*CallDone) (SrPanelWindow *self, GVariant *reply, gpointer data);

typedef struct {
  SrPanelWindow *self;      /* (owned) */
  char *what;               /* (owned) (nullable) what the user tried, for the
                             * toast; NULL for background work, which fails
                             * quietly */
  CallDone done;
  gpointer data;
  GDestroyNotify data_free;
} Call;

static void
call_free (Call *call)
{
  g_object_unref (call->self);
  g_free (call->what);
  if (call->data_free != NULL)
    call->data_free (call->data);
  g_free (call);
}

static void
on_call_done_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Call *call = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_proxy_call_finish (G_DBUS_PROXY (source), result, &error);

  if (reply == NULL)
    {
      g_autofree char *why = describe_error (error);

      if (why != NULL && call->what == NULL)
        g_message ("Background refresh failed: %s", error->message);
      else if (why != NULL)
        {
          /* Translators: the first %s is what the user tried, the second why it failed */
          g_autofree char *text = g_strdup_printf (_("Could not %s: %s"), call->what, why);
          g_message ("%s (%s)", text, error->message);
          toast (call->self, text);
        }
      /* Put the controls back to what is in force. */
      sync_settings (call->self);
    }
  else if (call->done != NULL)
    call->done (call->self, reply, call->data);

  call_free (call);
}

/* Changes are interactive: polkit may ask the user to authenticate. */
static void
call_policyd (SrPanelWindow  *self,
              const char     *method,
              GVariant       *parameters,
              const char     *what,
              CallDone        done,
              gpointer        data,
              GDestroyNotify  data_free)
{
  Call *call = g_new0 (Call, 1);

  g_return_if_fail (self->policy != NULL);
  call->self = g_object_ref (self);
  call->what = g_strdup (what);
  call->done = done;
  call->data = data;
  call->data_free = data_free;
  g_dbus_proxy_call (G_DBUS_PROXY (self->policy), method, parameters,
                     G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                     G_MAXINT, self->cancellable, on_call_done_cb, call);
}

static void
set_setting (SrPanelWindow *self,
             const char    *key,
             GVariant      *value,
             const char    *what)
{
  call_policyd (self, "SetSetting", g_variant_new ("(sv)", key, value), what, NULL, NULL, NULL);
}

/* -- Settings ----------------------------------------------------------------- */

static gboolean
is_locked (SrPanelWindow *self,
           const char    *key)
{
  /* dup, not get: the generated get_ accessors of "as" properties lend
   * strings of the proxy's cache, which a property change frees. */
  g_auto(GStrv) locked = sr_dbus_policy_dup_locked_settings (self->policy);

  return locked != NULL && g_strv_contains ((const char * const *) locked, key);
}

/* A locked control stays visible, insensitive, with a lock and a tooltip:
 * never hidden, never looking merely disabled. */
static void
show_lock (SrPanelWindow *self,
           GtkWidget     *control,
           GtkWidget     *lock,
           const char    *key,
           gboolean       enabled)
{
  gboolean locked = is_locked (self, key);

  gtk_widget_set_visible (lock, locked);
  gtk_widget_set_sensitive (control, enabled && !locked);
  gtk_widget_set_tooltip_text (control, locked ? LOCK_TOOLTIP : NULL);
}

static void
sync_keep_row (SrPanelWindow *self,
               int            days)
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

static SrAppItem *ensure_item (SrPanelWindow *self, const char *app_id, GPtrArray *added);
static void add_items (SrPanelWindow *self, GPtrArray *added);

static void
sync_apps_excluded (SrPanelWindow *self)
{
  g_auto(GStrv) user_owned = sr_dbus_policy_dup_excluded_apps (self->policy);
  g_auto(GStrv) admin_owned = sr_dbus_policy_dup_admin_excluded_apps (self->policy);
  const char * const *user = (const char * const *) user_owned;
  const char * const *admin = (const char * const *) admin_owned;
  const char * const *lists[] = { user, admin };
  g_autoptr(GPtrArray) added = g_ptr_array_new ();
  guint n;

  /* Excluded apps are listed even when they are not installed, so that
   * they can be let back in. Items are only made once the installed apps
   * are known: an item's name is its sort key and must not change later
   * (GTK 4.8's sort model does not re-sort on changes). */
  for (guint i = 0; self->apps_loaded && i < G_N_ELEMENTS (lists); i++)
    for (guint j = 0; lists[i] != NULL && lists[i][j] != NULL; j++)
      ensure_item (self, lists[i][j], added);
  add_items (self, added);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->apps));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(SrAppItem) item = g_list_model_get_item (G_LIST_MODEL (self->apps), i);
      const char *app_id = sr_app_item_get_app_id (item);

      sr_app_item_set_excluded (item,
                                user != NULL && g_strv_contains (user, app_id),
                                admin != NULL && g_strv_contains (admin, app_id));
    }
}

static void
sync_settings (SrPanelWindow *self)
{
  g_autofree char *login = NULL;
  g_auto(GStrv) admin = NULL;
  g_auto(GStrv) locked = NULL;
  gboolean enabled;
  guint login_index = 0;

  if (self->policy == NULL)
    return;

  self->updating = TRUE;

  enabled = sr_dbus_policy_get_enabled (self->policy);
  gtk_switch_set_active (self->enabled_switch, enabled);
  gtk_switch_set_state (self->enabled_switch, enabled);
  show_lock (self, GTK_WIDGET (self->enabled_switch), self->enabled_lock, "enabled", TRUE);

  login = sr_dbus_policy_dup_login_restore (self->policy);
  if (g_strcmp0 (login, "ask") == 0)
    login_index = 1;
  else if (g_strcmp0 (login, "never") == 0)
    login_index = 2;
  adw_combo_row_set_selected (self->login_row, login_index);
  show_lock (self, GTK_WIDGET (self->login_row), self->login_lock, "login-restore", enabled);

  gtk_switch_set_active (self->crash_switch, sr_dbus_policy_get_restore_after_crash (self->policy));
  gtk_switch_set_state (self->crash_switch, sr_dbus_policy_get_restore_after_crash (self->policy));
  show_lock (self, GTK_WIDGET (self->crash_switch), self->crash_lock, "restore-after-crash", enabled);

  gtk_switch_set_active (self->launch_switch, sr_dbus_policy_get_restore_on_launch (self->policy));
  gtk_switch_set_state (self->launch_switch, sr_dbus_policy_get_restore_on_launch (self->policy));
  show_lock (self, GTK_WIDGET (self->launch_switch), self->launch_lock, "restore-on-launch", enabled);

  sync_keep_row (self, sr_dbus_policy_get_max_age_days (self->policy));
  show_lock (self, GTK_WIDGET (self->keep_row), self->keep_lock, "max-age-days", enabled);

  /* Off: everything below the master switch waits for it. Each control
   * says so itself (show_lock above), so that assistive technologies read
   * it as unavailable too. */
  gtk_widget_set_sensitive (self->when_group, enabled);
  gtk_widget_set_sensitive (self->clear_button, enabled);
  gtk_widget_set_sensitive (self->apps_page, enabled && !is_locked (self, "excluded-apps"));

  locked = sr_dbus_policy_dup_locked_settings (self->policy);
  admin = sr_dbus_policy_dup_admin_excluded_apps (self->policy);
  gtk_revealer_set_reveal_child (self->lock_banner,
                                 (locked != NULL && locked[0] != NULL) ||
                                 (admin != NULL && admin[0] != NULL));

  sync_apps_excluded (self);
  self->updating = FALSE;
}

/* Asks before something that cannot be undone; Cancel is the default, and
 * what Escape gives. */
static void
confirm_destructive (SrPanelWindow *self,
                     const char    *heading,
                     const char    *body,
                     const char    *response,
                     const char    *label,
                     GCallback      on_response)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, body);

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    response, label,
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), response,
                                              ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect (dialog, "response", on_response, self);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_turn_off_response_cb (AdwMessageDialog *dialog,
                         const char       *response,
                         SrPanelWindow    *self)
{
  if (g_str_equal (response, "turn-off"))
    set_setting (self, "enabled", g_variant_new_boolean (FALSE), _("turn off save and restore"));
  else
    sync_settings (self);
}

static gboolean
on_enabled_switch_state_set_cb (SrPanelWindow *self,
                                gboolean       state)
{

  if (self->updating || self->policy == NULL)
    return FALSE;

  if (state)
    {
      set_setting (self, "enabled", g_variant_new_boolean (TRUE), _("turn on save and restore"));
      return TRUE;
    }

  /* Turning off forgets: ask first. */
  confirm_destructive (self, _("Turn Off Save and Restore?"),
                       _("Apps will no longer be saved or restored, and all "
                         "saved app state and window positions will be forgotten. "
                         "This cannot be undone."),
                       "turn-off", _("_Turn Off"), G_CALLBACK (on_turn_off_response_cb));
  return TRUE;
}

static gboolean
on_setting_switch_state_set_cb (SrPanelWindow *self,
                                gboolean       state,
                                GtkSwitch     *sw)
{
  gboolean crash;

  if (self->updating || self->policy == NULL)
    return FALSE;

  crash = sw == self->crash_switch;
  set_setting (self, crash ? "restore-after-crash" : "restore-on-launch",
               g_variant_new_boolean (state),
               crash ? _("change “Restore After a Crash”") : _("change “Restore on a Normal Launch”"));
  return TRUE;
}

static void
on_login_row_selected_cb (SrPanelWindow *self)
{
  static const char * const nicks[] = { "always", "ask", "never" };
  guint selected = adw_combo_row_get_selected (self->login_row);

  if (self->updating || self->policy == NULL || selected >= G_N_ELEMENTS (nicks))
    return;
  set_setting (self, "login-restore", g_variant_new_string (nicks[selected]),
               _("change “Reopen Apps at Login”"));
}

static void
on_keep_row_selected_cb (SrPanelWindow *self)
{
  guint selected = adw_combo_row_get_selected (self->keep_row);
  int days;

  if (self->updating || self->policy == NULL || selected == GTK_INVALID_LIST_POSITION)
    return;
  days = selected < G_N_ELEMENTS (keep_days) ? keep_days[selected] : self->keep_extra;
  set_setting (self, "max-age-days", g_variant_new_int32 (days),
               _("change “Keep Saved State For”"));
}

/* -- Apps ---------------------------------------------------------------------- */

static SrAppItem *
ensure_item (SrPanelWindow *self,
             const char    *app_id,
             GPtrArray     *added)
{
  SrAppItem *item = g_hash_table_lookup (self->items, app_id);

  if (item == NULL)
    {
      item = sr_app_item_new (app_id);
      g_hash_table_insert (self->items, g_strdup (app_id), item);
      g_ptr_array_add (added, item);
    }
  return item;
}

/* Appends in one go: one items-changed for the whole batch. */
static void
add_items (SrPanelWindow *self,
           GPtrArray     *added)
{
  g_list_store_splice (self->apps, g_list_model_get_n_items (G_LIST_MODEL (self->apps)), 0,
                       added->pdata, added->len);
  g_ptr_array_set_size (added, 0);
}

/* Reading every .desktop file takes a while with thousands of apps: it is
 * done on a worker thread while the panel connects to policyd. */
static void
read_app_infos_thread (GTask        *task,
                       gpointer      source,
                       gpointer      task_data,
                       GCancellable *cancellable)
{
  g_autoptr(GPtrArray) shown = g_ptr_array_new_with_free_func (g_object_unref);
  g_autolist(GAppInfo) infos = g_app_info_get_all ();

  for (GList *l = infos; l != NULL; l = l->next)
    if (g_app_info_should_show (l->data))
      g_ptr_array_add (shown, g_object_ref (l->data));
  g_task_return_pointer (task, g_steal_pointer (&shown), (GDestroyNotify) g_ptr_array_unref);
}

static void
add_installed_apps (SrPanelWindow *self,
                    GPtrArray     *infos)
{
  g_autoptr(GPtrArray) added = g_ptr_array_new ();

  for (guint i = 0; i < infos->len; i++)
    {
      const char *id = g_app_info_get_id (infos->pdata[i]);
      g_autofree char *app_id = NULL;

      if (id == NULL || !g_str_has_suffix (id, ".desktop"))
        continue;
      app_id = g_strndup (id, strlen (id) - strlen (".desktop"));
      if (!g_application_id_is_valid (app_id))
        continue;
      sr_app_item_set_app_info (ensure_item (self, app_id, added), infos->pdata[i]);
    }
  add_items (self, added);
  g_debug ("installed apps listed: %u", infos->len);
}

static void
on_app_infos_read_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(SrPanelWindow) self = user_data;
  g_autoptr(GPtrArray) infos = g_task_propagate_pointer (G_TASK (result), NULL);

  if (infos == NULL || g_cancellable_is_cancelled (self->cancellable))
    return;
  add_installed_apps (self, infos);
  self->apps_loaded = TRUE;
  if (self->pending_usage != NULL)
    {
      g_autoptr(GVariant) usage = g_steal_pointer (&self->pending_usage);
      on_usage_listed (self, usage, NULL);
    }
  else if (self->policy != NULL)
    sync_apps_excluded (self);
}

static void
read_app_infos (SrPanelWindow *self)
{
  g_autoptr(GTask) task = g_task_new (NULL, self->cancellable, on_app_infos_read_cb,
                                      g_object_ref (self));

  g_task_run_in_thread (task, read_app_infos_thread);
}

static void
on_after_paint_cb (GdkFrameClock *clock,
                   SrPanelWindow *self)
{
  /* For benchmarks (G_MESSAGES_DEBUG=sr-panel): the first frame that
   * shows the settings and the filled app list, on the monotonic clock. */
  g_debug ("first-frame-monotonic-usec=%" G_GINT64_FORMAT, g_get_monotonic_time ());
  g_clear_signal_handler (&self->after_paint_id, clock);
}

static void
watch_first_frame (SrPanelWindow *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  if (self->first_frame_seen || clock == NULL || !self->apps_loaded || !self->usage_listed)
    return;
  self->first_frame_seen = TRUE;
  self->after_paint_id = g_signal_connect (clock, "after-paint",
                                           G_CALLBACK (on_after_paint_cb), self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_usage_listed (SrPanelWindow *self,
                 GVariant      *reply,
                 gpointer       data)
{
  g_autoptr(GPtrArray) added = g_ptr_array_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GVariantIter) iter = NULL;
  GHashTableIter items;
  gpointer key, value;
  const char *app_id;
  GVariant *info;

  g_debug ("stored state listed");
  if (!self->apps_loaded)
    {
      g_clear_pointer (&self->pending_usage, g_variant_unref);
      self->pending_usage = g_variant_ref (reply);
      return;
    }
  g_variant_get (reply, "(a(sa{sv}))", &iter);
  while (g_variant_iter_loop (iter, "(&s@a{sv})", &app_id, &info))
    {
      guint64 bytes = 0;
      gint64 last_saved = 0;
      SrAppItem *item = ensure_item (self, app_id, added);

      g_variant_lookup (info, "bytes", "t", &bytes);
      g_variant_lookup (info, "last-saved", "x", &last_saved);
      sr_app_item_set_usage (item, bytes, last_saved);
      g_hash_table_add (seen, (gpointer) sr_app_item_get_app_id (item));
    }

  g_hash_table_iter_init (&items, self->items);
  while (g_hash_table_iter_next (&items, &key, &value))
    if (!g_hash_table_contains (seen, key))
      sr_app_item_set_usage (value, 0, 0);

  add_items (self, added);
  sync_apps_excluded (self);
  self->usage_listed = TRUE;
  watch_first_frame (self);
}

static void
reload_usage (SrPanelWindow *self)
{
  if (self->policy != NULL)
    call_policyd (self, "ListStoredState", NULL, NULL, on_usage_listed, NULL, NULL);
}

static gboolean
filter_app (gpointer item,
            gpointer user_data)
{
  SrPanelWindow *self = user_data;
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  g_autofree char *needle = NULL;
  g_autofree char *name = NULL;
  g_autofree char *id = NULL;

  if (text == NULL || *text == '\0')
    return TRUE;
  needle = g_utf8_casefold (text, -1);
  name = g_utf8_casefold (sr_app_item_get_name (item), -1);
  id = g_utf8_casefold (sr_app_item_get_app_id (item), -1);
  return strstr (name, needle) != NULL || strstr (id, needle) != NULL;
}

static void
on_search_entry_changed_cb (SrPanelWindow *self)
{
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

static void
on_visible_view_changed_cb (SrPanelWindow *self)
{
  /* Apps keep saving while the panel is open: show fresh sizes. */
  reload_usage (self);
}

static void
on_factory_setup_cb (GtkSignalListItemFactory *factory,
                     GtkListItem              *list_item)
{
  gtk_list_item_set_child (list_item, g_object_new (SR_TYPE_APP_ROW, NULL));
  gtk_list_item_set_activatable (list_item, FALSE);
}

static void
on_factory_bind_cb (GtkSignalListItemFactory *factory,
                    GtkListItem              *list_item)
{
  g_object_set (gtk_list_item_get_child (list_item), "item", gtk_list_item_get_item (list_item), NULL);
}

static void
on_factory_unbind_cb (GtkSignalListItemFactory *factory,
                      GtkListItem              *list_item)
{
  g_object_set (gtk_list_item_get_child (list_item), "item", NULL, NULL);
}

static char *
app_name (SrPanelWindow *self,
          const char    *app_id)
{
  SrAppItem *item = g_hash_table_lookup (self->items, app_id);

  return g_strdup (item != NULL ? sr_app_item_get_name (item) : app_id);
}

static void
set_app_excluded_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (widget);
  g_autofree char *what = NULL;
  g_autofree char *name = NULL;
  const char *app_id;
  gboolean excluded;

  g_variant_get (parameter, "(&sb)", &app_id, &excluded);
  name = app_name (self, app_id);
  what = excluded ? g_strdup_printf (_("stop saving %s"), name)
                  : g_strdup_printf (_("start saving %s"), name);
  call_policyd (self, "SetAppExcluded", g_variant_new ("(sb)", app_id, excluded), what,
                NULL, NULL, NULL);
}

static void
on_app_forgotten (SrPanelWindow *self,
                  GVariant      *reply,
                  gpointer       data)
{
  g_autoptr(GVariant) report = NULL;
  g_autofree char *size = NULL;
  g_autofree char *text = NULL;
  guint64 bytes = 0;

  g_variant_get (reply, "(@a{sv})", &report);
  g_variant_lookup (report, "bytes", "t", &bytes);
  size = g_format_size (bytes);
  /* Translators: %s is an app's name, then a size */
  text = g_strdup_printf (_("Forgot the saved state of %s (%s)"), (const char *) data, size);
  toast (self, text);
  reload_usage (self);
}

static void
forget_app_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (widget);
  const char *app_id = g_variant_get_string (parameter, NULL);
  const char *apps[] = { app_id, NULL };
  g_autofree char *name = app_name (self, app_id);
  g_autofree char *what = g_strdup_printf (_("forget the saved state of %s"), name);

  call_policyd (self, "Clear", g_variant_new ("(^as)", apps), what,
                on_app_forgotten, g_steal_pointer (&name), g_free);
}

static void
on_all_cleared (SrPanelWindow *self,
                GVariant      *reply,
                gpointer       data)
{
  g_autoptr(GVariant) report = NULL;
  g_autofree const char **apps = NULL;
  g_autofree char *size = NULL;
  g_autofree char *text = NULL;
  guint64 bytes = 0;
  gsize n_apps = 0;

  g_variant_get (reply, "(@a{sv})", &report);
  g_variant_lookup (report, "bytes", "t", &bytes);
  g_variant_lookup (report, "apps", "^a&s", &apps);
  n_apps = apps != NULL ? g_strv_length ((char **) apps) : 0;
  size = g_format_size (bytes);
  text = g_strdup_printf (ngettext ("Forgot saved sessions of %zu app (%s)",
                                    "Forgot saved sessions of %zu apps (%s)", n_apps),
                          n_apps, size);
  toast (self, text);
  reload_usage (self);
}

static void
on_clear_all_response_cb (AdwMessageDialog *dialog,
                          const char       *response,
                          SrPanelWindow    *self)
{
  if (g_str_equal (response, "clear"))
    call_policyd (self, "Clear", g_variant_new ("(@as)", g_variant_new_strv (NULL, 0)),
                  _("clear saved sessions"),
                  on_all_cleared, NULL, NULL);
}

/* The dialog says exactly what will go: it is counted afresh, not taken
 * from the list, which may be minutes old. */
static void
on_clear_all_counted (SrPanelWindow *self,
                      GVariant      *reply,
                      gpointer       data)
{
  g_autoptr(GVariantIter) iter = NULL;
  g_autofree char *size = NULL;
  g_autofree char *body = NULL;
  GVariant *info;
  guint64 bytes = 0;
  guint n_apps = 0;

  on_usage_listed (self, reply, NULL);

  g_variant_get (reply, "(a(sa{sv}))", &iter);
  while (g_variant_iter_loop (iter, "(&s@a{sv})", NULL, &info))
    {
      guint64 app_bytes = 0;

      g_variant_lookup (info, "bytes", "t", &app_bytes);
      bytes += app_bytes;
      n_apps++;
    }
  size = g_format_size (bytes);
  body = g_strdup_printf (ngettext ("The saved state of %u app (%s) will be forgotten, and so "
                                    "will window positions kept by the desktop. Apps will start "
                                    "afresh next time. This cannot be undone.",
                                    "The saved state of %u apps (%s) will be forgotten, and so "
                                    "will window positions kept by the desktop. Apps will start "
                                    "afresh next time. This cannot be undone.", n_apps),
                          n_apps, size);

  confirm_destructive (self, _("Clear Saved Sessions?"), body,
                       "clear", _("C_lear"), G_CALLBACK (on_clear_all_response_cb));
}

static void
clear_all_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (widget);

  if (self->policy != NULL)
    call_policyd (self, "ListStoredState", NULL, _("list saved app state"),
                  on_clear_all_counted, NULL, NULL);
}

/* -- policyd coming and going ------------------------------------------------ */

static void
on_policy_properties_changed_cb (SrPanelWindow *self)
{
  sync_settings (self);
}

static void
on_stored_state_cleared_cb (SrPanelWindow *self)
{
  reload_usage (self);
}

static void
on_proxy_ready_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(SrPanelWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  SrDBusPolicy *policy = sr_dbus_policy_proxy_new_for_bus_finish (result, &error);

  if (policy == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_message ("Could not reach policyd: %s", error->message);
          show_page (self, "missing");
        }
      return;
    }

  g_debug ("connected to policyd");
  g_clear_object (&self->policy);
  self->policy = policy;
  g_signal_connect_object (policy, "g-properties-changed",
                           G_CALLBACK (on_policy_properties_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (policy, "stored-state-cleared",
                           G_CALLBACK (on_stored_state_cleared_cb), self, G_CONNECT_SWAPPED);

  sync_settings (self);
  reload_usage (self);
  show_page (self, "content");
}

static void
on_name_appeared_cb (GDBusConnection *bus,
                     const char      *name,
                     const char      *owner,
                     gpointer         user_data)
{
  SrPanelWindow *self = user_data;

  sr_dbus_policy_proxy_new (bus, G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START |
                            G_DBUS_PROXY_FLAGS_GET_INVALIDATED_PROPERTIES, name, SR_OBJECT_PATH,
                       self->cancellable, on_proxy_ready_cb, g_object_ref (self));
}

static void
on_name_vanished_cb (GDBusConnection *bus,
                     const char      *name,
                     gpointer         user_data)
{
  SrPanelWindow *self = user_data;

  g_clear_object (&self->policy);
  show_page (self, "missing");
  gtk_revealer_set_reveal_child (self->lock_banner, FALSE);
}

static void
on_service_started_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(SrPanelWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);

  if (reply == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *text = NULL;

      g_dbus_error_strip_remote_error (error);
      text = g_strdup_printf (_("Could not start the service: %s"), error->message);
      toast (self, text);
    }
}

static void
retry_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (widget);
  GApplication *app = G_APPLICATION (gtk_window_get_application (GTK_WINDOW (self)));
  GDBusConnection *bus = app ? g_application_get_dbus_connection (app) : NULL;

  if (bus == NULL)
    return;
  /* The name watcher notices when it appears. */
  g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "StartServiceByName",
                          g_variant_new ("(su)", SR_BUS_NAME, 0), G_VARIANT_TYPE ("(u)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, self->cancellable,
                          on_service_started_cb, g_object_ref (self));
}

/* -- The window ----------------------------------------------------------------- */

static void
sr_panel_window_dispose (GObject *object)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->watch_id, g_bus_unwatch_name);
  if (self->after_paint_id != 0)
    g_clear_signal_handler (&self->after_paint_id, gtk_widget_get_frame_clock (GTK_WIDGET (self)));
  g_clear_object (&self->policy);
  gtk_widget_dispose_template (GTK_WIDGET (self), SR_TYPE_PANEL_WINDOW);
  G_OBJECT_CLASS (sr_panel_window_parent_class)->dispose (object);
}

static void
sr_panel_window_finalize (GObject *object)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->pending_usage, g_variant_unref);
  g_clear_pointer (&self->items, g_hash_table_unref);
  g_clear_object (&self->apps);
  g_clear_object (&self->filter);
  g_clear_object (&self->keep_model);
  G_OBJECT_CLASS (sr_panel_window_parent_class)->finalize (object);
}

static void
search_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SrPanelWindow *self = SR_PANEL_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->view_stack, "apps");
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static void
sr_panel_window_class_init (SrPanelWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sr_panel_window_dispose;
  object_class->finalize = sr_panel_window_finalize;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/gnome/SessionRestore/sr-panel-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, lock_banner);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, main_stack);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, when_group);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, enabled_switch);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, enabled_lock);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, login_row);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, login_lock);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, crash_switch);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, crash_lock);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, launch_switch);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, launch_lock);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, keep_row);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, keep_lock);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, clear_button);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, apps_page);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, apps_view);
  gtk_widget_class_bind_template_child (widget_class, SrPanelWindow, search_entry);
  gtk_widget_class_bind_template_callback (widget_class, on_enabled_switch_state_set_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_setting_switch_state_set_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_login_row_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_keep_row_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_entry_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_visible_view_changed_cb);

  gtk_widget_class_install_action (widget_class, "win.set-app-excluded", "(sb)", set_app_excluded_action);
  gtk_widget_class_install_action (widget_class, "win.forget-app", "s", forget_app_action);
  gtk_widget_class_install_action (widget_class, "win.clear-all", NULL, clear_all_action);
  gtk_widget_class_install_action (widget_class, "win.retry", NULL, retry_action);

  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK,
                                       "win.search", NULL);
}

static void
sr_panel_window_init (SrPanelWindow *self)
{
  g_autoptr(GtkListItemFactory) factory = NULL;
  g_autoptr(GtkSorter) sorter = NULL;
  GtkFilterListModel *filtered;
  GtkSortListModel *sorted;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->items = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->apps = g_list_store_new (SR_TYPE_APP_ITEM);

  self->keep_model = gtk_string_list_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (keep_days); i++)
    {
      g_autofree char *label = keep_days[i] < 0 ? g_strdup (_("Forever"))
        : g_strdup_printf (ngettext ("%d Day", "%d Days", keep_days[i]), keep_days[i]);
      gtk_string_list_append (self->keep_model, label);
    }
  adw_combo_row_set_model (self->keep_row, G_LIST_MODEL (self->keep_model));

  self->filter = gtk_custom_filter_new (filter_app, self, NULL);
  filtered = gtk_filter_list_model_new (G_LIST_MODEL (g_object_ref (self->apps)),
                                        GTK_FILTER (g_object_ref (self->filter)));
  sorter = GTK_SORTER (gtk_string_sorter_new (gtk_property_expression_new (SR_TYPE_APP_ITEM, NULL, "name")));
  sorted = gtk_sort_list_model_new (G_LIST_MODEL (filtered), g_object_ref (sorter));
  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (on_factory_setup_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (on_factory_bind_cb), NULL);
  g_signal_connect (factory, "unbind", G_CALLBACK (on_factory_unbind_cb), NULL);
  gtk_grid_view_set_model (self->apps_view, GTK_SELECTION_MODEL (gtk_no_selection_new (G_LIST_MODEL (sorted))));
  gtk_grid_view_set_factory (self->apps_view, factory);

  show_page (self, "loading");
  read_app_infos (self);
  self->watch_id = g_bus_watch_name (G_BUS_TYPE_SESSION, SR_BUS_NAME,
                                     G_BUS_NAME_WATCHER_FLAGS_AUTO_START,
                                     on_name_appeared_cb, on_name_vanished_cb, self, NULL);
}

SrPanelWindow *
sr_panel_window_new (AdwApplication *application)
{
  return g_object_new (SR_TYPE_PANEL_WINDOW, "application", application, NULL);
}

void
sr_panel_window_show_view (SrPanelWindow *self,
                           const char    *name)
{
  adw_view_stack_set_visible_child_name (self->view_stack, name);
}
