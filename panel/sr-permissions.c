/* sr-permissions.c: what polkit will allow the panel, asked up front
 *
 * polkitd's answer for this process and each of policyd's actions, so
 * that the pages can show what polkit will refuse before anyone tries.
 * Without polkit, or before it answers, nothing is assumed refused:
 * policyd decides, and a refusal is reported then.
 *
 * polkitd is asked over D-Bus (CheckAuthorization, without interaction),
 * as policyd asks it (policyd/callers/sr-polkit.c), not through
 * libpolkit-gobject's PolkitPermission: the library and the six it links
 * were loaded and relocated before the window could start, and each
 * permission made its own calls on a thread of its own while GTK started.
 * What PolkitPermission followed is followed here: polkitd's Changed
 * signal (its rules or actions changed, an authorization was gained or
 * lost) and polkitd starting again, after which every action is asked
 * again.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <unistd.h>

#include "sr-bus.h"
#include "sr-permissions.h"
#include "sr-polkit-call.h"
#include "sr-process.h"

static const char * const actions[] = { SR_ACTION_CONFIGURE, SR_ACTION_CLEAR, SR_ACTION_LIST };

struct _SrPermissions {
  GObject parent_instance;

  GHashTable *refused;           /* (owned): the action ids (static) polkitd refuses outright */
  GDBusConnection *system_bus;   /* (owned) (nullable): once connected */
  GVariant *subject;             /* (owned): this process, as polkit names it */
  GCancellable *cancellable;     /* (owned) */
  guint generation;              /* answers to older questions are dropped */
  guint changed_id;
  guint owner_id;
};

G_DEFINE_FINAL_TYPE (SrPermissions, sr_permissions, G_TYPE_OBJECT)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

typedef struct {
  GWeakRef self;
  const char *action;   /* (static) */
  guint generation;
} Request;

static void
request_free (Request *request)
{
  g_weak_ref_clear (&request->self);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Request, request_free)

/* @refused: polkitd said no, and no authentication would make it yes.
 * Anything else (allowed, allowed once someone authenticates, no answer)
 * is not assumed refused. */
static void
set_refused (SrPermissions *self,
             const char    *action,
             gboolean       refused)
{
  gboolean changed = refused ? g_hash_table_add (self->refused, (gpointer) action)
                             : g_hash_table_remove (self->refused, action);

  if (changed)
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
on_check_ready_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  g_autoptr(SrPermissions) self = g_weak_ref_get (&request->self);
  gboolean authorized, challenge;

  if (self == NULL || request->generation != self->generation)
    return;
  if (reply == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Cannot ask polkit about %s: %s", request->action, error->message);
      set_refused (self, request->action, FALSE);
      return;
    }
  g_variant_get (reply, "((bb@a{ss}))", &authorized, &challenge, NULL);
  set_refused (self, request->action, !authorized && !challenge);
}

/* No answer stands: none is assumed. */
static void
forget_all (SrPermissions *self)
{
  self->generation++;
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    set_refused (self, actions[i], FALSE);
}

static void
check_all (SrPermissions *self)
{
  self->generation++;
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      Request *request = g_new0 (Request, 1);

      g_weak_ref_init (&request->self, self);
      request->action = actions[i];
      request->generation = self->generation;
      g_dbus_connection_call (self->system_bus, SR_POLKIT_NAME, SR_POLKIT_PATH, SR_POLKIT_INTERFACE,
                              "CheckAuthorization", sr_polkit_check_parameters (self->subject, actions[i], 0),
                              G_VARIANT_TYPE ("((bba{ss}))"), G_DBUS_CALL_FLAGS_NONE, -1,
                              self->cancellable, on_check_ready_cb, request);
    }
}

/* polkitd's Changed (its rules, actions or authorizations changed), or
 * polkitd starting again: its answers may differ. Gone, it answers
 * nothing, and nothing is assumed. */
static void
on_polkit_signal_cb (GDBusConnection *connection,
                     const char      *sender,
                     const char      *path,
                     const char      *interface,
                     const char      *signal,
                     GVariant        *parameters,
                     gpointer         user_data)
{
  SrPermissions *self = SR_PERMISSIONS (user_data);
  const char *new_owner = "";

  if (g_str_equal (signal, "NameOwnerChanged"))
    g_variant_get (parameters, "(&s&s&s)", NULL, NULL, &new_owner);
  if (g_str_equal (signal, "Changed") || new_owner[0] != '\0')
    check_all (self);
  else
    forget_all (self);
}

/* The system bus went away, and polkit with it. */
static void
on_system_bus_closed_cb (GDBusConnection *connection,
                         gboolean         remote_peer_vanished,
                         GError          *error,
                         SrPermissions   *self)
{
  forget_all (self);
}

static void
on_system_bus_ready_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  GDBusConnection *bus = g_dbus_connection_new_for_address_finish (result, &error);
  SrPermissions *self;

  if (bus == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Cannot reach polkit: %s", error->message);
      return;
    }
  self = SR_PERMISSIONS (user_data);
  self->system_bus = bus;
  self->changed_id = g_dbus_connection_signal_subscribe (bus, SR_POLKIT_NAME, SR_POLKIT_INTERFACE, "Changed",
                                                         SR_POLKIT_PATH, NULL, G_DBUS_SIGNAL_FLAGS_NONE,
                                                         on_polkit_signal_cb, self, NULL);
  self->owner_id = g_dbus_connection_signal_subscribe (bus, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                                       "NameOwnerChanged", "/org/freedesktop/DBus",
                                                       SR_POLKIT_NAME, G_DBUS_SIGNAL_FLAGS_NONE,
                                                       on_polkit_signal_cb, self, NULL);
  g_signal_connect_object (bus, "closed", G_CALLBACK (on_system_bus_closed_cb), self, 0);
  check_all (self);
}

static void
sr_permissions_dispose (GObject *object)
{
  SrPermissions *self = SR_PERMISSIONS (object);

  g_cancellable_cancel (self->cancellable);
  if (self->system_bus != NULL)
    {
      g_dbus_connection_signal_unsubscribe (self->system_bus, self->changed_id);
      g_dbus_connection_signal_unsubscribe (self->system_bus, self->owner_id);
      g_dbus_connection_close (self->system_bus, NULL, NULL, NULL);
      g_clear_object (&self->system_bus);
    }
  G_OBJECT_CLASS (sr_permissions_parent_class)->dispose (object);
}

static void
sr_permissions_finalize (GObject *object)
{
  SrPermissions *self = SR_PERMISSIONS (object);

  g_clear_pointer (&self->refused, g_hash_table_unref);
  g_clear_pointer (&self->subject, g_variant_unref);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (sr_permissions_parent_class)->finalize (object);
}

static void
sr_permissions_class_init (SrPermissionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sr_permissions_dispose;
  object_class->finalize = sr_permissions_finalize;

  /* An answer came in, or changed. */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sr_permissions_init (SrPermissions *self)
{
  g_autoptr(GError) error = NULL;
  guint64 start_time = 0;

  self->cancellable = g_cancellable_new ();
  self->refused = g_hash_table_new (g_str_hash, g_str_equal);

  if (!sr_process_read_start_time ((guint32) getpid (), &start_time, &error))
    g_message ("Cannot read this process's start time: %s", error->message);
  g_clear_error (&error);
  self->subject = g_variant_ref_sink (sr_polkit_unix_process ((guint32) getpid (), start_time,
                                                              (guint32) getuid ()));

  if (!sr_polkit_connect_async (self->cancellable, on_system_bus_ready_cb, self, &error))
    g_message ("Cannot reach polkit: %s", error->message);
}

SrPermissions *
sr_permissions_new (void)
{
  return g_object_new (SR_TYPE_PERMISSIONS, NULL);
}

/* Whether polkit will refuse @action outright: not allowed, and no way
 * to authenticate for it. */
gboolean
sr_permissions_is_refused (SrPermissions *self,
                           const char    *action)
{
  return g_hash_table_contains (self->refused, action);
}
