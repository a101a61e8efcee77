/* sr-polkit.c: asks polkit
 *
 * The subject is the calling process (pid, start time and uid), not its
 * bus name: bus names on the session bus mean nothing to polkitd, which
 * lives on the system bus. polkit is reached lazily, on the first change a
 * caller asks for; checks and exit reports never come here.
 *
 * polkitd is asked over D-Bus (org.freedesktop.PolicyKit1.Authority
 * CheckAuthorization), as systemd does, rather than through
 * libpolkit-gobject: the library and what it links (libsystemd, libgcrypt,
 * compression libraries) cost policyd about 0.9 MiB of resident memory and
 * start-up time for one method call that most sessions never make.
 *
 * Every failure to get an answer is a refusal: Unavailable when polkitd
 * cannot be reached or does not answer by the caller's deadline (a fault,
 * which the panel words differently), and NotAllowed when it said no.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-polkit"

#include "config.h"

#include "sr-polkit.h"
#include "sr-polkit-call.h"
#include "sr-error.h"


struct _SrPolkit {
  GObject parent_instance;

  GDBusConnection *system_bus;  /* (owned) (nullable): until first needed */
};

G_DEFINE_FINAL_TYPE (SrPolkit, sr_polkit, G_TYPE_OBJECT)

typedef struct {
  GVariant *subject;            /* (owned) */
  char *action_id;              /* (owned) */
  gboolean interactive;
  gint64 deadline;              /* monotonic µs: no answer after it counts */
} CheckData;

static void
check_data_free (CheckData *data)
{
  g_variant_unref (data->subject);
  g_free (data->action_id);
  g_free (data);
}

static void
sr_polkit_finalize (GObject *object)
{
  SrPolkit *self = SR_POLKIT (object);

  g_clear_object (&self->system_bus);
  G_OBJECT_CLASS (sr_polkit_parent_class)->finalize (object);
}

static void
sr_polkit_class_init (SrPolkitClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sr_polkit_finalize;
}

static void
sr_polkit_init (SrPolkit *self)
{
}

SrPolkit *
sr_polkit_new (void)
{
  return g_object_new (SR_TYPE_POLKIT, NULL);
}

static void
on_check_ready_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CheckData *data = g_task_get_task_data (task);
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  gboolean authorized, challenge;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    {
      g_autofree char *remote = g_dbus_error_get_remote_error (error);
      /* polkitd answered with an error of its own (it refuses to judge
       * this subject): a refusal. Anything else (no polkitd, no answer in
       * time, a lost bus) is a fault. */
      SrError code = remote != NULL && g_str_has_prefix (remote, SR_POLKIT_NAME ".Error.") ?
                     SR_ERROR_NOT_ALLOWED : SR_ERROR_UNAVAILABLE;

      g_dbus_error_strip_remote_error (error);
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
        g_task_return_new_error (task, SR_ERROR, SR_ERROR_UNAVAILABLE,
                                 "polkit did not answer in time about %s; nothing was changed",
                                 data->action_id);
      else
        g_task_return_new_error (task, SR_ERROR, code,
                                 "Could not ask polkit about %s: %s",
                                 data->action_id, error->message);
      return;
    }

  /* GDBus's timeout is the bound, but this callback may run late on a
   * busy main loop: an answer seen after the deadline is not acted on. */
  if (g_get_monotonic_time () > data->deadline)
    {
      g_task_return_new_error (task, SR_ERROR, SR_ERROR_UNAVAILABLE,
                               "polkit answered too late about %s; nothing was changed",
                               data->action_id);
      return;
    }

  /* polkitd answers (is_authorized, is_challenge, details). Say why in
   * words: the action id alone tells a user nothing. What session the
   * caller is in is polkit's to judge (without logind it sees none, and
   * applies allow_any); the refusal says that it decides by session. */
  g_variant_get (reply, "((bb@a{ss}))", &authorized, &challenge, NULL);
  if (authorized)
    g_task_return_boolean (task, TRUE);
  else if (challenge)
    g_task_return_new_error (task, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                             data->interactive ?
                             "Not allowed without authentication (%s): the system's polkit "
                             "rules require it, and no authentication agent asked for it" :
                             "Not allowed without authentication (%s): the system's polkit "
                             "rules require it, and the call does not allow interaction",
                             data->action_id);
  else
    g_task_return_new_error (task, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                             "Not allowed by the system's polkit rules (%s); polkit decides "
                             "by the caller's session: outside an active local one (SSH, cron, "
                             "a timer) its allow_any or allow_inactive rule applies",
                             data->action_id);
}

static void
start_check (SrPolkit *self,
             GTask       *task)
{
  CheckData *data = g_task_get_task_data (task);

  g_dbus_connection_call (self->system_bus, SR_POLKIT_NAME, SR_POLKIT_PATH, SR_POLKIT_INTERFACE,
                          "CheckAuthorization",
                          sr_polkit_check_parameters (data->subject, data->action_id,
                                                      data->interactive ? SR_POLKIT_ALLOW_USER_INTERACTION : 0),
                          G_VARIANT_TYPE ("((bba{ss}))"),
                          G_DBUS_CALL_FLAGS_NONE,
                          (int) CLAMP ((data->deadline - g_get_monotonic_time ()) / 1000,
                                       1, G_MAXINT),
                          NULL, on_check_ready_cb, task);
}

static void
on_system_bus_ready_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SrPolkit *self = g_object_get_data (G_OBJECT (task), "sr-polkit");
  g_autoptr(GError) error = NULL;
  GDBusConnection *bus = g_dbus_connection_new_for_address_finish (result, &error);

  if (bus == NULL)
    {
      g_task_return_new_error (task, SR_ERROR, SR_ERROR_UNAVAILABLE,
                               "Could not reach polkit: %s", error->message);
      return;
    }

  /* Two first checks may race here; keep one connection. */
  if (self->system_bus == NULL || g_dbus_connection_is_closed (self->system_bus))
    g_set_object (&self->system_bus, bus);
  g_object_unref (bus);
  start_check (self, g_steal_pointer (&task));
}

/* @deadline: monotonic µs; an answer that is not in by then is
 * Unavailable. */
void
sr_polkit_check_async (SrPolkit         *self,
                          const SrCaller      *caller,
                          const char          *action_id,
                          gboolean             interactive,
                          gint64               deadline,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);
  CheckData *data = g_new0 (CheckData, 1);

  data->subject = g_variant_ref_sink (sr_polkit_unix_process (caller->pid, caller->start_time,
                                                              (guint32) caller->uid));
  data->action_id = g_strdup (action_id);
  data->interactive = interactive;
  data->deadline = deadline;
  g_task_set_task_data (task, data, (GDestroyNotify) check_data_free);
  g_task_set_source_tag (task, sr_polkit_check_async);
  g_object_set_data (G_OBJECT (task), "sr-polkit", self);

  /* A closed connection is replaced on the next check. */
  if (self->system_bus == NULL || g_dbus_connection_is_closed (self->system_bus))
    {
      g_autoptr(GError) error = NULL;

      if (!sr_polkit_connect_async (NULL, on_system_bus_ready_cb, task, &error))
        {
          g_task_return_new_error (task, SR_ERROR, SR_ERROR_UNAVAILABLE,
                                   "Could not reach polkit: %s", error->message);
          g_object_unref (task);
        }
    }
  else
    start_check (self, task);
}

gboolean
sr_polkit_check_finish (SrPolkit   *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sr_polkit_check_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
