/* sr-caller.c: who is calling, from the bus's credentials
 *
 * What a caller is, and how the bus's answer to GetConnectionCredentials
 * becomes one. What sets the kinds apart is read by one file each:
 * sr-caller-host.c, sr-caller-flatpak.c, sr-caller-snap.c. Callers are
 * remembered per connection by sr-caller-cache.c.
 *
 * Identification fails closed: a process whose root or security label
 * cannot be read is not assumed to be unsandboxed.
 *
 * Which process called. The bus tells the pid of the process that called
 * connect(2) for the connection (SO_PEERCRED: taken then, not when the
 * connection authenticated or appeared on the bus) and, where it can, a
 * pidfd for that process (ProcessFD: dbus-daemon 1.15.8 and later on a
 * kernel with SO_PEERPIDFD, recent dbus-broker; not Debian 12's 1.14).
 *
 * With ProcessFD: exact. The pidfd pins that very process; what policyd
 * reads of it (its root, its label, its executable) is checked to belong
 * to it still afterwards, and if it has exited the caller is refused:
 * whoever holds its socket now cannot be told.
 *
 * Without ProcessFD, the pid may have gone to another process: a sandboxed
 * process connects, hands its socket to a child and exits, a host process
 * gets the pid, the child calls (issue 13, D). A process is then taken for
 * the one that connected only if
 *
 *   1. it started no later than the connection appeared on the bus, as
 *      far as policyd can tell: when policyd read the name's
 *      NameOwnerChanged (in a message filter on GDBus's worker thread,
 *      before any call from that name is handled), or, for a name that
 *      appeared before the bus took policyd's subscription (every
 *      connection made before policyd started, such as the call that
 *      activated it), when the bus confirmed the subscription, or before
 *      that, the moment of the lookup. Start times are in clock ticks
 *      (10 ms): one in the same tick counts as before (a client connects
 *      within a few ms of starting; reusing a pid within the same 10 ms
 *      would take cycling through the whole pid space). A time that could
 *      not be read counts as after: refused; and
 *   2. taken for a host process, it holds a connection to the bus itself
 *      (sr-bus-sockets.c: a socket whose peer was accepted on the bus's
 *      listening socket).
 *
 * Rule 1 alone did not hold (issue 22, 4): the time is when policyd read
 * the signal, late when policyd gets no CPU for a while; and a connection
 * appears only once it has authenticated, which its owner may put off for
 * the bus's auth_timeout (240 s on the session bus) after connect(2), long
 * enough to have its pid reused first. Rule 2 depends on no time. What a
 * bus without ProcessFD still leaves open: a process that got the pid
 * before the connection appeared (or before policyd read that it had),
 * and that holds a connection to the bus of its own, is taken for the one
 * that connected; a sandboxed process whose pid went to another app's
 * sandboxed process is told apart by rule 1 only; a host process whose
 * socket is in another network namespace than policyd's cannot be seen,
 * and is refused. Where the kernel's socket table cannot be read (no
 * unix_diag), rule 2 is not applied, and policyd says so at start.
 * A Flatpak app normally reaches the bus through xdg-dbus-proxy, whose
 * process is the one the bus sees and outlives the connection; only an
 * app given the bus's socket itself (--socket=session-bus) connects
 * directly.
 *
 * A snap is told by the security label the bus took when the connection
 * was made (LinuxSecurityLabel), where it gives one, not by the label the
 * pid has now.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-caller"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "sr-caller.h"
#include "sr-caller-kinds.h"
#include "sr-error.h"
#include "sr-fd.h"
#include "sr-process.h"
#include "sr-vardict.h"

static void
caller_clear (SrCaller *caller)
{
  g_free (caller->app_id);
  g_free (caller->program);
  g_free (caller->sender);
}

SrCaller *
sr_caller_ref (SrCaller *caller)
{
  return g_atomic_rc_box_acquire (caller);
}

void
sr_caller_unref (SrCaller *caller)
{
  g_atomic_rc_box_release_full (caller, (GDestroyNotify) caller_clear);
}

/* The sandbox rule, the one place it is written: a host process may ask
 * about any app, a sandboxed one about its own only. */
gboolean
sr_caller_may_ask_about (const SrCaller *caller,
                         const char     *app_id)
{
  return caller->kind == SR_CALLER_HOST ||
         (app_id != NULL && g_strcmp0 (caller->app_id, app_id) == 0);
}

/* The decision, exposed for tests: whether a process that started at
 * @start_time (clock ticks since boot, /proc/PID/stat) may have started
 * after its connection appeared at @appeared_ns (CLOCK_BOOTTIME ns). Both
 * clocks count from boot; the appearance is truncated to ticks as the
 * kernel truncates start times. A start in the same tick (10 ms) as the
 * appearance counts as before it: session-restore-ctl connects within a
 * few ms of starting. No tick rate, or no time, counts as after. */
gboolean
sr_caller_started_after (guint64 start_time,
                         gint64  appeared_ns,
                         long    ticks_per_sec)
{
  guint64 appeared_ticks;

  if (ticks_per_sec <= 0 || appeared_ns < 0)
    return TRUE;
  appeared_ticks = (guint64) (appeared_ns / 1000000000) * (guint64) ticks_per_sec +
                   (guint64) (appeared_ns % 1000000000) * (guint64) ticks_per_sec / 1000000000;
  return start_time > appeared_ticks;
}

/* GetConnectionCredentials's entries that identification reads. */
typedef enum {
  CREDENTIAL_UID,
  CREDENTIAL_PROCESS_FD,
  CREDENTIAL_PID,
  CREDENTIAL_LABEL,
  N_CREDENTIALS
} Credential;

static const char *const credential_keys[N_CREDENTIALS] = {
  [CREDENTIAL_UID] = "UnixUserID",
  [CREDENTIAL_PROCESS_FD] = "ProcessFD",
  [CREDENTIAL_PID] = "ProcessID",
  [CREDENTIAL_LABEL] = "LinuxSecurityLabel",
};

/* The value of each of the keys above, or NULL. */
typedef struct {
  GVariant *values[N_CREDENTIALS];   /* (owned) (nullable) */
} Credentials;

static void
credentials_clear (Credentials *read)
{
  for (guint i = 0; i < N_CREDENTIALS; i++)
    g_clear_pointer (&read->values[i], g_variant_unref);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Credentials, credentials_clear)

/* Whether @value (nullable) is there with the type @type. */
static gboolean
credential_is (GVariant           *value,
               const GVariantType *type)
{
  return value != NULL && g_variant_is_of_type (value, type);
}

/* @credentials: GetConnectionCredentials's answer, with @fds its fds;
 * @appeared_ns: when the caller's connection appeared on the bus
 * (CLOCK_BOOTTIME ns), or a time after that, or TIME_UNKNOWN;
 * @bus_sockets: (nullable) the bus's sockets, to check that a host
 * process holds a connection to the bus (NULL: not checked). Exposed for
 * tests. */
SrCaller *
sr_caller_identify (GVariant            *credentials,
                    GUnixFDList         *fds,
                    gint64               appeared_ns,
                    const SrBusSockets  *bus_sockets,
                    GError             **error)
{
  g_autoptr(SrCaller) caller = g_atomic_rc_box_new0 (SrCaller);
  g_autofree char *root_path = NULL;
  g_autofree char *bus_label = NULL;
  g_auto(SrFd) pidfd = -1;
  g_auto(SrFd) root_fd = -1;
  g_auto(Credentials) read = { { NULL } };
  GVariant **values = read.values;
  guint64 start_time_after;
  gboolean ok;

  sr_vardict_read (credentials, credential_keys, N_CREDENTIALS, values);
  if (!credential_is (values[CREDENTIAL_UID], G_VARIANT_TYPE_UINT32))
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The bus did not tell the caller's user");
      return NULL;
    }
  caller->uid = g_variant_get_uint32 (values[CREDENTIAL_UID]);

  /* A pidfd pins the process that connected: its pid cannot be reused
   * while we look. If that process has exited, whoever holds its socket
   * now cannot be told: refused, not looked up by pid. */
  if (fds != NULL && credential_is (values[CREDENTIAL_PROCESS_FD], G_VARIANT_TYPE_HANDLE))
    {
      pidfd = g_unix_fd_list_get (fds, g_variant_get_handle (values[CREDENTIAL_PROCESS_FD]), NULL);
      if (pidfd < 0 || (caller->pid = sr_process_pid_from_pidfd (pidfd)) == 0)
        {
          g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                               "Cannot tell who is calling: the process that made the "
                               "connection has exited");
          return NULL;
        }
    }
  if (caller->pid == 0)
    {
      if (!credential_is (values[CREDENTIAL_PID], G_VARIANT_TYPE_UINT32))
        {
          g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                               "The bus did not tell the caller's process");
          return NULL;
        }
      caller->pid = g_variant_get_uint32 (values[CREDENTIAL_PID]);
    }
  /* The bus's label is the one of the process that connected, as it was
   * then; a nul-terminated byte string. */
  if (credential_is (values[CREDENTIAL_LABEL], G_VARIANT_TYPE_BYTESTRING))
    bus_label = g_variant_dup_bytestring (values[CREDENTIAL_LABEL], NULL);

  root_path = g_strdup_printf ("/proc/%u/root", caller->pid);
  ok = sr_process_read_start_time (caller->pid, &caller->start_time, error);
  /* Without a pidfd, the pid is only what the bus saw at connect time: a
   * process that started after the connection appeared is not the one
   * that made it (its pid was reused). */
  if (ok && pidfd < 0 &&
      sr_caller_started_after (caller->start_time, appeared_ns, sysconf (_SC_CLK_TCK)))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "Cannot tell who is calling: process %u started after its connection "
                   "to the bus was made", caller->pid);
      ok = FALSE;
    }
  if (ok)
    {
      root_fd = open (root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (root_fd < 0)
        {
          int saved_errno = errno;
          g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                       "Could not inspect the caller's process: %s",
                       g_strerror (saved_errno));
          ok = FALSE;
        }
      else
        ok = sr_caller_identify_flatpak (root_fd, caller, error) &&
             (caller->kind != SR_CALLER_HOST ||
              sr_caller_identify_snap (caller->pid, bus_label, caller, error));
    }
  /* Neither sandbox: a host process. Without a pidfd, the pid may name a
   * process that never held the connection (sr-caller-host.c). */
  if (ok && caller->kind == SR_CALLER_HOST)
    ok = sr_caller_identify_host (caller->pid, pidfd < 0 ? bus_sockets : NULL, caller, error);
  else if (ok)
    caller->program = g_strdup (caller->app_id);

  /* What we read must still belong to the process that called. */
  if (ok && pidfd >= 0)
    ok = sr_process_pidfd_is_alive (pidfd);
  else if (ok)
    ok = sr_process_read_start_time (caller->pid, &start_time_after, NULL) &&
         start_time_after == caller->start_time;

  if (!ok)
    {
      if (error != NULL && *error == NULL)
        g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                             "The calling process went away while it was being identified");
      return NULL;
    }

  return g_steal_pointer (&caller);
}
