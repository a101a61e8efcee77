/* sr-apps-page.c: the Apps subpage: which apps are saved, and what is
 *
 * The list, its filter, sorter and rows are declared in the template;
 * this file keeps them current and carries out what the rows ask for.
 * Whatever clears a saved session asks first and says what went.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sr-app-row.h"
#include "sr-apps-page.h"
#include "sr-bus.h"
#include "sr-clear-dialog.h"
#include "sr-stack.h"
#include "sr-toast.h"

struct _SrAppsPage {
  GtkBox parent_instance;

  SrClient *client;               /* (owned) (nullable) */
  SrAppList *apps;                /* (owned) (nullable) */

  GtkSearchEntry *search_entry;
  GtkStack *stack;
  GtkGridView *apps_view;
  GtkFilterListModel *filtered;
  GtkFilter *filter;
  GtkStringFilter *search_filter;
  GtkSorter *sorter;
  GtkSortListModel *sorted;
  GtkWidget *failed_notice;
  GtkLabel *failed_label;
  AdwStatusPage *off_page;
  GtkWidget *turn_on_button;
  GtkWidget *incomplete_notice;
  GtkWidget *locked_notice;
  gboolean order_held;            /* a row was acted on: keep it where it is */
};

G_DEFINE_FINAL_TYPE (SrAppsPage, sr_apps_page, GTK_TYPE_BOX)

static void
update_page (SrAppsPage *self)
{
  SrPolicyClient *policy = self->client != NULL ? sr_client_get_policy (self->client) : NULL;
  const GError *error = self->apps != NULL ? sr_app_list_get_error (self->apps) : NULL;
  gboolean enabled = policy == NULL || sr_policy_client_get_enabled (policy);

  gtk_widget_set_visible (self->incomplete_notice,
                          self->apps != NULL && sr_app_list_get_incomplete (self->apps) &&
                          error == NULL && enabled);
  /* The saved sessions could not be listed: the apps are, and what is
   * not shown is said once, above them. */
  if (error != NULL)
    {
      g_autofree char *why = sr_client_describe_listing_error (error);

      gtk_label_set_label (self->failed_label, why);
    }
  gtk_widget_set_visible (self->failed_notice, error != NULL && enabled);
  /* What a row's switch would show, said once for the list. */
  gtk_widget_set_visible (self->locked_notice,
                          policy != NULL && sr_policy_client_get_enabled (policy) &&
                          (sr_client_is_locked (self->client, "excluded-apps") ||
                           sr_client_is_refused (self->client, SR_ACTION_CONFIGURE)));
  if (policy != NULL && !sr_policy_client_get_enabled (policy))
    {
      /* Locked off, there is nothing the user can do here: no Turn On,
       * and the page says who turned it off. */
      gboolean locked = sr_client_is_locked (self->client, "enabled");

      gtk_widget_set_visible (self->turn_on_button, !locked);
      adw_status_page_set_description (self->off_page, locked
        ? _("Your administrator turned off saving and restoring apps")
        : _("No app is saved or restored until you turn it on"));
      sr_stack_show_only (self->stack, "off");
    }
  else if (g_list_model_get_n_items (G_LIST_MODEL (self->filtered)) == 0 &&
           gtk_string_filter_get_search (self->search_filter) != NULL)
    sr_stack_show_only (self->stack, "no-results");
  else
    sr_stack_show_only (self->stack, "list");
}

static void
on_filtered_items_changed_cb (SrAppsPage *self)
{
  update_page (self);
}

/* GTK 4.8's models do not re-sort or re-filter when an item changes, and
 * the sort model keeps each item's sort key: only a new sorter drops them.
 * Once the user has acted on a row, the order stays until the page is
 * shown anew or searched: a row turned off (its saved session cleared)
 * would otherwise jump from under the pointer to the end of the list. */
static void
on_listed_cb (SrAppsPage *self)
{
  if (!self->order_held)
    {
      gtk_sort_list_model_set_sorter (self->sorted, NULL);
      gtk_sort_list_model_set_sorter (self->sorted, self->sorter);
    }
  gtk_filter_changed (self->filter, GTK_FILTER_CHANGE_DIFFERENT);
  update_page (self);
}

/* Exclusions change which apps are listed, not their order. */
static void
on_client_changed_cb (SrAppsPage *self)
{
  gtk_filter_changed (self->filter, GTK_FILTER_CHANGE_DIFFERENT);
  update_page (self);
}

static void
on_search_entry_changed_cb (SrAppsPage *self)
{
  g_autofree char *text = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->search_entry)));

  g_strstrip (text);
  self->order_held = FALSE;
  gtk_string_filter_set_search (self->search_filter, *text != '\0' ? text : NULL);
  update_page (self);
}

/* Enter in the search goes into the list, onto its first row (where
 * Space flips the switch). GTK 4.8 has no API to focus a position: the
 * list's own action scrolls there, and the row built for the first item
 * takes the focus, which moves the list's focus tracker with it. */
static void
on_search_entry_activate_cb (SrAppsPage *self)
{
  GListModel *model = G_LIST_MODEL (gtk_grid_view_get_model (self->apps_view));
  g_autoptr(SrAppItem) first = g_list_model_get_item (model, 0);

  if (first == NULL)
    return;
  gtk_widget_activate_action (GTK_WIDGET (self->apps_view), "list.scroll-to-item", "u", 0);
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->apps_view));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *row = gtk_widget_get_first_child (child);

      if (SR_IS_APP_ROW (row) && sr_app_row_get_item (SR_APP_ROW (row)) == first)
        {
          gtk_widget_grab_focus (child);
          return;
        }
    }
  gtk_widget_grab_focus (GTK_WIDGET (self->apps_view));
}

/* Escape clears the search, then leaves it, back to where Ctrl+F came from. */
static void
on_search_entry_stop_search_cb (SrAppsPage *self)
{
  if (*gtk_editable_get_text (GTK_EDITABLE (self->search_entry)) != '\0')
    gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  else
    gtk_widget_activate_action (GTK_WIDGET (self), "win.show-settings", NULL);
}

/* -- What the rows ask for ------------------------------------------------------ */

/* The finish of the call a request made. */
typedef gboolean (*RequestFinish) (SrPolicyClient  *policy,
                                   GAsyncResult    *result,
                                   GError         **error);

typedef struct {
  SrAppsPage *self;      /* (owned) */
  char *app_id;          /* (owned) */
  char *done;            /* (owned) (nullable) the toast once it worked */
  char *failed;          /* (owned) the toast's subject if it failed */
  RequestFinish finish;  /* (nullable): the dialog's request makes no call */
} Request;

static void
request_free (Request *request)
{
  g_object_unref (request->self);
  g_free (request->app_id);
  g_free (request->done);
  g_free (request->failed);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Request, request_free)

/* Takes @done and @failed. */
static Request *
request_new (SrAppsPage    *self,
             const char    *app_id,
             char          *done,
             char          *failed,
             RequestFinish  finish)
{
  Request *request = g_new0 (Request, 1);

  self->order_held = TRUE;
  request->self = g_object_ref (self);
  request->app_id = g_strdup (app_id);
  request->done = done;
  request->failed = failed;
  request->finish = finish;
  return request;
}

/* The report is not shown: the list is read again. */
static gboolean
clear_finish (SrPolicyClient  *policy,
              GAsyncResult    *result,
              GError         **error)
{
  g_autoptr(GVariant) report = sr_policy_client_clear_finish (policy, result, error);

  return report != NULL;
}

static void
on_request_done_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  gboolean done = request->finish (SR_POLICY_CLIENT (source), result, &error);
  SrAppItem *item = sr_app_list_lookup (request->self->apps, request->app_id);

  if (!done)
    {
      sr_toast_report_error (GTK_WIDGET (request->self), request->failed, error);
      /* The switch goes back to what is in force. */
      if (item != NULL)
        sr_app_item_resync (item);
      return;
    }
  if (request->done != NULL)
    sr_toast_show (GTK_WIDGET (request->self), request->done);
  sr_app_list_reload (request->self->apps);
}

static void
on_clear_response_cb (GObject    *dialog,
                      const char *response,
                      gpointer    user_data)
{
  Request *request = g_object_get_data (dialog, "request");
  gboolean turn_off = GPOINTER_TO_INT (g_object_get_data (dialog, "turn-off"));
  SrAppsPage *self = request->self;
  const char *apps[] = { request->app_id, NULL };
  SrPolicyClient *policy = sr_client_peek_policy (self->client);
  SrAppItem *item = sr_app_list_lookup (self->apps, request->app_id);

  if (!g_str_equal (response, "clear"))
    {
      if (item != NULL)
        sr_app_item_resync (item);
      return;
    }
  if (turn_off)
    sr_policy_client_set_app_excluded_async (policy, request->app_id, TRUE,
                                             SR_CALL_FLAGS_ALLOW_INTERACTION, NULL,
                                             on_request_done_cb,
                                             request_new (self, request->app_id,
                                                          g_strdup (request->done),
                                                          g_strdup (request->failed),
                                                          sr_policy_client_set_app_excluded_finish));
  else
    sr_policy_client_clear_async (policy, apps, SR_CALL_FLAGS_ALLOW_INTERACTION, NULL,
                                  on_request_done_cb,
                                  request_new (self, request->app_id, g_strdup (request->done),
                                               g_strdup (request->failed), clear_finish));
}

/* Asks before clearing an app's saved session, naming what goes. */
static void
ask_before_clearing (SrAppsPage *self,
                     SrAppItem  *item,
                     gboolean    turn_off)
{
  SrClearDialog *dialog = sr_clear_dialog_new_for_app (GTK_WIDGET (self), item, turn_off);
  const char *name = sr_app_item_get_name (item);
  /* Translators: %s is an app's name */
  char *failed = turn_off ? g_strdup_printf (_("Could not turn off %s"), name)
  /* Translators: %s is an app's name */
                          : g_strdup_printf (_("Could not clear the saved session of %s"), name);

  /* What went is said when it is known. */
  g_object_set_data_full (G_OBJECT (dialog), "request",
                          request_new (self, sr_app_item_get_app_id (item),
                                       sr_app_item_get_has_state (item)
                                         ? g_strdup_printf (_("Cleared the saved session of %s"), name)
                                         : NULL,
                                       failed, NULL),
                          (GDestroyNotify) request_free);
  g_object_set_data (G_OBJECT (dialog), "turn-off", GINT_TO_POINTER (turn_off));
  g_signal_connect (dialog, "response", G_CALLBACK (on_clear_response_cb), NULL);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
set_excluded (SrAppsPage *self,
              SrAppItem  *item,
              gboolean    excluded)
{
  const char *name = sr_app_item_get_name (item);
  char *failed;

  /* Turning off clears its saved session: that asks first, and so does
   * an app whose saved session is not known (the listing failed). */
  if (excluded && (sr_app_item_get_has_state (item) || !sr_app_item_get_usage_known (item)))
    {
      ask_before_clearing (self, item, TRUE);
      return;
    }
  /* Translators: %s is an app's name */
  failed = excluded ? g_strdup_printf (_("Could not turn off %s"), name)
  /* Translators: %s is an app's name */
                    : g_strdup_printf (_("Could not turn on %s"), name);

  sr_policy_client_set_app_excluded_async (sr_client_peek_policy (self->client),
                                           sr_app_item_get_app_id (item), excluded,
                                           SR_CALL_FLAGS_ALLOW_INTERACTION, NULL,
                                           on_request_done_cb,
                                           request_new (self, sr_app_item_get_app_id (item), NULL,
                                                        failed,
                                                        sr_policy_client_set_app_excluded_finish));
}

static void
set_excluded_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  SrAppsPage *self = SR_APPS_PAGE (widget);
  const char *app_id;
  gboolean excluded;
  SrAppItem *item;

  g_variant_get (parameter, "(&sb)", &app_id, &excluded);
  if ((item = sr_app_list_lookup (self->apps, app_id)) != NULL)
    set_excluded (self, item, excluded);
}

static void
forget_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SrAppsPage *self = SR_APPS_PAGE (widget);
  SrAppItem *item = sr_app_list_lookup (self->apps, g_variant_get_string (parameter, NULL));

  if (item != NULL)
    ask_before_clearing (self, item, FALSE);
}

static void
reset_crash_guard_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  SrAppsPage *self = SR_APPS_PAGE (widget);
  const char *app_id = g_variant_get_string (parameter, NULL);
  g_autofree char *name = sr_app_list_dup_name (self->apps, app_id);
  /* Translators: %s is an app's name */
  char *done = g_strdup_printf (_("%s may restore after a crash"), name);
  /* Translators: %s is an app's name */
  char *failed = g_strdup_printf (_("Could not allow recovery of %s"), name);

  sr_policy_client_reset_crash_guard_async (sr_client_peek_policy (self->client), app_id,
                                            SR_CALL_FLAGS_ALLOW_INTERACTION, NULL,
                                            on_request_done_cb,
                                            request_new (self, app_id, done, failed,
                                                         sr_policy_client_reset_crash_guard_finish));
}

static void
reload_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  sr_app_list_reload (SR_APPS_PAGE (widget)->apps);
}

/* Space or Enter on a row flips its switch. */
static void
on_apps_view_activate_cb (SrAppsPage *self,
                          guint       position)
{
  GListModel *model = G_LIST_MODEL (gtk_grid_view_get_model (self->apps_view));
  g_autoptr(SrAppItem) item = g_list_model_get_item (model, position);

  if (item == NULL || sr_app_item_get_admin_excluded (item) || sr_app_item_get_locked (item))
    return;
  set_excluded (self, item, !sr_app_item_get_excluded (item));
}

/* GTK 4.8's list rows take Enter but not Space: Space on a focused row
 * flips its switch, as on any other row with a switch. */
static gboolean
on_apps_view_key_pressed_cb (SrAppsPage      *self,
                             guint            keyval,
                             guint            keycode,
                             GdkModifierType  state)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (GTK_WIDGET (self)));
  GtkWidget *row = focus != NULL ? gtk_widget_get_first_child (focus) : NULL;
  SrAppItem *item;

  if ((keyval != GDK_KEY_space && keyval != GDK_KEY_KP_Space) || !SR_IS_APP_ROW (row) ||
      (item = sr_app_row_get_item (SR_APP_ROW (row))) == NULL)
    return FALSE;
  if (!sr_app_item_get_admin_excluded (item) && !sr_app_item_get_locked (item))
    set_excluded (self, item, !sr_app_item_get_excluded (item));
  return TRUE;
}

/* -- The page ----------------------------------------------------------------------- */

static void
sr_apps_page_dispose (GObject *object)
{
  SrAppsPage *self = SR_APPS_PAGE (object);

  g_clear_object (&self->client);
  g_clear_object (&self->apps);
  gtk_widget_dispose_template (GTK_WIDGET (self), SR_TYPE_APPS_PAGE);
  G_OBJECT_CLASS (sr_apps_page_parent_class)->dispose (object);
}

static void
sr_apps_page_class_init (SrAppsPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = sr_apps_page_dispose;
  g_type_ensure (SR_TYPE_APP_ITEM);
  g_type_ensure (SR_TYPE_APP_ROW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/gnome/SessionRestore/sr-apps-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, stack);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, apps_view);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, filtered);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, filter);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, search_filter);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, sorter);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, sorted);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, failed_notice);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, failed_label);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, off_page);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, turn_on_button);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, incomplete_notice);
  gtk_widget_class_bind_template_child (widget_class, SrAppsPage, locked_notice);
  gtk_widget_class_bind_template_callback (widget_class, on_search_entry_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_entry_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_search_entry_stop_search_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_filtered_items_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_apps_view_activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_apps_view_key_pressed_cb);

  gtk_widget_class_install_action (widget_class, "apps.set-excluded", "(sb)", set_excluded_action);
  gtk_widget_class_install_action (widget_class, "apps.forget", "s", forget_action);
  gtk_widget_class_install_action (widget_class, "apps.reset-crash-guard", "s",
                                   reset_crash_guard_action);
  gtk_widget_class_install_action (widget_class, "apps.reload", NULL, reload_action);
}

static void
sr_apps_page_init (SrAppsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

void
sr_apps_page_set_context (SrAppsPage *self,
                          SrClient   *client,
                          SrAppList  *apps)
{
  g_set_object (&self->client, client);
  g_set_object (&self->apps, apps);
  gtk_filter_list_model_set_model (self->filtered, G_LIST_MODEL (apps));
  g_signal_connect_object (apps, "listed", G_CALLBACK (on_listed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (client, "changed", G_CALLBACK (on_client_changed_cb), self, G_CONNECT_SWAPPED);
  update_page (self);
}

/* The page is shown anew: the search takes the keyboard, and the list is
 * sorted afresh at its next listing. */
void
sr_apps_page_shown (SrAppsPage *self)
{
  self->order_held = FALSE;
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}
