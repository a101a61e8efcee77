/* sr-portal-policy-gdbus.c: policyd over plain GDBus, until
 * libsessionrestore lands
 *
 * A stand-in for sr-portal-policy.c with the same functions, built only
 * when the tree has no libsessionrestore (portal/meson.build): the merge
 * with the library removes it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-policy"

#include "config.h"

#include "sr-portal-policy.h"

#define POLICY_NAME "org.gnome.SessionRestore.Policy"
#define POLICY_PATH "/org/gnome/SessionRestore/Policy"
#define POLICY_IFACE "org.gnome.SessionRestore.Policy"

struct _SrPortalPolicy {
  GDBusConnection *bus;          /* (owned) */
  SrPortalClearedFunc cleared;
  gpointer cleared_data;
  guint subscription;
};

static void
on_cleared (GDBusConnection *connection,
            const char      *sender,
            const char      *path,
            const char      *interface,
            const char      *signal,
            GVariant        *parameters,
            gpointer         user_data)
{
  SrPortalPolicy *self = user_data;
  g_autofree const char **app_ids = NULL;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(as)")))
    return;
  g_variant_get (parameters, "(^a&s)", &app_ids);
  self->cleared (app_ids, self->cleared_data);
}

SrPortalPolicy *
sr_portal_policy_new (GDBusConnection      *bus,
                      SrPortalClearedFunc   cleared,
                      gpointer              user_data,
                      GError              **error)
{
  SrPortalPolicy *self = g_new0 (SrPortalPolicy, 1);

  self->bus = g_object_ref (bus);
  self->cleared = cleared;
  self->cleared_data = user_data;
  self->subscription = g_dbus_connection_signal_subscribe (bus, POLICY_NAME, POLICY_IFACE,
                                                           "StoredStateCleared", POLICY_PATH, NULL,
                                                           G_DBUS_SIGNAL_FLAGS_NONE,
                                                           on_cleared, self, NULL);
  return self;
}

void
sr_portal_policy_free (SrPortalPolicy *self)
{
  g_dbus_connection_signal_unsubscribe (self->bus, self->subscription);
  g_clear_object (&self->bus);
  g_free (self);
}

static void
checked (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  guint32 verdict = 0;
  const char *why = NULL;

  if (reply == NULL)
    {
      g_task_set_task_data (task, g_strdup (error->message), g_free);
      g_task_return_boolean (task, FALSE);
      return;
    }
  g_variant_get (reply, "(u&s)", &verdict, &why);
  g_task_set_task_data (task, g_strdup (why), g_free);
  g_task_return_boolean (task, verdict == 1);
}

void
sr_portal_policy_check_async (SrPortalPolicy      *self,
                              const char          *app_id,
                              SrPortalReason       reason,
                              gint64               saved_at,
                              gboolean             interactive,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  GVariantBuilder options;

  g_variant_builder_init (&options, G_VARIANT_TYPE_VARDICT);
  if (saved_at != 0)
    g_variant_builder_add (&options, "{sv}", "saved-at", g_variant_new_int64 (saved_at));
  if (interactive)
    g_variant_builder_add (&options, "{sv}", "interactive", g_variant_new_boolean (TRUE));
  g_dbus_connection_call (self->bus, POLICY_NAME, POLICY_PATH, POLICY_IFACE, "CheckRestore",
                          g_variant_new ("(su@a{sv})", app_id, (guint32) reason,
                                         g_variant_builder_end (&options)),
                          G_VARIANT_TYPE ("(us)"),
                          interactive ? G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION
                                      : G_DBUS_CALL_FLAGS_NONE,
                          interactive ? G_MAXINT : -1, NULL, checked, task);
}

gboolean
sr_portal_policy_check_finish (SrPortalPolicy  *self,
                               GAsyncResult    *result,
                               char           **out_why)
{
  *out_why = g_strdup (g_task_get_task_data (G_TASK (result)));
  return g_task_propagate_boolean (G_TASK (result), NULL);
}

void
sr_portal_policy_note_exit (SrPortalPolicy *self,
                            const char     *app_id,
                            gboolean        voluntary)
{
  g_dbus_connection_call (self->bus, POLICY_NAME, POLICY_PATH, POLICY_IFACE, "NoteExit",
                          g_variant_new ("(sb)", app_id, voluntary), NULL,
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
}
