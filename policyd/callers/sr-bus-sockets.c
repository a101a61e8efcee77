/* sr-bus-sockets.c: whether a process holds a connection to the bus
 *
 * Without ProcessFD the bus tells only the pid of the process that called
 * connect(2) (SO_PEERCRED is taken then, not when the connection
 * authenticates or appears on the bus). That process may hand its socket
 * to a child and exit, and its pid may go to another process before, or
 * while, the connection appears: the pid then names a process that never
 * held the connection. This asks the kernel whether a process holds, among
 * its open files, a socket whose peer was accepted on the bus's listening
 * socket (the one policyd's own connection reached). The kernel's socket
 * table is what `ss -x` reads: sock_diag over netlink, one question per
 * socket, answered at once, for the sockets of policyd's own network
 * namespace.
 *
 * It does not tell which of the bus's connections a socket is (the bus
 * does not say which socket a unique name has): a process that holds a
 * connection of its own passes for any connection made from its pid.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-bus-sockets"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include "sr-bus-sockets.h"
#include "sr-error.h"
#include "sr-fd.h"

/* What is looked at per process, at most: its bus connection is usually
 * among its first files (they are listed in order). Each socket costs two
 * questions to the kernel (some 10 to 40 µs here); this bounds the main
 * thread's time on a process with very many. */
#define MAX_FDS 4096
#define MAX_SOCKETS 256

struct _SrBusSockets {
  GBytes *listener;   /* (owned): the bus's listening address, as the kernel
                       * keeps it (sun_path bytes; abstract ones start with
                       * a nul) */
};

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DIR, closedir)

/* The kernel's view of the unix socket @ino of policyd's network
 * namespace: its peer's inode (0: none) and its address (NULL: unbound).
 * FALSE with errno set on failure: ENOENT when there is no such socket
 * here (gone, or in another network namespace). */
static gboolean
query_socket (int       netlink,
              guint32   ino,
              guint32  *out_peer,
              GBytes  **out_name)
{
  struct {
    struct nlmsghdr header;
    struct unix_diag_req request;
  } question = {
    .header = {
      .nlmsg_len = sizeof question,
      .nlmsg_type = SOCK_DIAG_BY_FAMILY,
      .nlmsg_flags = NLM_F_REQUEST,
      .nlmsg_seq = ino,
    },
    .request = {
      .sdiag_family = AF_UNIX,
      .udiag_states = G_MAXUINT32,
      .udiag_ino = ino,
      .udiag_show = UDIAG_SHOW_PEER | UDIAG_SHOW_NAME,
      .udiag_cookie = { G_MAXUINT32, G_MAXUINT32 },   /* any */
    },
  };
  /* The answer is read by offset and copied out field by field, rather than
   * walked with NLMSG_NEXT and RTA_NEXT: those macros cast byte pointers to
   * structures, which -Wcast-align (on clang) rightly refuses. */
  guint8 answer[4096];
  struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
  gssize len;
  gsize at;

  *out_peer = 0;
  *out_name = NULL;
  if (sendto (netlink, &question, sizeof question, 0, (struct sockaddr *) &kernel,
              sizeof kernel) < 0)
    return FALSE;
  /* The kernel answers while it handles the question: nothing to wait for. */
  len = recv (netlink, answer, sizeof answer, MSG_DONTWAIT);
  if (len < 0)
    return FALSE;

  for (at = 0; at + sizeof (struct nlmsghdr) <= (gsize) len;)
    {
      struct nlmsghdr header;
      struct unix_diag_msg reply;
      gsize data, end, attr_at;

      memcpy (&header, answer + at, sizeof header);
      if (header.nlmsg_len < sizeof header || header.nlmsg_len > (gsize) len - at)
        break;
      data = at + NLMSG_HDRLEN;
      end = at + header.nlmsg_len;
      at += NLMSG_ALIGN (header.nlmsg_len);

      if (header.nlmsg_seq != ino)
        continue;
      if (header.nlmsg_type == NLMSG_ERROR)
        {
          struct nlmsgerr failure;

          if (end - data < sizeof failure)
            break;
          memcpy (&failure, answer + data, sizeof failure);
          errno = failure.error < 0 ? -failure.error : EPROTO;
          return FALSE;
        }
      if (header.nlmsg_type != SOCK_DIAG_BY_FAMILY || end - data < sizeof reply)
        continue;
      memcpy (&reply, answer + data, sizeof reply);
      if (reply.udiag_ino != ino)
        continue;

      for (attr_at = data + NLMSG_ALIGN (sizeof reply);
           attr_at + sizeof (struct rtattr) <= end;)
        {
          struct rtattr attr;
          gsize payload;

          memcpy (&attr, answer + attr_at, sizeof attr);
          if (attr.rta_len < sizeof attr || attr.rta_len > end - attr_at)
            break;
          payload = attr.rta_len - RTA_LENGTH (0);
          if (attr.rta_type == UNIX_DIAG_PEER && payload >= sizeof (guint32))
            memcpy (out_peer, answer + attr_at + RTA_LENGTH (0), sizeof (guint32));
          else if (attr.rta_type == UNIX_DIAG_NAME && *out_name == NULL)
            *out_name = g_bytes_new (answer + attr_at + RTA_LENGTH (0), payload);
          attr_at += RTA_ALIGN (attr.rta_len);
        }
      return TRUE;
    }
  errno = EPROTO;
  return FALSE;
}

/* Whether the socket @ino is connected to the bus: TRUE or FALSE, or
 * FALSE with @error when the kernel could not say. A socket that is not in
 * policyd's network namespace (or no longer there) is not connected. */
static gboolean
connected_to_bus (const SrBusSockets  *self,
                  int                  netlink,
                  guint32              ino,
                  GError             **error)
{
  g_autoptr(GBytes) name = NULL;
  g_autoptr(GBytes) peer_name = NULL;
  guint32 peer, peer_of_peer;

  if (!query_socket (netlink, ino, &peer, &name) ||
      (peer != 0 && !query_socket (netlink, peer, &peer_of_peer, &peer_name)))
    {
      int saved_errno = errno;

      if (saved_errno != ENOENT)
        g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                     "Could not read the kernel's socket table: %s", g_strerror (saved_errno));
      return FALSE;
    }
  return peer_name != NULL && g_bytes_equal (peer_name, self->listener);
}

static int
open_netlink (SrError   code,
              GError  **error)
{
  int netlink = socket (AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

  if (netlink < 0)
    {
      int saved_errno = errno;
      g_set_error (error, SR_ERROR, code,
                   "Could not read the kernel's socket table: %s", g_strerror (saved_errno));
    }
  return netlink;
}

/* @connected_fd: policyd's own connection to the bus. Fails where the
 * connection is not a unix socket, or the kernel's socket table cannot be
 * read (no unix_diag): it is asked about policyd's own socket first. */
SrBusSockets *
sr_bus_sockets_new (int      connected_fd,
                    GError **error)
{
  g_autoptr(SrBusSockets) self = g_new0 (SrBusSockets, 1);
  struct sockaddr_un address = { 0 };
  socklen_t address_len = sizeof address;
  g_autoptr(GError) local_error = NULL;
  g_auto(SrFd) netlink = -1;
  struct stat st;

  if (getpeername (connected_fd, (struct sockaddr *) &address, &address_len) < 0 ||
      address.sun_family != AF_UNIX || address_len <= offsetof (struct sockaddr_un, sun_path) ||
      fstat (connected_fd, &st) < 0)
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_FAILED,
                           "The connection to the bus is not a unix socket");
      return NULL;
    }
  self->listener = g_bytes_new (address.sun_path,
                                address_len - offsetof (struct sockaddr_un, sun_path));

  netlink = open_netlink (SR_ERROR_FAILED, error);
  if (netlink < 0)
    return NULL;
  if (!connected_to_bus (self, netlink, st.st_ino, &local_error))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_FAILED, "%s",
                   local_error != NULL ? local_error->message
                                       : "The kernel's socket table does not show policyd's "
                                         "own connection to the bus");
      return NULL;
    }
  return g_steal_pointer (&self);
}

void
sr_bus_sockets_free (SrBusSockets *self)
{
  g_clear_pointer (&self->listener, g_bytes_unref);
  g_free (self);
}

/* TRUE when process @pid holds a connection to the bus; FALSE with a
 * NotAllowed error when it holds none (among its first MAX_FDS files and
 * MAX_SOCKETS sockets), or when that cannot be read. The process may change while this looks: the
 * caller checks afterwards that @pid is still the process it identified. */
gboolean
sr_bus_sockets_held_by (const SrBusSockets  *self,
                        guint32              pid,
                        GError             **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/fd", pid);
  g_autoptr(DIR) dir = NULL;
  g_auto(SrFd) dir_fd = -1;
  g_auto(SrFd) netlink = -1;
  struct dirent *entry;
  guint seen = 0, sockets = 0;

  dir_fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0 || (dir = fdopendir (dir_fd)) == NULL)
    {
      int saved_errno = errno;
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "Could not inspect the caller's open files: %s", g_strerror (saved_errno));
      return FALSE;
    }
  sr_fd_steal (&dir_fd);   /* the DIR has it */

  netlink = open_netlink (SR_ERROR_NOT_ALLOWED, error);
  if (netlink < 0)
    return FALSE;

  while ((entry = readdir (dir)) != NULL && seen < MAX_FDS && sockets < MAX_SOCKETS)
    {
      g_autoptr(GError) local_error = NULL;
      char target[64];
      gssize len;
      guint64 ino;
      char *end;

      if (entry->d_name[0] == '.')
        continue;
      seen++;
      /* A file closed meanwhile is just not there. */
      len = readlinkat (dirfd (dir), entry->d_name, target, sizeof target - 1);
      if (len < 0)
        continue;
      target[len] = '\0';
      if (!g_str_has_prefix (target, "socket:["))
        continue;
      ino = g_ascii_strtoull (target + strlen ("socket:["), &end, 10);
      if (*end != ']' || ino == 0 || ino > G_MAXUINT32)
        continue;
      sockets++;
      if (connected_to_bus (self, netlink, (guint32) ino, &local_error))
        return TRUE;
      if (local_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
    }

  g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
               "Cannot tell who is calling: process %u holds no connection to the bus%s "
               "that policyd can see (another process may have made the connection, and "
               "exited, leaving it its pid; or its sockets are in another network namespace)",
               pid, entry != NULL ? " among its first files" : "");
  return FALSE;
}
