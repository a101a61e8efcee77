/* sr-clear.c: the one way stored state is cleared
 *
 * Clear, an app opted out (by any route) and the master switch going off
 * all come here: the clear point first, durably, so that the clear holds
 * whatever happens next; then StoredStateCleared, so that owners drop
 * their copies; then the removal, on the store worker. Before the clear
 * point, the clear is recorded as under way (sr-pending-clears.c), until
 * its removal is done, so that one cut short by a kill is finished at the
 * next start. Clearing everything also removes the temporary files that
 * interrupted writes of policyd's own state left (sr-state-file.c).
 *
 * StoredStateCleared is not broadcast: every connection on the bus could
 * read a broadcast, and the list names apps, which a sandboxed app may not
 * learn. It goes to each connection that has called policyd: a host
 * caller gets the list, a sandboxed one only its own app (or the empty
 * list, "everything", when everything was cleared), and only when its app
 * is among them. Consumers call policyd anyway (CheckSave, CheckRestore,
 * NoteExit), which is what makes them known.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-clear"

#include "config.h"

#include "sr-bus.h"
#include "sr-clear.h"
#include "sr-error.h"
#include "sr-state-file.h"

static void
send_cleared (GDBusConnection    *bus,
              const char         *destination,
              const char * const *apps,
              gssize              n_apps)
{
  g_autoptr(GError) error = NULL;

  if (!g_dbus_connection_emit_signal (bus, destination, SR_OBJECT_PATH, SR_INTERFACE_NAME,
                                      "StoredStateCleared",
                                      g_variant_new ("(@as)", g_variant_new_strv (apps, n_apps)),
                                      &error))
    g_debug ("Could not tell %s of the clear: %s", destination, error->message);
}

static void
announce (const SrClearTargets *targets,
          const char * const   *apps,
          gboolean              all)
{
  g_autoptr(GPtrArray) callers = sr_caller_cache_dup_all (targets->callers);

  for (guint i = 0; i < callers->len; i++)
    {
      const SrCaller *caller = callers->pdata[i];

      if (caller->kind == SR_CALLER_HOST)
        send_cleared (targets->bus, caller->sender, all ? NULL : apps, all ? 0 : -1);
      else if (all)
        send_cleared (targets->bus, caller->sender, NULL, 0);
      else if (g_strv_contains (apps, caller->app_id))
        {
          const char *own[] = { caller->app_id, NULL };
          send_cleared (targets->bus, caller->sender, own, -1);
        }
    }
}

typedef struct {
  SrPendingClears *pending;   /* (unowned): outlives the store worker's jobs */
  guint id;
  GAsyncReadyCallback callback;
  gpointer user_data;
} Removal;

static void
on_removed_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autofree Removal *removal = user_data;

  sr_pending_clears_end (removal->pending, removal->id);
  removal->callback (source, result, removal->user_data);
}

/* @strict: when the clear cannot be recorded (as under way, and its clear
 * point), fail and remove nothing
 * (an explicit Clear); otherwise warn and remove anyway (an exclusion or
 * the switch, which the rules enforce on their own). @apps NULL or empty:
 * everything. */
gboolean
sr_clear_state (const SrClearTargets  *targets,
                const char * const    *apps,
                gboolean               strict,
                GAsyncReadyCallback    callback,
                gpointer               user_data,
                GError               **error)
{
  gboolean all = apps == NULL || apps[0] == NULL;
  g_autoptr(GError) local_error = NULL;
  gint64 when = g_get_real_time ();
  Removal *removal = g_new0 (Removal, 1);

  /* Either write failing (a full or read-only disk) fails a strict clear
   * before anything changed; another clear goes on without it. */
  if (!sr_pending_clears_begin (targets->pending_clears, all ? NULL : apps, when,
                                &removal->id, &local_error) && !strict)
    {
      g_warning ("Clearing without recording it as under way: %s", local_error->message);
      g_clear_error (&local_error);
    }
  if (local_error == NULL &&
      !sr_clear_points_record (targets->clear_points, all ? NULL : apps, when, &local_error) &&
      !strict)
    {
      g_warning ("Clearing without a clear point: %s", local_error->message);
      g_clear_error (&local_error);
    }
  if (local_error != NULL)
    {
      sr_pending_clears_end (targets->pending_clears, removal->id);
      g_free (removal);
      g_set_error (error, SR_ERROR, SR_ERROR_FAILED, "Nothing was cleared: %s",
                   local_error->message);
      return FALSE;
    }

  if (all)
    sr_state_file_remove_leftovers ();
  if (targets->bus != NULL && targets->callers != NULL)
    announce (targets, apps, all);

  removal->pending = targets->pending_clears;
  removal->callback = callback;
  removal->user_data = user_data;
  sr_store_worker_remove_async (targets->stores, all ? NULL : apps, 0, on_removed_cb, removal);
  return TRUE;
}
