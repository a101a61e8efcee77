/* sr-portal-record.c: the record of instances, in gnome-session's format
 *
 * $XDG_STATE_HOME/session-restore-portal@<desktop>.state, so that policyd
 * lists and clears it as it does gnome-session's (the drop-in
 * data/stores.d/session-restore-portal.store): a serialized a{sv} with
 * "version" (u, 1), "dirty" (b: true while the session runs, false once it
 * ended and the record says which apps were open) and "instances", an
 * a{s(a{sv}aa{sv})} keyed by app id. Per app: "next-instance-id" (s) and
 * "discarded-instance-ids" (as), as gnome-session writes them, and our
 * "next-saved-at" (x) and "origin" (s: "host" or "flatpak", where it
 * registered from, sr-portal-origin.c). Per instance: "instance-id" (s), "crashed" (b), and
 * our "saved-at" (x, µs) and "ended-at-session-end" (b). Unknown keys are
 * ignored, as gnome-session's reader does.
 *
 * Every write replaces the file whole (temp file, fsync, rename), on the
 * writer's thread (sr-portal-writer.c): a kill at any moment leaves the
 * old record or the new one. A change is written SAVE_DELAY_MS after it,
 * together with whatever else changed meanwhile: an app's Register and
 * its Close, or a burst of apps starting, make one snapshot and one write
 * instead of one each, and neither the snapshot nor the write is on the
 * path of a reply. The session's end, Sync and the exit write at once.
 * A snapshot larger than the next start reads (RECORD_MAX_SIZE) is not
 * written: the record on disk keeps the last state that fits, rather
 * than one the next start would ignore whole.
 *
 * A record read at start that the backend cannot take in is never written
 * over, as a fault must not discard saved state: one it may not read, or
 * that is no regular file (a FIFO there is not waited on, a link not
 * followed), or that a newer version of it wrote, is left as it is, and
 * nothing is written this run (sr_record_writer_hold()); one that does not
 * parse is renamed aside, "<record>.<UTC time>.unreadable", and a new one
 * begun. The drop-in data/stores.d/session-restore-portal-unreadable.store
 * names those: "clear everything" removes them unread, as retention does
 * once they are older than max-age-days; policyd's start does not.
 *
 * The record keeps MAX_APPS apps with state, and as many again with only
 * ids for the app to delete; past that, the least recently used go first
 * (bound_apps()). An app whose state policyd says it will no longer
 * restore (expired, cleared, opted out) leaves it (expire_due()).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-record"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sr-fd.h"
#include "sr-portal.h"
#include "sr-regular-file.h"

#define RECORD_VERSION 1
#define RECORD_MAX_SIZE (16 * 1024 * 1024)
#define INSTANCES_TYPE "a{s(a{sv}aa{sv})}"
/* What one app can make the record keep, whatever it does: an app opens
 * sessions, crashes, quits and leaves discards unconfirmed as it likes,
 * and without a bound its entry would grow with each (a hundred thousand
 * sessions open at once, then a crash, make a record past
 * RECORD_MAX_SIZE, which the next start ignores: every app's state would
 * be lost). An app's Register past MAX_INSTANCES instances running gets
 * PRISTINE and no id (sr-portal-register.c); a record read with more
 * keeps those saved last, the others' ids to discard; past MAX_DISCARD
 * ids to discard (or cleared) the oldest is no longer asked for, and
 * the app keeps whatever it saved under it. */
#define MAX_INSTANCES 64
#define MAX_DISCARD 128
/* Long enough to take in a Register and its Close; short enough that a
 * backend killed mid-session loses little of what it learnt. */
#define SAVE_DELAY_MS 100
/* The apps the record keeps: a desktop has tens of apps with state, a few
 * hundred installed at the most. Without a bound, Registers under ever new
 * app ids (a host process names the id it likes) grew the backend by
 * 200 MiB and the record past RECORD_MAX_SIZE in 48,000 calls, after which
 * no app's record was written. At most MAX_APPS apps keep state
 * (instances, an id for the next launch); past that, the one used least
 * recently, with no session open, keeps only its ids, for the app to
 * delete at its next Register, as other ids to discard are kept
 * (MAX_DISCARD of them); and past MAX_APPS apps so reduced, the one
 * reduced earliest goes whole: what it saved is left to policyd's
 * retention, which removes GTK's files after max-age-days. Even with
 * every app at its own bounds (MAX_INSTANCES, MAX_DISCARD, an app id of
 * 255 characters) the two make a record of 11.6 MiB, within
 * RECORD_MAX_SIZE; a real app's entry is some 200 bytes. */
#define MAX_APPS 1024
/* Retention is policyd's (max-age-days), and the backend cannot read it
 * cheaply: SrPolicyClient has it (sr_policy_client_get_max_age_days()),
 * but SrPortalPolicy (sr-portal-policy.c), which holds the client, does
 * not hand it out; with an accessor there, returning -1 until policyd is
 * identified, the record could drop the entries older than that at each
 * write, without a call. So policyd is asked, as for the app's launch,
 * about each app whose newest state is older than a day (max-age-days
 * counts whole days: younger state expires only at 0, where the app's
 * next Register and the login are refused all the same), a minute after
 * start, when the login's burst of calls has passed, and daily. */
#define EXPIRE_FIRST_DELAY_MS (60 * 1000)
#define EXPIRE_INTERVAL_SECS (24 * 60 * 60)
#define EXPIRE_MIN_AGE_USEC (G_USEC_PER_SEC * (gint64) 24 * 60 * 60)
/* How many names "<record>.<time>.unreadable" are tried, when the record
 * was set aside already in the same second. */
#define SET_ASIDE_ATTEMPTS 100

/* The largest record read, and written. */
static gsize
record_max_size (void)
{
#if SR_TEST_BUILD
  /* So that a test reaches it with a few sessions. */
  const char *test_max = g_getenv ("SR_PORTAL_RECORD_MAX_SIZE");

  if (test_max != NULL)
    return g_ascii_strtoull (test_max, NULL, 10);
#endif
  return RECORD_MAX_SIZE;
}

static guint
record_max_apps (void)
{
#if SR_TEST_BUILD
  /* So that a test reaches it with a few apps. */
  const char *test_max = g_getenv ("SR_PORTAL_RECORD_MAX_APPS");

  if (test_max != NULL)
    return g_ascii_strtoull (test_max, NULL, 10);
#endif
  return MAX_APPS;
}

static guint
expire_first_delay_ms (void)
{
#if SR_TEST_BUILD
  /* So that a test sees it without waiting a minute. */
  const char *test_delay = g_getenv ("SR_PORTAL_EXPIRE_DELAY_MS");

  if (test_delay != NULL)
    return g_ascii_strtoull (test_delay, NULL, 10);
#endif
  return EXPIRE_FIRST_DELAY_MS;
}

/* Why a snapshot of @size bytes was not written: the log says it when it
 * happens, and Sync and EndSession in the same words. */
static void
set_too_large_error (SrPortal  *self,
                     gsize      size,
                     GError   **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
               "%s was not written: %" G_GSIZE_FORMAT " bytes, more than the %" G_GSIZE_FORMAT
               " read at the next start; it keeps what it held before", self->record_path,
               size, record_max_size ());
}

static void
instance_free (SrInstance *instance)
{
  g_free (instance->id);
  g_free (instance);
}

void
sr_app_free (SrApp *app)
{
  g_free (app->app_id);
  g_ptr_array_unref (app->instances);
  g_free (app->next_id);
  g_ptr_array_unref (app->discard);
  g_ptr_array_unref (app->cleared_ids);
  g_free (app);
}

static gboolean bound_apps (SrPortal *self, guint incoming);

static SrApp *
find_or_add_app (SrPortal   *self,
                 const char *app_id)
{
  SrApp *app = g_hash_table_lookup (self->apps, app_id);

  if (app == NULL)
    {
      app = g_new0 (SrApp, 1);
      app->app_id = g_strdup (app_id);
      app->instances = g_ptr_array_new_with_free_func ((GDestroyNotify) instance_free);
      app->discard = g_ptr_array_new_with_free_func (g_free);
      app->cleared_ids = g_ptr_array_new_with_free_func (g_free);
      g_hash_table_insert (self->apps, app->app_id, app);
    }
  return app;
}

/* A new app makes room for itself (bound_apps()): the caller holds no
 * other SrApp across this call. */
SrApp *
sr_portal_record_app (SrPortal   *self,
                      const char *app_id)
{
  if (!g_hash_table_contains (self->apps, app_id))
    bound_apps (self, 1);
  return find_or_add_app (self, app_id);
}

SrInstance *
sr_portal_app_find_instance (SrApp      *app,
                             const char *id)
{
  for (guint i = 0; i < app->instances->len; i++)
    {
      SrInstance *instance = g_ptr_array_index (app->instances, i);
      if (g_str_equal (instance->id, id))
        return instance;
    }
  return NULL;
}

/* Takes @id. */
SrInstance *
sr_portal_app_add_instance (SrApp *app,
                            char  *id)
{
  SrInstance *instance = g_new0 (SrInstance, 1);

  instance->id = id;
  g_ptr_array_add (app->instances, instance);
  return instance;
}

void
sr_portal_app_remove_instance (SrApp      *app,
                               SrInstance *instance)
{
  g_ptr_array_remove (app->instances, instance);
}

/* @id to @ids once, the oldest dropped past MAX_DISCARD. */
static void
add_id (GPtrArray  *ids,
        const char *id)
{
  if (g_ptr_array_find_with_equal_func (ids, id, g_str_equal, NULL))
    return;
  if (ids->len >= MAX_DISCARD)
    g_ptr_array_remove_index (ids, 0);
  g_ptr_array_add (ids, g_strdup (id));
}

void
sr_portal_app_discard (SrApp      *app,
                       const char *id)
{
  add_id (app->discard, id);
}

/* The app reports @id deleted: it is asked for no more, whether it was
 * to discard or of state cleared. Whether it was asked for. */
gboolean
sr_portal_app_deleted (SrApp      *app,
                       const char *id)
{
  GPtrArray *lists[] = { app->discard, app->cleared_ids };
  gboolean found = FALSE;
  guint index;

  for (guint i = 0; i < G_N_ELEMENTS (lists); i++)
    if (g_ptr_array_find_with_equal_func (lists[i], id, g_str_equal, &index))
      {
        g_ptr_array_remove_index (lists[i], index);
        found = TRUE;
      }
  return found;
}

void
sr_portal_app_add_cleared (SrApp      *app,
                           const char *id)
{
  add_id (app->cleared_ids, id);
}

/* At most @max instances of @app: those saved first that are not running
 * go, their ids to discard. FALSE when more than @max are running. */
static gboolean
keep_newest (SrApp *app,
             guint  max)
{
  while (app->instances->len > max)
    {
      SrInstance *oldest = NULL;

      for (guint i = 0; i < app->instances->len; i++)
        {
          SrInstance *instance = g_ptr_array_index (app->instances, i);
          if (instance->live == NULL && (oldest == NULL || instance->saved_at < oldest->saved_at))
            oldest = instance;
        }
      if (oldest == NULL)
        return FALSE;
      sr_portal_app_discard (app, oldest->id);
      sr_portal_app_remove_instance (app, oldest);
    }
  return TRUE;
}

/* Room for one more instance of @app: FALSE when MAX_INSTANCES of them
 * are running. */
gboolean
sr_portal_app_make_room (SrApp *app)
{
  return keep_newest (app, MAX_INSTANCES - 1);
}

static void
forget_app (SrApp *app)
{
  for (guint i = 0; i < app->instances->len; i++)
    sr_portal_app_add_cleared (app, ((SrInstance *) g_ptr_array_index (app->instances, i))->id);
  for (guint i = 0; i < app->discard->len; i++)
    sr_portal_app_add_cleared (app, g_ptr_array_index (app->discard, i));
  if (app->next_id != NULL)
    sr_portal_app_add_cleared (app, app->next_id);
  g_ptr_array_set_size (app->instances, 0);
  g_ptr_array_set_size (app->discard, 0);
  g_clear_pointer (&app->next_id, g_free);
  app->next_saved_at = 0;
}

/* policyd cleared these apps (NULL or empty: all): forget them now, so that
 * no later write of ours brings them back. Their running sessions stay,
 * but leave nothing behind when they close; the ids are kept in memory,
 * to be discarded by the app's next Register. */
void
sr_portal_record_forget (SrPortal           *self,
                         const char * const *app_ids)
{
  gboolean all = app_ids == NULL || app_ids[0] == NULL;
  GHashTableIter iter;
  SrPortalSession *session;
  SrApp *app;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    if (*session->app_id != '\0' &&
        (all || g_strv_contains (app_ids, session->app_id)))
      session->cleared = TRUE;

  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    if (all || g_strv_contains (app_ids, app->app_id))
      forget_app (app);
  g_message ("Dropped the instances of %s: their saved sessions were cleared",
             all ? "every app" : "some apps");
}

/* -- The bound on apps ---------------------------------------------------- */

static gboolean
app_has_state (SrApp *app)
{
  return app->instances->len > 0 || app->next_id != NULL;
}

/* When @app last saved or closed, as far as the record knows: its newest
 * state's time, or, once it keeps only ids to delete, that of the state it
 * had (next_saved_at, demote()). 0: not known. */
static gint64
app_used_at (SrApp *app)
{
  gint64 used_at = app->next_saved_at;

  for (guint i = 0; i < app->instances->len; i++)
    used_at = MAX (used_at, ((SrInstance *) g_ptr_array_index (app->instances, i))->saved_at);
  return used_at;
}

/* Whether @app may leave the record, or lose its state: no session of its
 * is open or waiting for Register's answer, and the login is not
 * reopening one of its instances. */
static gboolean
app_is_idle (SrPortal *self,
             SrApp    *app)
{
  if (sr_portal_app_sessions (self, app->app_id) > 0)
    return FALSE;
  for (guint i = 0; i < app->instances->len; i++)
    {
      SrInstance *instance = g_ptr_array_index (app->instances, i);
      if (instance->live != NULL || instance->reopened)
        return FALSE;
    }
  return TRUE;
}

/* @app keeps only ids for it to delete: its instances' and its next
 * launch's join those it had. */
static void
demote (SrApp *app)
{
  gint64 used_at = app_used_at (app);

  for (guint i = 0; i < app->instances->len; i++)
    sr_portal_app_discard (app, ((SrInstance *) g_ptr_array_index (app->instances, i))->id);
  if (app->next_id != NULL)
    sr_portal_app_discard (app, app->next_id);
  g_ptr_array_set_size (app->instances, 0);
  g_clear_pointer (&app->next_id, g_free);
  app->next_saved_at = used_at;
}

typedef struct {
  SrApp *app;               /* (unowned) */
  gint64 used_at;
} Candidate;

static int
compare_used_at (gconstpointer a,
                 gconstpointer b)
{
  const Candidate *ca = a, *cb = b;

  return (ca->used_at > cb->used_at) - (ca->used_at < cb->used_at);
}

/* The @count used least recently of @candidates first: one at a time,
 * or by sorting them all when many are wanted (a record read past the
 * bound). */
static void
oldest_first (GArray *candidates,
              guint   count)
{
  if (count > 16)
    {
      g_array_sort (candidates, compare_used_at);
      return;
    }
  for (guint i = 0; i < count && i < candidates->len; i++)
    {
      guint oldest = i;
      Candidate swap;

      for (guint j = i + 1; j < candidates->len; j++)
        if (compare_used_at (&g_array_index (candidates, Candidate, j),
                             &g_array_index (candidates, Candidate, oldest)) < 0)
          oldest = j;
      swap = g_array_index (candidates, Candidate, i);
      g_array_index (candidates, Candidate, i) = g_array_index (candidates, Candidate, oldest);
      g_array_index (candidates, Candidate, oldest) = swap;
    }
}

/* Keeps the record within its bound (MAX_APPS, above), with room for
 * @incoming new apps with state: at most MAX_APPS apps with state, and as
 * many with only ids to delete. Entries that hold nothing go. Apps with a
 * session open stay whatever their number (SR_PORTAL_MAX_SESSIONS bounds
 * those). Said once in the log when it first makes room, and again once
 * the record has come down to half of it. TRUE when an app was changed. */
static gboolean
bound_apps (SrPortal *self,
            guint     incoming)
{
  guint max = record_max_apps ();
  guint with_state = 0, with_ids = 0, demoted = 0, dropped = 0;
  g_autoptr(GArray) stateful = NULL;
  g_autoptr(GArray) reduced = NULL;
  GHashTableIter iter;
  SrApp *app;

  if (g_hash_table_size (self->apps) + incoming <= max)
    {
      if (g_hash_table_size (self->apps) <= max / 2)
        self->apps_bound_said = FALSE;
      return FALSE;
    }

  stateful = g_array_new (FALSE, FALSE, sizeof (Candidate));
  reduced = g_array_new (FALSE, FALSE, sizeof (Candidate));
  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    {
      gboolean has_state = app_has_state (app);
      Candidate candidate = { app, app_used_at (app) };

      if (!has_state && app->discard->len == 0 && app->cleared_ids->len == 0 &&
          app_is_idle (self, app))
        {
          g_hash_table_iter_remove (&iter);
          continue;
        }
      if (has_state)
        with_state++;
      else
        with_ids++;
      if (app_is_idle (self, app))
        g_array_append_val (has_state ? stateful : reduced, candidate);
    }

  if (with_state + incoming > max)
    {
      oldest_first (stateful, with_state + incoming - max);
      for (guint i = 0; i < stateful->len && with_state + incoming > max; i++, demoted++)
        {
          Candidate *candidate = &g_array_index (stateful, Candidate, i);

          demote (candidate->app);
          g_array_append_val (reduced, *candidate);
          with_state--;
          with_ids++;
        }
    }
  if (with_ids > max)
    {
      oldest_first (reduced, with_ids - max);
      for (guint i = 0; i < reduced->len && with_ids > max; i++, dropped++)
        {
          g_hash_table_remove (self->apps, g_array_index (reduced, Candidate, i).app->app_id);
          with_ids--;
        }
    }

  if ((demoted > 0 || dropped > 0) && !self->apps_bound_said)
    {
      g_message ("The record holds %u apps with state, its most: for each new one, the app "
                 "used least recently keeps only its ids to delete (for %u apps at the most)",
                 max, max);
      self->apps_bound_said = TRUE;
    }
  return demoted > 0 || dropped > 0;
}

static void
load_app (SrPortal   *self,
          const char *app_id,
          GVariant   *props,
          GVariant   *instances,
          gboolean    dirty)
{
  SrApp *app = find_or_add_app (self, app_id);
  g_autofree char *next_id = NULL;
  g_autofree const char **discarded = NULL;
  const char *origin;
  GVariantIter iter;
  GVariant *dict;

  if (g_variant_lookup (props, "next-instance-id", "s", &next_id))
    {
      g_free (app->next_id);
      app->next_id = g_steal_pointer (&next_id);
    }
  g_variant_lookup (props, "next-saved-at", "x", &app->next_saved_at);
  if (g_variant_lookup (props, "origin", "&s", &origin))
    app->origin = g_str_equal (origin, "flatpak") ? SR_APP_ORIGIN_FLATPAK
                  : g_str_equal (origin, "host") ? SR_APP_ORIGIN_HOST : SR_APP_ORIGIN_UNKNOWN;
  if (g_variant_lookup (props, "discarded-instance-ids", "^a&s", &discarded))
    for (guint i = 0; discarded[i] != NULL; i++)
      sr_portal_app_discard (app, discarded[i]);

  g_variant_iter_init (&iter, instances);
  while ((dict = g_variant_iter_next_value (&iter)) != NULL)
    {
      g_autoptr(GVariant) owned = dict;
      char *id = NULL;
      SrInstance *instance;

      if (!g_variant_lookup (owned, "instance-id", "s", &id))
        continue;
      if (sr_portal_app_find_instance (app, id) != NULL)
        {
          g_free (id);
          continue;
        }
      instance = sr_portal_app_add_instance (app, id);
      g_variant_lookup (dict, "crashed", "b", &instance->crashed);
      g_variant_lookup (dict, "saved-at", "x", &instance->saved_at);
      g_variant_lookup (dict, "ended-at-session-end", "b", &instance->at_session_end);
      if (dirty && !instance->at_session_end)
        instance->crashed = TRUE;
      /* A record written before the bound, in any order: the newest stay
       * (the one just read, too, is weighed), the others' ids to discard. */
      keep_newest (app, MAX_INSTANCES);
    }
}

/* -- Retention -------------------------------------------------------------- */

/* One round of questions to policyd (expire_due()). */
typedef struct {
  SrPortal *self;           /* (unowned) */
  guint pending;            /* answers to come, and one for expire_due() */
  guint asked;
  guint dropped;
} Sweep;

typedef struct {
  Sweep *sweep;             /* (unowned): goes with its last question */
  char *app_id;             /* (owned) */
  gint64 used_at;           /* the state asked about */
} Question;

/* The answers on which an app's entry goes whole, ids to delete and all:
 * those on which the login discards state (sr-portal-login.c), and whose
 * files policyd removes itself (retention, Clear, the purge of opted-out
 * apps' state, and of everything when switched off). A fault never
 * discards: a check that failed keeps the app. */
static gboolean
why_drops (const char *why)
{
  const char *const dropping[] = { "expired", "cleared", "excluded", "disabled", NULL };

  return why != NULL && g_strv_contains (dropping, why);
}

static void
sweep_done (Sweep *sweep)
{
  if (--sweep->pending > 0)
    return;
  if (sweep->asked > 0)
    g_message ("Retention: policyd was asked about %u apps of the record with older state; "
               "%u left it, whose state it no longer restores", sweep->asked, sweep->dropped);
  g_free (sweep);
}

/* In the main loop, where it was asked. */
static void
expire_checked (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Question *question = user_data;
  Sweep *sweep = question->sweep;
  SrPortal *self = sweep->self;
  g_autofree char *why = NULL;
  SrApp *app;

  /* The reason alone says it: each of those is a refusal. */
  (void) sr_portal_policy_check_finish (self->policy, result, &why);
  app = self->closing ? NULL : g_hash_table_lookup (self->apps, question->app_id);
  /* Unless the app came back meanwhile. */
  if (app != NULL && why_drops (why) && app_is_idle (self, app) &&
      app_has_state (app) && app_used_at (app) <= question->used_at)
    {
      g_hash_table_remove (self->apps, question->app_id);
      sweep->dropped++;
      sr_portal_record_save (self);
    }
  g_free (question->app_id);
  g_free (question);
  sweep_done (sweep);
}

/* policyd is asked about each app of the record with no session open
 * whose state is older than a day (EXPIRE_MIN_AGE_USEC, above), as for a
 * launch of it with that state. */
static gboolean
expire_due (gpointer user_data)
{
  SrPortal *self = user_data;
  gint64 before = g_get_real_time () - EXPIRE_MIN_AGE_USEC;
  Sweep *sweep = g_new0 (Sweep, 1);
  GHashTableIter iter;
  SrApp *app;

  sweep->self = self;
  sweep->pending = 1;
  g_hash_table_iter_init (&iter, self->apps);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &app))
    {
      gint64 used_at = app_used_at (app);
      Question *question;

      if (!app_has_state (app) || used_at <= 0 || used_at >= before || !app_is_idle (self, app))
        continue;
      question = g_new0 (Question, 1);
      question->sweep = sweep;
      question->app_id = g_strdup (app->app_id);
      question->used_at = used_at;
      sweep->pending++;
      sweep->asked++;
      sr_portal_policy_check_async (self->policy, app->app_id, SR_RESTORE_REASON_LAUNCH, used_at,
                                    FALSE, expire_checked, question);
    }
  sweep_done (sweep);
  return G_SOURCE_CONTINUE;
}

static void
expire_first (gpointer user_data)
{
  expire_due (user_data);
  g_timeout_add_seconds (EXPIRE_INTERVAL_SECS, expire_due, user_data);
}

/* -- Reading the record at start ------------------------------------------ */

/* The record is not written this run, for the reason said here, once. */
static void hold (SrPortal *self, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
hold (SrPortal   *self,
      const char *format,
      ...)
{
  g_autofree char *why = NULL;
  va_list args;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);
  g_warning ("%s", why);
  sr_record_writer_hold (self->writer, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_FAILED, why));
}

/* Opens the record for reading: -1 when it is missing, or, with @error
 * set, when it cannot be read or is no regular file, without waiting on a
 * FIFO put in its place or following a link (sr-regular-file.c). A
 * missing one is told apart before any error is formatted: g_strerror()
 * opens iconv for the locale, and its module cache and code stay mapped
 * for the process's life: 96 KiB of the idle backend's RSS in
 * bench_portal's world (address-space randomization off, 5,736 → 5,640
 * KiB). */
static int
open_record (const char   *path,
             struct stat  *st,
             GError      **error)
{
  if (faccessat (AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
    return -1;
  return sr_regular_file_open (AT_FDCWD, path, O_NOFOLLOW, st, error);
}

/* The record read does not parse (@why): renamed aside, whole, under a
 * name that says so and that no other file has, so that the next write
 * begins a new one and nothing of it is lost. If that fails, it stays
 * where it is, and is not written over. */
static void
set_aside (SrPortal          *self,
           const struct stat *read,
           const char        *why)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *stamp = g_date_time_format (now, "%Y%m%dT%H%M%SZ");
  struct stat st;
  int saved_errno = 0;

  /* Replaced since it was read (by policyd, rewriting it): that one is
   * not known not to parse. */
  if (lstat (self->record_path, &st) != 0 || st.st_dev != read->st_dev || st.st_ino != read->st_ino)
    {
      hold (self, "%s does not parse (%s), and was replaced as it was read; "
            "it is not written, so that nothing in it is lost", self->record_path, why);
      return;
    }
  for (guint n = 1; n <= SET_ASIDE_ATTEMPTS; n++)
    {
      g_autofree char *aside = n == 1
        ? g_strdup_printf ("%s.%s.unreadable", self->record_path, stamp)
        : g_strdup_printf ("%s.%s-%u.unreadable", self->record_path, stamp, n);

      if (renameat2 (AT_FDCWD, self->record_path, AT_FDCWD, aside, RENAME_NOREPLACE) == 0)
        {
          g_warning ("%s does not parse (%s): kept as %s, and a new record begun",
                     self->record_path, why, aside);
          return;
        }
      saved_errno = errno;
      if (saved_errno != EEXIST)
        break;
    }
  hold (self, "%s does not parse (%s), and could not be set aside (%s); "
        "it is not written, so that nothing in it is lost", self->record_path, why,
        g_strerror (saved_errno));
}

/* The record on disk into self->apps; see the top of this file for what
 * is done with one that cannot be. */
static void
read_record (SrPortal *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMappedFile) file = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GVariant) state = NULL;
  g_autoptr(GVariant) instances = NULL;
  g_autofree char *why = NULL;
  g_auto(SrFd) fd = -1;
  struct stat st;
  guint32 version = 0;
  gboolean dirty = TRUE;
  GVariantIter iter;
  const char *app_id;
  GVariant *props, *list;

  fd = open_record (self->record_path, &st, &error);
  if (fd < 0)
    {
      if (error != NULL)
        hold (self, "%s could not be read (%s); it is not written, so that nothing in it is lost",
              self->record_path, error->message);
      return;
    }
  if (st.st_size == 0)
    return;
  if ((guint64) st.st_size > record_max_size ())
    {
      why = g_strdup_printf ("larger than %" G_GSIZE_FORMAT " bytes", record_max_size ());
      set_aside (self, &st, why);
      return;
    }
  file = g_mapped_file_new_from_fd (fd, FALSE, &error);
  if (file == NULL)
    {
      hold (self, "%s could not be read (%s); it is not written, so that nothing in it is lost",
            self->record_path, error->message);
      return;
    }
  bytes = g_mapped_file_get_bytes (file);
  state = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE_VARDICT, bytes, FALSE));
  /* Bytes not in normal form are no record this backend wrote, nor
   * policyd: read leniently, what they hold would be lost. */
  if (!g_variant_is_normal_form (state))
    {
      set_aside (self, &st, "not a serialized dictionary");
      return;
    }
  if (!g_variant_lookup (state, "version", "u", &version))
    {
      set_aside (self, &st, "no version");
      return;
    }
  if (version > RECORD_VERSION)
    {
      hold (self, "%s is a version %u record, newer than this backend's (%u); "
            "it is not written, so that nothing in it is lost",
            self->record_path, version, RECORD_VERSION);
      return;
    }
  if (version != RECORD_VERSION)
    {
      why = g_strdup_printf ("version %u", version);
      set_aside (self, &st, why);
      return;
    }
  instances = g_variant_lookup_value (state, "instances", NULL);
  if (instances != NULL && !g_variant_is_of_type (instances, G_VARIANT_TYPE (INSTANCES_TYPE)))
    {
      why = g_strdup_printf ("instances of type %s", g_variant_get_type_string (instances));
      set_aside (self, &st, why);
      return;
    }
  if (instances == NULL)
    return;

  /* A dirty record was not closed by a session's end: the backend or the
   * whole session stopped without it, and the apps it shows running were
   * not closed cleanly. */
  g_variant_lookup (state, "dirty", "b", &dirty);
  g_variant_iter_init (&iter, instances);
  while (g_variant_iter_next (&iter, "{&s(@a{sv}@aa{sv})}", &app_id, &props, &list))
    {
      load_app (self, app_id, props, list, dirty);
      g_variant_unref (props);
      g_variant_unref (list);
    }
  /* A record written with more apps than the bound, or under a larger
   * one: the bound holds from the start, and on disk soon after. */
  if (bound_apps (self, 0))
    sr_portal_record_save (self);
}

/* Once, at start, before the bus name is taken: what interrupted writes
 * left, then the record; retention is applied later (expire_due()). */
void
sr_portal_record_load (SrPortal *self)
{
  sr_record_writer_remove_leftovers (self->writer);
  read_record (self);
  sr_portal_discards_load (self);
  g_timeout_add_once (expire_first_delay_ms (), expire_first, self);
}

static GVariant *
app_to_variant (SrApp *app)
{
  GVariantBuilder props, instances;

  g_variant_builder_init (&props, G_VARIANT_TYPE_VARDICT);
  if (app->next_id != NULL)
    {
      g_variant_builder_add (&props, "{sv}", "next-instance-id", g_variant_new_string (app->next_id));
      g_variant_builder_add (&props, "{sv}", "next-saved-at", g_variant_new_int64 (app->next_saved_at));
    }
  /* One with ids to delete only: when it last had state, which orders
   * such entries (bound_apps()). */
  else if (app->instances->len == 0 && app->discard->len > 0 && app->next_saved_at != 0)
    g_variant_builder_add (&props, "{sv}", "next-saved-at", g_variant_new_int64 (app->next_saved_at));
  if (app->discard->len > 0)
    g_variant_builder_add (&props, "{sv}", "discarded-instance-ids",
                           g_variant_new_strv ((const char * const *) app->discard->pdata,
                                               app->discard->len));
  if (app->origin != SR_APP_ORIGIN_UNKNOWN)
    g_variant_builder_add (&props, "{sv}", "origin",
                           g_variant_new_string (app->origin == SR_APP_ORIGIN_FLATPAK ? "flatpak"
                                                                                      : "host"));

  g_variant_builder_init (&instances, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < app->instances->len; i++)
    {
      SrInstance *instance = g_ptr_array_index (app->instances, i);

      g_variant_builder_open (&instances, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&instances, "{sv}", "instance-id", g_variant_new_string (instance->id));
      g_variant_builder_add (&instances, "{sv}", "crashed", g_variant_new_boolean (instance->crashed));
      g_variant_builder_add (&instances, "{sv}", "saved-at", g_variant_new_int64 (instance->saved_at));
      g_variant_builder_add (&instances, "{sv}", "ended-at-session-end",
                             g_variant_new_boolean (instance->at_session_end));
      g_variant_builder_close (&instances);
    }
  return g_variant_new ("(@a{sv}@aa{sv})", g_variant_builder_end (&props),
                        g_variant_builder_end (&instances));
}

static gboolean
app_is_empty (SrApp *app)
{
  return app->instances->len == 0 && app->next_id == NULL && app->discard->len == 0;
}

/* Hands a snapshot of the record to the writer (sr-portal-writer.c) and
 * returns at once. While the session runs the record is dirty; once it has
 * ended it stays clean: apps leaving the bus now are not crashes. */
void
sr_portal_record_save_now (SrPortal *self)
{
  g_autoptr(GVariant) state = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GList) ids = NULL;
  GVariantBuilder instances, builder;

  g_clear_handle_id (&self->save_id, g_source_remove);
  /* Not written this run (read_record()): no snapshot either. */
  if (sr_record_writer_is_held (self->writer))
    return;
  /* An app that came back with state from the ids it had to delete. */
  bound_apps (self, 0);
  ids = g_list_sort (g_hash_table_get_keys (self->apps), (GCompareFunc) g_strcmp0);
  g_variant_builder_init (&instances, G_VARIANT_TYPE (INSTANCES_TYPE));
  for (GList *l = ids; l != NULL; l = l->next)
    {
      SrApp *app = g_hash_table_lookup (self->apps, l->data);
      if (!app_is_empty (app))
        g_variant_builder_add (&instances, "{s@(a{sv}aa{sv})}", app->app_id, app_to_variant (app));
    }
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "version", g_variant_new_uint32 (RECORD_VERSION));
  g_variant_builder_add (&builder, "{sv}", "dirty", g_variant_new_boolean (!self->ending));
  g_variant_builder_add (&builder, "{sv}", "instances", g_variant_builder_end (&instances));
  state = g_variant_ref_sink (g_variant_builder_end (&builder));
  bytes = g_variant_get_data_as_bytes (state);
  /* One the next start would ignore would lose every app's state: the
   * last one written stays, until the record is small enough again. */
  if (g_bytes_get_size (bytes) > record_max_size ())
    {
      if (self->record_too_large == 0)
        {
          g_autoptr(GError) error = NULL;

          set_too_large_error (self, g_bytes_get_size (bytes), &error);
          g_warning ("%s", error->message);
        }
      self->record_too_large = g_bytes_get_size (bytes);
      return;
    }
  self->record_too_large = 0;
  sr_record_writer_write (self->writer, bytes);
  sr_portal_discards_save (self, ids);
}

static gboolean
save_due (gpointer user_data)
{
  SrPortal *self = user_data;

  self->save_id = 0;
  sr_portal_record_save_now (self);
  return G_SOURCE_REMOVE;
}

/* The record changed: it is written SAVE_DELAY_MS from the first change
 * not yet written, with every change made until then. */
void
sr_portal_record_save (SrPortal *self)
{
  if (self->save_id == 0)
    self->save_id = g_timeout_add (SAVE_DELAY_MS, save_due, self);
}

/* What changed is handed to the writer now; @callback once every snapshot
 * handed in is on disk. */
typedef struct {
  SrPortal *self;                /* (unowned) */
  GAsyncReadyCallback callback;
  gpointer user_data;
} Flush;

static void
discards_flushed (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Flush *flush = user_data;

  /* A failure to write them is the writer's to log; the record's own
   * flush says whether the record is written. */
  sr_record_writer_flush_finish (flush->self->discards_writer, result, NULL);
  sr_record_writer_flush_async (flush->self->writer, flush->callback, flush->user_data);
  g_free (flush);
}

/* What changed is handed to the writers now; @callback once every snapshot
 * handed in is on disk, the ids to discard first, then the record, whose
 * writer's flush @callback finishes (sr_record_writer_flush_finish()). */
void
sr_portal_record_flush_async (SrPortal            *self,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  Flush *flush = g_new0 (Flush, 1);

  if (self->save_id != 0)
    sr_portal_record_save_now (self);
  flush->self = self;
  flush->callback = callback;
  flush->user_data = user_data;
  sr_record_writer_flush_async (self->discards_writer, discards_flushed, flush);
}

/* FALSE, with the reason in @error, when the last snapshot was not
 * written (too large): the record keeps an older one. */
gboolean
sr_portal_record_check_written (SrPortal  *self,
                                GError   **error)
{
  if (self->record_too_large == 0)
    return TRUE;
  set_too_large_error (self, self->record_too_large, error);
  return FALSE;
}

/* At exit, after the main loop. */
void
sr_portal_record_flush_sync (SrPortal *self)
{
  if (self->save_id != 0)
    sr_portal_record_save_now (self);
  sr_record_writer_flush_sync (self->discards_writer);
  sr_record_writer_flush_sync (self->writer);
}
