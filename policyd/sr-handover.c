/* sr-handover.c: --replace, taking the name over from a running policyd
 *
 * policyd's name cannot be replaced: whoever asked the bus for it with
 * REPLACE_EXISTING would become the policy, and the real policyd would
 * lose its name for good. A new instance started with --replace instead
 * queues for the name (main.c), and once it is in the queue, asks the
 * owner to go: if that is a host process of the same user running the
 * installed session-restore-policyd (or the program SR_POLICYD_EXECUTABLE
 * names: a build's, or valgrind's in the tests; sr-peer.c), it sends it
 * SIGTERM. The old instance exits
 * cleanly, as on any SIGTERM (finishing a clear under way, flushing its
 * counters), which releases the name, and the bus hands it to the head of
 * the queue. Any other owner is left alone: --replace then fails.
 *
 * The signal goes through a pidfd opened on the verified pid and checked
 * again (its start time) after opening, so that a pid reused meanwhile is
 * never signalled; where there is no pidfd, the start time is checked
 * just before kill().
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

/* Sends SIGTERM to the owner of SR_BUS_NAME on @bus if it is this user's
 * policyd; FALSE with an error that says why not. */
gboolean
sr_handover_ask_owner_to_go (GDBusConnection  *bus,
                             GError          **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) local_error = NULL;
  g_auto(SrFd) pidfd = -1;
  const char *owner;
  guint64 start_time, now;
  gboolean sent;
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

  if (!sr_peer_verify_sync (bus, owner,
                            sr_peer_expected_executable ("SR_POLICYD_EXECUTABLE",
                                                         SR_POLICYD_EXECUTABLE),
                            &pid, &start_time, NULL, &local_error))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "%s is owned by a program that is not this user's "
                   "session-restore-policyd (%s): not replacing it",
                   SR_BUS_NAME, local_error->message);
      return FALSE;
    }

  /* A process that has gone since it was verified has released the name,
   * or is about to: the bus hands it on. */
  pidfd = (int) syscall (SYS_pidfd_open, (pid_t) pid, 0);
  if ((pidfd < 0 && errno == ESRCH) ||
      !sr_process_read_start_time (pid, &now, NULL) || now != start_time)
    return TRUE;

  /* Without a pidfd (a kernel before 5.3, or valgrind, which does not know
   * the call), the pid is checked by its start time once more, just before
   * the signal. */
  if (pidfd >= 0)
    sent = syscall (SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0) == 0;
  else if (!sr_process_read_start_time (pid, &now, NULL) || now != start_time)
    return TRUE;
  else
    sent = kill ((pid_t) pid, SIGTERM) == 0;
  if (!sent && errno != ESRCH)
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
