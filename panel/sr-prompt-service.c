/* sr-prompt-service.c: org.gnome.SessionRestore.Prompt, for policyd
 *
 * policyd asks the user whether to reopen the apps of the last session
 * through this interface, on the panel's D-Bus-activatable name
 * org.gnome.SessionRestore (session-restore-panel --gapplication-service):
 *
 *   Ask (a(sa{sv}) apps) → (b restore, as declined_apps, b remember)
 *     Shows "Restore Apps From Your Last Session?" with @apps (app id,
 *     and "windows" (u) if known) and replies once the user has answered:
 *     @restore false for Don't Restore (or the window closed),
 *     @declined_apps the apps unticked, @remember whether the user asked
 *     to remember (the prompt then sets login-restore to "always" or
 *     "never" through policyd itself, after replying). A reply can take
 *     minutes: call it without a timeout. An Ask while one is open shows
 *     the same window, and gets the same answer.
 *   Close ()
 *     Closes the window, if one is open; a pending Ask is answered as
 *     Don't Restore.
 *
 * The application is held while a prompt is open, and a little longer
 * while the choice is remembered.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include "sr-bus.h"
#include "sr-prompt-service.h"
#include "sr-prompt-window.h"

#define PROMPT_OBJECT_PATH "/org/gnome/SessionRestore/Prompt"

static const char prompt_xml[] =
  "<node>"
  "  <interface name='org.gnome.SessionRestore.Prompt'>"
  "    <method name='Ask'>"
  "      <arg name='apps' type='a(sa{sv})' direction='in'/>"
  "      <arg name='restore' type='b' direction='out'/>"
  "      <arg name='declined_apps' type='as' direction='out'/>"
  "      <arg name='remember' type='b' direction='out'/>"
  "    </method>"
  "    <method name='Close'/>"
  "  </interface>"
  "</node>";

typedef struct {
  GtkApplication *app;          /* (unowned): owns this */
  GDBusConnection *connection;  /* (owned) */
  guint registration_id;
  GtkWindow *window;            /* (unowned) (nullable): while open */
  GPtrArray *pending;           /* (owned) GDBusMethodInvocation, waiting */
  GVariant *apps;               /* (owned) (nullable): of the first Ask */
} Service;

static void on_answered (gboolean restore, const char * const *declined, gboolean remember,
                         gpointer user_data);

static void
service_free (Service *self)
{
  /* Whoever waits is answered (Don't Restore) while we still can. */
  if (self->window != NULL)
    sr_prompt_window_dismiss (self->window);
  if (self->registration_id != 0)
    g_dbus_connection_unregister_object (self->connection, self->registration_id);
  g_clear_pointer (&self->apps, g_variant_unref);
  g_ptr_array_unref (self->pending);
  g_object_unref (self->connection);
  g_free (self);
}

static void
on_remembered_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GApplication *app = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                             result, &error);

  if (reply == NULL)
    g_warning ("Could not remember the choice: %s", error->message);
  g_application_release (app);
  g_object_unref (app);
}

static void
on_answered (gboolean            restore,
             const char * const *declined,
             gboolean            remember,
             gpointer            user_data)
{
  Service *self = user_data;
  g_autoptr(GPtrArray) pending = g_steal_pointer (&self->pending);

  self->pending = g_ptr_array_new_with_free_func (g_object_unref);
  self->window = NULL;
  g_clear_pointer (&self->apps, g_variant_unref);
  for (guint i = 0; i < pending->len; i++)
    g_dbus_method_invocation_return_value (g_object_ref (pending->pdata[i]),
                                           g_variant_new ("(b^asb)", restore, declined, remember));

  if (remember)
    {
      g_application_hold (G_APPLICATION (self->app));
      g_dbus_connection_call (self->connection, SR_BUS_NAME, SR_OBJECT_PATH, SR_INTERFACE_NAME,
                              "SetSetting",
                              g_variant_new ("(sv)", "login-restore",
                                             g_variant_new_string (restore ? "always" : "never")),
                              NULL, G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                              G_MAXINT, NULL, on_remembered_cb, g_object_ref (self->app));
    }
  g_application_release (G_APPLICATION (self->app));
}

typedef struct {
  Service *service;
  GtkApplication *app;   /* (owned): keeps the service alive */
} LockQuery;

static void
show (Service  *self,
      gboolean  can_remember)
{
  self->window = sr_prompt_window_new (self->app, self->apps, can_remember, on_answered, self);
  gtk_window_present (self->window);
}

/* Whether login-restore is locked: then "Remember my choice" is hidden.
 * Unknown (policyd does not answer the property) counts as locked. */
static void
on_locked_settings_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  LockQuery *query = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                             result, &error);
  g_autoptr(GVariant) value = NULL;
  g_autofree const char **locked = NULL;
  gboolean can_remember = FALSE;

  if (reply != NULL)
    {
      g_variant_get (reply, "(v)", &value);
      if (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
        {
          locked = g_variant_get_strv (value, NULL);
          can_remember = !g_strv_contains (locked, "login-restore");
        }
    }
  else
    g_message ("Could not read the locked settings: %s", error->message);

  if (query->service->window == NULL && query->service->pending->len > 0)
    show (query->service, can_remember);
  g_object_unref (query->app);
  g_free (query);
}

static void
on_method_call (GDBusConnection       *connection,
                const char            *sender,
                const char            *object_path,
                const char            *interface_name,
                const char            *method_name,
                GVariant              *parameters,
                GDBusMethodInvocation *invocation,
                gpointer               user_data)
{
  Service *self = user_data;
  LockQuery *query;

  if (g_str_equal (method_name, "Close"))
    {
      const char *none[] = { NULL };

      if (self->window != NULL)
        sr_prompt_window_dismiss (self->window);
      else if (self->pending->len > 0)
        on_answered (FALSE, none, FALSE, self);   /* not shown yet: never will be */
      g_dbus_method_invocation_return_value (invocation, NULL);
      return;
    }

  /* Ask. The reply comes from on_answered(); the invocation is ours. */
  g_ptr_array_add (self->pending, invocation);
  if (self->pending->len > 1)
    {
      if (self->window != NULL)
        gtk_window_present (self->window);
      return;
    }
  g_application_hold (G_APPLICATION (self->app));
  self->apps = g_variant_get_child_value (parameters, 0);

  query = g_new0 (LockQuery, 1);
  query->service = self;
  query->app = g_object_ref (self->app);
  g_dbus_connection_call (connection, SR_BUS_NAME, SR_OBJECT_PATH,
                          "org.freedesktop.DBus.Properties", "Get",
                          g_variant_new ("(ss)", SR_INTERFACE_NAME, "LockedSettings"),
                          G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NONE, 5000, NULL,
                          on_locked_settings_cb, query);
}

static const GDBusInterfaceVTable vtable = {
  .method_call = on_method_call,
};

gboolean
sr_prompt_service_register (GtkApplication   *app,
                            GDBusConnection  *connection,
                            GError          **error)
{
  g_autoptr(GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (prompt_xml, error);
  Service *self;

  if (info == NULL)
    return FALSE;
  self = g_new0 (Service, 1);
  self->app = app;
  self->connection = g_object_ref (connection);
  self->pending = g_ptr_array_new_with_free_func (g_object_unref);
  self->registration_id = g_dbus_connection_register_object (connection, PROMPT_OBJECT_PATH,
                                                             info->interfaces[0], &vtable,
                                                             self, NULL, error);
  if (self->registration_id == 0)
    {
      service_free (self);
      return FALSE;
    }
  g_object_set_data_full (G_OBJECT (app), "sr-prompt-service", self,
                          (GDestroyNotify) service_free);
  return TRUE;
}

void
sr_prompt_service_unregister (GtkApplication *app)
{
  g_object_set_data (G_OBJECT (app), "sr-prompt-service", NULL);
}
