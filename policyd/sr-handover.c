/* sr-handover.c: --replace, taking the name over from a running policyd
 *
 * policyd's name cannot be replaced: whoever asked the bus for it with
 * REPLACE_EXISTING would become the policy, and the real policyd would
 * lose its name for good. A new instance started with --replace instead
 * queues for the name (main.c), and once it is in the queue, asks the
 * owner to go: if that is a host process of the same user running the
 * same program as this one (session-restore-policyd, or whatever runs it,
 * valgrind in the tests), it sends it SIGTERM. The old instance exits
 * cleanly, as on any SIGTERM (finishing a clear under way, flushing its
 * counters), which releases the name, and the bus hands it to the head of
 * the queue. Any other owner is left alone: --replace then fails.
 *
 * The signal goes through a pidfd opened on the verified pid and checked
 * again (its start time) after opening, so that a pid reused meanwhile is
 * never signalled.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-handover"

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sr-bus.h"
#include "sr-error.h"
#include "sr-fd.h"
#include "sr-handover.h"
#include "sr-peer.h"
#include "sr-process.h"

static char *
executable_name (guint32   pid,
                 GError  **error)
{
  g_autofree char *path = sr_process_read_executable (pid, error);

  return path != NULL ? g_path_get_basename (path) : NULL;
}

/* Sends SIGTERM to the owner of SR_BUS_NAME on @bus if it is another
 * instance of this program, of this user; FALSE with an error that says
 * why not. */
gboolean
sr_handover_ask_owner_to_go (GDBusConnection  *bus,
                             GError          **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *ours = NULL;
  g_auto(SrFd) pidfd = -1;
  const char *owner;
  guint64 start_time, now;
  guint32 pid;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetNameOwner",
                                       g_variant_new ("(s)", SR_BUS_NAME),
                                       G_VARIANT_TYPE ("(s)"), G_DBUS_CALL_FLAGS_NONE, -1,
                                       NULL, &local_error);
  /* It went between our request and now: the bus hands the name on. */
  if (reply == NULL)
    return TRUE;
  g_variant_get (reply, "(&s)", &owner);

  if (!sr_peer_verify_sync (bus, owner, NULL, &pid, &start_time, NULL, &local_error))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "%s is owned by a program that is not this user's: %s",
                   SR_BUS_NAME, local_error->message);
      return FALSE;
    }

  /* A process that has gone since it was verified has released the name,
   * or is about to: the bus hands it on. */
  pidfd = (int) syscall (SYS_pidfd_open, (pid_t) pid, 0);
  if (pidfd < 0 || !sr_process_read_start_time (pid, &now, NULL) || now != start_time)
    return TRUE;
  theirs = executable_name (pid, &local_error);
  if (theirs == NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "The program of process %u, owner of %s, could not be read: %s",
                   pid, SR_BUS_NAME, local_error->message);
      return FALSE;
    }
  ours = executable_name ((guint32) getpid (), NULL);
  if (g_strcmp0 (theirs, ours) != 0)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "%s is owned by process %u, which runs %s, not %s: not replacing it",
                   SR_BUS_NAME, pid, theirs, ours != NULL ? ours : "this program");
      return FALSE;
    }

  if (syscall (SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0) < 0 && errno != ESRCH)
    {
      int saved_errno = errno;
      g_set_error (error, SR_ERROR, SR_ERROR_FAILED,
                   "Could not ask process %u to hand over %s: %s",
                   pid, SR_BUS_NAME, g_strerror (saved_errno));
      return FALSE;
    }
  g_message ("Asked process %u to hand over %s", pid, SR_BUS_NAME);
  return TRUE;
}
