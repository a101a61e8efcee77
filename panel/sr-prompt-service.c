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
 *     @declined_apps the apps unchecked, @remember whether the user asked
 *     to remember (the prompt then sets login-restore to "always" or
 *     "never" through policyd itself, after replying). A reply can take
 *     minutes: call it without a timeout. One Ask at a time: another
 *     while one is open fails (Failed), and shows nothing.
 *   Close ()
 *     Closes the window, if one is open; a pending Ask is answered as
 *     Don't Restore.
 *
 * Only policyd may call them: the caller must be the connection that owns
 * org.gnome.SessionRestore.Policy now, a host process of this user
 * running the installed session-restore-policyd (sr-peer.c;
 * SR_POLICYD_EXECUTABLE names another program, for uninstalled builds
 * and tests). Anyone else could otherwise show the user a list of its own
 * while policyd's apps were allowed unseen, or answer "declined" for the
 * user with a Close; it gets NotAllowed, and nothing changes. Calls are
 * verified on a worker thread, one after the other, and handled in the
 * order they came: a Close right behind an Ask closes that Ask's window.
 *
 * The application is held while a prompt is open, and a little longer
 * while the choice is remembered.
 *
 * Its two calls back (LockedSettings, and SetSetting to remember) go to
 * the policyd that asked, not through libsessionrestore as the panel's
 * do: that caller is verified already, more strictly than the library
 * verifies an owner (as the installed policyd's executable, not only as
 * a host process of this user), and policyd's login waits while the
 * prompt comes up: a library client would find and verify the owner again
 * and read every property first. They answer to the program the user
 * answers, too, even should the name change hands meanwhile.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include "sr-bus.h"
#include "sr-error.h"
#include "sr-peer.h"
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
  GtkApplication *app;            /* (unowned): owns this */
  GDBusConnection *connection;    /* (owned) */
  guint registration_id;
  GCancellable *cancellable;      /* (owned): cancelled as the service goes */
  GQueue incoming;                /* (owned) GDBusMethodInvocation, in the order
                                   * they came; the head is being verified */
  GDBusMethodInvocation *asking;  /* (owned) (nullable): the Ask being answered */
  char *asker;                    /* (owned) (nullable): its sender, policyd */
  GVariant *apps;                 /* (owned) (nullable): its apps */
  GtkWindow *window;              /* (unowned) (nullable): while shown */
} Service;

static void on_answered (gboolean restore, const char * const *declined, gboolean remember,
                         gpointer user_data);

static void
service_free (Service *self)
{
  const char *none[] = { NULL };
  GDBusMethodInvocation *invocation;

  g_cancellable_cancel (self->cancellable);
  /* Whoever waits is answered (Don't Restore) while we still can. */
  if (self->window != NULL)
    sr_prompt_window_dismiss (self->window);
  else if (self->asking != NULL)
    on_answered (FALSE, none, FALSE, self);
  while ((invocation = g_queue_pop_head (&self->incoming)) != NULL)
    g_dbus_method_invocation_return_error_literal (invocation, SR_ERROR, SR_ERROR_FAILED,
                                                   "The prompt is going away");
  if (self->registration_id != 0)
    g_dbus_connection_unregister_object (self->connection, self->registration_id);
  g_object_unref (self->cancellable);
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
  g_autofree char *asker = g_steal_pointer (&self->asker);

  self->window = NULL;
  g_clear_pointer (&self->apps, g_variant_unref);
  g_dbus_method_invocation_return_value (g_steal_pointer (&self->asking),
                                         g_variant_new ("(b^asb)", restore, declined, remember));

  /* Through the policyd that asked, as it is the one verified. */
  if (remember)
    {
      g_application_hold (G_APPLICATION (self->app));
      g_dbus_connection_call (self->connection, asker, SR_OBJECT_PATH, SR_INTERFACE_NAME,
                              "SetSetting",
                              g_variant_new ("(sv)", "login-restore",
                                             g_variant_new_string (restore ? "always" : "never")),
                              NULL, G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION,
                              G_MAXINT, NULL, on_remembered_cb, g_object_ref (self->app));
    }
  g_application_release (G_APPLICATION (self->app));
}

/* Whether login-restore is locked: then "Remember my choice" is hidden.
 * Unknown (policyd does not answer the property) counts as locked. */
static void
on_locked_settings_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  Service *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                             result, &error);
  g_autoptr(GVariant) value = NULL;
  g_autofree const char **locked = NULL;
  gboolean can_remember = FALSE;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
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

  /* Closed meanwhile: never shown. */
  if (self->asking == NULL || self->window != NULL)
    return;
  self->window = sr_prompt_window_new (self->app, self->apps, can_remember, on_answered, self);
  gtk_window_present (self->window);
}

static void
handle_ask (Service               *self,
            GDBusMethodInvocation *invocation)
{
  if (self->asking != NULL)
    {
      g_dbus_method_invocation_return_error_literal (invocation, SR_ERROR, SR_ERROR_FAILED,
                                                     "A prompt is open already");
      return;
    }
  g_application_hold (G_APPLICATION (self->app));
  self->asking = invocation;
  self->asker = g_strdup (g_dbus_method_invocation_get_sender (invocation));
  self->apps = g_variant_get_child_value (g_dbus_method_invocation_get_parameters (invocation), 0);
  g_dbus_connection_call (self->connection, self->asker, SR_OBJECT_PATH,
                          "org.freedesktop.DBus.Properties", "Get",
                          g_variant_new ("(ss)", SR_INTERFACE_NAME, "LockedSettings"),
                          G_VARIANT_TYPE ("(v)"), G_DBUS_CALL_FLAGS_NO_AUTO_START, 5000,
                          self->cancellable, on_locked_settings_cb, self);
}

static void
handle_close (Service               *self,
              GDBusMethodInvocation *invocation)
{
  const char *none[] = { NULL };

  if (self->window != NULL)
    sr_prompt_window_dismiss (self->window);
  else if (self->asking != NULL)
    on_answered (FALSE, none, FALSE, self);   /* not shown yet: never will be */
  g_dbus_method_invocation_return_value (invocation, NULL);
}

static void verify_next (Service *self);

static void
on_verified_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Service *self = user_data;
  g_autoptr(GError) error = NULL;
  GDBusMethodInvocation *invocation;

  /* Cancelled: the service has gone, and answered the call. */
  if (!sr_peer_verify_owner_finish (result, &error) &&
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  invocation = g_queue_pop_head (&self->incoming);
  if (error != NULL)
    {
      g_message ("Refused %s from %s: %s", g_dbus_method_invocation_get_method_name (invocation),
                 g_dbus_method_invocation_get_sender (invocation), error->message);
      g_dbus_method_invocation_return_error (invocation, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                                             "Only the Session Restore service (%s) may use the "
                                             "login prompt, and this caller is not it: %s",
                                             SR_BUS_NAME, error->message);
    }
  else if (g_str_equal (g_dbus_method_invocation_get_method_name (invocation), "Ask"))
    handle_ask (self, invocation);
  else
    handle_close (self, invocation);
  verify_next (self);
}

static void
verify_next (Service *self)
{
  GDBusMethodInvocation *invocation = g_queue_peek_head (&self->incoming);

  if (invocation == NULL)
    return;
  sr_peer_verify_owner_async (self->connection, SR_BUS_NAME,
                              g_dbus_method_invocation_get_sender (invocation),
                              sr_peer_expected_executable ("SR_POLICYD_EXECUTABLE",
                                                           SR_POLICYD_EXECUTABLE),
                              self->cancellable, on_verified_cb, self);
}

/* The invocation is ours until it is answered. */
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

  g_queue_push_tail (&self->incoming, invocation);
  if (self->incoming.length == 1)
    verify_next (self);
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
  self->cancellable = g_cancellable_new ();
  g_queue_init (&self->incoming);
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
