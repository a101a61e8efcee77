/* sr-authority.c: asks polkit
 *
 * The subject is the calling process (pid, start time and uid), not its
 * bus name: bus names on the session bus mean nothing to polkitd, which
 * lives on the system bus. polkit is reached lazily, on the first change a
 * caller asks for; checks and exit reports never come here.
 *
 * Every failure to get an answer is a refusal.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-authority"

#define POLKIT_I_KNOW_API_IS_SUBJECT_TO_CHANGE
#include "config.h"

#include <polkit/polkit.h>

#include "sr-authority.h"
#include "sr-error.h"

struct _SrAuthority {
  PolkitAuthority *authority;   /* (owned) (nullable): until first needed */
};

typedef struct {
  PolkitSubject *subject;       /* (owned) */
  char *action_id;              /* (owned) */
  gboolean interactive;
} CheckData;

static void
check_data_free (CheckData *data)
{
  g_object_unref (data->subject);
  g_free (data->action_id);
  g_free (data);
}

SrAuthority *
sr_authority_new (void)
{
  return g_new0 (SrAuthority, 1);
}

void
sr_authority_free (SrAuthority *self)
{
  g_clear_object (&self->authority);
  g_free (self);
}

static void
on_check_ready_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CheckData *data = g_task_get_task_data (task);
  g_autoptr(PolkitAuthorizationResult) answer = NULL;
  g_autoptr(GError) error = NULL;

  answer = polkit_authority_check_authorization_finish (POLKIT_AUTHORITY (source),
                                                        result, &error);
  if (answer == NULL)
    g_task_return_new_error (task, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                             "Could not ask polkit about %s: %s",
                             data->action_id, error->message);
  else if (polkit_authorization_result_get_is_authorized (answer))
    g_task_return_boolean (task, TRUE);
  else if (polkit_authorization_result_get_is_challenge (answer))
    g_task_return_new_error (task, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                             "Not authorized for %s: authentication is required "
                             "and the call does not allow interaction",
                             data->action_id);
  else
    g_task_return_new_error (task, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                             "Not authorized for %s", data->action_id);
}

static void
start_check (GTask *task)
{
  SrAuthority *self = g_object_get_data (G_OBJECT (task), "sr-authority");
  CheckData *data = g_task_get_task_data (task);

  polkit_authority_check_authorization (self->authority, data->subject,
                                        data->action_id, NULL,
                                        data->interactive ?
                                        POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION :
                                        POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE,
                                        NULL, on_check_ready_cb, task);
}

static void
on_authority_ready_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SrAuthority *self = g_object_get_data (G_OBJECT (task), "sr-authority");
  g_autoptr(GError) error = NULL;
  PolkitAuthority *authority = polkit_authority_get_finish (result, &error);

  if (authority == NULL)
    {
      g_task_return_new_error (task, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                               "Could not reach polkit: %s", error->message);
      return;
    }

  /* Two first checks may race here; keep one authority. */
  if (self->authority == NULL)
    self->authority = authority;
  else
    g_object_unref (authority);
  start_check (g_steal_pointer (&task));
}

void
sr_authority_check_async (SrAuthority         *self,
                          const SrCaller      *caller,
                          const char          *action_id,
                          gboolean             interactive,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  /* SrAuthority is no GObject: it rides on the task as plain data. It
   * lives as long as the daemon, so it outlives every check. */
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  CheckData *data = g_new0 (CheckData, 1);

  data->subject = polkit_unix_process_new_for_owner (caller->pid,
                                                     caller->start_time,
                                                     caller->uid);
  data->action_id = g_strdup (action_id);
  data->interactive = interactive;
  g_task_set_task_data (task, data, (GDestroyNotify) check_data_free);
  g_task_set_source_tag (task, sr_authority_check_async);
  g_object_set_data (G_OBJECT (task), "sr-authority", self);

  if (self->authority == NULL)
    polkit_authority_get_async (NULL, on_authority_ready_cb, task);
  else
    start_check (task);
}

gboolean
sr_authority_check_finish (SrAuthority   *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
