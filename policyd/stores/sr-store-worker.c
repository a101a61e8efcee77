/* sr-store-worker.c: all stores, worked on in order off the main thread
 *
 * Listing and removing touch thousands of files; they run on one worker
 * thread so that checks keep being answered meanwhile. One thread, first
 * come first served: a removal never races another over the same file, and
 * a barrier queued after a removal completes after it.
 *
 * A listing asked for while the last job queued is a listing that has not
 * started yet shares that one's walk and answer, which is as new as its
 * own would have been: one caller asking again and again (200 listings at
 * once) used to put a walk each in the queue, ahead of everyone else's
 * Clear (6 s, and more the more it asked).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-store-worker"

#include "config.h"

#include "sr-store-walk.h"
#include "sr-store-dropin.h"
#include "sr-store-prepare.h"
#include "sr-store-worker.h"

struct _SrStoreWorker {
  GObject parent_instance;

  char **dirs;           /* (owned): where the drop-ins are */
  guint first_user_dir;  /* dirs[first_user_dir] and after are the user's */
  GPtrArray *stores;     /* (owned) (element-type SrStore) (nullable): read by
                          * the worker before its first job, and only used
                          * there */
  GThreadPool *worker;   /* (owned) (nullable) one thread; NULL once shut down */

  GMutex lock;           /* guards open_list and its sharers */
  struct _Job *open_list;  /* (unowned) (nullable): the last job queued, while
                            * it is a listing not started yet */
};

G_DEFINE_FINAL_TYPE (SrStoreWorker, sr_store_worker, G_TYPE_OBJECT)

typedef enum { JOB_LIST, JOB_REMOVE, JOB_TIDY, JOB_BARRIER, JOB_PREPARE } JobKind;

typedef struct _Job {
  JobKind kind;
  GHashTable *apps;      /* (owned) (nullable): removal of these only */
  gint64 older_than;
  SrPrepareRules *rules; /* (owned) (nullable): a session prepare's */
  GPtrArray *sharers;    /* (owned) (element-type GTask): listings answered
                          * with this one's */
} Job;

static void
job_free (Job *job)
{
  g_clear_pointer (&job->apps, g_hash_table_unref);
  g_clear_pointer (&job->rules, sr_prepare_rules_free);
  g_ptr_array_unref (job->sharers);
  g_free (job);
}

static Job *
job_new (JobKind kind)
{
  Job *job = g_new0 (Job, 1);

  job->kind = kind;
  job->sharers = g_ptr_array_new_with_free_func (g_object_unref);
  return job;
}

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The keys of a string set, sorted; borrowed from the table. */
static GPtrArray *
sorted_keys (GHashTable *table)
{
  GPtrArray *keys = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, table);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_ptr_array_add (keys, key);
  g_ptr_array_sort (keys, compare_strings);
  return keys;
}

/* The listing's last row when a store could not be read whole: app id
 * "" (never an app's), with "errors" (a{sas}), store name → messages. A
 * consumer that takes each row for an app finds none by that id; see
 * ListStoredState in the interface XML. */
static void
add_errors_row (GVariantBuilder *builder,
                GVariantBuilder *store_errors)
{
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert_value (&dict, "errors", g_variant_builder_end (store_errors));
  g_variant_builder_add (builder, "(s@a{sv})", "", g_variant_dict_end (&dict));
}

static GVariant *
list_all (SrStoreWorker *self)
{
  g_autoptr(GHashTable) usage = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) sr_app_usage_free);
  g_auto(GVariantBuilder) store_errors = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a{sas}"));
  g_autoptr(GPtrArray) apps = NULL;
  gboolean any_errors = FALSE;
  GVariantBuilder builder;

  for (guint i = 0; i < self->stores->len; i++)
    {
      const SrStore *store = self->stores->pdata[i];
      g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);

      sr_store_walk_list (store, usage, errors);
      for (guint e = 0; e < errors->len; e++)
        g_warning ("Listing stored state: %s", (const char *) errors->pdata[e]);
      if (errors->len > 0)
        {
          g_variant_builder_add (&store_errors, "{s@as}", store->name,
                                 g_variant_new_strv ((const char * const *) errors->pdata,
                                                     errors->len));
          any_errors = TRUE;
        }
    }

  apps = sorted_keys (usage);

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sa{sv})"));
  for (guint i = 0; i < apps->len; i++)
    {
      SrAppUsage *u = g_hash_table_lookup (usage, apps->pdata[i]);
      GVariantDict dict;

      g_variant_dict_init (&dict, NULL);
      g_variant_dict_insert (&dict, "bytes", "t", u->bytes);
      g_variant_dict_insert (&dict, "entries", "u", u->entries);
      /* No time rather than a shared file's, which is another app's. */
      if (u->last_saved > 0)
        g_variant_dict_insert (&dict, "last-saved", "x", u->last_saved);
      g_variant_dict_insert (&dict, "last-written", "x", u->last_written);
      g_variant_dict_insert (&dict, "at-login", "b", u->at_login);
      /* Only a count that is complete: a part would look like all. */
      if (u->gtk_files > 0 && u->gtk_files_not_counted == 0)
        g_variant_dict_insert (&dict, "windows", "u", u->windows);
      g_variant_dict_insert_value (&dict, "stores",
                                   g_variant_new_strv ((const char * const *) u->stores->pdata,
                                                       u->stores->len));
      g_variant_builder_add (&builder, "(s@a{sv})", (const char *) apps->pdata[i],
                             g_variant_dict_end (&dict));
    }
  if (any_errors)
    add_errors_row (&builder, &store_errors);
  return g_variant_ref_sink (g_variant_builder_end (&builder));
}

static GVariant *
strv_from_set (GHashTable *set)
{
  g_autoptr(GPtrArray) keys = sorted_keys (set);

  return g_variant_new_strv ((const char * const *) keys->pdata, keys->len);
}

static GVariant *
remove_all (SrStoreWorker *self,
            Job       *job)
{
  g_autoptr(GHashTable) apps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) errors = g_ptr_array_new_with_free_func (g_free);
  GVariantBuilder stores;
  GVariantDict report;
  guint entries = 0;
  guint64 bytes = 0;

  g_variant_builder_init (&stores, G_VARIANT_TYPE ("a{sv}"));
  for (guint i = 0; i < self->stores->len; i++)
    {
      const SrStore *store = self->stores->pdata[i];
      SrStoreReport one;
      GVariantDict dict;
      GHashTableIter iter;
      gpointer app;

      sr_store_report_init (&one);
      sr_store_walk_remove (store, job->apps, job->older_than, &one);

      entries += one.entries;
      bytes += one.bytes;
      g_hash_table_iter_init (&iter, one.apps);
      while (g_hash_table_iter_next (&iter, &app, NULL))
        g_hash_table_add (apps, g_strdup (app));
      for (guint e = 0; e < one.errors->len; e++)
        {
          g_warning ("Removing stored state: %s", (const char *) one.errors->pdata[e]);
          g_ptr_array_add (errors, g_strdup (one.errors->pdata[e]));
        }

      g_variant_dict_init (&dict, NULL);
      g_variant_dict_insert (&dict, "entries", "u", one.entries);
      g_variant_dict_insert (&dict, "bytes", "t", one.bytes);
      g_variant_dict_insert_value (&dict, "errors",
                                   g_variant_new_strv ((const char * const *) one.errors->pdata,
                                                       one.errors->len));
      g_variant_builder_add (&stores, "{sv}", store->name, g_variant_dict_end (&dict));
      sr_store_report_clear (&one);
    }

  g_variant_dict_init (&report, NULL);
  g_variant_dict_insert_value (&report, "apps", strv_from_set (apps));
  g_variant_dict_insert (&report, "entries", "u", entries);
  g_variant_dict_insert (&report, "bytes", "t", bytes);
  g_variant_dict_insert_value (&report, "errors",
                               g_variant_new_strv ((const char * const *) errors->pdata,
                                                   errors->len));
  g_variant_dict_insert_value (&report, "stores", g_variant_builder_end (&stores));
  return g_variant_ref_sink (g_variant_dict_end (&report));
}

/* What interrupted rewrites left behind (sr-store-file.c). */
static void
tidy_all (SrStoreWorker *self)
{
  for (guint i = 0; i < self->stores->len; i++)
    {
      SrStoreReport one;

      sr_store_report_init (&one);
      sr_store_walk_remove_leftovers (self->stores->pdata[i], &one);
      for (guint e = 0; e < one.errors->len; e++)
        g_warning ("Removing leftovers: %s", (const char *) one.errors->pdata[e]);
      sr_store_report_clear (&one);
    }
}

static void
run_job (gpointer data,
         gpointer user_data)
{
  g_autoptr(GTask) task = data;
  SrStoreWorker *self = user_data;
  Job *job = g_task_get_task_data (task);

  /* The drop-ins are read here rather than at start-up: start-up is
   * then only what answering a check needs. */
  if (self->stores == NULL)
    self->stores = sr_store_load_dirs ((const char * const *) self->dirs,
                                       self->first_user_dir);

  /* No listing joins this one once it has started. */
  g_mutex_lock (&self->lock);
  if (self->open_list == job)
    self->open_list = NULL;
  g_mutex_unlock (&self->lock);

  switch (job->kind)
    {
    case JOB_LIST:
      {
        g_autoptr(GVariant) listing = list_all (self);

        for (guint i = 0; i < job->sharers->len; i++)
          g_task_return_pointer (job->sharers->pdata[i], g_variant_ref (listing),
                                 (GDestroyNotify) g_variant_unref);
        g_task_return_pointer (task, g_steal_pointer (&listing), (GDestroyNotify) g_variant_unref);
      }
      break;
    case JOB_REMOVE:
      g_task_return_pointer (task, remove_all (self, job), (GDestroyNotify) g_variant_unref);
      break;
    case JOB_PREPARE:
      {
        GError *error = NULL;
        GVariant *report = sr_store_prepare (self->stores, job->rules, &error);

        if (report == NULL)
          g_task_return_error (task, error);
        else
          g_task_return_pointer (task, report, (GDestroyNotify) g_variant_unref);
      }
      break;
    case JOB_TIDY:
      tidy_all (self);
      g_task_return_boolean (task, TRUE);
      break;
    case JOB_BARRIER:
    default:
      g_task_return_boolean (task, TRUE);
      break;
    }
}

/* Waits for the jobs queued so far: a clear that was promised is carried
 * out. Their callbacks are then queued on the main context. */
void
sr_store_worker_shutdown (SrStoreWorker *self)
{
  if (self->worker != NULL)
    g_thread_pool_free (g_steal_pointer (&self->worker), FALSE, TRUE);
}

static void
sr_store_worker_finalize (GObject *object)
{
  SrStoreWorker *self = SR_STORE_WORKER (object);

  sr_store_worker_shutdown (self);
  g_clear_pointer (&self->stores, g_ptr_array_unref);
  g_strfreev (self->dirs);
  g_mutex_clear (&self->lock);
  G_OBJECT_CLASS (sr_store_worker_parent_class)->finalize (object);
}

static void
sr_store_worker_class_init (SrStoreWorkerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sr_store_worker_finalize;
}

static void
sr_store_worker_init (SrStoreWorker *self)
{
  g_mutex_init (&self->lock);
  self->worker = g_thread_pool_new (run_job, self, 1, FALSE, NULL);
}

SrStoreWorker *
sr_store_worker_new (const char * const *dirs,
                     guint               first_user_dir)
{
  SrStoreWorker *self = g_object_new (SR_TYPE_STORE_WORKER, NULL);

  self->dirs = g_strdupv ((char **) dirs);
  self->first_user_dir = first_user_dir;
  return self;
}

static void
queue (SrStoreWorker           *self,
       Job                 *job,
       gpointer             source_tag,
       GAsyncReadyCallback  callback,
       gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);

  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_set_source_tag (task, source_tag);
  if (self->worker == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED, "Shutting down");
      g_object_unref (task);
      return;
    }
  g_mutex_lock (&self->lock);
  self->open_list = job->kind == JOB_LIST ? job : NULL;
  g_mutex_unlock (&self->lock);
  g_thread_pool_push (self->worker, task, NULL);
}

/* A job with nothing to it but its kind. */
static void
queue_kind (SrStoreWorker       *self,
            JobKind              kind,
            gpointer             source_tag,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  queue (self, job_new (kind), source_tag, callback, user_data);
}

void
sr_store_worker_list_async (SrStoreWorker           *self,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  GTask *task;

  g_mutex_lock (&self->lock);
  if (self->open_list != NULL)
    {
      task = g_task_new (self, NULL, callback, user_data);
      g_task_set_source_tag (task, sr_store_worker_list_async);
      g_ptr_array_add (self->open_list->sharers, task);
      g_mutex_unlock (&self->lock);
      return;
    }
  g_mutex_unlock (&self->lock);
  queue_kind (self, JOB_LIST, sr_store_worker_list_async, callback, user_data);
}

void
sr_store_worker_remove_async (SrStoreWorker           *self,
                         const char * const  *apps,
                         gint64               older_than,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  Job *job = job_new (JOB_REMOVE);

  job->older_than = older_than;
  if (apps != NULL)
    {
      job->apps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; apps[i] != NULL; i++)
        g_hash_table_add (job->apps, g_strdup (apps[i]));
    }
  queue (self, job, sr_store_worker_remove_async, callback, user_data);
}

/* Session prepare (sr-store-prepare.c), by @rules (transfer full). Finish
 * with sr_store_worker_finish(): the report. */
void
sr_store_worker_prepare_async (SrStoreWorker       *self,
                               SrPrepareRules      *rules,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  Job *job = job_new (JOB_PREPARE);

  job->rules = rules;
  queue (self, job, sr_store_worker_prepare_async, callback, user_data);
}

GVariant *
sr_store_worker_finish (SrStoreWorker     *self,
                   GAsyncResult  *result,
                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Removes what a kill during a rewrite left in the stores; queued once
 * after start-up. Finish with g_task_propagate_boolean(), or pass no
 * callback. */
void
sr_store_worker_tidy_async (SrStoreWorker       *self,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  queue_kind (self, JOB_TIDY, sr_store_worker_tidy_async, callback, user_data);
}

void
sr_store_worker_barrier_async (SrStoreWorker           *self,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  queue_kind (self, JOB_BARRIER, sr_store_worker_barrier_async, callback, user_data);
}
