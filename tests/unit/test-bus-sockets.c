/* test-bus-sockets.c: whether a process holds a connection to the bus
 * (policyd/callers/sr-bus-sockets.c), against real sockets: a listening socket of
 * the test's own stands in for the bus.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-bus-sockets"

#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sr-bus-sockets.h"
#include "sr-error.h"
#include "sr-fd.h"
#include "test-bus.h"

static void
test_held_by (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrBusSockets) sockets = NULL;
  g_auto(SrFd) listener = -1;
  g_auto(SrFd) client = -1;
  g_auto(SrFd) accepted = -1;
  g_auto(SrFd) other_listener = -1;
  g_auto(SrFd) other_client = -1;
  g_auto(SrFd) other_accepted = -1;
  const char *argv[] = { "sleep", "30", NULL };
  int go[2];
  GPid child;
  pid_t holder;

  listener = listen_and_connect (&client, &accepted);
  sockets = sr_bus_sockets_new (client, &error);
  g_assert_no_error (error);
  g_assert_nonnull (sockets);

  /* This process holds a connection to that "bus". */
  g_assert_true (sr_bus_sockets_held_by (sockets, getpid (), &error));
  g_assert_no_error (error);

  /* A process that holds none: a plain child (the socket is close-on-exec). */
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &child, NULL));
  g_assert_false (sr_bus_sockets_held_by (sockets, child, &error));
  g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
  g_assert_nonnull (strstr (error->message, "holds no connection to the bus"));
  g_clear_error (&error);
  kill (child, SIGKILL);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  g_spawn_close_pid (child);

  /* A child that was handed the socket (fork, as the sandboxed process of
   * the pid-reuse attack hands it on) holds it too. */
  g_assert_cmpint (pipe2 (go, O_CLOEXEC), ==, 0);
  holder = fork ();
  g_assert_cmpint (holder, >=, 0);
  if (holder == 0)
    {
      char byte;

      close (go[1]);
      /* Only async-signal-safe calls here: wait until told to go. */
      _exit (read (go[0], &byte, 1) < 0 ? 1 : 0);
    }
  close (go[0]);
  g_assert_true (sr_bus_sockets_held_by (sockets, holder, &error));
  g_assert_no_error (error);
  close (go[1]);
  g_assert_cmpint (waitpid (holder, NULL, 0), ==, holder);

  /* A connection to another listening socket (another bus) does not count:
   * only the one policyd's own connection reached. */
  other_listener = listen_and_connect (&other_client, &other_accepted);
  g_clear_pointer (&sockets, sr_bus_sockets_free);
  sockets = sr_bus_sockets_new (other_client, &error);
  g_assert_no_error (error);
  sr_fd_close (sr_fd_steal (&other_client));
  g_assert_false (sr_bus_sockets_held_by (sockets, getpid (), &error));
  g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
  g_clear_error (&error);

  /* A process that is gone cannot be inspected. */
  g_assert_false (sr_bus_sockets_held_by (sockets, holder, &error));
  g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
}

static void
test_not_a_unix_socket (void)
{
  g_autoptr(GError) error = NULL;
  g_auto(SrFd) read_end = -1;
  g_auto(SrFd) write_end = -1;
  int ends[2];

  g_assert_cmpint (pipe2 (ends, O_CLOEXEC), ==, 0);
  read_end = ends[0];
  write_end = ends[1];
  g_assert_null (sr_bus_sockets_new (read_end, &error));
  g_assert_error (error, SR_ERROR, SR_ERROR_FAILED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/bus-sockets/held-by", test_held_by);
  g_test_add_func ("/bus-sockets/not-a-unix-socket", test_not_a_unix_socket);

  return g_test_run ();
}
