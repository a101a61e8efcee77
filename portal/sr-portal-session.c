/* sr-portal-session.c: org.freedesktop.impl.portal.Session at every handle
 *
 * The frontend reads the session object's "version" before it calls
 * Register (a GetAll when it makes its proxy): a backend whose object
 * appears only inside Register looks like version 0 and only ever gets
 * Close(), which does not say whether the app crashed. So version 2 is
 * served at every path below /org/freedesktop/portal/desktop/session/,
 * registered or not, from before Register.
 *
 * Handles are …/session/SENDER/TOKEN, two levels below the prefix, and a
 * GDBus subtree dispatches only to its direct children: a message filter
 * registers a subtree (with G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES)
 * for each SENDER the first time a message for it arrives while it has a
 * session, or a close for it at any time, before GDBus dispatches that
 * message (anything else to a SENDER with no session, as to a made-up
 * path, the filter answers itself, leaving nothing registered that no
 * close would take away); the last session of a SENDER to go (closed and
 * answered, in either order; a Close before its Register, once that
 * Register is answered or refused) takes it away again, as its count in
 * SrPortal.sender_sessions drops to none: no look through every app's
 * sessions at each close.
 *
 * Close and Close2 are answered at once (the frontend blocks a thread on
 * them), may come before Register has been answered, and leave the path
 * free for a new Register.
 *
 * The filter also registers the SaveRestore object itself, on the first
 * message the connection sends or receives (the RequestName of the
 * backend's name, at the latest), so that its other calls too are
 * dispatched on the worker thread; it takes Register itself as it
 * arrives (sr-portal-register.c), answers the session's "version"
 * (answer_version()), and takes policyd's StoredStateCleared, in the
 * order policyd sent it and its answers (sr-portal-policy.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-session"

#include "config.h"

#include "sr-portal.h"
#include "sr-vardict.h"

#define SESSION_VERSION 2
/* Handles closed before their Register arrived, remembered so that the
 * late Register finds its session closed; their senders have left the
 * bus, so these paths cannot come back. Past this many the oldest is
 * forgotten (add_tombstone()). */
#define MAX_TOMBSTONES 1024

static gboolean is_close (GDBusMessage *message);

static char *
sender_path (const char *path)
{
  const char *rest, *slash;

  if (!g_str_has_prefix (path, SR_PORTAL_SESSION_PREFIX))
    return NULL;
  rest = path + strlen (SR_PORTAL_SESSION_PREFIX);
  slash = strchr (rest, '/');
  if (slash == NULL || slash == rest || strchr (slash + 1, '/') != NULL || slash[1] == '\0')
    return NULL;
  return g_strndup (path, slash - path);
}

void
sr_portal_session_free (SrPortalSession *session)
{
  g_free (session->handle);
  g_free (session->frontend);
  g_free (session->app_id);
  g_free (session->instance_id);
  g_clear_pointer (&session->asked_discard, g_hash_table_unref);
  g_free (session);
}

/* One session more (@more) or one fewer under @key in @counts. */
static void
count_change (GHashTable *counts,
              const char *key,
              gboolean    more)
{
  gpointer stored = NULL, value = NULL;
  guint n;

  /* A key is there only with a count above none. */
  if (!g_hash_table_steal_extended (counts, key, &stored, &value))
    {
      g_return_if_fail (more);
      stored = g_strdup (key);
    }
  n = GPOINTER_TO_UINT (value);
  n = more ? n + 1 : n - 1;
  if (n == 0)
    g_free (stored);
  else
    g_hash_table_insert (counts, stored, GUINT_TO_POINTER (n));
}

/* @session comes into self->sessions (@more) or leaves it: its app's and
 * its sender's counts follow. */
/* What a session counts under for its app's bound: its app id, or for an
 * app the frontend could not identify, its sender's path (no app id holds
 * a '/'), so that one such app cannot use up the bound of all the others. */
char *
sr_portal_session_bound_key (const char *handle,
                             const char *app_id)
{
  char *parent;

  if (*app_id != '\0' || (parent = sender_path (handle)) == NULL)
    return g_strdup (app_id);
  return parent;
}

static void
count_session (SrPortal        *self,
               SrPortalSession *session,
               gboolean         more)
{
  g_autofree char *parent = sender_path (session->handle);
  g_autofree char *key = sr_portal_session_bound_key (session->handle, session->app_id);

  count_change (self->app_sessions, key, more);
  /* Its refusals are said again once it has closed them all: each entry
   * of the table stands for an app holding sessions. */
  if (!more && sr_portal_app_sessions (self, key) == 0)
    g_hash_table_remove (self->apps_at_bound, key);
  if (parent != NULL)
    count_change (self->sender_sessions, parent, more);
}

/* How many sessions @app_id holds, open or waiting for Register's answer. */
guint
sr_portal_app_sessions (SrPortal   *self,
                        const char *app_id)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (self->app_sessions, app_id));
}

SrPortalSession *
sr_portal_session_new (SrPortal   *self,
                       const char *handle,
                       const char *frontend,
                       const char *app_id)
{
  SrPortalSession *session = g_new0 (SrPortalSession, 1);
  SrPortalSession *old = g_hash_table_lookup (self->sessions, handle);

  session->handle = g_strdup (handle);
  session->frontend = g_strdup (frontend);
  session->app_id = g_strdup (app_id);
  session->asked_discard = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  /* A path is reused after Close: a new session replaces the closed one.
   * Counted in before the old is counted out, so that the app's count
   * does not touch none on the way (apps_at_bound). */
  count_session (self, session, TRUE);
  if (old != NULL)
    count_session (self, old, FALSE);
  g_hash_table_replace (self->sessions, session->handle, session);
  return session;
}

static void
drop_sender_subtree (SrPortal   *self,
                     const char *handle)
{
  g_autofree char *parent = sender_path (handle);
  gpointer id;

  if (parent == NULL || g_hash_table_contains (self->sender_sessions, parent))
    return;

  g_mutex_lock (&self->subtree_lock);
  if (g_hash_table_lookup_extended (self->subtrees, parent, NULL, &id))
    {
      g_dbus_connection_unregister_subtree (self->bus, GPOINTER_TO_UINT (id));
      g_hash_table_remove (self->subtrees, parent);
    }
  g_mutex_unlock (&self->subtree_lock);
}

/* @session leaves the table; its sender's subtree goes with the last of
 * its sessions. */
void
sr_portal_session_remove (SrPortal        *self,
                          SrPortalSession *session)
{
  g_autofree char *handle = g_strdup (session->handle);

  count_session (self, session, FALSE);
  g_hash_table_remove (self->sessions, handle);
  drop_sender_subtree (self, handle);
  /* The bound of all sessions is said again once well below it. */
  if (self->sessions_at_bound && g_hash_table_size (self->sessions) < SR_PORTAL_MAX_SESSIONS / 2)
    self->sessions_at_bound = FALSE;
}

/* A Register of @handle was refused, and no session made: a Close that
 * came before it (close_handle()) has nothing more to wait for, and the
 * sender's subtree goes if nothing else of it is open. */
void
sr_portal_session_refused (SrPortal   *self,
                           const char *handle)
{
  g_hash_table_remove (self->tombstones, handle);
  drop_sender_subtree (self, handle);
}

/* What became of @instance of @app, whose session closed as @kind while
 * the desktop session ran. */
void
sr_portal_instance_closed (SrApp       *app,
                           SrInstance  *instance,
                           SrCloseKind  kind)
{
  gint64 now = g_get_real_time ();

  instance->at_session_end = FALSE;
  instance->closed_ending = 0;
  switch (kind)
    {
    case SR_CLOSE_VOLUNTARY:
      {
        /* Its id goes to the app's next launch; the one kept for that
         * until now stays, for a second instance launched beside it
         * (two windows closed, two reopened), as long as the record has
         * room for it. */
        char *older = g_steal_pointer (&app->next_id);
        gint64 older_at = app->next_saved_at;

        app->next_id = g_strdup (instance->id);
        app->next_saved_at = now;
        sr_portal_app_remove_instance (app, instance);
        if (older != NULL && sr_portal_app_make_room (app))
          {
            SrInstance *kept = sr_portal_app_add_instance (app, older);
            kept->saved_at = older_at;
            kept->kept = TRUE;
          }
        else if (older != NULL)
          {
            sr_portal_app_discard (app, older);
            g_free (older);
          }
      }
      break;
    case SR_CLOSE_INVOLUNTARY:
      instance->crashed = TRUE;
      instance->saved_at = now;
      break;
    case SR_CLOSE_UNKNOWN:
    default:
      instance->saved_at = now;
      break;
    }
}

/* What the record learns from a close. */
void
sr_portal_session_close (SrPortal        *self,
                         SrPortalSession *session,
                         SrCloseKind      kind)
{
  SrApp *app = NULL;
  SrInstance *instance = NULL;
  gboolean counted = *session->app_id != '\0' && !session->cleared;

  if (session->closed)
    return;
  session->closed = TRUE;
  if (counted && session->instance_id != NULL)
    {
      app = g_hash_table_lookup (self->apps, session->app_id);
      instance = app != NULL ? sr_portal_app_find_instance (app, session->instance_id) : NULL;
    }
  if (instance != NULL && instance->live == session)
    instance->live = NULL;

  /* Apps leaving while the session ends are neither crashes nor
   * voluntary: the record keeps them as open at the end. */
  if (counted && !self->ending && kind != SR_CLOSE_UNKNOWN)
    sr_portal_policy_note_exit (self->policy, session->app_id, kind == SR_CLOSE_VOLUNTARY);

  if (instance != NULL && self->ending)
    {
      /* Taken back if the ending is called off (sr-portal-end.c). */
      instance->at_session_end = TRUE;
      instance->closed_ending = kind + 1;
    }
  else if (instance != NULL)
    sr_portal_instance_closed (app, instance, kind);
  if (instance != NULL)
    sr_portal_record_save (self);
}

/* Remembers @handle as closed before its Register. Not every one sees
 * a Register, and a sandboxed app makes such closes as it likes (each
 * Register of its refused past its bound, then the frontend's Close2 of
 * it). So once full, the oldest is forgotten, whose Register has had a
 * thousand closes' time to come, rather than every new one: the next app
 * to leave as it registered was taken for running for good. */
static void
add_tombstone (SrPortal   *self,
               const char *handle)
{
  if (g_hash_table_size (self->tombstones) >= MAX_TOMBSTONES &&
      !g_hash_table_contains (self->tombstones, handle))
    {
      GHashTableIter iter;
      gpointer key, value, oldest = NULL;
      gsize oldest_order = G_MAXSIZE;
      g_autofree char *forgotten = NULL;

      g_hash_table_iter_init (&iter, self->tombstones);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (GPOINTER_TO_SIZE (value) < oldest_order)
          {
            oldest = key;
            oldest_order = GPOINTER_TO_SIZE (value);
          }
      g_hash_table_steal_extended (self->tombstones, oldest, (gpointer *) &forgotten, NULL);
      drop_sender_subtree (self, forgotten);
    }
  g_hash_table_insert (self->tombstones, g_strdup (handle),
                       GSIZE_TO_POINTER (++self->tombstone_order));
}

static void
close_handle (SrPortal    *self,
              const char  *sender,
              const char  *handle,
              SrCloseKind  kind)
{
  SrPortalSession *session = g_hash_table_lookup (self->sessions, handle);

  if (session == NULL)
    {
      /* Before its Register: that Register will find it closed. A
       * voluntary close needs the handle Register returns, so it cannot
       * come first. */
      if (kind != SR_CLOSE_VOLUNTARY)
        add_tombstone (self, handle);
      /* Nothing more to serve there, but for the sender's other Close
       * calls that came before their Register too: its subtree goes
       * once that Register is answered, or now if no Register will
       * find this one. */
      else
        drop_sender_subtree (self, handle);
      return;
    }
  /* Only the frontend that registered it closes it. */
  if (g_strcmp0 (session->frontend, sender) != 0)
    return;
  sr_portal_session_close (self, session, kind);
  /* Register's reply still needs it; it goes once answered. */
  if (session->answered)
    sr_portal_session_remove (self, session);
}

/* Close: the old close, which does not say how the app ended; Close2
 * says it with "voluntary". */
static SrCloseKind
close_kind (const char *method,
            GVariant   *parameters)
{
  g_autoptr(GVariant) options = NULL;
  g_autoptr(GVariant) voluntary = NULL;

  if (!g_str_equal (method, "Close2"))
    return SR_CLOSE_UNKNOWN;
  options = g_variant_get_child_value (parameters, 0);
  voluntary = g_variant_lookup_value (options, "voluntary", G_VARIANT_TYPE_BOOLEAN);
  return voluntary != NULL && g_variant_get_boolean (voluntary) ? SR_CLOSE_VOLUNTARY
                                                                : SR_CLOSE_INVOLUNTARY;
}

/* On GDBus's worker thread: the subtrees are registered from the filter,
 * which runs there, and GDBus dispatches to the context they were
 * registered in. The reply goes first, then the close is recorded, under
 * SrPortal.lock (sr-portal.h), in the order the calls came. */
static void
method_call (GDBusConnection       *connection,
             const char            *sender,
             const char            *path,
             const char            *interface,
             const char            *method,
             GVariant              *parameters,
             GDBusMethodInvocation *invocation,
             gpointer               user_data)
{
  SrPortal *self = user_data;
  g_autoptr(GRecMutexLocker) locker G_GNUC_UNUSED = NULL;

  if (!g_str_equal (method, "Close2") && !g_str_equal (method, "Close"))
    {
      g_dbus_method_invocation_return_error (invocation, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD,
                                             "No method %s", method);
      return;
    }
  g_dbus_method_invocation_return_value (invocation, NULL);
  locker = g_rec_mutex_locker_new (&self->lock);
  if (!self->closing)
    close_handle (self, sender, path, close_kind (method, parameters));
}

/* A Close or Close2 held while its frontend was verified
 * (sr-portal-frontend.c), answered and recorded now, in the main loop. */
gboolean
sr_portal_session_take_close (SrPortal        *self,
                              GDBusConnection *connection,
                              GDBusMessage    *message)
{
  g_autoptr(GRecMutexLocker) locker G_GNUC_UNUSED = g_rec_mutex_locker_new (&self->lock);
  g_autoptr(GDBusMessage) reply = NULL;
  g_autofree char *parent = NULL;
  const char *path = g_dbus_message_get_path (message);

  if (!is_close (message) || path == NULL || (parent = sender_path (path)) == NULL)
    return FALSE;
  if (!(g_dbus_message_get_flags (message) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED))
    {
      reply = g_dbus_message_new_method_reply (message);
      g_dbus_connection_send_message (connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
    }
  if (!self->closing)
    close_handle (self, g_dbus_message_get_sender (message), path,
                  close_kind (g_dbus_message_get_member (message),
                              g_dbus_message_get_body (message)));
  return TRUE;
}

/* The frontend @frontend left the bus: none of its sessions will get a
 * Close2. Closed as Close closes them, without a crash or a clean exit
 * counted: the app may well run on. */
void
sr_portal_sessions_of_frontend_close (SrPortal   *self,
                                      const char *frontend)
{
  g_autoptr(GPtrArray) gone = g_ptr_array_new ();
  GHashTableIter iter;
  SrPortalSession *session;
  guint closed = 0;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    if (session->door == SR_DOOR_PORTAL && g_strcmp0 (session->frontend, frontend) == 0)
      g_ptr_array_add (gone, session);
  for (guint i = 0; i < gone->len; i++)
    {
      session = gone->pdata[i];
      closed += !session->closed;
      sr_portal_session_close (self, session, SR_CLOSE_UNKNOWN);
      if (session->answered)
        sr_portal_session_remove (self, session);
    }
  if (closed > 0)
    g_message ("Closed the %u sessions of the portal frontend that left", closed);
  /* A session end waiting for their SaveHintResponse waits no more. */
  sr_portal_save_hint_response (self, NULL);
}

/* SaveHint or Quit for @session, to its frontend alone, which passes it
 * on to the app of that handle. */
void
sr_portal_send_to_session (SrPortal        *self,
                           SrPortalSession *session,
                           const char      *signal)
{
  g_dbus_connection_emit_signal (self->bus, session->frontend, SR_PORTAL_OBJECT_PATH,
                                 "org.freedesktop.impl.portal.SaveRestore", signal,
                                 g_variant_new ("(o)", session->handle), NULL);
}

static GVariant *
get_property (GDBusConnection  *connection,
              const char       *sender,
              const char       *path,
              const char       *interface,
              const char       *property,
              GError          **error,
              gpointer          user_data)
{
  return g_variant_new_uint32 (SESSION_VERSION);
}

static const GDBusInterfaceVTable session_vtable = {
  .method_call = method_call,
  .get_property = get_property,
};

static char **
subtree_enumerate (GDBusConnection *connection,
                   const char      *sender,
                   const char      *path,
                   gpointer         user_data)
{
  return g_new0 (char *, 1);
}

static GDBusInterfaceInfo **
subtree_introspect (GDBusConnection *connection,
                    const char      *sender,
                    const char      *path,
                    const char      *node,
                    gpointer         user_data)
{
  GDBusInterfaceInfo **infos;

  if (node == NULL)
    return NULL;
  infos = g_new0 (GDBusInterfaceInfo *, 2);
  infos[0] = g_dbus_interface_info_ref ((GDBusInterfaceInfo *) &sr_impl_session_interface);
  return infos;
}

static const GDBusInterfaceVTable *
subtree_dispatch (GDBusConnection *connection,
                  const char      *sender,
                  const char      *path,
                  const char      *interface,
                  const char      *node,
                  gpointer        *out_user_data,
                  gpointer         user_data)
{
  *out_user_data = user_data;
  return &session_vtable;
}

static const GDBusSubtreeVTable subtree_vtable = {
  .enumerate = subtree_enumerate,
  .introspect = subtree_introspect,
  .dispatch = subtree_dispatch,
};

/* The SaveRestore object, from the worker thread (the filter): GDBus
 * dispatches its calls there. Called with subtree_lock held. */
static void
register_save_restore (SrPortal        *self,
                       GDBusConnection *connection)
{
  g_autoptr(GError) error = NULL;

  self->save_restore_id = g_dbus_connection_register_object (connection, SR_PORTAL_OBJECT_PATH,
                                                             (GDBusInterfaceInfo *) &sr_impl_save_restore_interface,
                                                             &sr_portal_register_vtable, self, NULL,
                                                             &error);
  if (self->save_restore_id == 0)
    g_error ("Could not serve %s: %s", SR_PORTAL_OBJECT_PATH, error->message);
}

/* The frontend reads "version" before every Register: answered as the
 * message arrives, as GDBus would from the subtree's description and
 * get_property(), without the trip through its dispatch, which is on the
 * path of every Register. Anything else (Set, another interface or
 * property) goes on to GDBus, and its error. */
static gboolean
answer_version (GDBusConnection *connection,
                GDBusMessage    *call)
{
  GVariant *args = g_dbus_message_get_body (call);
  const char *member = g_dbus_message_get_member (call);
  g_autoptr(GVariant) iface_v = NULL;
  g_autoptr(GVariant) property_v = NULL;
  const char *property = NULL;
  g_autoptr(GDBusMessage) reply = NULL;
  GVariant *version, *body;

  if (g_strcmp0 (g_dbus_message_get_interface (call), "org.freedesktop.DBus.Properties") != 0 ||
      args == NULL)
    return FALSE;
  /* The arguments by index, the answer built directly: no format string
   * parsed on the way to every Register. */
  if (g_strcmp0 (member, "GetAll") == 0 && g_variant_is_of_type (args, G_VARIANT_TYPE ("(s)")))
    iface_v = g_variant_get_child_value (args, 0);
  else if (g_strcmp0 (member, "Get") == 0 && g_variant_is_of_type (args, G_VARIANT_TYPE ("(ss)")))
    {
      iface_v = g_variant_get_child_value (args, 0);
      property_v = g_variant_get_child_value (args, 1);
      property = g_variant_get_string (property_v, NULL);
    }
  if (iface_v == NULL || !g_str_equal (g_variant_get_string (iface_v, NULL),
                                       sr_impl_session_interface.name) ||
      (property != NULL && !g_str_equal (property, "version")))
    return FALSE;

  if (g_dbus_message_get_flags (call) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
    return TRUE;
  version = g_variant_new_uint32 (SESSION_VERSION);
  reply = g_dbus_message_new_method_reply (call);
  if (property != NULL)
    body = g_variant_new_variant (version);
  else
    {
      body = sr_vardict_entry ("version", version);
      body = g_variant_new_array (NULL, &body, 1);
    }
  g_dbus_message_set_body (reply, g_variant_new_tuple (&body, 1));
  g_dbus_connection_send_message (connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
  return TRUE;
}

/* What a session's path is introspected as: the Session interface
 * beside the standard three, as GDBus describes a subtree's node. */
static const char *
session_introspection (void)
{
  static gsize xml = 0;

  if (g_once_init_enter (&xml))
    {
      GString *s = g_string_new (
        "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
        "                      \"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n"
        "<node>\n"
        "  <interface name=\"org.freedesktop.DBus.Properties\">\n"
        "    <method name=\"Get\">\n"
        "      <arg type=\"s\" name=\"interface_name\" direction=\"in\"/>\n"
        "      <arg type=\"s\" name=\"property_name\" direction=\"in\"/>\n"
        "      <arg type=\"v\" name=\"value\" direction=\"out\"/>\n"
        "    </method>\n"
        "    <method name=\"GetAll\">\n"
        "      <arg type=\"s\" name=\"interface_name\" direction=\"in\"/>\n"
        "      <arg type=\"a{sv}\" name=\"properties\" direction=\"out\"/>\n"
        "    </method>\n"
        "    <method name=\"Set\">\n"
        "      <arg type=\"s\" name=\"interface_name\" direction=\"in\"/>\n"
        "      <arg type=\"s\" name=\"property_name\" direction=\"in\"/>\n"
        "      <arg type=\"v\" name=\"value\" direction=\"in\"/>\n"
        "    </method>\n"
        "    <signal name=\"PropertiesChanged\">\n"
        "      <arg type=\"s\" name=\"interface_name\"/>\n"
        "      <arg type=\"a{sv}\" name=\"changed_properties\"/>\n"
        "      <arg type=\"as\" name=\"invalidated_properties\"/>\n"
        "    </signal>\n"
        "  </interface>\n"
        "  <interface name=\"org.freedesktop.DBus.Introspectable\">\n"
        "    <method name=\"Introspect\">\n"
        "      <arg type=\"s\" name=\"xml_data\" direction=\"out\"/>\n"
        "    </method>\n"
        "  </interface>\n"
        "  <interface name=\"org.freedesktop.DBus.Peer\">\n"
        "    <method name=\"Ping\"/>\n"
        "    <method name=\"GetMachineId\">\n"
        "      <arg type=\"s\" name=\"machine_uuid\" direction=\"out\"/>\n"
        "    </method>\n"
        "  </interface>\n");

      g_dbus_interface_info_generate_xml ((GDBusInterfaceInfo *) &sr_impl_session_interface, 2, s);
      g_string_append (s, "</node>\n");
      g_once_init_leave (&xml, (gsize) g_string_free (s, FALSE));
    }
  return (const char *) xml;
}

/* A Close or Close2 that GDBus dispatches to method_call() (the
 * interface named, the arguments right): it closes a session or leaves a
 * tombstone, and the subtree goes with the last of either below its
 * sender. */
static gboolean
is_close (GDBusMessage *message)
{
  const char *member = g_dbus_message_get_member (message);
  GVariant *body = g_dbus_message_get_body (message);

  if (g_strcmp0 (g_dbus_message_get_interface (message), sr_impl_session_interface.name) != 0)
    return FALSE;
  if (g_strcmp0 (member, "Close") == 0)
    return body == NULL;
  return g_strcmp0 (member, "Close2") == 0 && body != NULL &&
         g_variant_is_of_type (body, G_VARIANT_TYPE ("(a{sv})"));
}

static gboolean
has_signature (GDBusMessage *message,
               const char   *member,
               const char   *type)
{
  GVariant *body = g_dbus_message_get_body (message);

  return g_strcmp0 (g_dbus_message_get_member (message), member) == 0 && body != NULL &&
         g_variant_is_of_type (body, G_VARIANT_TYPE (type));
}

/* Anything but a close (is_close()) to a path of a sender with no
 * session: answered here as GDBus answers it at a session's path, so that
 * no subtree is registered for it, which would stay for good (the last
 * session or tombstone below a sender takes its subtree away). FALSE for
 * what GDBus answers at any path (Peer). */
static gboolean
answer_unserved (GDBusConnection *connection,
                 GDBusMessage    *call)
{
  const char *interface = g_dbus_message_get_interface (call);
  const char *member = g_dbus_message_get_member (call);
  g_autoptr(GDBusMessage) reply = NULL;

  if (g_strcmp0 (interface, "org.freedesktop.DBus.Peer") == 0)
    return FALSE;
  if (g_dbus_message_get_flags (call) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
    return TRUE;
  if (g_strcmp0 (interface, "org.freedesktop.DBus.Introspectable") == 0 &&
      g_strcmp0 (member, "Introspect") == 0 && g_dbus_message_get_body (call) == NULL)
    {
      reply = g_dbus_message_new_method_reply (call);
      g_dbus_message_set_body (reply, g_variant_new ("(s)", session_introspection ()));
    }
  /* Its one property, "version", is answered by answer_version(). */
  else if (g_strcmp0 (interface, "org.freedesktop.DBus.Properties") == 0 &&
           has_signature (call, "Set", "(ssv)"))
    reply = g_dbus_message_new_method_error (call, "org.freedesktop.DBus.Error.InvalidArgs",
                                             "The session's properties cannot be set");
  else if (g_strcmp0 (interface, "org.freedesktop.DBus.Properties") == 0 &&
           (has_signature (call, "Get", "(ss)") || has_signature (call, "GetAll", "(s)")))
    reply = g_dbus_message_new_method_error (call, "org.freedesktop.DBus.Error.InvalidArgs",
                                             "No such interface or property");
  else if (g_strcmp0 (interface, sr_impl_session_interface.name) == 0 &&
           (g_strcmp0 (member, "Close") == 0 || g_strcmp0 (member, "Close2") == 0))
    reply = g_dbus_message_new_method_error (call, "org.freedesktop.DBus.Error.InvalidArgs",
                                             "Wrong arguments for %s", member);
  else
    reply = g_dbus_message_new_method_error (call, "org.freedesktop.DBus.Error.UnknownMethod",
                                             "No such method %s", member);
  g_dbus_connection_send_message (connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
  return TRUE;
}

/* What only the frontend may call (sr-portal-frontend.c), whatever the
 * interface it names, or none: the apps' confirmations, and the closes. */
static gboolean
is_confirmation (GDBusMessage *message)
{
  const char *member = g_dbus_message_get_member (message);

  return g_strcmp0 (member, "DiscardedInstanceIds") == 0 ||
         g_strcmp0 (member, "SaveHintResponse") == 0;
}

static gboolean
is_session_close (GDBusMessage *message)
{
  const char *member = g_dbus_message_get_member (message);

  return g_strcmp0 (member, "Close") == 0 || g_strcmp0 (member, "Close2") == 0;
}

/* With subtree_lock held. */
static void
serve_sender (SrPortal        *self,
              GDBusConnection *connection,
              char           **parent)
{
  g_autoptr(GError) error = NULL;
  guint id = g_dbus_connection_register_subtree (connection, *parent, &subtree_vtable,
                                                 G_DBUS_SUBTREE_FLAGS_DISPATCH_TO_UNENUMERATED_NODES,
                                                 self, NULL, &error);

  if (id == 0)
    g_warning ("Could not serve sessions under %s: %s", *parent, error->message);
  else
    g_hash_table_insert (self->subtrees, g_steal_pointer (parent), GUINT_TO_POINTER (id));
}

/* In GDBus's worker thread, before the message is dispatched; so are the
 * subtrees' calls (method_call). */
static GDBusMessage *
filter (GDBusConnection *connection,
        GDBusMessage    *message,
        gboolean         incoming,
        gpointer         user_data)
{
  SrPortal *self = user_data;
  const char *path;
  g_autofree char *parent = NULL;
  g_autoptr(GRecMutexLocker) locker G_GNUC_UNUSED = NULL;
  gboolean served;

  g_mutex_lock (&self->subtree_lock);
  if (self->save_restore_id == 0 && self->serving)
    register_save_restore (self, connection);
  g_mutex_unlock (&self->subtree_lock);
  if (incoming)
    sr_portal_frontend_hear (self, message);
  if (incoming && sr_portal_policy_looks_cleared (message))
    {
      locker = g_rec_mutex_locker_new (&self->lock);
      if (!self->closing)
        sr_portal_policy_take_cleared (self->policy, message);
      return message;
    }
  if (!incoming || g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    return message;
  if (sr_portal_register_is_call (message))
    {
      if (sr_portal_frontend_admit (self, connection, message, TRUE) == SR_FRONTEND_ADMIT)
        sr_portal_register_take (self, connection, message);
      g_object_unref (message);
      return NULL;
    }
  path = g_dbus_message_get_path (message);
  if (g_strcmp0 (path, SR_PORTAL_OBJECT_PATH) == 0 && is_confirmation (message) &&
      sr_portal_frontend_admit (self, connection, message, FALSE) != SR_FRONTEND_ADMIT)
    {
      g_object_unref (message);
      return NULL;
    }
  if (path == NULL || (parent = sender_path (path)) == NULL)
    return message;
  if (answer_version (connection, message))
    {
      g_object_unref (message);
      return NULL;
    }
  if (is_session_close (message) &&
      sr_portal_frontend_admit (self, connection, message, TRUE) != SR_FRONTEND_ADMIT)
    {
      g_object_unref (message);
      return NULL;
    }

  /* A close, and anything to a sender served already, as before: under
   * subtree_lock alone, which nothing holds for long; SrPortal.lock only
   * for what needs the sender's sessions. */
  g_mutex_lock (&self->subtree_lock);
  served = !self->serving || g_hash_table_contains (self->subtrees, parent);
  if (!served && is_close (message))
    {
      serve_sender (self, connection, &parent);
      served = TRUE;
    }
  g_mutex_unlock (&self->subtree_lock);
  if (served)
    return message;

  /* Anything else is served where the sender has a session. SrPortal.lock
   * first, as drop_sender_subtree() takes them: a session removed
   * meanwhile finds the subtree registered, and takes it away. */
  locker = g_rec_mutex_locker_new (&self->lock);
  g_mutex_lock (&self->subtree_lock);
  served = !self->serving || g_hash_table_contains (self->subtrees, parent);
  if (!served && g_hash_table_contains (self->sender_sessions, parent))
    {
      serve_sender (self, connection, &parent);
      served = TRUE;
    }
  g_mutex_unlock (&self->subtree_lock);
  if (served || !answer_unserved (connection, message))
    return message;
  g_object_unref (message);
  return NULL;
}

gboolean
sr_portal_sessions_export (SrPortal  *self,
                           GError   **error)
{
  self->subtrees = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->serving = TRUE;
  self->filter_id = g_dbus_connection_add_filter (self->bus, filter, self, NULL);
  return TRUE;
}

void
sr_portal_sessions_unexport (SrPortal *self)
{
  GHashTableIter iter;
  gpointer id;

  if (self->filter_id != 0)
    g_dbus_connection_remove_filter (self->bus, self->filter_id);
  self->filter_id = 0;
  if (self->subtrees == NULL)
    return;
  g_mutex_lock (&self->subtree_lock);
  /* The filter may still run once after its removal. */
  self->serving = FALSE;
  if (self->save_restore_id != 0)
    g_dbus_connection_unregister_object (self->bus, self->save_restore_id);
  self->save_restore_id = 0;
  g_hash_table_iter_init (&iter, self->subtrees);
  while (g_hash_table_iter_next (&iter, NULL, &id))
    g_dbus_connection_unregister_subtree (self->bus, GPOINTER_TO_UINT (id));
  g_hash_table_remove_all (self->subtrees);
  g_mutex_unlock (&self->subtree_lock);
}
