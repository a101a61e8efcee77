/* sr-maintenance.c: the purges at start-up and daily
 *
 * What the settings say must not be kept is removed: everything while the
 * master switch is off, state older than max-age-days, the excluded apps'
 * state. The rules already refuse to restore it; this frees the disk and
 * keeps the promise of "max-age-days".
 *
 * The start-up purge waits for start-up's burst of calls to pass (at login,
 * the session manager asks about every app it restores): it runs once a
 * second has gone by without a call, or at the latest 30 s on (or
 * $SR_STARTUP_PURGE_LATEST seconds, for tests), so that the first answers
 * do not share the machine with a search of the stores. It also removes
 * what a kill during a rewrite of a store's file left (sr-store-file.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-maintenance"

#include "config.h"

#include "sr-maintenance.h"

#define USEC_PER_DAY (G_USEC_PER_SEC * (gint64) 86400)
#define MAINTENANCE_INTERVAL_SECS (24 * 60 * 60)
#define FIRST_MAINTENANCE_QUIET_SECS 1
#define FIRST_MAINTENANCE_LATEST_SECS 30
#define FIRST_MAINTENANCE_LATEST_MAX_SECS (24 * 60 * 60)

struct _SrMaintenance {
  SrSettings *settings;      /* (owned) */
  SrStoreWorker *worker;     /* (owned) */
  SrFastPath *fast_path;     /* (unowned): closed after this is stopped */
  guint daily_id;
  guint first_id;
  gint64 started_at;         /* monotonic µs */
  gint64 first_latest;       /* µs after started_at */
  SrMaintenanceFunc at_first_purge;   /* (nullable) */
  gpointer at_first_purge_data;       /* (unowned): outlives this */
};

void
sr_maintenance_log_removal (const char *what,
                            GVariant   *report)
{
  guint entries = 0;
  guint64 bytes = 0;

  if (report == NULL)
    return;
  g_variant_lookup (report, "entries", "u", &entries);
  g_variant_lookup (report, "bytes", "t", &bytes);
  if (entries > 0)
    g_message ("%s: removed %u entries, %" G_GUINT64_FORMAT " bytes", what, entries, bytes);
}

static void
on_purged_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GVariant) report = sr_store_worker_finish (SR_STORE_WORKER (source), result, NULL);

  sr_maintenance_log_removal (user_data, report);
}

static gboolean
run_purges (gpointer user_data)
{
  SrMaintenance *self = user_data;
  const SrPolicy *policy = sr_settings_get_policy (self->settings);

  if (!policy->enabled)
    {
      sr_store_worker_remove_async (self->worker, NULL, 0, on_purged_cb,
                                    (gpointer) "Switched off");
      return G_SOURCE_CONTINUE;
    }

  if (policy->max_age_days >= 0)
    sr_store_worker_remove_async (self->worker, NULL,
                                  g_get_real_time () - policy->max_age_days * USEC_PER_DAY,
                                  on_purged_cb, (gpointer) "Retention");

  if (g_hash_table_size (policy->excluded) > 0)
    {
      g_autofree const char **apps =
        (const char **) g_hash_table_get_keys_as_array (policy->excluded, NULL);
      sr_store_worker_remove_async (self->worker, apps, 0, on_purged_cb,
                                    (gpointer) "Excluded apps");
    }

  return G_SOURCE_CONTINUE;
}

static gboolean
run_first_purges (gpointer user_data)
{
  SrMaintenance *self = user_data;

  if (sr_fast_path_take_calls_seen (self->fast_path) &&
      g_get_monotonic_time () - self->started_at < self->first_latest)
    return G_SOURCE_CONTINUE;

  self->first_id = 0;
  if (self->at_first_purge != NULL)
    self->at_first_purge (self->at_first_purge_data);
  sr_store_worker_tidy_async (self->worker, NULL, NULL);
  run_purges (self);
  return G_SOURCE_REMOVE;
}

/* Start-up work of others that must not share the machine with the first
 * answers either (sr-daemon.c): run just before the start-up purge. */
void
sr_maintenance_at_first_purge (SrMaintenance     *self,
                               SrMaintenanceFunc  func,
                               gpointer           user_data)
{
  self->at_first_purge = func;
  self->at_first_purge_data = user_data;
}

/* When the settings shorten what is kept: at once, not at the next daily
 * purge, so that the listing never shows state the rules already refuse. */
void
sr_maintenance_purge_now (SrMaintenance *self)
{
  run_purges (self);
}

/* Read once, at start: a test proves the bound without waiting 30 s. */
static gint64
first_latest_from_env (void)
{
  const char *text = g_getenv ("SR_STARTUP_PURGE_LATEST");
  guint64 secs;

  if (text == NULL)
    return FIRST_MAINTENANCE_LATEST_SECS * G_USEC_PER_SEC;
  if (!g_ascii_string_to_unsigned (text, 10, 1, FIRST_MAINTENANCE_LATEST_MAX_SECS, &secs, NULL))
    {
      g_warning ("SR_STARTUP_PURGE_LATEST=%s is not a number of seconds from 1 to %d; using %d",
                 text, FIRST_MAINTENANCE_LATEST_MAX_SECS, FIRST_MAINTENANCE_LATEST_SECS);
      return FIRST_MAINTENANCE_LATEST_SECS * G_USEC_PER_SEC;
    }
  return (gint64) secs * G_USEC_PER_SEC;
}

SrMaintenance *
sr_maintenance_start (SrSettings    *settings,
                      SrStoreWorker *worker,
                      SrFastPath    *fast_path)
{
  SrMaintenance *self = g_new0 (SrMaintenance, 1);

  self->settings = g_object_ref (settings);
  self->worker = g_object_ref (worker);
  self->fast_path = fast_path;
  self->started_at = g_get_monotonic_time ();
  self->first_latest = first_latest_from_env ();
  self->first_id = g_timeout_add_seconds_full (G_PRIORITY_LOW, FIRST_MAINTENANCE_QUIET_SECS,
                                               run_first_purges, self, NULL);
  self->daily_id = g_timeout_add_seconds (MAINTENANCE_INTERVAL_SECS, run_purges, self);
  return self;
}

void
sr_maintenance_stop (SrMaintenance *self)
{
  g_clear_handle_id (&self->first_id, g_source_remove);
  g_clear_handle_id (&self->daily_id, g_source_remove);
  g_object_unref (self->worker);
  g_object_unref (self->settings);
  g_free (self);
}
