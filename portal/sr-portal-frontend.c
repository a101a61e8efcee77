/* sr-portal-frontend.c: who may call the impl interface
 *
 * The impl interface is xdg-desktop-portal's: the frontend identifies
 * each app (a sandbox as its own app, a host process by its systemd
 * scope) and calls Register, Close2 and the confirmations for it. The
 * backend believes the app id and the close it is told of, and policyd
 * believes the backend about any app; so a caller that is not the
 * frontend could pick what the host runs at the next login, take another
 * app's instance, or put an app that never crashed into the crash-loop
 * guard's hold. These calls are therefore answered only for the owner of
 * org.freedesktop.portal.Desktop, verified as a host process of the user
 * (sr-peer.c), once per unique name; the owner is followed as the bus
 * announces it (NameOwnerChanged, read by the filter in the order the
 * calls come), and a new owner is verified again. The session's
 * "version", introspection and Peer are answered to anyone: they tell
 * nothing.
 *
 * Register and Close that come from the owner while it is being verified
 * (the frontend's first calls start the backend) are held, in order, and
 * handled once it is verified, or refused if it is not; calls from anyone
 * else are refused at once. The verified owner's calls then pass with
 * one comparison of names.
 *
 * When the frontend leaves the bus (it restarted, or stopped), its
 * sessions can have no Close2 any more: they are closed as the old Close
 * closes them, without a crash counted, so that the apps' instances are
 * free for their next launch and no session end waits for them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-portal-frontend"

#include "config.h"

#include "sr-peer.h"
#include "sr-portal.h"

/* Calls held while the owner is verified: the apps of a login starting
 * while the backend does. Past this many the rest are refused. */
#define MAX_HELD 512

static void drain_held (SrPortal *self);

static void
refuse (GDBusConnection *connection,
        GDBusMessage    *message)
{
  g_autoptr(GDBusMessage) reply = NULL;

  if (g_dbus_message_get_flags (message) & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
    return;
  reply = g_dbus_message_new_method_error (message, "org.freedesktop.DBus.Error.AccessDenied",
                                           "Only the portal frontend, the owner of %s, may "
                                           "call %s", SR_PORTAL_FRONTEND_NAME,
                                           g_dbus_message_get_member (message));
  g_dbus_connection_send_message (connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
}

typedef struct {
  SrPortal *portal;   /* (unowned) */
  char *name;         /* (owned) */
} Check;

static void
check_done (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Check *check = user_data;
  g_autoptr(GError) error = NULL;
  gboolean ok = sr_peer_verify_owner_finish (result, &error);
  SrPortal *self = check->portal;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    goto out;   /* the backend is exiting */

  g_mutex_lock (&self->frontend_lock);
  if (g_strcmp0 (self->frontend_checking, check->name) == 0)
    g_clear_pointer (&self->frontend_checking, g_free);
  /* Still the owner: otherwise the next owner is checked already. */
  if (g_strcmp0 (self->frontend_owner, check->name) == 0)
    {
      if (ok)
        {
          g_free (self->frontend);
          self->frontend = g_strdup (check->name);
        }
      else
        {
          g_free (self->frontend_refused);
          self->frontend_refused = g_strdup (check->name);
        }
    }
  g_mutex_unlock (&self->frontend_lock);
  if (ok)
    g_debug ("The portal frontend is %s", check->name);
  else
    g_warning ("Not answering %s, the owner of %s: %s", check->name, SR_PORTAL_FRONTEND_NAME,
               error->message);
  drain_held (self);
out:
  g_free (check->name);
  g_free (check);
}

/* In the main loop. */
static void
check_owner (SrPortal   *self,
             const char *name)
{
  Check *check = g_new0 (Check, 1);

  check->portal = self;
  check->name = g_strdup (name);
  /* That it owns the name the bus has said (GetNameOwner's answer or
   * NameOwnerChanged, followed in order): check_done() takes the answer
   * only if it still does. No second GetNameOwner on the way of the
   * first Register. */
  sr_peer_verify_owner_async (self->bus, NULL, name, NULL,
                              self->frontend_cancellable, check_done, check);
}

/* With frontend_lock held: whether a call of @sender waits (TRUE), or is
 * decided now. */
static gboolean
undecided (SrPortal   *self,
           const char *sender)
{
  if (!self->frontend_owner_known)
    return TRUE;
  return g_strcmp0 (sender, self->frontend_owner) == 0 &&
         g_strcmp0 (sender, self->frontend) != 0 &&
         g_strcmp0 (sender, self->frontend_refused) != 0;
}

/* In the main loop, which holds SrPortal.lock: the calls held whose
 * sender is decided now, in the order they came; the first still
 * undecided stops it. */
static void
drain_held (SrPortal *self)
{
  for (;;)
    {
      g_autoptr(GDBusMessage) message = NULL;
      gboolean admit;

      g_mutex_lock (&self->frontend_lock);
      self->frontend_drain_due = FALSE;
      /* Someone new to verify: the owner now. */
      if (self->frontend_owner != NULL && self->frontend_checking == NULL &&
          g_strcmp0 (self->frontend_owner, self->frontend) != 0 &&
          g_strcmp0 (self->frontend_owner, self->frontend_refused) != 0 &&
          self->frontend_cancellable != NULL)
        {
          self->frontend_checking = g_strdup (self->frontend_owner);
          check_owner (self, self->frontend_checking);
        }
      if (self->frontend_held->len == 0 ||
          undecided (self, g_dbus_message_get_sender (self->frontend_held->pdata[0])))
        {
          g_mutex_unlock (&self->frontend_lock);
          return;
        }
      message = g_ptr_array_steal_index (self->frontend_held, 0);
      admit = g_strcmp0 (g_dbus_message_get_sender (message), self->frontend) == 0;
      g_mutex_unlock (&self->frontend_lock);

      if (!admit)
        refuse (self->bus, message);
      else if (sr_portal_register_is_call (message))
        sr_portal_register_take (self, self->bus, message);
      else
        sr_portal_session_take_close (self, self->bus, message);
    }
}

static gboolean
drain_due (gpointer user_data)
{
  drain_held (user_data);
  return G_SOURCE_REMOVE;
}

/* With frontend_lock held, from any thread. */
static void
schedule_drain (SrPortal *self)
{
  if (self->frontend_drain_due)
    return;
  self->frontend_drain_due = TRUE;
  g_idle_add (drain_due, self);
}

typedef struct {
  SrPortal *portal;   /* (unowned) */
  char *gone;         /* (owned) */
} Gone;

/* In the main loop: the sessions of a frontend that left. */
static gboolean
close_gone (gpointer user_data)
{
  Gone *gone = user_data;

  if (!gone->portal->closing)
    sr_portal_sessions_of_frontend_close (gone->portal, gone->gone);
  g_free (gone->gone);
  g_free (gone);
  return G_SOURCE_REMOVE;
}

/* With frontend_lock held: @owner owns the name now (NULL: nobody). */
static void
set_owner (SrPortal   *self,
           const char *owner)
{
  if (self->frontend != NULL && g_strcmp0 (owner, self->frontend) != 0)
    {
      Gone *gone = g_new0 (Gone, 1);

      g_message ("The portal frontend %s left; closing its sessions", self->frontend);
      gone->portal = self;
      gone->gone = g_steal_pointer (&self->frontend);
      g_idle_add (close_gone, gone);
    }
  g_free (self->frontend_owner);
  self->frontend_owner = g_strdup (owner);
  self->frontend_owner_known = TRUE;
  schedule_drain (self);
}

/* From the filter, on GDBus's worker thread: every incoming message; it
 * takes the bus's NameOwnerChanged for the frontend's name, in the order
 * of the calls around it. */
void
sr_portal_frontend_hear (SrPortal     *self,
                         GDBusMessage *message)
{
  GVariant *body = g_dbus_message_get_body (message);
  const char *name, *old_owner, *new_owner;

  if (g_dbus_message_get_message_type (message) != G_DBUS_MESSAGE_TYPE_SIGNAL ||
      g_strcmp0 (g_dbus_message_get_member (message), "NameOwnerChanged") != 0 ||
      g_strcmp0 (g_dbus_message_get_sender (message), "org.freedesktop.DBus") != 0 ||
      g_strcmp0 (g_dbus_message_get_interface (message), "org.freedesktop.DBus") != 0 ||
      body == NULL || !g_variant_is_of_type (body, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (body, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (!g_str_equal (name, SR_PORTAL_FRONTEND_NAME))
    return;
  g_mutex_lock (&self->frontend_lock);
  self->frontend_owner_changed = TRUE;
  set_owner (self, *new_owner != '\0' ? new_owner : NULL);
  g_mutex_unlock (&self->frontend_lock);
}

/* From the filter, on GDBus's worker thread: whether a call of the impl
 * interface is answered. @holdable: Register, Close or Close2, which can
 * be answered later (drain_held()); other calls come only after a
 * Register was answered, from a frontend verified by then. */
SrFrontendVerdict
sr_portal_frontend_admit (SrPortal        *self,
                          GDBusConnection *connection,
                          GDBusMessage    *message,
                          gboolean         holdable)
{
  const char *sender = g_dbus_message_get_sender (message);
  SrFrontendVerdict verdict;

  g_mutex_lock (&self->frontend_lock);
  if (self->frontend_held->len == 0 && self->frontend != NULL &&
      g_strcmp0 (sender, self->frontend) == 0)
    verdict = SR_FRONTEND_ADMIT;
  else if (!holdable)
    verdict = g_strcmp0 (sender, self->frontend) == 0 ? SR_FRONTEND_ADMIT : SR_FRONTEND_REFUSE;
  /* Held behind earlier calls of the frontend, to keep their order. */
  else if ((undecided (self, sender) || g_strcmp0 (sender, self->frontend) == 0) &&
           self->frontend_held->len < MAX_HELD)
    {
      g_ptr_array_add (self->frontend_held, g_object_ref (message));
      schedule_drain (self);
      verdict = SR_FRONTEND_HOLD;
    }
  else
    verdict = SR_FRONTEND_REFUSE;
  g_mutex_unlock (&self->frontend_lock);
  if (verdict == SR_FRONTEND_REFUSE)
    refuse (connection, message);
  return verdict;
}

static void
got_owner (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result,
                                                             &error);
  SrPortal *self;
  const char *owner = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = user_data;
  if (reply != NULL)
    g_variant_get (reply, "(&s)", &owner);
  g_mutex_lock (&self->frontend_lock);
  /* A NameOwnerChanged read since is as new as this answer, or newer. */
  if (!self->frontend_owner_changed)
    set_owner (self, owner);
  g_mutex_unlock (&self->frontend_lock);
}

static void
ignore_signal (GDBusConnection *connection,
               const char      *sender,
               const char      *path,
               const char      *interface,
               const char      *signal,
               GVariant        *parameters,
               gpointer         user_data)
{
}

/* At start, in the main loop, before the backend's name is taken: the
 * match rule for the frontend's changes of hands first, then its owner
 * now. */
void
sr_portal_frontend_watch (SrPortal *self)
{
  g_mutex_init (&self->frontend_lock);
  self->frontend_held = g_ptr_array_new_with_free_func (g_object_unref);
  self->frontend_cancellable = g_cancellable_new ();
  /* The filter reads the signal (sr_portal_frontend_hear()); this only
   * has the bus send it. */
  self->frontend_subscription =
    g_dbus_connection_signal_subscribe (self->bus, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                        "NameOwnerChanged", "/org/freedesktop/DBus",
                                        SR_PORTAL_FRONTEND_NAME, G_DBUS_SIGNAL_FLAGS_NONE,
                                        ignore_signal, NULL, NULL);
  g_dbus_connection_call (self->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                          "org.freedesktop.DBus", "GetNameOwner",
                          g_variant_new ("(s)", SR_PORTAL_FRONTEND_NAME), G_VARIANT_TYPE ("(s)"),
                          G_DBUS_CALL_FLAGS_NONE, -1, self->frontend_cancellable, got_owner, self);
}

/* At exit, in the main loop; the calls still held are refused. */
void
sr_portal_frontend_unwatch (SrPortal *self)
{
  g_autoptr(GPtrArray) held = NULL;

  g_cancellable_cancel (self->frontend_cancellable);
  g_clear_object (&self->frontend_cancellable);
  if (self->frontend_subscription != 0)
    g_dbus_connection_signal_unsubscribe (self->bus, self->frontend_subscription);
  self->frontend_subscription = 0;
  g_mutex_lock (&self->frontend_lock);
  held = g_steal_pointer (&self->frontend_held);
  self->frontend_held = g_ptr_array_new_with_free_func (g_object_unref);
  g_mutex_unlock (&self->frontend_lock);
  for (guint i = 0; i < held->len; i++)
    refuse (self->bus, held->pdata[i]);
}
