/* sr-caller-host.c: a caller in no sandbox
 *
 * A host process of the user is trusted with what the user may do, so
 * that it be the process that made the connection matters most here.
 * Without a pidfd the pid may name a process that never held the
 * connection: one that took the pid of a process that connected and
 * exited, before the connection appeared (it may authenticate long after
 * connect(2)), or before policyd read that it had. Such a process is not
 * let pass for a host process unless it holds a connection to the bus
 * itself (sr-bus-sockets.c). A sandboxed one needs no such check to be
 * refused what a host may do.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-caller"

#include "config.h"

#include "sr-caller-kinds.h"
#include "sr-process.h"

/* The executable's file name, for the list of programs that consult
 * policyd; the command name (which the process may set) if the link cannot
 * be read. */
static char *
read_program (guint32 pid)
{
  g_autofree char *comm_path = g_strdup_printf ("/proc/%u/comm", pid);
  g_autofree char *target = sr_process_read_executable (pid, NULL);
  g_autofree char *comm = NULL;

  if (target != NULL)
    return g_path_get_basename (target);
  if (g_file_get_contents (comm_path, &comm, NULL, NULL))
    return g_strstrip (g_steal_pointer (&comm));
  return g_strdup ("unknown");
}

/* @bus_sockets: (nullable) the bus's sockets, where the pid must be
 * checked against them (no pidfd) and they can be read. */
gboolean
sr_caller_identify_host (guint32              pid,
                         const SrBusSockets  *bus_sockets,
                         SrCaller            *caller,
                         GError             **error)
{
  if (bus_sockets != NULL && !sr_bus_sockets_held_by (bus_sockets, pid, error))
    return FALSE;
  caller->program = read_program (pid);
  return TRUE;
}
