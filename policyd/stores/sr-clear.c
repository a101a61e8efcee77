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
 * StoredStateCleared is not broadcast, and a sandboxed caller hears only
 * of its own app (sr-tell.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-clear"

#include "config.h"

#include "sr-clear.h"
#include "sr-error.h"
#include "sr-state-file.h"
#include "sr-tell.h"

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
    sr_tell_callers (targets->callers, targets->bus, "StoredStateCleared", all ? NULL : apps);

  removal->pending = targets->pending_clears;
  removal->callback = callback;
  removal->user_data = user_data;
  sr_store_worker_remove_async (targets->stores, all ? NULL : apps, 0, on_removed_cb, removal);
  return TRUE;
}
