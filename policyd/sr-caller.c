/* sr-caller.c: who is calling, from the bus's credentials
 *
 * A caller is identified once per connection (unique bus names are never
 * reused) and remembered until it leaves the bus, so that the hot path
 * costs a hash lookup, not a round trip to the bus.
 *
 * Callers are added and removed on the main thread; GDBus's worker thread
 * asks sr_caller_cache_may_ask_about() too, so the table is changed, and
 * read off the main thread, under a lock.
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "sr-app-id.h"
#include "sr-bus-sockets.h"
#include "sr-caller.h"
#include "sr-error.h"
#include "sr-fd.h"
#include "sr-process.h"

/* A time that could not be read (CLOCK_BOOTTIME failed). */
#define TIME_UNKNOWN G_GINT64_CONSTANT (-1)
/* Appearances.watching before the bus has confirmed the watch. */
#define NOT_YET_WATCHING G_MININT64

/* When unique names appeared on the bus. Shared with the message filter,
 * which runs on GDBus's worker thread and may outlive the cache briefly,
 * and with the round trip that confirms the watch: refcounted. */
typedef struct {
  GMutex lock;
  GHashTable *names;         /* unique name → gint64 CLOCK_BOOTTIME ns, or
                              * TIME_UNKNOWN */
  gint64 watching;           /* CLOCK_BOOTTIME ns by which the bus was known
                              * to send policyd every new name
                              * (NameOwnerChanged), TIME_UNKNOWN, or
                              * NOT_YET_WATCHING */
} Appearances;

struct _SrCallerCache {
  GObject parent_instance;

  GDBusConnection *bus;      /* (owned) */
  GMutex lock;               /* guards changes to callers, reads off the main thread */
  GHashTable *callers;       /* (owned) unique name → (owned) SrCaller */
  guint name_owner_changed_id;
  Appearances *appearances;  /* (owned) */
  guint filter_id;
  SrBusSockets *bus_sockets; /* (owned) (nullable): NULL where the kernel's
                              * socket table cannot be read */
  GHashTable *lookups;       /* (owned) sender → (owned) GPtrArray of the
                              * GTasks waiting for its identification: one
                              * question to the bus per connection, however
                              * many calls it sent before the answer */
};

G_DEFINE_FINAL_TYPE (SrCallerCache, sr_caller_cache, G_TYPE_OBJECT)

enum {
  SIGNAL_CALLER_LEFT,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

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

/* CLOCK_BOOTTIME in ns, or TIME_UNKNOWN, which every process is taken
 * to have started after. */
static gint64
boottime_ns (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_BOOTTIME, &ts) != 0)
    return TIME_UNKNOWN;
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static void
appearances_clear (Appearances *appearances)
{
  g_hash_table_unref (appearances->names);
  g_mutex_clear (&appearances->lock);
}

static void
appearances_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, (GDestroyNotify) appearances_clear);
}

/* On GDBus's worker thread, for every incoming message, in the order they
 * arrive: notes the time a unique name appears. The NameOwnerChanged
 * signal for a new name comes before any message from it, so the time is
 * noted before that name's first call is handled. */
static GDBusMessage *
note_appearances_filter (GDBusConnection *bus,
                         GDBusMessage    *message,
                         gboolean         incoming,
                         gpointer         user_data)
{
  Appearances *appearances = user_data;
  GVariant *body;
  const char *name, *old_owner, *new_owner;

  if (!incoming ||
      g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_SIGNAL ||
      g_strcmp0 (g_dbus_message_get_sender (message), "org.freedesktop.DBus") != 0 ||
      g_strcmp0 (g_dbus_message_get_member (message), "NameOwnerChanged") != 0 ||
      g_strcmp0 (g_dbus_message_get_interface (message), "org.freedesktop.DBus") != 0)
    return message;
  body = g_dbus_message_get_body (message);
  if (body == NULL || !g_variant_is_of_type (body, G_VARIANT_TYPE ("(sss)")))
    return message;

  g_variant_get (body, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (name[0] == ':' && old_owner[0] == '\0' && new_owner[0] != '\0')
    {
      gint64 *when = g_new (gint64, 1);

      *when = boottime_ns ();
      g_mutex_lock (&appearances->lock);
      g_hash_table_replace (appearances->names, g_strdup (name), when);
      g_mutex_unlock (&appearances->lock);
    }
  return message;
}

/* A time by which @sender had appeared on the bus (CLOCK_BOOTTIME ns),
 * the earliest policyd knows, or TIME_UNKNOWN. Called once the bus has
 * answered a question about @sender, so that its NameOwnerChanged, if the
 * bus sent one, has been read. A name without one appeared before the bus
 * watched for policyd: by the time that watch was confirmed, or, before
 * that, by now. */
static gint64
appeared (SrCallerCache *self,
          const char    *sender)
{
  Appearances *appearances = self->appearances;
  gint64 *when;
  gint64 result;

  g_mutex_lock (&appearances->lock);
  when = g_hash_table_lookup (appearances->names, sender);
  result = when != NULL ? *when : appearances->watching;
  g_mutex_unlock (&appearances->lock);
  return result != NOT_YET_WATCHING ? result : boottime_ns ();
}

/* The bus answers in order: once it has answered this, it has taken
 * policyd's NameOwnerChanged subscription, sent before it, and every name
 * that appears from then on is noted by the filter. */
static void
on_watching_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Appearances *appearances = user_data;
  g_autoptr(GVariant) reply = NULL;
  gint64 now = boottime_ns ();

  /* Without an answer the watch is not confirmed: "now" stays the bound. */
  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, NULL);
  if (reply != NULL)
    {
      g_mutex_lock (&appearances->lock);
      appearances->watching = now;
      g_mutex_unlock (&appearances->lock);
    }
  appearances_unref (appearances);
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

static void
on_name_owner_changed_cb (GDBusConnection *bus,
                          const char      *sender_name,
                          const char      *object_path,
                          const char      *interface_name,
                          const char      *signal_name,
                          GVariant        *parameters,
                          gpointer         user_data)
{
  SrCallerCache *self = user_data;
  const char *name, *old_owner, *new_owner;

  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (name[0] == ':' && new_owner[0] == '\0')
    {
      g_autoptr(SrCaller) caller = NULL;
      g_autofree char *key = NULL;

      /* Stealing hands over the key too: it must be freed here. */
      g_mutex_lock (&self->lock);
      g_hash_table_steal_extended (self->callers, name, (gpointer *) &key, (gpointer *) &caller);
      g_mutex_unlock (&self->lock);
      g_mutex_lock (&self->appearances->lock);
      g_hash_table_remove (self->appearances->names, name);
      g_mutex_unlock (&self->appearances->lock);
      if (caller != NULL)
        g_signal_emit (self, signals[SIGNAL_CALLER_LEFT], 0, caller);
    }
}

static void
sr_caller_cache_finalize (GObject *object)
{
  SrCallerCache *self = SR_CALLER_CACHE (object);

  g_dbus_connection_signal_unsubscribe (self->bus, self->name_owner_changed_id);
  /* The filter's data goes when GDBus is done with it. */
  g_dbus_connection_remove_filter (self->bus, self->filter_id);
  g_hash_table_unref (self->callers);
  g_hash_table_unref (self->lookups);
  g_mutex_clear (&self->lock);
  g_object_unref (self->bus);
  appearances_unref (self->appearances);
  g_clear_pointer (&self->bus_sockets, sr_bus_sockets_free);

  G_OBJECT_CLASS (sr_caller_cache_parent_class)->finalize (object);
}

static void
sr_caller_cache_class_init (SrCallerCacheClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sr_caller_cache_finalize;

  /**
   * SrCallerCache::caller-left:
   * @caller: (type gpointer): the SrCaller whose connection left the bus
   */
  signals[SIGNAL_CALLER_LEFT] =
    g_signal_new ("caller-left", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
sr_caller_cache_init (SrCallerCache *self)
{
  g_mutex_init (&self->lock);
  self->callers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) sr_caller_unref);
  self->lookups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) g_ptr_array_unref);
}

/* The kernel's view of who holds a connection to @bus, or NULL. */
static SrBusSockets *
bus_sockets_for (GDBusConnection *bus)
{
  GIOStream *stream = g_dbus_connection_get_stream (bus);
  g_autoptr(GError) error = NULL;
  SrBusSockets *sockets = NULL;

  if (G_IS_SOCKET_CONNECTION (stream))
    sockets = sr_bus_sockets_new (g_socket_get_fd (g_socket_connection_get_socket (
                                    G_SOCKET_CONNECTION (stream))), &error);
  else
    g_set_error_literal (&error, SR_ERROR, SR_ERROR_FAILED,
                         "The connection to the bus is not a socket");
  if (sockets == NULL)
    g_warning ("Callers are identified without checking that they hold their connection "
               "to the bus: %s", error->message);
  return sockets;
}

SrCallerCache *
sr_caller_cache_new (GDBusConnection *bus)
{
  SrCallerCache *self = g_object_new (SR_TYPE_CALLER_CACHE, NULL);

  self->bus = g_object_ref (bus);
  self->bus_sockets = bus_sockets_for (bus);
  /* Names that appear from now on are noted as they appear; those that
   * appeared before get the time the bus confirms the watch. */
  self->appearances = g_atomic_rc_box_new0 (Appearances);
  g_mutex_init (&self->appearances->lock);
  self->appearances->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->appearances->watching = NOT_YET_WATCHING;
  self->filter_id = g_dbus_connection_add_filter (bus, note_appearances_filter,
                                                  g_atomic_rc_box_acquire (self->appearances),
                                                  appearances_unref);
  /* The subscription's user data is unowned: it is removed in finalize,
   * and signals are delivered on this (the main) thread. */
  self->name_owner_changed_id =
    g_dbus_connection_signal_subscribe (bus, "org.freedesktop.DBus",
                                        "org.freedesktop.DBus", "NameOwnerChanged",
                                        "/org/freedesktop/DBus", NULL,
                                        G_DBUS_SIGNAL_FLAGS_NONE,
                                        on_name_owner_changed_cb, self, NULL);
  g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetId", NULL, G_VARIANT_TYPE ("(s)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_watching_cb,
                          g_atomic_rc_box_acquire (self->appearances));
  return self;
}

/* On any thread: the caller behind @sender, if it has been identified. */
SrCaller *
sr_caller_cache_dup (SrCallerCache *self,
                     const char    *sender)
{
  SrCaller *caller;

  g_mutex_lock (&self->lock);
  caller = g_hash_table_lookup (self->callers, sender);
  if (caller != NULL)
    sr_caller_ref (caller);
  g_mutex_unlock (&self->lock);
  return caller;
}

/* Every caller on the bus now: (element-type SrCaller) (transfer full). */
GPtrArray *
sr_caller_cache_dup_all (SrCallerCache *self)
{
  GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify) sr_caller_unref);
  GHashTableIter iter;
  gpointer caller;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->callers);
  while (g_hash_table_iter_next (&iter, NULL, &caller))
    g_ptr_array_add (all, sr_caller_ref (caller));
  g_mutex_unlock (&self->lock);
  return all;
}

/* The sandbox, as sr-process.c reads it. */
static gboolean
identify_flatpak (int        root_fd,
                  SrCaller  *caller,
                  GError   **error)
{
  if (!sr_process_read_flatpak_app (root_fd, &caller->app_id, error))
    return FALSE;
  if (caller->app_id != NULL)
    caller->kind = SR_CALLER_FLATPAK;
  return TRUE;
}

/* @bus_label: (nullable) the label the bus took when the connection was
 * made; preferred to the one the pid has now. */
static gboolean
identify_snap (guint32      pid,
               const char  *bus_label,
               SrCaller    *caller,
               GError     **error)
{
  if (!sr_process_read_snap_app (pid, bus_label, &caller->app_id, error))
    return FALSE;
  if (caller->app_id != NULL)
    caller->kind = SR_CALLER_SNAP;
  return TRUE;
}

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
  guint64 start_time_after;
  gint32 fd_index;
  gboolean ok;

  if (!g_variant_lookup (credentials, "UnixUserID", "u", &caller->uid))
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The bus did not tell the caller's user");
      return NULL;
    }

  /* A pidfd pins the process that connected: its pid cannot be reused
   * while we look. If that process has exited, whoever holds its socket
   * now cannot be told: refused, not looked up by pid. */
  if (fds != NULL && g_variant_lookup (credentials, "ProcessFD", "h", &fd_index))
    {
      pidfd = g_unix_fd_list_get (fds, fd_index, NULL);
      if (pidfd < 0 || (caller->pid = sr_process_pid_from_pidfd (pidfd)) == 0)
        {
          g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                               "Cannot tell who is calling: the process that made the "
                               "connection has exited");
          return NULL;
        }
    }
  if (caller->pid == 0 &&
      !g_variant_lookup (credentials, "ProcessID", "u", &caller->pid))
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The bus did not tell the caller's process");
      return NULL;
    }
  /* The bus's label is the one of the process that connected, as it was
   * then; a nul-terminated byte string. */
  g_variant_lookup (credentials, "LinuxSecurityLabel", "^ay", &bus_label);

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
        ok = identify_flatpak (root_fd, caller, error) &&
             (caller->kind != SR_CALLER_HOST ||
              identify_snap (caller->pid, bus_label, caller, error));
    }
  /* The pid may name a process that never held the connection: one that
   * took the pid of a process that connected and exited, before the
   * connection appeared (it may authenticate long after connect(2)), or
   * before policyd read that it had. Such a process is not let pass for a
   * host process unless it holds a connection to the bus itself. A
   * sandboxed one needs no such check to be refused what a host may do. */
  if (ok && pidfd < 0 && caller->kind == SR_CALLER_HOST && bus_sockets != NULL)
    ok = sr_bus_sockets_held_by (bus_sockets, caller->pid, error);
  if (ok)
    caller->program = caller->kind == SR_CALLER_HOST ? read_program (caller->pid)
                                                     : g_strdup (caller->app_id);

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

typedef struct {
  SrCallerCache *cache;      /* (owned) */
  char *sender;              /* (owned) */
} Lookup;

static void
on_credentials_ready_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  Lookup *lookup = user_data;
  SrCallerCache *self = lookup->cache;
  g_autoptr(GPtrArray) waiting = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SrCaller) caller = NULL;

  reply = g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source),
                                                           &fds, result, &error);
  if (reply == NULL)
    {
      g_autoptr(GError) bus_error = g_steal_pointer (&error);
      g_set_error (&error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "Could not identify the caller: %s", bus_error->message);
    }
  else
    {
      g_autoptr(GVariant) credentials = g_variant_get_child_value (reply, 0);
      caller = sr_caller_identify (credentials, fds, appeared (self, lookup->sender),
                                   self->bus_sockets, &error);
    }

  if (caller != NULL)
    {
      caller->sender = g_strdup (lookup->sender);
      g_mutex_lock (&self->lock);
      g_hash_table_replace (self->callers, g_strdup (lookup->sender), sr_caller_ref (caller));
      g_mutex_unlock (&self->lock);
    }

  g_hash_table_steal_extended (self->lookups, lookup->sender, NULL, (gpointer *) &waiting);
  for (guint i = 0; waiting != NULL && i < waiting->len; i++)
    {
      GTask *task = waiting->pdata[i];

      if (caller != NULL)
        g_task_return_pointer (task, sr_caller_ref (caller), (GDestroyNotify) sr_caller_unref);
      else
        g_task_return_error (task, g_error_copy (error));
    }

  /* The key was stolen with the array: it is the lookup's sender. */
  g_free (lookup->sender);
  g_object_unref (lookup->cache);
  g_free (lookup);
}

void
sr_caller_cache_lookup_async (SrCallerCache       *self,
                              const char          *sender,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);
  GPtrArray *waiting = g_hash_table_lookup (self->lookups, sender);
  Lookup *lookup;

  g_task_set_source_tag (task, sr_caller_cache_lookup_async);
  if (waiting != NULL)
    {
      g_ptr_array_add (waiting, task);
      return;
    }

  waiting = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (waiting, task);
  lookup = g_new0 (Lookup, 1);
  lookup->cache = g_object_ref (self);
  lookup->sender = g_strdup (sender);
  g_hash_table_insert (self->lookups, lookup->sender, waiting);

  g_dbus_connection_call_with_unix_fd_list (self->bus,
                                            "org.freedesktop.DBus",
                                            "/org/freedesktop/DBus",
                                            "org.freedesktop.DBus",
                                            "GetConnectionCredentials",
                                            g_variant_new ("(s)", sender),
                                            G_VARIANT_TYPE ("(a{sv})"),
                                            G_DBUS_CALL_FLAGS_NONE, -1,
                                            NULL, NULL,
                                            on_credentials_ready_cb, lookup);
}

/* Returns: (transfer full) the caller, or NULL with a NotAllowed error. */
SrCaller *
sr_caller_cache_lookup_finish (SrCallerCache  *self,
                               GAsyncResult   *result,
                               GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sr_caller_cache_lookup_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
