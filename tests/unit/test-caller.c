/* test-caller.c: caller identification (policyd/callers/sr-caller.c): what it
 * parses (.flatpak-info and snap labels), and when a pid is taken for the
 * process that connected
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-caller"

#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gio/gunixfdlist.h>

#include "sr-caller.h"
#include "sr-error.h"
#include "sr-process.h"
#include "sr-fd.h"
#include "test-bus.h"

static void
test_caller_started_after (void)
{
  const gint64 appeared = G_GINT64_CONSTANT (2412136789940);   /* tick 241213 at 100 Hz */

  g_assert_false (sr_caller_started_after (241212, appeared, 100));
  g_assert_false (sr_caller_started_after (0, appeared, 100));
  /* The same tick: a client that connects as soon as it starts. */
  g_assert_false (sr_caller_started_after (241213, appeared, 100));
  g_assert_true (sr_caller_started_after (241214, appeared, 100));
  g_assert_true (sr_caller_started_after (G_MAXUINT64, appeared, 100));
  /* Another tick rate: 250 Hz, tick 603034. */
  g_assert_false (sr_caller_started_after (603034, appeared, 250));
  g_assert_true (sr_caller_started_after (603035, appeared, 250));
  /* Doubt: no tick rate, or no time. */
  g_assert_true (sr_caller_started_after (1, appeared, 0));
  g_assert_true (sr_caller_started_after (1, appeared, -1));
  g_assert_true (sr_caller_started_after (1, -1, 100));
  /* Long uptimes do not overflow (ns × Hz would): a year at 1000 Hz. */
  g_assert_false (sr_caller_started_after (G_GUINT64_CONSTANT (31535999999),
                                           G_GINT64_CONSTANT (31536000000000000), 1000));
  g_assert_true (sr_caller_started_after (G_GUINT64_CONSTANT (31536000001),
                                          G_GINT64_CONSTANT (31536000000000000), 1000));
}

static gint64
boottime_now (void)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (CLOCK_BOOTTIME, &ts), ==, 0);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A child process that holds nothing but its own files. */
static GPid
spawn_sleeper (void)
{
  const char *argv[] = { "sleep", "30", NULL };
  GPid child;

  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &child, NULL));
  return child;
}

static void
kill_and_reap (GPid child)
{
  kill (child, SIGKILL);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  g_spawn_close_pid (child);
}

static GVariant *
credentials (guint32     pid,
             const char *label,
             gint32      fd_index)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (&builder, "{sv}", "UnixUserID", g_variant_new_uint32 (getuid ()));
  g_variant_builder_add (&builder, "{sv}", "ProcessID", g_variant_new_uint32 (pid));
  if (label != NULL)
    g_variant_builder_add (&builder, "{sv}", "LinuxSecurityLabel", g_variant_new_bytestring (label));
  if (fd_index >= 0)
    g_variant_builder_add (&builder, "{sv}", "ProcessFD", g_variant_new_handle (fd_index));
  return g_variant_ref_sink (g_variant_builder_end (&builder));
}

/* Identification from the bus's credentials: a process that started
 * after its connection appeared is refused; so is a ProcessFD whose
 * process has exited; the bus's security label names a snap. */
static void
test_caller_identify (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrCaller) caller = NULL;
  g_autoptr(GVariant) creds = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  gint64 before_child;
  GPid child;
  int pidfd;

  /* This process started before now: it is a host caller. */
  creds = credentials (getpid (), NULL, -1);
  caller = sr_caller_identify (creds, NULL, boottime_now (), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->kind, ==, SR_CALLER_HOST);
  g_clear_pointer (&caller, sr_caller_unref);
  g_clear_pointer (&creds, g_variant_unref);

  /* The label the bus took at connect time names a snap, whatever the
   * process's label is now. */
  creds = credentials (getpid (), "snap.example.app (enforce)", -1);
  caller = sr_caller_identify (creds, NULL, boottime_now (), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->kind, ==, SR_CALLER_SNAP);
  g_assert_cmpstr (caller->app_id, ==, "snap.example");
  g_clear_pointer (&caller, sr_caller_unref);
  g_clear_pointer (&creds, g_variant_unref);

  /* A process that started after the connection appeared (a reused pid). */
  before_child = boottime_now ();
  g_usleep (30000);   /* three ticks at 100 Hz */
  child = spawn_sleeper ();
  creds = credentials (child, NULL, -1);
  caller = sr_caller_identify (creds, NULL, before_child, NULL, &error);
  g_assert_null (caller);
  g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
  g_assert_nonnull (strstr (error->message, "Cannot tell who is calling"));
  g_clear_error (&error);
  /* The same process, for a connection that appeared after it started
   * (not in the same tick: that is doubt, and refused). */
  g_usleep (30000);
  caller = sr_caller_identify (creds, NULL, boottime_now (), NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&caller, sr_caller_unref);
  g_clear_pointer (&creds, g_variant_unref);

  /* A ProcessFD whose process has exited: refused, not looked up by the
   * pid (which another process may have now). */
  pidfd = (int) syscall (SYS_pidfd_open, child, 0);
  g_assert_cmpint (pidfd, >=, 0);
  kill_and_reap (child);
  fds = g_unix_fd_list_new_from_array (&pidfd, 1);
  creds = credentials (getpid (), NULL, 0);
  caller = sr_caller_identify (creds, fds, boottime_now (), NULL, &error);
  g_assert_null (caller);
  g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
  g_assert_nonnull (strstr (error->message, "Cannot tell who is calling"));
}

/* sr_caller_identify() on the credentials written in @creds (GVariant
 * text), with this process's uid for "%u" and its pid for "%p": the
 * caller, or NULL and @error set. */
static SrCaller *
identify_text (const char  *creds,
               GError     **error)
{
  g_autoptr(GString) text = g_string_new (creds);
  g_autofree char *uid = g_strdup_printf ("%u", getuid ());
  g_autofree char *pid = g_strdup_printf ("%u", (guint) getpid ());
  g_autoptr(GVariant) parsed = NULL;

  g_string_replace (text, "%u", uid, 0);
  g_string_replace (text, "%p", pid, 0);
  parsed = g_variant_ref_sink (g_variant_new_parsed (text->str));

  return sr_caller_identify (parsed, NULL, boottime_now (), NULL, error);
}

/* The credentials' entries are read as g_variant_lookup() reads them: a
 * key missing or of another type is not there, and of a key given twice
 * the first entry counts. */
static void
test_caller_identify_entries (void)
{
  const struct {
    const char *creds;
    const char *refused;   /* NULL: identified */
  } cases[] = {
    { "{'ProcessID': <uint32 %p>}", "The bus did not tell the caller's user" },
    /* The first UnixUserID is of the wrong type: the right one after it
     * does not count. */
    { "{'UnixUserID': <int32 %u>, 'UnixUserID': <uint32 %u>, 'ProcessID': <uint32 %p>}",
      "The bus did not tell the caller's user" },
    { "{'UnixUserID': <uint32 %u>, 'ProcessID': <int32 %p>}",
      "The bus did not tell the caller's process" },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(SrCaller) caller = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      caller = identify_text (cases[i].creds, &error);
      g_assert_null (caller);
      g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
      g_assert_cmpstr (error->message, ==, cases[i].refused);
      g_clear_error (&error);
    }

  /* Two ProcessIDs and two labels: the first of each counts, and an
   * entry of a key not read between them changes nothing. */
  caller = identify_text ("{'LinuxSecurityLabel': <b'snap.example.app (enforce)'>, "
                          "'UnixGroupIDs': <uint32 0>, 'ProcessID': <uint32 %p>, "
                          "'UnixUserID': <uint32 %u>, 'ProcessID': <uint32 4294967295>, "
                          "'LinuxSecurityLabel': <b'unconfined'>}", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (caller->pid, ==, (guint) getpid ());
  g_assert_cmpuint (caller->uid, ==, getuid ());
  g_assert_cmpint (caller->kind, ==, SR_CALLER_SNAP);
  g_assert_cmpstr (caller->app_id, ==, "snap.example");
  g_clear_pointer (&caller, sr_caller_unref);

  /* A label of another type is no label. */
  caller = identify_text ("{'UnixUserID': <uint32 %u>, 'ProcessID': <uint32 %p>, "
                          "'LinuxSecurityLabel': <'snap.example.app (enforce)'>}", &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->kind, ==, SR_CALLER_HOST);
}

/* Without ProcessFD, a process is let pass for a host caller only if it
 * holds a connection to the bus itself, and an unknown time refuses it.
 * With ProcessFD, the pidfd pins the process that connected: neither its
 * start time nor its sockets are asked. */
static void
test_caller_identify_pinned_or_holding (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrCaller) caller = NULL;
  g_autoptr(GVariant) creds = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(SrBusSockets) sockets = NULL;
  g_auto(SrFd) listener = -1;
  g_auto(SrFd) client = -1;
  g_auto(SrFd) accepted = -1;
  gint64 before_child, appeared;
  GPid child;
  int pidfd;

  listener = listen_and_connect (&client, &accepted);
  sockets = sr_bus_sockets_new (client, &error);
  g_assert_no_error (error);

  /* This process holds a connection to the (stand-in) bus. */
  creds = credentials (getpid (), NULL, -1);
  caller = sr_caller_identify (creds, NULL, boottime_now (), sockets, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->kind, ==, SR_CALLER_HOST);
  g_clear_pointer (&caller, sr_caller_unref);

  /* A time that could not be read counts as before the process started. */
  caller = sr_caller_identify (creds, NULL, -1, sockets, &error);
  g_assert_null (caller);
  g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
  g_assert_nonnull (strstr (error->message, "started after"));
  g_clear_error (&error);
  g_clear_pointer (&creds, g_variant_unref);

  /* A process that started before the connection appeared, but holds no
   * connection to the bus: it took the pid of the one that connected. */
  before_child = boottime_now ();
  child = spawn_sleeper ();
  g_usleep (30000);   /* three ticks at 100 Hz */
  appeared = boottime_now ();
  creds = credentials (child, NULL, -1);
  caller = sr_caller_identify (creds, NULL, appeared, sockets, &error);
  g_assert_null (caller);
  g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
  g_assert_nonnull (strstr (error->message, "holds no connection to the bus"));
  g_clear_error (&error);
  /* That is what refuses it: without the kernel's socket table, the time
   * alone lets it pass. */
  caller = sr_caller_identify (creds, NULL, appeared, NULL, &error);
  g_assert_no_error (error);
  g_clear_pointer (&caller, sr_caller_unref);
  g_clear_pointer (&creds, g_variant_unref);

  /* A ProcessFD pins that very process: it passes, though it holds no
   * connection, started after the given appearance, or the time is
   * unknown. */
  pidfd = (int) syscall (SYS_pidfd_open, child, 0);
  g_assert_cmpint (pidfd, >=, 0);
  fds = g_unix_fd_list_new_from_array (&pidfd, 1);
  creds = credentials (child, NULL, 0);
  caller = sr_caller_identify (creds, fds, before_child - 30000000, sockets, &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->kind, ==, SR_CALLER_HOST);
  g_assert_cmpuint (caller->pid, ==, child);
  g_clear_pointer (&caller, sr_caller_unref);
  caller = sr_caller_identify (creds, fds, -1, sockets, &error);
  g_assert_no_error (error);
  g_clear_pointer (&caller, sr_caller_unref);

  kill_and_reap (child);
}

static void
test_flatpak_info (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *app = NULL;
  const char *good = "[Application]\nname=org.example.App\nruntime=runtime/x\n";

  app = sr_process_parse_flatpak_info (good, strlen (good), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (app, ==, "org.example.App");

  g_assert_null (sr_process_parse_flatpak_info ("[Runtime]\n", 10, NULL));
  g_assert_null (sr_process_parse_flatpak_info ("[Application]\nname=../x\n", 24, NULL));
  g_assert_null (sr_process_parse_flatpak_info ("\x01\x02", 2, NULL));
}

/* Flatpak runs apps only under names flatpak_is_valid_name() accepts.
 * Anything else, a host app's desktop file id above all ("vlc"), is no
 * Flatpak's: a sandbox naming it would report exits for that host app. */
static void
test_flatpak_info_names_a_flatpak_app (void)
{
  const char *accepted[] = {
    "org.example.App", "org.example.my-app", "org.example.-app", "io.github.user_1.Tool",
    "org.example.App2", "a.b.c",
  };
  const char *refused[] = {
    "vlc", "firefox-esr", "org.vlc", "org.example", "org.my-vendor.App", "org.example.9app",
    "org.9example.App", "org.example.App+", "c++.example.App", "org.example.App.desktop",
    "org..example.App", ".org.example.App", "org.example.App.",
  };

  for (guint i = 0; i < G_N_ELEMENTS (accepted); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *data = g_strdup_printf ("[Application]\nname=%s\n", accepted[i]);
      g_autofree char *app = sr_process_parse_flatpak_info (data, strlen (data), &error);

      g_assert_no_error (error);
      g_assert_cmpstr (app, ==, accepted[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *data = g_strdup_printf ("[Application]\nname=%s\n", refused[i]);
      g_autofree char *app = sr_process_parse_flatpak_info (data, strlen (data), &error);

      g_test_message ("%s", refused[i]);
      g_assert_null (app);
      g_assert_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS);
    }
}

static void
test_snap_label (void)
{
  g_autofree char *a = sr_process_parse_snap_label ("snap.firefox.firefox (enforce)\n");
  g_autofree char *b = sr_process_parse_snap_label ("snap.code.code (complain)");
  g_autofree char *c = sr_process_parse_snap_label ("unconfined\n");
  g_autofree char *d = sr_process_parse_snap_label ("snap..x");
  g_autofree char *e = sr_process_parse_snap_label ("snap-update-ns.firefox (enforce)");

  g_assert_cmpstr (a, ==, "snap.firefox");
  g_assert_cmpstr (b, ==, "snap.code");
  g_assert_null (c);
  g_assert_null (d);
  g_assert_null (e);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/caller/flatpak-info", test_flatpak_info);
  g_test_add_func ("/caller/flatpak-info-names-a-flatpak-app", test_flatpak_info_names_a_flatpak_app);
  g_test_add_func ("/caller/snap-label", test_snap_label);
  g_test_add_func ("/caller/started-after", test_caller_started_after);
  g_test_add_func ("/caller/identify", test_caller_identify);
  g_test_add_func ("/caller/identify-entries", test_caller_identify_entries);
  g_test_add_func ("/caller/identify-pinned-or-holding", test_caller_identify_pinned_or_holding);

  return g_test_run ();
}
