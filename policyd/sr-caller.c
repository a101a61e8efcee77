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
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-caller"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "sr-app-id.h"
#include "sr-caller.h"
#include "sr-error.h"

#define FLATPAK_INFO_MAX (64 * 1024)

struct _SrCallerCache {
  GDBusConnection *bus;      /* (owned) */
  GMutex lock;               /* guards changes to callers, reads off the main thread */
  GHashTable *callers;       /* (owned) unique name → SrCaller */
  guint name_owner_changed_id;
};

static void
sr_caller_free (SrCaller *caller)
{
  g_free (caller->app_id);
  g_free (caller);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrCaller, sr_caller_free)

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
      g_mutex_lock (&self->lock);
      g_hash_table_remove (self->callers, name);
      g_mutex_unlock (&self->lock);
    }
}

SrCallerCache *
sr_caller_cache_new (GDBusConnection *bus)
{
  SrCallerCache *self = g_new0 (SrCallerCache, 1);

  self->bus = g_object_ref (bus);
  g_mutex_init (&self->lock);
  self->callers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) sr_caller_free);
  self->name_owner_changed_id =
    g_dbus_connection_signal_subscribe (bus, "org.freedesktop.DBus",
                                        "org.freedesktop.DBus", "NameOwnerChanged",
                                        "/org/freedesktop/DBus", NULL,
                                        G_DBUS_SIGNAL_FLAGS_NONE,
                                        on_name_owner_changed_cb, self, NULL);
  return self;
}

void
sr_caller_cache_free (SrCallerCache *self)
{
  g_dbus_connection_signal_unsubscribe (self->bus, self->name_owner_changed_id);
  g_hash_table_unref (self->callers);
  g_mutex_clear (&self->lock);
  g_object_unref (self->bus);
  g_free (self);
}

/* Main thread only (the one that changes the table); the caller stays
 * valid until the main loop next runs. */
const SrCaller *
sr_caller_cache_peek (SrCallerCache *self,
                      const char    *sender)
{
  return g_hash_table_lookup (self->callers, sender);
}

/* On any thread: whether @sender is known and may ask about @app_id (the
 * sandbox rule). FALSE when it may not, or is not known yet. */
gboolean
sr_caller_cache_may_ask_about (SrCallerCache *self,
                               const char    *sender,
                               const char    *app_id)
{
  const SrCaller *caller;
  gboolean may;

  g_mutex_lock (&self->lock);
  caller = g_hash_table_lookup (self->callers, sender);
  may = caller != NULL &&
        (caller->kind == SR_CALLER_HOST || g_strcmp0 (caller->app_id, app_id) == 0);
  g_mutex_unlock (&self->lock);
  return may;
}

char *
sr_caller_parse_flatpak_info (const char  *data,
                              gsize        len,
                              GError     **error)
{
  g_autoptr(GKeyFile) info = g_key_file_new ();
  g_autofree char *app_id = NULL;

  if (!g_key_file_load_from_data (info, data, len, G_KEY_FILE_NONE, error))
    return NULL;
  app_id = g_key_file_get_string (info, "Application", "name", error);
  if (app_id == NULL || !sr_app_id_validate (app_id, error))
    return NULL;
  return g_steal_pointer (&app_id);
}

/* AppArmor labels of snaps look like "snap.<snap>.<app> (enforce)". The app
 * id is "snap.<snap>", the part that names the package. */
char *
sr_caller_parse_snap_label (const char *label)
{
  const char *name, *end;
  g_autofree char *app_id = NULL;

  if (!g_str_has_prefix (label, "snap."))
    return NULL;
  name = label + strlen ("snap.");
  end = name + strcspn (name, ". \n");
  if (end == name)
    return NULL;
  app_id = g_strdup_printf ("snap.%.*s", (int) (end - name), name);
  return sr_app_id_validate (app_id, NULL) ? g_steal_pointer (&app_id) : NULL;
}

static gboolean
read_start_time (guint32   pid,
                 guint64  *out_start_time,
                 GError  **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/stat", pid);
  g_autofree char *contents = NULL;
  g_auto(GStrv) fields = NULL;
  const char *after_comm;

  if (!g_file_get_contents (path, &contents, NULL, error))
    return FALSE;

  /* The command name may hold spaces and parentheses: skip past the last
   * ')'. Field 22 (starttime) is then the 20th. */
  after_comm = strrchr (contents, ')');
  if (after_comm != NULL)
    fields = g_strsplit (after_comm + 2, " ", 21);
  if (fields == NULL || g_strv_length (fields) < 21)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_FAILED, "%s does not parse", path);
      return FALSE;
    }
  *out_start_time = g_ascii_strtoull (fields[19], NULL, 10);
  return TRUE;
}

static gboolean
identify_flatpak (int        root_fd,
                  SrCaller  *caller,
                  GError   **error)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) local_error = NULL;
  gssize n;
  int fd;

  fd = openat (root_fd, ".flatpak-info", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
  if (fd < 0)
    {
      int saved_errno = errno;
      if (saved_errno == ENOENT)
        return TRUE;
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "Could not read the caller's .flatpak-info: %s",
                   g_strerror (saved_errno));
      return FALSE;
    }

  data = g_malloc (FLATPAK_INFO_MAX);
  n = read (fd, data, FLATPAK_INFO_MAX);
  close (fd);
  if (n < 0 || n == FLATPAK_INFO_MAX)
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The caller's .flatpak-info could not be read whole");
      return FALSE;
    }

  caller->app_id = sr_caller_parse_flatpak_info (data, n, &local_error);
  if (caller->app_id == NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "The caller's .flatpak-info names no valid app: %s",
                   local_error->message);
      return FALSE;
    }
  caller->kind = SR_CALLER_FLATPAK;
  return TRUE;
}

static gboolean
identify_snap (guint32    pid,
               SrCaller  *caller,
               GError   **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/attr/current", pid);
  g_autofree char *label = NULL;
  g_autoptr(GError) local_error = NULL;

  /* Without an LSM, or with one that is not AppArmor, there is no snap
   * label to find. */
  if (!g_file_get_contents (path, &label, NULL, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT) ||
          g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_INVAL))
        return TRUE;
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "Could not read the caller's security label: %s",
                   local_error->message);
      return FALSE;
    }

  if (!g_str_has_prefix (label, "snap."))
    return TRUE;

  caller->app_id = sr_caller_parse_snap_label (label);
  if (caller->app_id == NULL)
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The caller's snap label names no valid app");
      return FALSE;
    }
  caller->kind = SR_CALLER_SNAP;
  return TRUE;
}

/* The pid a pidfd refers to, from /proc/self/fdinfo; 0 if it has exited. */
static guint32
pid_from_pidfd (int pidfd)
{
  g_autofree char *path = g_strdup_printf ("/proc/self/fdinfo/%d", pidfd);
  g_autofree char *contents = NULL;
  const char *line;
  gint64 pid;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return 0;
  line = strstr (contents, "\nPid:");
  if (line == NULL)
    return 0;
  pid = g_ascii_strtoll (line + strlen ("\nPid:"), NULL, 10);
  return pid > 0 ? (guint32) pid : 0;
}

static gboolean
pidfd_is_alive (int pidfd)
{
  struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

  /* A pidfd becomes readable when its process exits. */
  return poll (&pfd, 1, 0) == 0;
}

static SrCaller *
identify (GVariant     *credentials,
          GUnixFDList  *fds,
          GError      **error)
{
  g_autoptr(SrCaller) caller = g_new0 (SrCaller, 1);
  g_autofree char *root_path = NULL;
  guint64 start_time_after;
  int pidfd = -1;
  gint32 fd_index;
  int root_fd;
  gboolean ok;

  if (!g_variant_lookup (credentials, "UnixUserID", "u", &caller->uid))
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The bus did not tell the caller's user");
      return NULL;
    }

  /* A pidfd pins the process: its pid cannot be reused while we look. */
  if (fds != NULL && g_variant_lookup (credentials, "ProcessFD", "h", &fd_index))
    {
      pidfd = g_unix_fd_list_get (fds, fd_index, NULL);
      if (pidfd >= 0)
        caller->pid = pid_from_pidfd (pidfd);
    }
  if (caller->pid == 0 &&
      !g_variant_lookup (credentials, "ProcessID", "u", &caller->pid))
    {
      if (pidfd >= 0)
        close (pidfd);
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The bus did not tell the caller's process");
      return NULL;
    }

  root_path = g_strdup_printf ("/proc/%u/root", caller->pid);
  ok = read_start_time (caller->pid, &caller->start_time, error);
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
        {
          ok = identify_flatpak (root_fd, caller, error) &&
               (caller->kind != SR_CALLER_HOST || identify_snap (caller->pid, caller, error));
          close (root_fd);
        }
    }

  /* What we read must still belong to the process that called. */
  if (ok && pidfd >= 0)
    ok = pidfd_is_alive (pidfd);
  else if (ok)
    ok = read_start_time (caller->pid, &start_time_after, NULL) &&
         start_time_after == caller->start_time;
  if (pidfd >= 0)
    close (pidfd);

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
  SrCallerCache *cache;   /* (unowned): outlives the bus connection's calls */
  char *sender;           /* (owned) */
} LookupData;

static void
lookup_data_free (LookupData *data)
{
  g_free (data->sender);
  g_free (data);
}

static void
on_credentials_ready_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  LookupData *data = g_task_get_task_data (task);
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) credentials = NULL;
  g_autoptr(GError) error = NULL;
  SrCaller *caller;

  reply = g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source),
                                                           &fds, result, &error);
  if (reply == NULL)
    {
      g_task_return_new_error (task, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                               "Could not identify the caller: %s", error->message);
      return;
    }

  credentials = g_variant_get_child_value (reply, 0);
  caller = identify (credentials, fds, &error);
  if (caller == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_mutex_lock (&data->cache->lock);
  g_hash_table_replace (data->cache->callers, g_strdup (data->sender), caller);
  g_mutex_unlock (&data->cache->lock);
  g_task_return_pointer (task, caller, NULL);
}

void
sr_caller_cache_lookup_async (SrCallerCache       *self,
                              const char          *sender,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, callback, user_data);
  LookupData *data = g_new0 (LookupData, 1);

  data->cache = self;
  data->sender = g_strdup (sender);
  g_task_set_task_data (task, data, (GDestroyNotify) lookup_data_free);
  g_task_set_source_tag (task, sr_caller_cache_lookup_async);

  g_dbus_connection_call_with_unix_fd_list (self->bus,
                                            "org.freedesktop.DBus",
                                            "/org/freedesktop/DBus",
                                            "org.freedesktop.DBus",
                                            "GetConnectionCredentials",
                                            g_variant_new ("(s)", sender),
                                            G_VARIANT_TYPE ("(a{sv})"),
                                            G_DBUS_CALL_FLAGS_NONE, -1,
                                            NULL, NULL,
                                            on_credentials_ready_cb,
                                            g_steal_pointer (&task));
}

const SrCaller *
sr_caller_cache_lookup_finish (SrCallerCache  *self,
                               GAsyncResult   *result,
                               GError        **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}
