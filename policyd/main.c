/* main.c: session-restore-policyd
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-policyd"

#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gio/gio.h>

#include "sr-bus.h"
#include "sr-daemon.h"
#include "sr-handover.h"
#include "sr-log.h"
#include "sr-settings.h"

/* Exit statuses (session-restore-policyd(8)). A lost bus is a failure the
 * unit restarts from (Restart=on-failure); finding the name taken is not
 * something a restart mends (RestartPreventExitStatus=). An instance that
 * hands over to a --replace exits on SIGTERM, with 0. */
enum {
  SR_EXIT_OK = 0,
  SR_EXIT_FAILURE = 1,          /* the bus went away, or could not be reached */
  SR_EXIT_USAGE = 2,
  SR_EXIT_NAME_TAKEN = 3,       /* owned by another process, not handed over */
};

typedef struct {
  GMainLoop *loop;          /* (owned) */
  SrDaemon *daemon;         /* (owned) */
  gboolean replace;         /* --replace */
  gboolean queued;          /* --replace: waiting for the old instance to go */
  gboolean acquired;
  int exit_status;
} Context;

static void
on_bus_acquired_cb (GDBusConnection *bus,
                    const char      *name,
                    gpointer         user_data)
{
  Context *ctx = user_data;
  g_autoptr(GError) error = NULL;

  if (!sr_daemon_export (ctx->daemon, bus, &error))
    {
      g_printerr ("Could not export %s: %s\n", SR_OBJECT_PATH, error->message);
      ctx->exit_status = SR_EXIT_FAILURE;
      g_main_loop_quit (ctx->loop);
    }
}

static void
on_name_acquired_cb (GDBusConnection *bus,
                     const char      *name,
                     gpointer         user_data)
{
  Context *ctx = user_data;

  ctx->acquired = TRUE;
  g_debug ("Owning %s", name);
}

static void
on_closed_while_queued_cb (GDBusConnection *bus,
                           gboolean         remote_peer_vanished,
                           GError          *error,
                           gpointer         user_data)
{
  Context *ctx = user_data;

  /* GDBus reports no second lost name for a connection that closes while
   * the name is still only queued for. */
  if (ctx->acquired)
    return;
  g_printerr ("The connection to the bus was closed while waiting for %s\n", SR_BUS_NAME);
  ctx->exit_status = SR_EXIT_FAILURE;
  g_main_loop_quit (ctx->loop);
}

static void
on_name_lost_cb (GDBusConnection *bus,
                 const char      *name,
                 gpointer         user_data)
{
  Context *ctx = user_data;
  g_autoptr(GError) error = NULL;

  /* GDBus reports a closed connection as a lost name with no bus. A
   * connection can close under policyd without anything of its own going
   * wrong: GLib 2.74's GDBus drops it on some valid messages (README,
   * Reliability). Exit with a failure, so that the unit (or the next
   * call, by D-Bus activation) starts policyd again. */
  if (ctx->acquired && bus == NULL)
    {
      g_warning ("%s: the connection to the bus was closed; exiting to be restarted", name);
      ctx->exit_status = SR_EXIT_FAILURE;
    }
  else if (ctx->acquired)
    {
      /* The name is not replaceable: nothing but policyd itself gives it up. */
      g_warning ("%s: lost the name, exiting", name);
      ctx->exit_status = SR_EXIT_NAME_TAKEN;
    }
  else if (bus == NULL)
    {
      g_printerr ("Could not connect to the session bus\n");
      ctx->exit_status = SR_EXIT_FAILURE;
    }
  else if (ctx->replace && !ctx->queued)
    {
      /* GDBus reports "in the queue" as a lost name too; the name comes
       * with name-acquired once the owner has gone (sr-handover.c). */
      ctx->queued = TRUE;
      g_signal_connect (bus, "closed", G_CALLBACK (on_closed_while_queued_cb), ctx);
      if (sr_handover_ask_owner_to_go (bus, &error))
        return;
      g_printerr ("%s\n", error->message);
      ctx->exit_status = SR_EXIT_NAME_TAKEN;
    }
  else
    {
      g_printerr ("%s is owned by another process; use --replace to take over\n", name);
      ctx->exit_status = SR_EXIT_NAME_TAKEN;
    }
  g_main_loop_quit (ctx->loop);
}

static gboolean
on_terminate_cb (gpointer user_data)
{
  Context *ctx = user_data;

  g_main_loop_quit (ctx->loop);
  return G_SOURCE_REMOVE;
}

int
main (int    argc,
      char **argv)
{
  gboolean replace = FALSE, verbose = FALSE, version = FALSE;
  const GOptionEntry entries[] = {
    { "replace", 'r', 0, G_OPTION_ARG_NONE, &replace,
      "Replace the running instance", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose,
      "Print debugging messages", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version,
      "Print the version and exit", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) options = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SrSettings) settings = NULL;
  Context ctx = { 0 };
  guint owner_id;

  /* GLib 2.74's slice allocator keeps what it frees for reuse and never
   * gives it back: after one 64 MiB message (millions of GVariants), 1.4
   * GiB stayed resident for good. Plain malloc() gives it back (see the
   * heap trim in sr-fast-path.c). GLib reads G_SLICE before main() runs,
   * so without it policyd starts itself again with it; the systemd unit
   * sets it, and saves that. If the exec fails, policyd goes on as it is. */
  if (g_strcmp0 (getenv ("G_SLICE"), "always-malloc") != 0 &&
      setenv ("G_SLICE", "always-malloc", 1) == 0)
    execv ("/proc/self/exe", argv);

  /* Only the character set of the user's locale, taken when something is
   * written (common/sr-log.c): policyd's messages are for developers and
   * logs, in English (no LC_MESSAGES), but they must come out readable, in
   * UTF-8 where the locale has it and in ASCII where it does not (LANG=C),
   * never as "?". */
  sr_log_init ();

  options = g_option_context_new (NULL);
  g_option_context_set_summary (options,
                                "The policy authority for saving and restoring app state.");
  g_option_context_add_main_entries (options, entries, NULL);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return SR_EXIT_USAGE;
    }

  if (version)
    {
      g_print ("session-restore-policyd %s\n", PACKAGE_VERSION);
      return 0;
    }

  if (verbose)
    g_log_set_debug_enabled (TRUE);

  /* Never replaceable (sr-handover.c). Without --replace, a name taken is
   * an error at once; with it, policyd queues for the name, and REPLACE
   * takes it from an older policyd that still allowed replacement.
   * Asked for before anything else: connecting to the bus (GDBus does it
   * on threads of its own) takes as long as reading the settings and
   * policyd's state, which it now overlaps. The callbacks run from the
   * main loop, once all of that is in place. */
  ctx.replace = replace;
  owner_id = g_bus_own_name (G_BUS_TYPE_SESSION, SR_BUS_NAME,
                             replace ? G_BUS_NAME_OWNER_FLAGS_REPLACE
                                     : G_BUS_NAME_OWNER_FLAGS_DO_NOT_QUEUE,
                             on_bus_acquired_cb, on_name_acquired_cb, on_name_lost_cb,
                             &ctx, NULL);

  settings = sr_settings_new (&error);
  if (settings == NULL)
    {
      g_printerr ("%s\n", error->message);
      g_bus_unown_name (owner_id);
      return SR_EXIT_FAILURE;
    }

  ctx.loop = g_main_loop_new (NULL, FALSE);
  ctx.daemon = sr_daemon_new (settings);

  g_unix_signal_add (SIGTERM, on_terminate_cb, &ctx);
  g_unix_signal_add (SIGINT, on_terminate_cb, &ctx);

  g_main_loop_run (ctx.loop);

  g_bus_unown_name (owner_id);
  g_clear_pointer (&ctx.daemon, sr_daemon_free);
  g_clear_pointer (&ctx.loop, g_main_loop_unref);

  return ctx.exit_status;
}
