/* test-bus.h: a stand-in for the bus's listening socket, for the unit
 * tests of what policyd asks the kernel about connections to the bus
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>

/* A listening socket with an abstract name of its own, and one connection
 * to it: @out_client is the connecting end, @out_accepted the other. */
static inline int
listen_and_connect (int *out_client,
                    int *out_accepted)
{
  static guint serial;
  struct sockaddr_un address = { .sun_family = AF_UNIX };
  socklen_t len;
  int listener, client;

  /* Abstract: sun_path[0] is a nul. */
  g_snprintf (address.sun_path + 1, sizeof address.sun_path - 1, "sr-test-bus-sockets-%d-%u",
              (int) getpid (), serial++);
  len = offsetof (struct sockaddr_un, sun_path) + 1 + strlen (address.sun_path + 1);
  listener = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint (listener, >=, 0);
  g_assert_cmpint (bind (listener, (struct sockaddr *) &address, len), ==, 0);
  g_assert_cmpint (listen (listener, 4), ==, 0);
  client = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint (connect (client, (struct sockaddr *) &address, len), ==, 0);
  *out_accepted = accept4 (listener, NULL, NULL, SOCK_CLOEXEC);
  g_assert_cmpint (*out_accepted, >=, 0);
  *out_client = client;
  return listener;
}
