/* test-state.c: crash counters, clear points and their files; caller
 * identification parsers
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-state"

#include "config.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sr-caller.h"
#include "sr-clear-points.h"
#include "sr-crash-guard.h"
#include "sr-error.h"
#include "sr-state-file.h"

#define S ((gint64) G_USEC_PER_SEC)

static char *
tmp_path (const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("sr-state-XXXXXX", NULL);
  return g_build_filename (dir, name, NULL);
}

static void
remove_tmp (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *corrupt = g_strconcat (path, ".corrupt", NULL);

  g_unlink (path);
  g_unlink (corrupt);
  g_rmdir (dir);
}

static void
test_crash_guard_counts_and_persists (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path);
  g_autoptr(SrCrashGuard) reloaded = NULL;

  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.A", FALSE, 100 * S, 60, NULL));
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.A", FALSE, 110 * S, 60, NULL));
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.B", FALSE, 110 * S, 60, NULL));
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 120 * S, 60), ==, 2);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 165 * S, 60), ==, 1);
  g_assert_true (sr_crash_guard_in_loop (guard, "org.example.A", 120 * S, 2, 60));
  g_assert_false (sr_crash_guard_in_loop (guard, "org.example.A", 120 * S, 3, 60));
  g_assert_false (sr_crash_guard_in_loop (guard, "org.example.A", 120 * S, 0, 60));

  /* Writes within a second of each other are coalesced: flush, as policyd
   * does at exit. */
  g_assert_true (sr_crash_guard_flush (guard));
  reloaded = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.A", 120 * S, 60), ==, 2);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.B", 120 * S, 60), ==, 1);

  /* A voluntary exit forgets, on disk too. */
  g_assert_true (sr_crash_guard_note_exit (reloaded, "org.example.A", TRUE, 121 * S, 60, NULL));
  g_assert_true (sr_crash_guard_flush (reloaded));
  g_clear_pointer (&reloaded, sr_crash_guard_free);
  reloaded = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.A", 121 * S, 60), ==, 0);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.B", 121 * S, 60), ==, 1);

  remove_tmp (path);
}

static void
test_crash_guard_bounded (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path);

  for (guint i = 0; i < 1500; i++)
    g_assert_true (sr_crash_guard_note_exit (guard, "org.example.A", FALSE, (gint64) (1000 + i) * S,
                                             100000, NULL));
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.A", 2500 * S, 100000), ==, 1000);
  remove_tmp (path);
}

/* Apps with no exit in the largest window there can be (a week) are
 * forgotten by the next exit noted, whoever it is for: the file holds
 * recent crashes only. Within a week they are kept, whatever the window
 * now, so that a wider window later still counts them. */
#define DAY (24 * 60 * 60 * S)

static void
test_crash_guard_forgets_quiet_apps (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sr-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "crash-counters", NULL);
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path);
  g_autoptr(SrCrashGuard) reloaded = NULL;
  GStatBuf st;

  /* 1,000 apps crash over three days. */
  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.Crashy%u", i);
      g_assert_true (sr_crash_guard_note_exit (guard, app, FALSE, 100 * DAY + (i % 30) * DAY / 10,
                                               60, NULL));
    }
  g_assert_true (sr_crash_guard_flush (guard));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 40000);

  /* A week after the first half crashed, only they are forgotten... */
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.Other", TRUE,
                                           108 * DAY + DAY / 2, 60, NULL));
  g_assert_true (sr_crash_guard_flush (guard));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 15000);
  g_assert_cmpint (st.st_size, <, 25000);
  /* ...and the others still count in a window widened to a week. */
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.Crashy29", 108 * DAY + DAY / 2,
                                          7 * 24 * 60 * 60), ==, 1);

  /* Another week on, none is left but the one that just crashed. */
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.New", FALSE, 120 * DAY, 60, NULL));
  g_assert_true (sr_crash_guard_flush (guard));
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, 100);
  reloaded = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_count (reloaded, "org.example.New", 120 * DAY, 60), ==, 1);

  g_assert_cmpint (g_remove (path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Issue 13, C: app ids invented by a caller cannot grow the table past
 * SR_CRASH_GUARD_MAX_APPS; a new app evicts the one whose latest exit is
 * oldest. */
static void
test_crash_guard_capped (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path);
  g_autoptr(SrCrashGuard) reloaded = NULL;

  for (guint i = 0; i < SR_CRASH_GUARD_MAX_APPS; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.App%u", i);
      g_assert_true (sr_crash_guard_note_exit (guard, app, FALSE, (1000 + i) * S, 100000, NULL));
    }
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  /* App0 crashes again: now App1's latest exit is the oldest. */
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.App0", FALSE, 3000 * S, 100000, NULL));
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.New", FALSE, 3001 * S, 100000, NULL));
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App1", 3001 * S, 100000), ==, 0);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App0", 3001 * S, 100000), ==, 2);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App2", 3001 * S, 100000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.New", 3001 * S, 100000), ==, 1);

  /* 5,000 more: still capped, and the newest are the ones kept. */
  for (guint i = 0; i < 5000; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.Flood%u", i);
      g_assert_true (sr_crash_guard_note_exit (guard, app, FALSE, (4000 + i) * S, 100000, NULL));
    }
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.Flood4999", 9000 * S, 100000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.Flood3976", 9000 * S, 100000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.Flood3975", 9000 * S, 100000), ==, 0);
  g_assert_true (sr_crash_guard_flush (guard));
  reloaded = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_n_apps (reloaded), ==, SR_CRASH_GUARD_MAX_APPS);
  remove_tmp (path);
}

static gboolean
set_true_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The first change after a quiet second is written at once; the changes
 * within the next second are written together when it is over (or at
 * flush), not one by one. */
static void
test_crash_guard_coalesces_writes (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_autoptr(SrCrashGuard) guard = sr_crash_guard_new (path);
  g_autoptr(SrCrashGuard) on_disk = NULL;
  GStatBuf first, st;
  gboolean waited = FALSE;

  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.A", FALSE, 100 * S, 60, NULL));
  g_assert_cmpint (g_stat (path, &first), ==, 0);
  on_disk = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_n_apps (on_disk), ==, 1);
  g_clear_pointer (&on_disk, sr_crash_guard_free);

  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.B%u", i);
      g_assert_true (sr_crash_guard_note_exit (guard, app, FALSE, 101 * S, 60, NULL));
    }
  /* Not rewritten yet: the same file (inode) as after the first. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpuint (st.st_ino, ==, first.st_ino);

  /* The scheduled write, about a second on. */
  g_timeout_add (1500, set_true_cb, &waited);
  while (!waited)
    g_main_context_iteration (NULL, TRUE);
  on_disk = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_n_apps (on_disk), ==, 201);
  g_clear_pointer (&on_disk, sr_crash_guard_free);

  /* Within the second after that write, a change waits for flush. */
  g_assert_true (sr_crash_guard_note_exit (guard, "org.example.C", FALSE, 102 * S, 60, NULL));
  on_disk = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_n_apps (on_disk), ==, 201);
  g_clear_pointer (&on_disk, sr_crash_guard_free);
  g_assert_true (sr_crash_guard_flush (guard));
  on_disk = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_n_apps (on_disk), ==, 202);
  remove_tmp (path);
}

/* A table over the cap (5,000 apps), or a file over the size limit, is
 * not thrown away at start: the apps that crashed last are kept. */
static void
test_crash_guard_loads_newest_of_large_tables (void)
{
  g_autofree char *path = tmp_path ("crash-counters");
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sax}"));
  g_autoptr(SrCrashGuard) guard = NULL;
  g_autoptr(GError) error = NULL;
  gsize n_exits = SR_STATE_FILE_MAX / sizeof (gint64) / 3 + 1000;
  g_autofree gint64 *exits = g_new (gint64, n_exits);
  GStatBuf st;

  for (guint i = 0; i < 5000; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.App%u", i);
      gint64 when = (gint64) (i % 2 ? 100000 + i : 10000 + i) * S;
      g_variant_builder_add (&builder, "{s@ax}", app,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, &when, 1,
                                                        sizeof (gint64)));
    }
  g_assert_true (sr_state_file_save (path, g_variant_builder_end (&builder), &error));
  g_assert_no_error (error);

  g_test_expect_message ("sr-crash-guard", G_LOG_LEVEL_WARNING, "*5000 apps*kept the 1024*");
  guard = sr_crash_guard_new (path);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  /* The odd ones crashed last; of them, the 1,024 newest. */
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App4999", 200000 * S, 1000000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App2953", 200000 * S, 1000000), ==, 1);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App2951", 200000 * S, 1000000), ==, 0);
  g_assert_cmpuint (sr_crash_guard_count (guard, "org.example.App4998", 200000 * S, 1000000), ==, 0);
  /* What was kept was written back. */
  g_clear_pointer (&guard, sr_crash_guard_free);
  guard = sr_crash_guard_new (path);
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, SR_CRASH_GUARD_MAX_APPS);
  g_clear_pointer (&guard, sr_crash_guard_free);

  /* Over the size limit: three apps with very long histories. */
  for (gsize i = 0; i < n_exits; i++)
    exits[i] = (gint64) (1000 + i) * S;
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{sax}"));
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.Long%u", i);
      g_variant_builder_add (&builder, "{s@ax}", app,
                             g_variant_new_fixed_array (G_VARIANT_TYPE_INT64, exits,
                                                        n_exits - i, sizeof (gint64)));
    }
  g_assert_true (sr_state_file_save (path, g_variant_builder_end (&builder), &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, SR_STATE_FILE_MAX);

  g_test_expect_message ("sr-crash-guard", G_LOG_LEVEL_WARNING, "*over the limit*newest*");
  guard = sr_crash_guard_new (path);
  g_test_assert_expected_messages ();
  g_assert_cmpuint (sr_crash_guard_n_apps (guard), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *app = g_strdup_printf ("org.example.Long%u", i);
      gint64 latest = (gint64) (1000 + n_exits - i - 1) * S;

      /* Its newest exits: the last one, and 1,000 in all. */
      g_assert_cmpuint (sr_crash_guard_count (guard, app, latest, 0), ==, 1);
      g_assert_cmpuint (sr_crash_guard_count (guard, app, latest, 1000000000), ==, 1000);
    }
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, <, 100000);
  remove_tmp (path);
}

static void
test_clear_points (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_autoptr(SrClearPoints) points = sr_clear_points_new (path);
  g_autoptr(SrClearPoints) reloaded = NULL;
  const char *apps[] = { "org.example.A", "org.example.B", NULL };
  const char *empty[] = { NULL };

  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), ==, 0);
  g_assert_true (sr_clear_points_record (points, apps, 50, NULL));
  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), ==, 50);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.C"), ==, 0);
  /* Points never move back. */
  g_assert_true (sr_clear_points_record (points, apps, 40, NULL));
  g_assert_cmpint (sr_clear_points_get (points, "org.example.B"), ==, 50);

  /* An empty list is "all". */
  g_assert_true (sr_clear_points_record (points, empty, 30, NULL));
  g_assert_cmpint (sr_clear_points_get (points, "org.example.C"), ==, 30);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), ==, 50);

  reloaded = sr_clear_points_new (path);
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.A"), ==, 50);
  g_assert_cmpint (sr_clear_points_get (reloaded, "org.example.C"), ==, 30);
  remove_tmp (path);
}

static void
test_clear_points_write_failure_changes_nothing (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *blocked = g_build_filename (dir, "blocked", "clear-points", NULL);
  g_autofree char *blocker = g_build_filename (dir, "blocked", NULL);
  g_autoptr(SrClearPoints) points = NULL;
  g_autoptr(GError) error = NULL;
  const char *apps[] = { "org.example.A", NULL };

  /* A file where the directory should be: the write must fail. */
  points = sr_clear_points_new (blocked);
  g_assert_true (g_file_set_contents (blocker, "", 0, NULL));
  g_assert_false (sr_clear_points_record (points, apps, 50, &error));
  g_assert_error (error, SR_ERROR, SR_ERROR_FAILED);
  g_assert_cmpint (sr_clear_points_get (points, "org.example.A"), ==, 0);
  g_unlink (blocker);
  remove_tmp (path);
}

static void
test_state_file_corrupt_is_set_aside (void)
{
  g_autofree char *path = tmp_path ("clear-points");
  g_autofree char *aside = g_strconcat (path, ".corrupt", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) value = NULL;

  g_assert_true (g_file_set_contents (path, "\xff\xfe garbage", -1, NULL));
  value = sr_state_file_load (path, G_VARIANT_TYPE ("(xa{sx})"), &error);
  g_assert_null (value);
  g_assert_error (error, SR_ERROR, SR_ERROR_FAILED);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (aside, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  /* Missing is not an error. */
  value = sr_state_file_load (path, G_VARIANT_TYPE ("(xa{sx})"), &error);
  g_assert_null (value);
  g_assert_no_error (error);
  remove_tmp (path);
}

/* Issue 13, D: without a pidfd, a process that started after its
 * connection appeared on the bus (its pid was reused) is not the caller;
 * the same clock tick is doubt, and refused too. */
static void
test_caller_started_after (void)
{
  const gint64 appeared = G_GINT64_CONSTANT (2412136789940);   /* tick 241213 at 100 Hz */

  g_assert_false (sr_caller_started_after (241212, appeared, 100));
  g_assert_false (sr_caller_started_after (0, appeared, 100));
  g_assert_true (sr_caller_started_after (241213, appeared, 100));
  g_assert_true (sr_caller_started_after (241214, appeared, 100));
  g_assert_true (sr_caller_started_after (G_MAXUINT64, appeared, 100));
  /* Another tick rate: 250 Hz, tick 603034. */
  g_assert_false (sr_caller_started_after (603033, appeared, 250));
  g_assert_true (sr_caller_started_after (603034, appeared, 250));
  /* Doubt: no tick rate, or no time. */
  g_assert_true (sr_caller_started_after (1, appeared, 0));
  g_assert_true (sr_caller_started_after (1, appeared, -1));
  g_assert_true (sr_caller_started_after (1, -1, 100));
  /* Long uptimes do not overflow (ns × Hz would): a year at 1000 Hz. */
  g_assert_false (sr_caller_started_after (G_GUINT64_CONSTANT (31535999999),
                                           G_GINT64_CONSTANT (31536000000000000), 1000));
  g_assert_true (sr_caller_started_after (G_GUINT64_CONSTANT (31536000000),
                                          G_GINT64_CONSTANT (31536000000000000), 1000));
}

static gint64
boottime_now (void)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (CLOCK_BOOTTIME, &ts), ==, 0);
  return (gint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
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
  const char *argv[] = { "sleep", "30", NULL };

  /* This process started before now: it is a host caller. */
  creds = credentials (getpid (), NULL, -1);
  caller = sr_caller_identify (creds, NULL, boottime_now (), &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->kind, ==, SR_CALLER_HOST);
  g_clear_pointer (&caller, sr_caller_unref);
  g_clear_pointer (&creds, g_variant_unref);

  /* The label the bus took at connect time names a snap, whatever the
   * process's label is now. */
  creds = credentials (getpid (), "snap.example.app (enforce)", -1);
  caller = sr_caller_identify (creds, NULL, boottime_now (), &error);
  g_assert_no_error (error);
  g_assert_cmpint (caller->kind, ==, SR_CALLER_SNAP);
  g_assert_cmpstr (caller->app_id, ==, "snap.example");
  g_clear_pointer (&caller, sr_caller_unref);
  g_clear_pointer (&creds, g_variant_unref);

  /* A process that started after the connection appeared (a reused pid). */
  before_child = boottime_now ();
  g_usleep (30000);   /* three ticks at 100 Hz */
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &child, NULL));
  creds = credentials (child, NULL, -1);
  caller = sr_caller_identify (creds, NULL, before_child, &error);
  g_assert_null (caller);
  g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
  g_assert_nonnull (strstr (error->message, "Cannot tell who is calling"));
  g_clear_error (&error);
  /* The same process, for a connection that appeared after it started
   * (not in the same tick: that is doubt, and refused). */
  g_usleep (30000);
  caller = sr_caller_identify (creds, NULL, boottime_now (), &error);
  g_assert_no_error (error);
  g_clear_pointer (&caller, sr_caller_unref);
  g_clear_pointer (&creds, g_variant_unref);

  /* A ProcessFD whose process has exited: refused, not looked up by the
   * pid (which another process may have now). */
  pidfd = (int) syscall (SYS_pidfd_open, child, 0);
  g_assert_cmpint (pidfd, >=, 0);
  kill (child, SIGKILL);
  g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
  g_spawn_close_pid (child);
  fds = g_unix_fd_list_new_from_array (&pidfd, 1);
  creds = credentials (getpid (), NULL, 0);
  caller = sr_caller_identify (creds, fds, boottime_now (), &error);
  g_assert_null (caller);
  g_assert_error (error, SR_ERROR, SR_ERROR_NOT_ALLOWED);
  g_assert_nonnull (strstr (error->message, "Cannot tell who is calling"));
}

static void
test_flatpak_info (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *app = NULL;
  const char *good = "[Application]\nname=org.example.App\nruntime=runtime/x\n";

  app = sr_caller_parse_flatpak_info (good, strlen (good), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (app, ==, "org.example.App");

  g_assert_null (sr_caller_parse_flatpak_info ("[Runtime]\n", 10, NULL));
  g_assert_null (sr_caller_parse_flatpak_info ("[Application]\nname=../x\n", 24, NULL));
  g_assert_null (sr_caller_parse_flatpak_info ("\x01\x02", 2, NULL));
}

static void
test_snap_label (void)
{
  g_autofree char *a = sr_caller_parse_snap_label ("snap.firefox.firefox (enforce)\n");
  g_autofree char *b = sr_caller_parse_snap_label ("snap.code.code (complain)");
  g_autofree char *c = sr_caller_parse_snap_label ("unconfined\n");
  g_autofree char *d = sr_caller_parse_snap_label ("snap..x");
  g_autofree char *e = sr_caller_parse_snap_label ("snap-update-ns.firefox (enforce)");

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

  g_test_add_func ("/crash-guard/counts-and-persists", test_crash_guard_counts_and_persists);
  g_test_add_func ("/crash-guard/bounded", test_crash_guard_bounded);
  g_test_add_func ("/crash-guard/forgets-quiet-apps", test_crash_guard_forgets_quiet_apps);
  g_test_add_func ("/crash-guard/capped", test_crash_guard_capped);
  g_test_add_func ("/crash-guard/coalesces-writes", test_crash_guard_coalesces_writes);
  g_test_add_func ("/crash-guard/loads-newest-of-large-tables",
                   test_crash_guard_loads_newest_of_large_tables);
  g_test_add_func ("/clear-points/record", test_clear_points);
  g_test_add_func ("/clear-points/write-failure", test_clear_points_write_failure_changes_nothing);
  g_test_add_func ("/state-file/corrupt", test_state_file_corrupt_is_set_aside);
  g_test_add_func ("/caller/flatpak-info", test_flatpak_info);
  g_test_add_func ("/caller/snap-label", test_snap_label);
  g_test_add_func ("/caller/started-after", test_caller_started_after);
  g_test_add_func ("/caller/identify", test_caller_identify);

  return g_test_run ();
}
