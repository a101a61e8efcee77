/* sr-peer.c: whether a program on the bus is one to trust
 *
 * policyd and the login prompt answer each other, and the panel and
 * session-restore-ctl believe what policyd tells them. Each trusts the
 * other end only once it knows who that is: a host process (in no
 * Flatpak or Snap sandbox) of the same user (or root's) and, where a program is
 * expected, that very executable. It is the identification policyd's gate
 * makes of its callers (sr-caller.c), from the same bus credentials and
 * the same reading of /proc (sr-process.c), for programs that keep no
 * caller cache. Any doubt (a credential missing, /proc unreadable, the
 * process gone meanwhile) is a refusal.
 *
 * A process of root is trusted without looking further (its /proc cannot
 * be read by the user; root can act as any user anyway), but where a
 * particular program is expected, it is looked at as any other.
 *
 * A peer is named by its unique bus name, which the bus never gives to
 * another connection: once verified, it stays trusted for its life, and
 * whoever asks it anything must ask it by that name, not by a well-known
 * one that may change hands.
 *
 * Where the bus gives a pidfd (ProcessFD) it pins the process that
 * connected. dbus-daemon 1.14 gives only the pid it saw then: a process
 * that connected, handed its socket on and exited, leaving its pid to be
 * reused by a host process, is not told apart here (policyd's caller
 * cache also notes when each connection appeared).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define G_LOG_DOMAIN "sr-peer"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "sr-error.h"
#include "sr-fd.h"
#include "sr-peer.h"
#include "sr-process.h"

/* The program a peer must be: @installed (a path compiled in), unless the
 * environment variable @env_var names another. That is for uninstalled
 * builds and tests; only a host process of the user, which is trusted
 * anyway, can set the environment of the user's services (a Flatpak or
 * Snap app reaches neither the bus's activation environment nor systemd's
 * user manager). */
const char *
sr_peer_expected_executable (const char *env_var,
                             const char *installed)
{
  const char *value = g_getenv (env_var);

  return value != NULL && value[0] != '\0' ? value : installed;
}

/* Whether a process of @uid, sandboxed as the app @sandbox_app_id (NULL:
 * on the host), may be trusted: a host process of this user, or root's
 * (root can act as any user anyway, and the tests' callers that polkit
 * must refuse run as another user against root's services). */
gboolean
sr_peer_check_identity (guint32      uid,
                        const char  *sandbox_app_id,
                        GError     **error)
{
  if (uid != getuid () && uid != 0)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "it runs as another user (uid %u)", uid);
      return FALSE;
    }
  if (sandbox_app_id != NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "it runs in a sandbox, as the app %s", sandbox_app_id);
      return FALSE;
    }
  return TRUE;
}

static gboolean
still_the_same (guint32  pid,
                int      pidfd,
                guint64  start_time,
                GError **error)
{
  guint64 now;

  if (pidfd >= 0 ? sr_process_pidfd_is_alive (pidfd)
                 : sr_process_read_start_time (pid, &now, NULL) && now == start_time)
    return TRUE;
  g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                       "it went away while it was being identified");
  return FALSE;
}

/* Whether process @pid, started at @start_time, runs @expected. An
 * executable that cannot be read is a refusal. */
gboolean
sr_peer_check_executable (guint32      pid,
                          guint64      start_time,
                          const char  *expected,
                          GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *executable = sr_process_read_executable (pid, &local_error);

  if (executable == NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "its program could not be read: %s", local_error->message);
      return FALSE;
    }
  if (!still_the_same (pid, -1, start_time, error))
    return FALSE;
  if (!g_str_equal (executable, expected))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "it is %s, not %s", executable, expected);
      return FALSE;
    }
  return TRUE;
}

/* The process behind the credentials; a pidfd in *@pidfd if the bus gave
 * one. */
static gboolean
credentials_process (GVariant     *credentials,
                     GUnixFDList  *fds,
                     guint32      *out_pid,
                     int          *pidfd,
                     GError      **error)
{
  gint32 fd_index;

  *out_pid = 0;
  if (fds != NULL && g_variant_lookup (credentials, "ProcessFD", "h", &fd_index))
    {
      *pidfd = g_unix_fd_list_get (fds, fd_index, NULL);
      if (*pidfd < 0 || (*out_pid = sr_process_pid_from_pidfd (*pidfd)) == 0)
        {
          g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                               "the process that made its connection has exited");
          return FALSE;
        }
      return TRUE;
    }
  if (!g_variant_lookup (credentials, "ProcessID", "u", out_pid))
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "the bus did not tell its process");
      return FALSE;
    }
  return TRUE;
}

/* The app whose Flatpak or Snap sandbox process @pid runs in, in
 * *@out_app_id (NULL: on the host); FALSE (NotAllowed) when it cannot be
 * told. @bus_label: the security label the bus saw, or NULL. */
gboolean
sr_peer_read_sandbox_app (guint32      pid,
                          const char  *bus_label,
                          char       **out_app_id,
                          GError     **error)
{
  g_autofree char *root_path = g_strdup_printf ("/proc/%u/root", pid);
  g_autoptr(GError) local_error = NULL;
  g_auto(SrFd) root_fd = open (root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);

  *out_app_id = NULL;
  if (root_fd < 0)
    {
      int saved_errno = errno;
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "its process could not be inspected: %s", g_strerror (saved_errno));
      return FALSE;
    }
  if (!sr_process_read_flatpak_app (root_fd, out_app_id, &local_error) ||
      (*out_app_id == NULL && !sr_process_read_snap_app (pid, bus_label, out_app_id, &local_error)))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "it could not be told whether it runs in a sandbox: %s",
                   local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* Not in a Flatpak or Snap sandbox. */
static gboolean
check_not_sandboxed (guint32      pid,
                     const char  *bus_label,
                     GError     **error)
{
  g_autofree char *app_id = NULL;

  return sr_peer_read_sandbox_app (pid, bus_label, &app_id, error) &&
         sr_peer_check_identity (getuid (), app_id, error);
}

/* Whether @unique_name on @bus is a host process of this user (or root),
 * running @expected_executable if that is not NULL. FALSE with a NotAllowed error
 * that says, as a clause ("it runs in a sandbox, as the app …"), why
 * not. @out_pid and @out_start_time name the process verified (a start
 * time of 0 for root's, which is not looked at). Blocks for a round trip to
 * the bus. */
static gboolean identify (GDBusConnection *bus, const char *unique_name,
                          const char *expected_executable, char **out_sandbox_app,
                          guint32 *out_pid, guint64 *out_start_time,
                          GCancellable *cancellable, GError **error);

gboolean
sr_peer_verify_sync (GDBusConnection  *bus,
                     const char       *unique_name,
                     const char       *expected_executable,
                     guint32          *out_pid,
                     guint64          *out_start_time,
                     GCancellable     *cancellable,
                     GError          **error)
{
  return identify (bus, unique_name, expected_executable, NULL, out_pid, out_start_time,
                   cancellable, error);
}

/* Who @unique_name on @bus is, as sr_peer_verify_sync() tells it, but
 * for a sandbox: *@out_sandbox_app is the app whose Flatpak or Snap
 * sandbox it runs in, or NULL for a host process of the user (or root).
 * FALSE with a NotAllowed error when it cannot be told, or it is another
 * user's. Blocks for a round trip to the bus. */
gboolean
sr_peer_identify_sync (GDBusConnection  *bus,
                       const char       *unique_name,
                       char            **out_sandbox_app,
                       GCancellable     *cancellable,
                       GError          **error)
{
  g_return_val_if_fail (out_sandbox_app != NULL, FALSE);
  return identify (bus, unique_name, NULL, out_sandbox_app, NULL, NULL, cancellable, error);
}

/* @out_sandbox_app NULL: a sandbox is refused. */
static gboolean
identify (GDBusConnection  *bus,
          const char       *unique_name,
          const char       *expected_executable,
          char            **out_sandbox_app,
          guint32          *out_pid,
          guint64          *out_start_time,
          GCancellable     *cancellable,
          GError          **error)
{
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) credentials = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *bus_label = NULL;
  g_auto(SrFd) pidfd = -1;
  guint32 uid, pid;
  guint64 start_time;

  if (out_sandbox_app != NULL)
    *out_sandbox_app = NULL;
  reply = g_dbus_connection_call_with_unix_fd_list_sync (bus, "org.freedesktop.DBus",
                                                         "/org/freedesktop/DBus",
                                                         "org.freedesktop.DBus",
                                                         "GetConnectionCredentials",
                                                         g_variant_new ("(s)", unique_name),
                                                         G_VARIANT_TYPE ("(a{sv})"),
                                                         G_DBUS_CALL_FLAGS_NONE, -1, NULL,
                                                         &fds, cancellable, &local_error);
  if (reply == NULL)
    {
      g_dbus_error_strip_remote_error (local_error);
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "it could not be identified: %s", local_error->message);
      return FALSE;
    }
  credentials = g_variant_get_child_value (reply, 0);

  if (!g_variant_lookup (credentials, "UnixUserID", "u", &uid))
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "the bus did not tell its user");
      return FALSE;
    }
  if (!sr_peer_check_identity (uid, NULL, error))
    return FALSE;
  if (!credentials_process (credentials, fds, &pid, &pidfd, error))
    return FALSE;
  /* Another user's /proc cannot be read; root is trusted, whatever it
   * runs (a sandbox holds the user's apps, never root). */
  if (uid == 0 && getuid () != 0 && expected_executable == NULL)
    {
      if (out_pid != NULL)
        *out_pid = pid;
      if (out_start_time != NULL)
        *out_start_time = 0;
      return TRUE;
    }
  /* The label the bus took when the connection was made, as policyd
   * prefers it. */
  g_variant_lookup (credentials, "LinuxSecurityLabel", "^ay", &bus_label);

  if (!sr_process_read_start_time (pid, &start_time, &local_error))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "its process could not be inspected: %s", local_error->message);
      return FALSE;
    }
  if (out_sandbox_app != NULL)
    {
      g_autofree char *sandbox_app = NULL;

      if (!sr_peer_read_sandbox_app (pid, bus_label, &sandbox_app, error))
        return FALSE;
      *out_sandbox_app = g_steal_pointer (&sandbox_app);
    }
  else if (!check_not_sandboxed (pid, bus_label, error))
    return FALSE;
  if (expected_executable != NULL &&
      !sr_peer_check_executable (pid, start_time, expected_executable, error))
    return FALSE;
  /* What was read must have been that process's. */
  if (!still_the_same (pid, pidfd, start_time, error))
    return FALSE;

  if (out_pid != NULL)
    *out_pid = pid;
  if (out_start_time != NULL)
    *out_start_time = start_time;
  return TRUE;
}

typedef struct {
  GDBusConnection *bus;        /* (owned) */
  char *well_known_name;       /* (owned) */
  char *unique_name;           /* (owned) */
  char *expected_executable;   /* (owned) (nullable) */
} OwnerCheck;

static void
owner_check_free (OwnerCheck *check)
{
  g_object_unref (check->bus);
  g_free (check->well_known_name);
  g_free (check->unique_name);
  g_free (check->expected_executable);
  g_free (check);
}

static void
verify_owner_thread (GTask        *task,
                     gpointer      source,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  OwnerCheck *check = task_data;
  g_autoptr(GVariant) reply = NULL;
  GError *error = NULL;
  const char *owner = NULL;

  if (check->well_known_name != NULL)
    {
      reply = g_dbus_connection_call_sync (check->bus, "org.freedesktop.DBus",
                                           "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                           "GetNameOwner",
                                           g_variant_new ("(s)", check->well_known_name),
                                           G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE, -1,
                                           cancellable, NULL);
      if (reply != NULL)
        g_variant_get (reply, "(&s)", &owner);
    }
  if (check->well_known_name != NULL && g_strcmp0 (owner, check->unique_name) != 0)
    g_task_return_new_error (task, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                             "it does not own %s", check->well_known_name);
  else if (!sr_peer_verify_sync (check->bus, check->unique_name, check->expected_executable,
                                 NULL, NULL, cancellable, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* Whether @unique_name is the owner of @well_known_name now (NULL: of
 * whatever it owns), and passes sr_peer_verify_sync(); on a worker
 * thread. */
void
sr_peer_verify_owner_async (GDBusConnection     *bus,
                            const char          *well_known_name,
                            const char          *unique_name,
                            const char          *expected_executable,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  OwnerCheck *check = g_new0 (OwnerCheck, 1);

  check->bus = g_object_ref (bus);
  check->well_known_name = g_strdup (well_known_name);
  check->unique_name = g_strdup (unique_name);
  check->expected_executable = g_strdup (expected_executable);
  g_task_set_source_tag (task, sr_peer_verify_owner_async);
  g_task_set_task_data (task, check, (GDestroyNotify) owner_check_free);
  g_task_run_in_thread (task, verify_owner_thread);
}

gboolean
sr_peer_verify_owner_finish (GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sr_peer_verify_owner_async,
                        FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
