/* sr-store-prepare.c: the settings applied to what the session manager
 * and the compositor read at login
 *
 * gnome-session 51 decides restores itself and consults nobody: it reads
 * its record ($XDG_STATE_HOME/gnome-session@<session>.state) once at
 * login, relaunches every instance in it that did not crash (RESTORE) and
 * hands the crashed ones out as RECOVER when their app starts, and
 * rewrites the record from memory at every register, unregister and
 * logout, undoing whatever was changed in it meanwhile. Mutter and GNOME
 * Shell do the same with their window positions (session.gvdb). So the
 * settings reach them only between logout and the next login:
 * PrepareSession, run then (session-restore-ctl session prepare, from
 * session-restore-prepare.service before gnome-session-pre.target).
 *
 * What it touches, by store (the drop-ins, data/stores.d):
 * - the store of entries named "gnome-session" (an administrator's
 *   gnome-session.store replaces the shipped one, and is the one
 *   prepared): every record its pattern names, each session's, loses
 *   - every app, when saving is off ("disabled"), and the apps
 *     excluded-apps ∪ admin-excluded-apps name ("excluded"): their whole
 *     entry;
 *   - of an app the crash-loop guard holds back ("crash-loop"), the
 *     instances gnome-session would hand out as RECOVER (those that
 *     crashed, or all when the session did, "dirty"): gnome-session can
 *     neither be told to start one without its state nor asked, so
 *     holding the recovery back means taking the instance away. Its
 *     instances that closed with the session stay: they come back as
 *     RESTORE, which the guard does not hold back (DESIGN.md, rule 4);
 *   - instances saved before the app's or the global clear point
 *     ("cleared": a Clear while gnome-session ran, which it undid) or
 *     more than max-age-days ago ("expired");
 *   and each id that goes takes its GTK state files with it, from every
 *   store of files in GTK's format (the host's and the Flatpak apps'):
 *   the removed instances' ids, and when a whole app goes, also its
 *   "next-instance-id" (the state its next plain launch would restore)
 *   and its "discarded-instance-ids" (files GTK was yet to delete);
 * - when saving is off, the whole-file stores named "mutter" and
 *   "gnome-shell": their window positions.
 *
 * The age of an instance: gnome-session's record keeps no time per
 * instance, and its own file's time is that of the last register,
 * unregister or logout of any app. What says when an instance last saved
 * is its GTK state file (autosaved every 15 s while a window has focus,
 * and at the end): its modification time, the newest of its files in the
 * GTK stores, or its own "saved-at" where a record has one (the portal
 * backend's format). An instance with no such file (an app that keeps no
 * GTK state) has no time of its own: it is judged by the record's time,
 * the last logout's, which it was open at. A record rewritten here keeps
 * its time (sr-store-file.c), so that a second run judges alike.
 *
 * Everything else in a record keeps its meaning: "version", "dirty", the
 * apps and instances left, in their order, so that they come back with
 * RESTORE. A record of a version other than gnome-session 51's (1) is
 * not known well enough to change: it is left as it is, with an error.
 * Nothing is written when nothing changes, so a second run changes
 * nothing. A record is rewritten as Clear rewrites one (temporary file,
 * fsync, rename; never through a link; started over when its owner saved
 * it meanwhile), and the GTK files of what it lost are deleted only once
 * it was: a record that cannot be read, parsed or written loses nothing,
 * and neither do the files of its instances.
 *
 * Runs on the store worker's thread (sr-store-worker.c), after the clears
 * queued before it. The owners are asked after (rules->check_owners):
 * whether each is stopped is known as close as can be to the writes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-store-prepare"

#include "config.h"

#include "sr-app-id.h"
#include "sr-format-gnome-session.h"
#include "sr-store-dropin.h"
#include "sr-store-prepare.h"
#include "sr-store-walk.h"

/* The store whose records gnome-session reads at login, and those of the
 * compositors' window positions, by their drop-ins' names. */
#define SESSION_RECORDS_STORE "gnome-session"
static const char * const compositor_stores[] = { "mutter", "gnome-shell", NULL };

/* An instance id taken away from a record, and why. */
typedef struct {
  char *app_id;
  char *instance_id;
  SrFormatGnomeSessionId kind;
  const char *why;      /* static */
} Removed;

static void
removed_free (Removed *removed)
{
  g_free (removed->app_id);
  g_free (removed->instance_id);
  g_free (removed);
}

typedef struct {
  const SrPrepareRules *rules;
  GPtrArray *gtk_stores;      /* (element-type SrStore) (unowned) */
  GPtrArray *errors;          /* (owned) messages */
  /* The record being rewritten, this attempt's. */
  gint64 file_time;
  GHashTable *held;           /* (owned) app ids whose recovery is held */
  GHashTable *app_why;        /* (owned) app id → static why, apps that go whole */
  const char *instance_why;   /* the last instance judged to go */
  GPtrArray *attempt;         /* (owned) (element-type Removed) */
  /* What was done. */
  GPtrArray *removed;         /* (owned) (element-type Removed): from records rewritten */
  GPtrArray *records;         /* (owned) paths rewritten */
} Prepare;

void
sr_prepare_rules_free (SrPrepareRules *rules)
{
  if (rules->destroy != NULL)
    rules->destroy (rules->user_data);
  g_free (rules);
}

static gboolean
is_gtk_store (const SrStore *store)
{
  return store->kind == SR_STORE_FILES && store->format == SR_STORE_FORMAT_GTK;
}

/* When the instance last saved; see the top of the file. */
static gint64
instance_time (Prepare    *prepare,
               const char *app_id,
               GVariant   *instance)
{
  gint64 saved_at = 0;
  const char *id;

  g_variant_lookup (instance, "saved-at", "x", &saved_at);
  saved_at = MAX (saved_at, 0);
  if (g_variant_lookup (instance, "instance-id", "&s", &id))
    for (guint i = 0; i < prepare->gtk_stores->len; i++)
      saved_at = MAX (saved_at, sr_store_walk_instance_time (prepare->gtk_stores->pdata[i],
                                                             app_id, id, prepare->errors));
  return saved_at > 0 ? saved_at : prepare->file_time;
}

static gboolean
remove_app (const char *app_id,
            gpointer    user_data)
{
  Prepare *prepare = user_data;
  const SrPrepareRules *rules = prepare->rules;
  const char *why = NULL;

  if (rules->off)
    why = "disabled";
  /* A key that is no app id is no app's to judge: only "off" takes it. */
  else if (!sr_app_id_validate (app_id, NULL))
    return FALSE;
  else
    switch (rules->judge_app (app_id, &why, rules->user_data))
      {
      case SR_PREPARE_REMOVE:
        break;
      case SR_PREPARE_RECOVERY_HELD:
        g_hash_table_add (prepare->held, g_strdup (app_id));
        return FALSE;
      case SR_PREPARE_KEEP:
      default:
        return FALSE;
      }
  g_hash_table_insert (prepare->app_why, g_strdup (app_id), (gpointer) why);
  return TRUE;
}

static gboolean
remove_instance (const char *app_id,
                 GVariant   *instance,
                 gboolean    recoverable,
                 gpointer    user_data)
{
  Prepare *prepare = user_data;
  const SrPrepareRules *rules = prepare->rules;

  if (!sr_app_id_validate (app_id, NULL))
    return FALSE;
  if (recoverable && g_hash_table_contains (prepare->held, app_id))
    prepare->instance_why = "crash-loop";
  else
    prepare->instance_why = rules->judge_instance (app_id, instance_time (prepare, app_id, instance),
                                                   rules->user_data);
  return prepare->instance_why != NULL;
}

static void
removed_id (const char             *app_id,
            const char             *instance_id,
            SrFormatGnomeSessionId  kind,
            gpointer                user_data)
{
  Prepare *prepare = user_data;
  Removed *removed = g_new0 (Removed, 1);
  const char *why = g_hash_table_lookup (prepare->app_why, app_id);

  removed->app_id = g_strdup (app_id);
  removed->instance_id = g_strdup (instance_id);
  removed->kind = kind;
  removed->why = why != NULL ? why : prepare->instance_why;
  g_ptr_array_add (prepare->attempt, removed);
}

static const SrFormatGnomeSessionFilter filter = {
  .remove_app = remove_app,
  .remove_instance = remove_instance,
  .removed = removed_id,
};

/* An SrStoreRewrite's rewrite: one attempt at a record. */
static GVariant *
rewrite_record (const char *path,
                GVariant   *state,
                gint64      file_time,
                GPtrArray  *errors,
                gpointer    user_data)
{
  Prepare *prepare = user_data;
  guint32 version = 0;

  if (!g_variant_lookup (state, "version", "u", &version))
    {
      g_ptr_array_add (errors, g_strdup_printf ("%s: a record without a version, which "
                                                "gnome-session 51 does not read; left as it is",
                                                path));
      return NULL;
    }
  if (version != 1)
    {
      g_ptr_array_add (errors, g_strdup_printf ("%s: a record of version %u, not 1 (gnome-session "
                                                "51's), which this does not know; left as it is",
                                                path, version));
      return NULL;
    }
  prepare->file_time = file_time;
  g_hash_table_remove_all (prepare->held);
  g_hash_table_remove_all (prepare->app_why);
  g_ptr_array_set_size (prepare->attempt, 0);
  return sr_format_gnome_session_filter (state, &filter, prepare);
}

/* An SrStoreRewrite's rewritten: what the last attempt took is gone. */
static void
record_rewritten (const char *path,
                  gpointer    user_data)
{
  Prepare *prepare = user_data;

  g_ptr_array_extend_and_steal (prepare->removed, g_steal_pointer (&prepare->attempt));
  prepare->attempt = g_ptr_array_new_with_free_func ((GDestroyNotify) removed_free);
  g_ptr_array_add (prepare->records, g_strdup (path));
  g_message ("Prepared %s for the next login", path);
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static GVariant *
sorted_strv (GHashTable *set)
{
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, set);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, compare_strings);
  return g_variant_new_strv ((const char * const *) keys->pdata, keys->len);
}

static GVariant *
build_report (Prepare       *prepare,
              SrStoreReport *files)
{
  g_auto(GVariantBuilder) instances = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sss)"));
  g_autoptr(GHashTable) apps = g_hash_table_new (g_str_hash, g_str_equal);
  GVariantDict report;

  for (guint i = 0; i < prepare->removed->len; i++)
    {
      Removed *removed = prepare->removed->pdata[i];

      if (removed->kind == SR_FORMAT_GNOME_SESSION_ID_INSTANCE)
        g_variant_builder_add (&instances, "(sss)", removed->app_id, removed->instance_id,
                               removed->why);
      if (sr_app_id_validate (removed->app_id, NULL))
        g_hash_table_add (apps, removed->app_id);
    }
  g_variant_dict_init (&report, NULL);
  g_variant_dict_insert_value (&report, "apps", sorted_strv (apps));
  g_variant_dict_insert_value (&report, "instances", g_variant_builder_end (&instances));
  g_variant_dict_insert_value (&report, "records",
                               g_variant_new_strv ((const char * const *) prepare->records->pdata,
                                                   prepare->records->len));
  g_variant_dict_insert (&report, "files", "u", files->entries);
  g_variant_dict_insert (&report, "bytes", "t", files->bytes);
  g_variant_dict_insert_value (&report, "errors",
                               g_variant_new_strv ((const char * const *) prepare->errors->pdata,
                                                   prepare->errors->len));
  return g_variant_ref_sink (g_variant_dict_end (&report));
}

GVariant *
sr_store_prepare (GPtrArray             *stores,
                  const SrPrepareRules  *rules,
                  GError               **error)
{
  Prepare prepare = {
    .rules = rules,
    .gtk_stores = g_ptr_array_new (),
    .errors = g_ptr_array_new_with_free_func (g_free),
    .held = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .app_why = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL),
    .attempt = g_ptr_array_new_with_free_func ((GDestroyNotify) removed_free),
    .removed = g_ptr_array_new_with_free_func ((GDestroyNotify) removed_free),
    .records = g_ptr_array_new_with_free_func (g_free),
  };
  const SrStoreRewrite rewrite = {
    .rewrite = rewrite_record,
    .rewritten = record_rewritten,
    .user_data = &prepare,
  };
  SrStoreReport files;
  GVariant *report = NULL;

  sr_store_report_init (&files);
  if (!rules->check_owners (rules->user_data, error))
    goto out;

  for (guint i = 0; i < stores->len; i++)
    if (is_gtk_store (stores->pdata[i]))
      g_ptr_array_add (prepare.gtk_stores, stores->pdata[i]);

  for (guint i = 0; i < stores->len; i++)
    {
      const SrStore *store = stores->pdata[i];

      if (store->kind == SR_STORE_ENTRIES && g_str_equal (store->name, SESSION_RECORDS_STORE))
        sr_store_walk_rewrite (store, &rewrite, prepare.errors);
    }

  /* The records are written: now the files of what they lost. */
  for (guint i = 0; i < prepare.removed->len; i++)
    {
      Removed *removed = prepare.removed->pdata[i];

      for (guint s = 0; s < prepare.gtk_stores->len; s++)
        sr_store_walk_remove_instance (prepare.gtk_stores->pdata[s], removed->app_id,
                                       removed->instance_id, &files);
    }

  if (rules->off)
    for (guint i = 0; i < stores->len; i++)
      {
        const SrStore *store = stores->pdata[i];

        if (store->kind == SR_STORE_WHOLE_FILE &&
            g_strv_contains (compositor_stores, store->name))
          sr_store_walk_remove (store, NULL, 0, &files);
      }

  for (guint i = 0; i < files.errors->len; i++)
    g_ptr_array_add (prepare.errors, g_strdup (files.errors->pdata[i]));
  for (guint i = 0; i < prepare.errors->len; i++)
    g_warning ("Preparing the session: %s", (const char *) prepare.errors->pdata[i]);
  report = build_report (&prepare, &files);

out:
  sr_store_report_clear (&files);
  g_ptr_array_unref (prepare.gtk_stores);
  g_ptr_array_unref (prepare.errors);
  g_hash_table_unref (prepare.held);
  g_hash_table_unref (prepare.app_why);
  g_ptr_array_unref (prepare.attempt);
  g_ptr_array_unref (prepare.removed);
  g_ptr_array_unref (prepare.records);
  return report;
}
