/* sr-portal-logind.c: shutdown and suspend, as logind announces them
 *
 * PrepareForShutdown(true) ends the desktop session (sr-portal-end.c):
 * SaveHint to every registered app, and the record written as a session
 * end. PrepareForSleep(true) sends SaveHint only. Either way logind
 * waits for the round, because the backend holds a delay inhibitor
 * ("shutdown:sleep") from its first answered Register (or a second after
 * its start without one, sr_portal_watch_logind()): it is released once the apps have
 * answered (or 3 s have passed) and the record is on disk, and taken
 * again when logind says the shutdown was cancelled or the system resumed
 * (the same signals with false); a cancelled shutdown calls the session's
 * ending off.
 *
 * Without a system bus or logind only SIGTERM and EndSession end the
 * session.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-logind"

#include "config.h"

#include <gio/gunixfdlist.h>
#include <glib/gstdio.h>

#include "sr-portal.h"

#define LOGIND_NAME "org.freedesktop.login1"
#define LOGIND_PATH "/org/freedesktop/login1"
#define LOGIND_MANAGER "org.freedesktop.login1.Manager"
/* When the system bus is connected to if no Register comes first. */
#define LOGIND_DELAY_MS 1000

static void
inhibited (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  SrPortal *self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source),
                                                                               &fds, result, &error);
  gint32 index = -1;

  self->inhibiting = FALSE;
  if (reply != NULL)
    {
      g_variant_get (reply, "(h)", &index);
      if (fds != NULL)
        self->inhibitor_fd = g_unix_fd_list_get (fds, index, &error);
    }
  if (self->inhibitor_fd >= 0)
    return;
  /* Without logind on the system bus only SIGTERM and EndSession end the
   * session, as on any desktop without it: nothing to report. */
  if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
      g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN))
    g_debug ("No logind: %s", error->message);
  else
    g_message ("No delay inhibitor: shutdown and suspend will not wait for the apps: %s",
               error != NULL ? error->message : "no file descriptor");
}

static void
take_inhibitor (SrPortal *self)
{
  if (self->system_bus == NULL || self->inhibitor_fd >= 0 || self->inhibiting)
    return;
  self->inhibiting = TRUE;
  g_dbus_connection_call_with_unix_fd_list (self->system_bus, LOGIND_NAME, LOGIND_PATH,
                                            LOGIND_MANAGER, "Inhibit",
                                            g_variant_new ("(ssss)", "shutdown:sleep",
                                                           "Session Restore",
                                                           "Asking apps to save their state",
                                                           "delay"),
                                            G_VARIANT_TYPE ("(h)"),
                                            G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL, NULL,
                                            inhibited, self);
}

/* logind goes on with the shutdown or the suspend once this is closed. */
static void
release_inhibitor (SrPortal *self)
{
  if (self->inhibitor_fd < 0)
    return;
  g_close (self->inhibitor_fd, NULL);
  self->inhibitor_fd = -1;
}

static void
ended_for_shutdown (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  SrPortal *self = user_data;

  /* The end of the session has said in the log whether the apps open
   * are recorded (sr-portal-end.c). */
  sr_portal_end_session_finish (self, result, NULL);
  release_inhibitor (self);
}

static void
saved_for_sleep (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  release_inhibitor (user_data);
}

static void
logind_signal (GDBusConnection *connection,
               const char      *sender,
               const char      *path,
               const char      *interface,
               const char      *signal,
               GVariant        *parameters,
               gpointer         user_data)
{
  SrPortal *self = user_data;
  gboolean start = FALSE;

  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(b)")))
    return;
  g_variant_get (parameters, "(b)", &start);
  if (!start)
    {
      /* Resumed, or the shutdown was cancelled: the next one waits too,
       * and a cancelled shutdown did not end the session. */
      if (g_str_equal (signal, "PrepareForShutdown"))
        sr_portal_end_called_off (self, "the shutdown was cancelled");
      take_inhibitor (self);
      return;
    }
  if (g_str_equal (signal, "PrepareForShutdown"))
    {
      g_message ("The system is shutting down: ending the session");
      sr_portal_end_session_async (self, ended_for_shutdown, self);
    }
  else if (g_str_equal (signal, "PrepareForSleep"))
    sr_portal_save_hint_round_async (self, saved_for_sleep, self);
}

static void
on_system_bus (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  GDBusConnection *bus = g_bus_get_finish (result, &error);
  SrPortal *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;   /* the backend is exiting: @user_data may be gone */
  self = user_data;
  if (bus == NULL)
    {
      g_message ("No system bus, so no logind: %s", error->message);
      return;
    }
  self->system_bus = bus;
  g_dbus_connection_signal_subscribe (self->system_bus, LOGIND_NAME, LOGIND_MANAGER, NULL,
                                      LOGIND_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                      logind_signal, self, NULL);
  take_inhibitor (self);
}

static gboolean
connect_system_bus (gpointer user_data)
{
  SrPortal *self = user_data;

  g_clear_handle_id (&self->logind_timeout_id, g_source_remove);
  g_clear_handle_id (&self->logind_idle_id, g_source_remove);
  g_bus_get (G_BUS_TYPE_SYSTEM, self->logind_cancellable, on_system_bus, self);
  return G_SOURCE_REMOVE;
}

/* The system bus is connected to in the background, and not before the
 * first Register has been answered (sr_portal_watch_logind_now()), or
 * LOGIND_DELAY_MS after the start without one: Register needs only the
 * session bus, and connecting (the system bus's Hello, the match rule for
 * logind's signals, the Inhibit call) kept GDBus's worker thread, which
 * reads both buses, and the main loop busy while the first Register
 * waited. */
void
sr_portal_watch_logind (SrPortal *self)
{
  guint delay_ms = LOGIND_DELAY_MS;

#if SR_TEST_BUILD
  /* So that a test can tell the first Register's connection from the
   * fallback's without a race: it sets a fallback that never comes. */
  const char *test_delay = g_getenv ("SR_PORTAL_LOGIND_DELAY_MS");

  if (test_delay != NULL)
    delay_ms = (guint) g_ascii_strtoull (test_delay, NULL, 10);
#endif
  self->inhibitor_fd = -1;
  self->logind_cancellable = g_cancellable_new ();
  self->logind_timeout_id = g_timeout_add (delay_ms, connect_system_bus, self);
}

/* From GDBus's worker thread, with SrPortal.lock held, once a Register
 * has been answered: the connection starts in the main loop. */
void
sr_portal_watch_logind_now (SrPortal *self)
{
  if (self->logind_timeout_id == 0 || self->logind_idle_id != 0 || self->closing)
    return;
  self->logind_idle_id = g_idle_add (connect_system_bus, self);
}

void
sr_portal_unwatch_logind (SrPortal *self)
{
  g_clear_handle_id (&self->logind_timeout_id, g_source_remove);
  g_clear_handle_id (&self->logind_idle_id, g_source_remove);
  g_cancellable_cancel (self->logind_cancellable);
  g_clear_object (&self->logind_cancellable);
  release_inhibitor (self);
}
