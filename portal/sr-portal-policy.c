/* sr-portal-policy.c: policyd, through libsessionrestore's SrPolicyClient
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-policy"

#include "config.h"

#include <session-restore.h>

#include "sr-portal-policy.h"

#define POLICY_PATH "/org/gnome/SessionRestore/Policy"
#define POLICY_INTERFACE "org.gnome.SessionRestore.Policy"

struct _SrPortalPolicy {
  SrPolicyClient *client;        /* (owned) */
};

SrPortalPolicy *
sr_portal_policy_new (GDBusConnection  *bus,
                      GError          **error)
{
  g_autoptr(SrPolicyClient) client = sr_policy_client_new_for_bus_sync (bus, SR_POLICY_CLIENT_FLAGS_NONE,
                                                                        NULL, error);
  SrPortalPolicy *self;

  if (client == NULL)
    return NULL;
  self = g_new0 (SrPortalPolicy, 1);
  self->client = g_steal_pointer (&client);
  return self;
}

void
sr_portal_policy_free (SrPortalPolicy *self)
{
  g_clear_object (&self->client);
  g_free (self);
}

/* StoredStateCleared is taken as GDBus's worker thread reads it (the
 * filter, sr-portal-session.c), not from SrPolicyClient's signal, which
 * comes later in the main loop: a reply to Register read after the signal
 * is then handled after the clear, as policyd sent them. */
gboolean
sr_portal_policy_looks_cleared (GDBusMessage *message)
{
  return g_dbus_message_get_message_type (message) == G_DBUS_MESSAGE_TYPE_SIGNAL &&
         g_strcmp0 (g_dbus_message_get_member (message), "StoredStateCleared") == 0 &&
         g_strcmp0 (g_dbus_message_get_interface (message), POLICY_INTERFACE) == 0 &&
         g_strcmp0 (g_dbus_message_get_path (message), POLICY_PATH) == 0;
}

/* With SrPortal.lock held, so that the client's idea of the owner holds
 * still (it changes in the main loop). Believed only from policyd, as the
 * client believes it. */
char **
sr_portal_policy_cleared_apps (SrPortalPolicy *self,
                               GDBusMessage   *message)
{
  GVariant *body = g_dbus_message_get_body (message);
  char **app_ids = NULL;

  if (sr_policy_client_get_service_state (self->client) != SR_SERVICE_STATE_RUNNING ||
      g_strcmp0 (g_dbus_message_get_sender (message),
                 sr_policy_client_get_service_owner (self->client)) != 0 ||
      body == NULL || !g_variant_is_of_type (body, G_VARIANT_TYPE ("(as)")))
    return NULL;
  g_variant_get (body, "(^as)", &app_ids);
  return app_ids;
}

static gboolean
return_allowed (gpointer user_data)
{
  GTask *task = user_data;

  g_task_return_boolean (task, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "allowed")));
  return G_SOURCE_REMOVE;
}

/* Asked from GDBus's worker thread (Register), the answer comes back
 * there from inside GDBus's delivery of the reply, with the connection's
 * lock held: a reply sent from there would deadlock. So the answer is
 * returned from an idle of the asking thread's context, which costs no
 * hand-over to another thread. */
static void
checked (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  GTask *task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSource) idle = g_idle_source_new ();
  SrWhy why = SR_WHY_UNKNOWN;
  SrVerdict verdict = sr_policy_client_check_restore_finish (SR_POLICY_CLIENT (source), result,
                                                             &why, &error);

  /* Without an answer nothing is restored: the settings may say no. */
  g_task_set_task_data (task, g_strdup (error != NULL ? error->message : sr_why_to_string (why)),
                        g_free);
  g_object_set_data (G_OBJECT (task), "allowed",
                     GINT_TO_POINTER (error == NULL && verdict == SR_VERDICT_ALLOW));
  g_source_set_priority (idle, G_PRIORITY_DEFAULT);
  g_source_set_callback (idle, return_allowed, task, g_object_unref);
  g_source_attach (idle, g_task_get_context (task));
}

void
sr_portal_policy_check_async (SrPortalPolicy      *self,
                              const char          *app_id,
                              SrRestoreReason      reason,
                              gint64               saved_at,
                              gboolean             interactive,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);

  g_task_set_source_tag (task, sr_portal_policy_check_async);
  sr_policy_client_check_restore_async (self->client, app_id, reason, saved_at,
                                        interactive ? SR_CALL_FLAGS_ALLOW_INTERACTION : SR_CALL_FLAGS_NONE,
                                        NULL, checked, task);
}

gboolean
sr_portal_policy_check_finish (SrPortalPolicy  *self,
                               GAsyncResult    *result,
                               char           **out_why)
{
  *out_why = g_strdup (g_task_get_task_data (G_TASK (result)));
  return g_task_propagate_boolean (G_TASK (result), NULL);
}

static void
noted (GObject      *source,
       GAsyncResult *result,
       gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!sr_policy_client_note_exit_finish (SR_POLICY_CLIENT (source), result, &error))
    g_warning ("Could not tell policyd of an exit: %s", error->message);
}

/* Sent without waiting: Close2 is answered at once. */
void
sr_portal_policy_note_exit (SrPortalPolicy *self,
                            const char     *app_id,
                            gboolean        voluntary)
{
  sr_policy_client_note_exit_async (self->client, app_id, voluntary, NULL, noted, NULL);
}
