/* sr-portal-origin.c: whether an app registered from a Flatpak sandbox
 *
 * The login reopens an app from its desktop file; a Flatpak app must be
 * reopened through the desktop file Flatpak exports for it (which runs
 * it in its sandbox), never through a host desktop file that happens to
 * have its id, and a host app never through a Flatpak's. So the backend
 * notes where each app registered from: the frontend names the app's
 * connection in the session handle (…/session/<unique name without ':'
 * and with '.' as '_'>/<token>), and the process behind it is looked at
 * as policyd looks at its callers (sr-process.c), on a worker thread
 * after Register has been answered, once per app while the backend runs
 * (again if the process could not be told). A process gone
 * meanwhile, or one that cannot be told, leaves what the record knew.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-origin"

#include "config.h"

#include "sr-peer.h"
#include "sr-portal.h"

/* The unique name the handle's sender part stands for. */
static char *
unique_name_of (const char *handle)
{
  const char *rest, *slash;
  g_autofree char *part = NULL;

  if (!g_str_has_prefix (handle, SR_PORTAL_SESSION_PREFIX))
    return NULL;
  rest = handle + strlen (SR_PORTAL_SESSION_PREFIX);
  slash = strchr (rest, '/');
  if (slash == NULL || slash == rest)
    return NULL;
  part = g_strndup (rest, slash - rest);
  g_strdelimit (part, "_", '.');
  return g_strconcat (":", part, NULL);
}

typedef struct {
  GDBusConnection *bus;    /* (owned) */
  char *unique_name;       /* (owned) */
  char *app_id;            /* (owned) */
  SrPortal *portal;        /* (unowned) static: outlives the task */
} Look;

static void
look_free (Look *look)
{
  g_object_unref (look->bus);
  g_free (look->unique_name);
  g_free (look->app_id);
  g_free (look);
}

/* On a worker thread: SR_APP_ORIGIN_FLATPAK when the process runs in the
 * Flatpak sandbox of the app, HOST when in none, UNKNOWN otherwise. */
static void
look_in_thread (GTask        *task,
                gpointer      source,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Look *look = task_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) credentials = NULL;
  g_autofree char *sandbox_app = NULL;
  g_autofree char *bus_label = NULL;
  guint32 pid = 0;
  SrAppOrigin origin = SR_APP_ORIGIN_UNKNOWN;

  reply = g_dbus_connection_call_sync (look->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetConnectionCredentials",
                                       g_variant_new ("(s)", look->unique_name),
                                       G_VARIANT_TYPE ("(a{sv})"), G_DBUS_CALL_FLAGS_NONE, -1,
                                       cancellable, NULL);
  if (reply != NULL)
    {
      credentials = g_variant_get_child_value (reply, 0);
      g_variant_lookup (credentials, "ProcessID", "u", &pid);
      g_variant_lookup (credentials, "LinuxSecurityLabel", "^ay", &bus_label);
    }
  /* As policyd and sr-peer.c tell a sandbox. */
  if (pid != 0 && sr_peer_read_sandbox_app (pid, bus_label, &sandbox_app, NULL))
    {
      if (sandbox_app == NULL)
        origin = SR_APP_ORIGIN_HOST;
      else if (g_str_equal (sandbox_app, look->app_id))
        origin = SR_APP_ORIGIN_FLATPAK;
    }
  g_task_return_int (task, origin);
}

static void
looked (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  Look *look = g_task_get_task_data (G_TASK (result));
  SrPortal *self = look->portal;
  SrAppOrigin origin = g_task_propagate_int (G_TASK (result), NULL);
  g_autoptr(GRecMutexLocker) locker G_GNUC_UNUSED = g_rec_mutex_locker_new (&self->lock);
  SrApp *app;

  if (self->closing)
    return;
  app = g_hash_table_lookup (self->apps, look->app_id);
  /* Not told (the app gone already): asked again at its next Register. */
  if (app != NULL && origin == SR_APP_ORIGIN_UNKNOWN)
    app->origin_asked = FALSE;
  if (app == NULL || origin == SR_APP_ORIGIN_UNKNOWN || app->origin == origin)
    return;
  app->origin = origin;
  sr_portal_record_save (self);
}

/* After a Register of @app_id at @handle was answered: where the app
 * runs is noted in the background. In the main loop or on GDBus's worker
 * thread, with SrPortal.lock held; the answer comes back to that thread,
 * and takes the lock. */
void
sr_portal_origin_note (SrPortal   *self,
                       const char *handle,
                       const char *app_id)
{
  g_autofree char *unique_name = unique_name_of (handle);
  g_autoptr(GTask) task = NULL;
  Look *look;

  if (unique_name == NULL)
    return;
  task = g_task_new (NULL, NULL, looked, NULL);
  look = g_new0 (Look, 1);
  look->bus = g_object_ref (self->bus);
  look->unique_name = g_steal_pointer (&unique_name);
  look->app_id = g_strdup (app_id);
  look->portal = self;
  g_task_set_task_data (task, look, (GDestroyNotify) look_free);
  g_task_run_in_thread (task, look_in_thread);
}
