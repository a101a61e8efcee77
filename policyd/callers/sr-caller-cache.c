/* sr-caller-cache.c: the callers on the bus, each identified once
 *
 * A caller is identified once per connection (unique bus names are never
 * reused) and remembered until it leaves the bus, so that the hot path
 * costs a hash lookup, not a round trip to the bus.
 *
 * Callers are added and removed on the main thread; GDBus's worker thread
 * looks callers up too (sr_caller_cache_dup()), so the table is changed, and
 * read off the main thread, under a lock.
 *
 * It also notes when each connection appeared on the bus, which
 * sr_caller_identify() weighs against the start time of the process the
 * bus names (sr-caller.c says why).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-caller"

#include "config.h"

#include <time.h>

#include <gio/gunixfdlist.h>

#include "sr-caller-cache.h"
#include "sr-error.h"

/* Every name's arrival and departure, as GDBus would ask for them. */
#define NAME_OWNER_CHANGED_RULE \
  "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus'," \
  "member='NameOwnerChanged',path='/org/freedesktop/DBus'"
/* A time that could not be read (CLOCK_BOOTTIME failed). */
#define TIME_UNKNOWN G_GINT64_CONSTANT (-1)
/* Appearances.watching before the bus has confirmed the watch. */
#define NOT_YET_WATCHING G_MININT64

/* When unique names appeared on the bus. Shared with the message filter,
 * which runs on GDBus's worker thread and may outlive the cache briefly,
 * and with the round trip that confirms the watch: refcounted. */
typedef struct {
  GMutex lock;
  GHashTable *names;         /* unique name → gint64 CLOCK_BOOTTIME ns, or
                              * TIME_UNKNOWN */
  gint64 watching;           /* CLOCK_BOOTTIME ns by which the bus was known
                              * to send policyd every new name
                              * (NameOwnerChanged), TIME_UNKNOWN, or
                              * NOT_YET_WATCHING */
} Appearances;

struct _SrCallerCache {
  GObject parent_instance;

  GDBusConnection *bus;      /* (owned) */
  GMutex lock;               /* guards changes to callers, reads off the main thread */
  GHashTable *callers;       /* (owned) unique name → (owned) SrCaller */
  guint name_owner_changed_id;
  Appearances *appearances;  /* (owned) */
  guint filter_id;
  SrBusSockets *bus_sockets; /* (owned) (nullable): NULL where the kernel's
                              * socket table cannot be read */
  GHashTable *lookups;       /* (owned) sender → (owned) GPtrArray of the
                              * GTasks waiting for its identification: one
                              * question to the bus per connection, however
                              * many calls it sent before the answer */
};

G_DEFINE_FINAL_TYPE (SrCallerCache, sr_caller_cache, G_TYPE_OBJECT)

enum {
  SIGNAL_CALLER_LEFT,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

/* CLOCK_BOOTTIME in ns, or TIME_UNKNOWN, which every process is taken
 * to have started after. */
static gint64
boottime_ns (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_BOOTTIME, &ts) != 0)
    return TIME_UNKNOWN;
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* NameOwnerChanged's three names ("(sss)"), read by index rather than
 * through a format string parsed at each signal. Each stays valid while
 * @names does. */
static void
read_owner_change (GVariant    *names,
                   const char **name,
                   const char **old_owner,
                   const char **new_owner)
{
  const char **out[] = { name, old_owner, new_owner };

  for (gsize i = 0; i < G_N_ELEMENTS (out); i++)
    {
      g_autoptr(GVariant) child = g_variant_get_child_value (names, i);

      *out[i] = g_variant_get_string (child, NULL);
    }
}

static void
appearances_clear (Appearances *appearances)
{
  g_hash_table_unref (appearances->names);
  g_mutex_clear (&appearances->lock);
}

static void
appearances_unref (gpointer data)
{
  g_atomic_rc_box_release_full (data, (GDestroyNotify) appearances_clear);
}

/* On GDBus's worker thread, for every incoming message, in the order they
 * arrive: notes the time a unique name appears. The NameOwnerChanged
 * signal for a new name comes before any message from it, so the time is
 * noted before that name's first call is handled. */
static GDBusMessage *
note_appearances_filter (GDBusConnection *bus,
                         GDBusMessage    *message,
                         gboolean         incoming,
                         gpointer         user_data)
{
  Appearances *appearances = user_data;
  GVariant *body;
  const char *name, *old_owner, *new_owner;

  if (!incoming ||
      g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_SIGNAL ||
      g_strcmp0 (g_dbus_message_get_sender (message), "org.freedesktop.DBus") != 0 ||
      g_strcmp0 (g_dbus_message_get_member (message), "NameOwnerChanged") != 0 ||
      g_strcmp0 (g_dbus_message_get_interface (message), "org.freedesktop.DBus") != 0)
    return message;
  body = g_dbus_message_get_body (message);
  if (body == NULL || !g_variant_is_of_type (body, G_VARIANT_TYPE ("(sss)")))
    return message;

  read_owner_change (body, &name, &old_owner, &new_owner);
  if (name[0] == ':' && old_owner[0] == '\0' && new_owner[0] != '\0')
    {
      gint64 *when = g_new (gint64, 1);

      *when = boottime_ns ();
      g_mutex_lock (&appearances->lock);
      g_hash_table_replace (appearances->names, g_strdup (name), when);
      g_mutex_unlock (&appearances->lock);
    }
  return message;
}

/* A time by which @sender had appeared on the bus (CLOCK_BOOTTIME ns),
 * the earliest policyd knows, or TIME_UNKNOWN. Called once the bus has
 * answered a question about @sender, so that its NameOwnerChanged, if the
 * bus sent one, has been read. A name without one appeared before the bus
 * watched for policyd: by the time that watch was confirmed, or, before
 * that, by now. */
static gint64
appeared (SrCallerCache *self,
          const char    *sender)
{
  Appearances *appearances = self->appearances;
  gint64 *when;
  gint64 result;

  g_mutex_lock (&appearances->lock);
  when = g_hash_table_lookup (appearances->names, sender);
  result = when != NULL ? *when : appearances->watching;
  g_mutex_unlock (&appearances->lock);
  return result != NOT_YET_WATCHING ? result : boottime_ns ();
}

/* The bus's answer to the AddMatch: from then on, every name that
 * appears is noted by the filter. */
static void
on_watching_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Appearances *appearances = user_data;
  g_autoptr(GVariant) reply = NULL;
  gint64 now = boottime_ns ();

  /* Without an answer the watch is not confirmed: "now" stays the bound. */
  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, NULL);
  if (reply != NULL)
    {
      g_mutex_lock (&appearances->lock);
      appearances->watching = now;
      g_mutex_unlock (&appearances->lock);
    }
  appearances_unref (appearances);
}

static void
on_name_owner_changed_cb (GDBusConnection *bus,
                          const char      *sender_name,
                          const char      *object_path,
                          const char      *interface_name,
                          const char      *signal_name,
                          GVariant        *parameters,
                          gpointer         user_data)
{
  SrCallerCache *self = user_data;
  const char *name, *old_owner, *new_owner;

  read_owner_change (parameters, &name, &old_owner, &new_owner);
  if (name[0] == ':' && new_owner[0] == '\0')
    {
      g_autoptr(SrCaller) caller = NULL;
      g_autofree char *key = NULL;

      /* Stealing hands over the key too: it must be freed here. */
      g_mutex_lock (&self->lock);
      g_hash_table_steal_extended (self->callers, name, (gpointer *) &key, (gpointer *) &caller);
      g_mutex_unlock (&self->lock);
      g_mutex_lock (&self->appearances->lock);
      g_hash_table_remove (self->appearances->names, name);
      g_mutex_unlock (&self->appearances->lock);
      if (caller != NULL)
        g_signal_emit (self, signals[SIGNAL_CALLER_LEFT], 0, caller);
    }
}

static void
sr_caller_cache_finalize (GObject *object)
{
  SrCallerCache *self = SR_CALLER_CACHE (object);

  g_dbus_connection_signal_unsubscribe (self->bus, self->name_owner_changed_id);
  /* The rule is policyd's own (sr_caller_cache_new()), not GDBus's. */
  g_dbus_connection_call (self->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "RemoveMatch",
                          g_variant_new ("(s)", NAME_OWNER_CHANGED_RULE), NULL,
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
  /* The filter's data goes when GDBus is done with it. */
  g_dbus_connection_remove_filter (self->bus, self->filter_id);
  g_hash_table_unref (self->callers);
  g_hash_table_unref (self->lookups);
  g_mutex_clear (&self->lock);
  g_object_unref (self->bus);
  appearances_unref (self->appearances);
  g_clear_pointer (&self->bus_sockets, sr_bus_sockets_free);

  G_OBJECT_CLASS (sr_caller_cache_parent_class)->finalize (object);
}

static void
sr_caller_cache_class_init (SrCallerCacheClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sr_caller_cache_finalize;

  /**
   * SrCallerCache::caller-left:
   * @caller: (type gpointer): the SrCaller whose connection left the bus
   */
  signals[SIGNAL_CALLER_LEFT] =
    g_signal_new ("caller-left", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_POINTER);
}

static void
sr_caller_cache_init (SrCallerCache *self)
{
  g_mutex_init (&self->lock);
  self->callers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) sr_caller_unref);
  self->lookups = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify) g_ptr_array_unref);
}

/* The kernel's view of who holds a connection to @bus, or NULL. */
static SrBusSockets *
bus_sockets_for (GDBusConnection *bus)
{
  GIOStream *stream = g_dbus_connection_get_stream (bus);
  g_autoptr(GError) error = NULL;
  SrBusSockets *sockets = NULL;

  if (G_IS_SOCKET_CONNECTION (stream))
    sockets = sr_bus_sockets_new (g_socket_get_fd (g_socket_connection_get_socket (
                                    G_SOCKET_CONNECTION (stream))), &error);
  else
    g_set_error_literal (&error, SR_ERROR, SR_ERROR_FAILED,
                         "The connection to the bus is not a socket");
  if (sockets == NULL)
    g_warning ("Callers are identified without checking that they hold their connection "
               "to the bus: %s", error->message);
  return sockets;
}

SrCallerCache *
sr_caller_cache_new (GDBusConnection *bus)
{
  SrCallerCache *self = g_object_new (SR_TYPE_CALLER_CACHE, NULL);

  self->bus = g_object_ref (bus);
  self->bus_sockets = bus_sockets_for (bus);
  /* Names that appear from now on are noted as they appear; those that
   * appeared before get the time the bus confirms the watch. */
  self->appearances = g_atomic_rc_box_new0 (Appearances);
  g_mutex_init (&self->appearances->lock);
  self->appearances->names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->appearances->watching = NOT_YET_WATCHING;
  self->filter_id = g_dbus_connection_add_filter (bus, note_appearances_filter,
                                                  g_atomic_rc_box_acquire (self->appearances),
                                                  appearances_unref);
  /* The subscription's user data is unowned: it is removed in finalize,
   * and signals are delivered on this (the main) thread. Its match rule is
   * added here rather than by GDBus, which sends AddMatch expecting no
   * answer: the bus's answer to this one is what confirms the watch, with
   * no second round trip after it to learn that the rule was taken. */
  self->name_owner_changed_id =
    g_dbus_connection_signal_subscribe (bus, "org.freedesktop.DBus",
                                        "org.freedesktop.DBus", "NameOwnerChanged",
                                        "/org/freedesktop/DBus", NULL,
                                        G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE,
                                        on_name_owner_changed_cb, self, NULL);
  g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "AddMatch",
                          g_variant_new ("(s)", NAME_OWNER_CHANGED_RULE), G_VARIANT_TYPE_UNIT,
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, on_watching_cb,
                          g_atomic_rc_box_acquire (self->appearances));
  return self;
}

/* On any thread: the caller behind @sender, if it has been identified. */
SrCaller *
sr_caller_cache_dup (SrCallerCache *self,
                     const char    *sender)
{
  SrCaller *caller;

  g_mutex_lock (&self->lock);
  caller = g_hash_table_lookup (self->callers, sender);
  if (caller != NULL)
    sr_caller_ref (caller);
  g_mutex_unlock (&self->lock);
  return caller;
}

/* Every caller on the bus now: (element-type SrCaller) (transfer full). */
GPtrArray *
sr_caller_cache_dup_all (SrCallerCache *self)
{
  GPtrArray *all = g_ptr_array_new_with_free_func ((GDestroyNotify) sr_caller_unref);
  GHashTableIter iter;
  gpointer caller;

  g_mutex_lock (&self->lock);
  g_hash_table_iter_init (&iter, self->callers);
  while (g_hash_table_iter_next (&iter, NULL, &caller))
    g_ptr_array_add (all, sr_caller_ref (caller));
  g_mutex_unlock (&self->lock);
  return all;
}

typedef struct {
  SrCallerCache *cache;      /* (owned) */
  char *sender;              /* (owned) */
} Lookup;

static void
on_credentials_ready_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  Lookup *lookup = user_data;
  SrCallerCache *self = lookup->cache;
  g_autoptr(GPtrArray) waiting = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SrCaller) caller = NULL;

  reply = g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (source),
                                                           &fds, result, &error);
  if (reply == NULL)
    {
      g_autoptr(GError) bus_error = g_steal_pointer (&error);
      g_set_error (&error, SR_ERROR, SR_ERROR_NOT_ALLOWED,
                   "Could not identify the caller: %s", bus_error->message);
    }
  else
    {
      g_autoptr(GVariant) credentials = g_variant_get_child_value (reply, 0);
      caller = sr_caller_identify (credentials, fds, appeared (self, lookup->sender),
                                   self->bus_sockets, &error);
    }

  if (caller != NULL)
    {
      caller->sender = g_strdup (lookup->sender);
      g_mutex_lock (&self->lock);
      g_hash_table_replace (self->callers, g_strdup (lookup->sender), sr_caller_ref (caller));
      g_mutex_unlock (&self->lock);
    }

  g_hash_table_steal_extended (self->lookups, lookup->sender, NULL, (gpointer *) &waiting);
  for (guint i = 0; waiting != NULL && i < waiting->len; i++)
    {
      GTask *task = waiting->pdata[i];

      if (caller != NULL)
        g_task_return_pointer (task, sr_caller_ref (caller), (GDestroyNotify) sr_caller_unref);
      else
        g_task_return_error (task, g_error_copy (error));
    }

  /* The key was stolen with the array: it is the lookup's sender. */
  g_free (lookup->sender);
  g_object_unref (lookup->cache);
  g_free (lookup);
}

void
sr_caller_cache_lookup_async (SrCallerCache       *self,
                              const char          *sender,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);
  GPtrArray *waiting = g_hash_table_lookup (self->lookups, sender);
  Lookup *lookup;

  g_task_set_source_tag (task, sr_caller_cache_lookup_async);
  if (waiting != NULL)
    {
      g_ptr_array_add (waiting, task);
      return;
    }

  waiting = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (waiting, task);
  lookup = g_new0 (Lookup, 1);
  lookup->cache = g_object_ref (self);
  lookup->sender = g_strdup (sender);
  g_hash_table_insert (self->lookups, lookup->sender, waiting);

  g_dbus_connection_call_with_unix_fd_list (self->bus,
                                            "org.freedesktop.DBus",
                                            "/org/freedesktop/DBus",
                                            "org.freedesktop.DBus",
                                            "GetConnectionCredentials",
                                            g_variant_new ("(s)", sender),
                                            G_VARIANT_TYPE ("(a{sv})"),
                                            G_DBUS_CALL_FLAGS_NONE, -1,
                                            NULL, NULL,
                                            on_credentials_ready_cb, lookup);
}

/* Returns: (transfer full) the caller, or NULL with a NotAllowed error. */
SrCaller *
sr_caller_cache_lookup_finish (SrCallerCache  *self,
                               GAsyncResult   *result,
                               GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == sr_caller_cache_lookup_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
