/* sr-process.c: what policyd and its clients read of another process
 *
 * From /proc: when a process started (which, with its pid, names it
 * until the pid is reused), its executable, and whether it runs in a
 * sandbox and as which app. policyd identifies its callers with these
 * (sr-caller.c); policyd, the panel and session-restore-ctl verify each
 * other's bus peers with them (sr-peer.c).
 *
 * The sandbox is read as it fails closed: a root or a security label
 * that cannot be read is an error, never taken for "not sandboxed"; and
 * one that names an app as no real sandbox would (a Flatpak app id
 * without Flatpak's dots) is an error too, never taken for that app.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define G_LOG_DOMAIN "sr-process"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sr-app-id.h"
#include "sr-error.h"
#include "sr-fd.h"
#include "sr-process.h"

#define FLATPAK_INFO_MAX (64 * 1024)

/* @out_start_time: in clock ticks since boot, field 22 of /proc/PID/stat,
 * as polkit wants it. */
gboolean
sr_process_read_start_time (guint32   pid,
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

/* The pid a pidfd refers to, from /proc/self/fdinfo; 0 if it has exited. */
guint32
sr_process_pid_from_pidfd (int pidfd)
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

gboolean
sr_process_pidfd_is_alive (int pidfd)
{
  struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

  /* A pidfd becomes readable when its process exits. */
  return poll (&pfd, 1, 0) == 0;
}

/* The absolute path of the process's executable. A binary replaced on
 * disk since it started (an upgrade) reads "/usr/bin/foo (deleted)": that
 * is still the file that was installed at that path, and its path is
 * returned. */
char *
sr_process_read_executable (guint32   pid,
                            GError  **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/exe", pid);
  g_autofree char *target = g_file_read_link (path, error);

  if (target == NULL)
    return NULL;
  if (g_str_has_suffix (target, " (deleted)"))
    target[strlen (target) - strlen (" (deleted)")] = '\0';
  return g_steal_pointer (&target);
}

/* Flatpak's own rule for app ids (flatpak_is_valid_name()), on an id
 * sr_app_id_validate() accepted (so no "..", no "/", nothing but
 * letters, digits and "._-+", no "." at either end): three elements or
 * more, each of letters, digits and "_" and not starting with a digit,
 * "-" allowed in the last element only. Flatpak installs and runs no app
 * under any other name, so a .flatpak-info that names one was not written
 * by Flatpak. That matters because host apps are named by their desktop
 * file ids, most of which have no dot ("vlc", "firefox-esr"): a sandbox
 * that could name itself so would ask about, and report exits of, a host
 * app, and poison its crash-loop guard. */
static gboolean
is_flatpak_app_id (const char  *app_id,
                   GError     **error)
{
  const char *last_dot = strrchr (app_id, '.');
  const char *last_element = last_dot != NULL ? last_dot + 1 : app_id;
  guint dots = 0;
  const char *problem = NULL;

  for (const char *p = app_id; *p != '\0' && problem == NULL; p++)
    {
      gboolean starts_element = p == app_id || p[-1] == '.';

      if (*p == '.')
        dots++;
      else if (*p == '+')
        problem = "“+” is not allowed";
      else if (*p == '-' && p < last_element)
        problem = "“-” is only allowed in its last element";
      else if (starts_element && g_ascii_isdigit (*p))
        problem = "an element starts with a digit";
    }
  if (problem == NULL && dots < 2)
    problem = "it has fewer than three elements";

  if (problem != NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "“%s” is not a Flatpak app id: %s", app_id, problem);
      return FALSE;
    }
  return TRUE;
}

char *
sr_process_parse_flatpak_info (const char  *data,
                               gsize        len,
                               GError     **error)
{
  g_autoptr(GKeyFile) info = g_key_file_new ();
  g_autofree char *app_id = NULL;

  if (!g_key_file_load_from_data (info, data, len, G_KEY_FILE_NONE, error))
    return NULL;
  app_id = g_key_file_get_string (info, "Application", "name", error);
  /* sr_app_id_validate() first: it refuses what could not be printed. */
  if (app_id == NULL || !sr_app_id_validate (app_id, error) || !is_flatpak_app_id (app_id, error))
    return NULL;
  return g_steal_pointer (&app_id);
}

/* AppArmor labels of snaps look like "snap.<snap>.<app> (enforce)". The app
 * id is "snap.<snap>", the part that names the package. */
char *
sr_process_parse_snap_label (const char *label)
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

/* @root_fd: the process's /proc/PID/root. TRUE with *@out_app_id NULL
 * when the root has no .flatpak-info (not a Flatpak), TRUE with the app
 * id when it names one, FALSE (NotAllowed) when it cannot be told. */
gboolean
sr_process_read_flatpak_app (int     root_fd,
                             char  **out_app_id,
                             GError **error)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) local_error = NULL;
  g_auto(SrFd) fd = -1;
  struct stat st;
  gssize n;

  *out_app_id = NULL;
  /* The process controls its root: .flatpak-info may be a FIFO (whose
   * open or read would block this thread), a device, or a directory. Open
   * it without blocking and read it only if it is a regular file. */
  fd = openat (root_fd, ".flatpak-info",
               O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0)
    {
      int saved_errno = errno;
      if (saved_errno == ENOENT)
        return TRUE;
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "Could not read the process's .flatpak-info: %s",
                   g_strerror (saved_errno));
      return FALSE;
    }

  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode))
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The process's .flatpak-info is not a regular file");
      return FALSE;
    }

  data = g_malloc (FLATPAK_INFO_MAX);
  n = read (fd, data, FLATPAK_INFO_MAX);
  if (n < 0 || n == FLATPAK_INFO_MAX)
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The process's .flatpak-info could not be read whole");
      return FALSE;
    }

  *out_app_id = sr_process_parse_flatpak_info (data, n, &local_error);
  if (*out_app_id == NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "The process's .flatpak-info names no valid app: %s",
                   local_error->message);
      return FALSE;
    }
  return TRUE;
}

/* /proc/PID/attr/current, NUL-terminated; NULL and @out_errno if it
 * cannot be read whole. Not g_file_get_contents(): without an LSM the read fails
 * (EINVAL) on every call, and GLib words each failure in the locale's
 * character set, which loads iconv's modules into a program that never
 * shows the words. */
static char *
read_security_label (guint32  pid,
                     int     *out_errno)
{
  char path[sizeof "/proc/4294967295/attr/current"];
  char buffer[4096];
  g_auto(SrFd) fd = -1;
  gssize n;

  g_snprintf (path, sizeof path, "/proc/%u/attr/current", pid);
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  /* procfs gives the whole label to one read, as .flatpak-info's is read
   * above. */
  n = fd < 0 ? -1 : read (fd, buffer, sizeof buffer);
  if (n < 0)
    {
      *out_errno = errno;
      return NULL;
    }
  /* Longer than any label: not taken for a shorter one. */
  if (n == sizeof buffer)
    {
      *out_errno = E2BIG;
      return NULL;
    }
  return g_strndup (buffer, n);
}

/* @bus_label: (nullable) the label the bus took when the connection was
 * made; preferred to the one the pid has now. TRUE with *@out_app_id NULL
 * when the process is no snap, TRUE with the app id when it is one, FALSE
 * (NotAllowed) when it cannot be told. */
gboolean
sr_process_read_snap_app (guint32      pid,
                          const char  *bus_label,
                          char       **out_app_id,
                          GError     **error)
{
  g_autofree char *label = g_strdup (bus_label);
  int read_errno;

  *out_app_id = NULL;
  if (label == NULL && (label = read_security_label (pid, &read_errno)) == NULL)
    {
      /* Without an LSM, or with one that is not AppArmor, there is no
       * snap label to find. */
      if (read_errno == ENOENT || read_errno == EINVAL)
        return TRUE;
      g_set_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "Could not read the process's security label: %s",
                   g_strerror (read_errno));
      return FALSE;
    }

  if (!g_str_has_prefix (label, "snap."))
    return TRUE;

  *out_app_id = sr_process_parse_snap_label (label);
  if (*out_app_id == NULL)
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                           "The process's snap label names no valid app");
      return FALSE;
    }
  return TRUE;
}
