/* sr-app-list.c: the apps the panel lists, with their saved sessions
 *
 * A list model of SrAppItem: the installed apps (sr-installed-apps.c reads
 * them on a worker thread), every app with a saved session and every
 * excluded app. It re-reads the exclusions whenever policyd's properties
 * change and the saved sessions on reload. Items are
 * only made once the installed apps are known, so that an app's name
 * never changes under the sorter. Items are never removed: the view's
 * filter hides those with nothing left to show ("listed").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include "sr-app-list.h"
#include "sr-bus.h"
#include "sr-error.h"
#include "sr-installed-apps.h"

struct _SrAppList {
  GObject parent_instance;

  SrClient *client;           /* (owned) */
  GListStore *store;          /* (owned) SrAppItem */
  GHashTable *items;          /* (owned) app id → SrAppItem (unowned) */
  GCancellable *cancellable;  /* (owned) */
  gboolean apps_read;
  gboolean listed;            /* a listing has come in (or failed) */
  gboolean first_pending;     /* the first listing, asked for as policyd connects */
  gboolean first_taken;       /* it came in before the connection did */
  GVariant *pending;          /* (owned) (nullable) a listing that came first */
  guint asked;                /* the serial of the newest listing asked for */
  guint applied;              /* ...and of the newest one taken in */
  GError *error;              /* (owned) (nullable) why the last listing failed */
  gboolean incomplete;        /* the last listing could not read every store */
  guint n_saved;
  guint n_expired;            /* of n_saved: too old to be restored */
  guint n_cleared;            /* of n_saved: saved before a clear point */
  guint64 bytes;
  GHashTable *programs;       /* (owned) (nullable) executable's file name → desktop file's Name */
};

static void sr_app_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SrAppList, sr_app_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, sr_app_list_model_init))

enum {
  PROP_0,
  PROP_READY,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_LISTED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static GType
model_get_item_type (GListModel *model)
{
  return SR_TYPE_APP_ITEM;
}

static guint
model_get_n_items (GListModel *model)
{
  return g_list_model_get_n_items (G_LIST_MODEL (SR_APP_LIST (model)->store));
}

static gpointer
model_get_item (GListModel *model,
                guint       position)
{
  return g_list_model_get_item (G_LIST_MODEL (SR_APP_LIST (model)->store), position);
}

static void
sr_app_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = model_get_item_type;
  iface->get_n_items = model_get_n_items;
  iface->get_item = model_get_item;
}

static void
on_store_items_changed_cb (SrAppList *self,
                           guint      position,
                           guint      removed,
                           guint      added)
{
  g_list_model_items_changed (G_LIST_MODEL (self), position, removed, added);
}

static SrAppItem *
ensure_item (SrAppList  *self,
             const char *app_id,
             GPtrArray  *added)
{
  SrAppItem *item = g_hash_table_lookup (self->items, app_id);

  if (item == NULL)
    {
      item = sr_app_item_new (app_id);
      g_hash_table_insert (self->items, g_strdup (app_id), item);
      g_ptr_array_add (added, item);
    }
  return item;
}

/* Appends in one go: one items-changed for the whole batch. */
static void
add_items (SrAppList *self,
           GPtrArray *added)
{
  g_list_store_splice (self->store, g_list_model_get_n_items (G_LIST_MODEL (self->store)), 0,
                       added->pdata, added->len);
  for (guint i = 0; i < added->len; i++)
    g_object_unref (added->pdata[i]);
  g_ptr_array_set_size (added, 0);
}

static void
sync_excluded (SrAppList *self)
{
  SrPolicyClient *policy = sr_client_get_policy (self->client);
  g_autoptr(GPtrArray) added = g_ptr_array_new ();
  const char * const *lists[2];
  GHashTableIter iter;
  gpointer key, value;
  gboolean locked;

  if (policy == NULL || !self->apps_read)
    return;
  /* Lent by the client until the properties change: not while this runs. */
  lists[0] = sr_policy_client_get_excluded_apps (policy);
  lists[1] = sr_policy_client_get_admin_excluded_apps (policy);

  /* Excluded apps are listed even when they are not installed, so that
   * they can be let back in. */
  for (guint i = 0; i < G_N_ELEMENTS (lists); i++)
    for (guint j = 0; lists[i] != NULL && lists[i][j] != NULL; j++)
      ensure_item (self, lists[i][j], added);
  add_items (self, added);

  locked = sr_client_is_locked (self->client, "excluded-apps") ||
           sr_client_is_refused (self->client, SR_ACTION_CONFIGURE);
  g_hash_table_iter_init (&iter, self->items);
  while (g_hash_table_iter_next (&iter, &key, &value))
    sr_app_item_set_excluded (value,
                              lists[0] != NULL && g_strv_contains (lists[0], key),
                              lists[1] != NULL && g_strv_contains (lists[1], key),
                              locked);
}

/* @listing: ListStoredState's a(sa{sv}). */
static void
apply_listing (SrAppList *self,
               GVariant  *listing)
{
  g_autoptr(GPtrArray) added = g_ptr_array_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  GVariantIter iter;
  GHashTableIter items;
  gpointer key, value;
  const char *app_id;
  GVariant *info;

  self->n_saved = 0;
  self->n_expired = 0;
  self->n_cleared = 0;
  self->bytes = 0;
  self->incomplete = FALSE;
  g_variant_iter_init (&iter, listing);
  while (g_variant_iter_loop (&iter, "(&s@a{sv})", &app_id, &info))
    {
      SrAppItem *item;

      /* Not an app: the stores policyd could not read, with its reasons,
       * which are for the log; the page only says that some are missing. */
      if (*app_id == '\0')
        {
          g_autofree char *errors = g_variant_print (info, FALSE);
          g_message ("Some saved sessions could not be read: %s", errors);
          self->incomplete = TRUE;
          continue;
        }
      item = ensure_item (self, app_id, added);

      sr_app_item_set_usage (item, info);
      g_hash_table_add (seen, (gpointer) sr_app_item_get_app_id (item));
      self->n_saved++;
      self->n_expired += sr_app_item_get_state (item) == SR_APP_STATE_EXPIRED;
      self->n_cleared += sr_app_item_get_state (item) == SR_APP_STATE_CLEARED;
      self->bytes += sr_app_item_get_bytes (item);
    }

  g_hash_table_iter_init (&items, self->items);
  while (g_hash_table_iter_next (&items, &key, &value))
    if (!g_hash_table_contains (seen, key))
      sr_app_item_set_usage (value, NULL);
  add_items (self, added);
}

/* A listing that failed says nothing of the saved sessions: what an
 * earlier one said is not shown as if it still held. */
static void
forget_listing (SrAppList *self)
{
  GHashTableIter items;
  gpointer value;

  self->n_saved = 0;
  self->n_expired = 0;
  self->n_cleared = 0;
  self->bytes = 0;
  self->incomplete = FALSE;
  g_hash_table_iter_init (&items, self->items);
  while (g_hash_table_iter_next (&items, NULL, &value))
    sr_app_item_set_usage_unknown (value);
}

static void
finish_listing (SrAppList *self,
                GVariant  *listing,
                GError    *error)
{
  gboolean was_ready = sr_app_list_get_ready (self);

  g_clear_error (&self->error);
  self->error = error;
  if (listing != NULL && !self->apps_read)
    {
      g_clear_pointer (&self->pending, g_variant_unref);
      self->pending = g_variant_ref (listing);
      return;
    }
  if (listing != NULL)
    apply_listing (self, listing);
  else if (error != NULL)
    forget_listing (self);
  sync_excluded (self);
  self->listed = TRUE;
  g_signal_emit (self, signals[SIGNAL_LISTED], 0);
  if (!was_ready && sr_app_list_get_ready (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READY]);
}

/* policyd asks polkit before each listing: answers can come in out of
 * order, and one to an older request, a refusal or a failure among them,
 * must not replace what a newer one said. FALSE: @serial's answer is
 * older than the one taken in, and dropped. */
static gboolean
take_serial (SrAppList *self,
             guint      serial)
{
  if (serial < self->applied)
    {
      g_debug ("listing %u answered after listing %u: dropped", serial, self->applied);
      return FALSE;
    }
  self->applied = serial;
  return TRUE;
}

static void
on_listed_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SrAppList *self = g_task_get_source_object (task);
  GError *error = NULL;
  g_autoptr(GVariant) reply =
    sr_policy_client_list_stored_state_finish (SR_POLICY_CLIENT (source), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
      return;
    }
  if (error != NULL)
    g_message ("Could not list saved sessions: %s", error->message);
  if (!take_serial (self, GPOINTER_TO_UINT (g_task_get_task_data (task))))
    {
      /* The list is as new as this caller asked for, or newer. */
      g_clear_error (&error);
      if (self->error != NULL)
        error = g_error_copy (self->error);
    }
  else
    finish_listing (self, reply, error != NULL ? g_error_copy (error) : NULL);
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

void
sr_app_list_reload_async (SrAppList           *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, sr_app_list_reload_async);
  g_task_set_task_data (task, GUINT_TO_POINTER (++self->asked), NULL);
  sr_policy_client_list_stored_state_async (sr_client_peek_policy (self->client),
                                            SR_CALL_FLAGS_ALLOW_INTERACTION, cancellable,
                                            on_listed_cb, task);
}

gboolean
sr_app_list_reload_finish (SrAppList     *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
sr_app_list_reload (SrAppList *self)
{
  if (sr_client_get_connected (self->client))
    sr_app_list_reload_async (self, self->cancellable, NULL, NULL);
}

static void
on_installed_apps_read_cb (GObject      *source,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  g_autoptr(SrAppList) self = user_data;
  g_autoptr(SrInstalledApps) read = sr_installed_apps_read_finish (result, NULL);
  g_autoptr(GPtrArray) added = g_ptr_array_new ();

  if (read == NULL)
    return;
  g_clear_pointer (&self->programs, g_hash_table_unref);
  self->programs = g_hash_table_ref (read->programs);
  for (guint i = 0; i < read->app_ids->len; i++)
    sr_app_item_set_app_info (ensure_item (self, read->app_ids->pdata[i], added),
                              read->infos->pdata[i]);
  add_items (self, added);
  self->apps_read = TRUE;
  if (self->pending != NULL)
    {
      g_autoptr(GVariant) pending = g_steal_pointer (&self->pending);
      finish_listing (self, pending, NULL);
    }
  else
    sync_excluded (self);
}

static void
on_client_changed_cb (SrAppList *self)
{
  sync_excluded (self);
}

/* The first listing is asked for at once, while the client connects, so
 * that it comes in with the connection (the library holds its answer until
 * the owner is verified, SR_POLICY_CLIENT_FLAGS_PIPELINE). If policyd was
 * not running, or the owner is not trusted, it fails quietly: the listing
 * is asked for again once policyd is there. */
static void
on_first_listed_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(SrAppList) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply =
    sr_policy_client_list_stored_state_finish (SR_POLICY_CLIENT (source), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->first_pending = FALSE;
  if (reply == NULL)
    sr_app_list_reload (self);
  else if (take_serial (self, 0))   /* the first listing's serial: reloads count from 1 */
    {
      self->first_taken = !sr_client_get_connected (self->client);
      finish_listing (self, reply, NULL);
    }
}

static void
on_client_connected_cb (SrAppList *self)
{
  if (self->first_pending)
    return;
  if (self->first_taken && sr_client_get_connected (self->client))
    {
      self->first_taken = FALSE;
      return;
    }
  sr_app_list_reload (self);
}

static void
sr_app_list_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_READY: g_value_set_boolean (value, sr_app_list_get_ready (SR_APP_LIST (object))); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sr_app_list_dispose (GObject *object)
{
  SrAppList *self = SR_APP_LIST (object);

  g_cancellable_cancel (self->cancellable);
  if (self->client != NULL)
    g_signal_handlers_disconnect_by_data (self->client, self);
  g_clear_object (&self->client);
  G_OBJECT_CLASS (sr_app_list_parent_class)->dispose (object);
}

static void
sr_app_list_finalize (GObject *object)
{
  SrAppList *self = SR_APP_LIST (object);

  g_clear_object (&self->store);
  g_clear_pointer (&self->items, g_hash_table_unref);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->pending, g_variant_unref);
  g_clear_pointer (&self->programs, g_hash_table_unref);
  g_clear_error (&self->error);
  G_OBJECT_CLASS (sr_app_list_parent_class)->finalize (object);
}

static void
sr_app_list_class_init (SrAppListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = sr_app_list_get_property;
  object_class->dispose = sr_app_list_dispose;
  object_class->finalize = sr_app_list_finalize;

  /* The installed apps are read and a first listing has come in. */
  properties[PROP_READY] =
    g_param_spec_boolean ("ready", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A listing came in, or failed (sr_app_list_get_error ()), or came in
   * without what some stores hold (sr_app_list_get_incomplete ()). */
  signals[SIGNAL_LISTED] =
    g_signal_new ("listed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sr_app_list_init (SrAppList *self)
{
  self->store = g_list_store_new (SR_TYPE_APP_ITEM);
  self->items = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->cancellable = g_cancellable_new ();
  g_signal_connect_swapped (self->store, "items-changed",
                            G_CALLBACK (on_store_items_changed_cb), self);
}

SrAppList *
sr_app_list_new (SrClient *client)
{
  SrAppList *self = g_object_new (SR_TYPE_APP_LIST, NULL);

  self->client = g_object_ref (client);
  g_signal_connect_swapped (client, "changed", G_CALLBACK (on_client_changed_cb), self);
  g_signal_connect_swapped (client, "notify::connected", G_CALLBACK (on_client_connected_cb), self);
  g_signal_connect_swapped (client, "stored-state-changed", G_CALLBACK (sr_app_list_reload), self);
  sr_installed_apps_read_async (self->cancellable, on_installed_apps_read_cb, g_object_ref (self));
  self->first_pending = TRUE;
  sr_policy_client_list_stored_state_async (sr_client_peek_policy (client),
                                            SR_CALL_FLAGS_ALLOW_INTERACTION, self->cancellable,
                                            on_first_listed_cb, g_object_ref (self));
  return self;
}

SrAppItem *
sr_app_list_lookup (SrAppList  *self,
                    const char *app_id)
{
  return g_hash_table_lookup (self->items, app_id);
}

char *
sr_app_list_dup_name (SrAppList  *self,
                      const char *app_id)
{
  SrAppItem *item = g_hash_table_lookup (self->items, app_id);

  return g_strdup (item != NULL ? sr_app_item_get_name (item) : app_id);
}

/* A program that consults policyd as a person knows it (its desktop
 * file's Name), by its executable's file name; NULL when no desktop file
 * names it or the installed apps are not read yet ("listed" follows). */
char *
sr_app_list_dup_program_name (SrAppList  *self,
                              const char *executable)
{
  return self->programs != NULL ? g_strdup (g_hash_table_lookup (self->programs, executable))
                                : NULL;
}

gboolean sr_app_list_get_ready (SrAppList *self) { return self->apps_read && self->listed; }
gboolean sr_app_list_get_incomplete (SrAppList *self) { return self->incomplete; }
const GError *sr_app_list_get_error (SrAppList *self) { return self->error; }
guint sr_app_list_get_n_saved (SrAppList *self) { return self->n_saved; }
guint sr_app_list_get_n_expired (SrAppList *self) { return self->n_expired; }
guint sr_app_list_get_n_cleared (SrAppList *self) { return self->n_cleared; }
guint64 sr_app_list_get_bytes (SrAppList *self) { return self->bytes; }
