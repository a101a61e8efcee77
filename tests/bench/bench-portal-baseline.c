/* bench-portal-baseline.c: a save/restore portal backend that does nothing
 *
 * bench_portal.py's floor. It owns the backend's name (argv[1]) and
 * answers every call at once and always alike, from GDBus's worker
 * thread: the session's "version" (2), Register (LAUNCH, one instance
 * id, nothing to discard), Close and Close2. No record, no policyd: what
 * is left is the path through the bus and the frontend.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <gio/gio.h>
#include <glib-unix.h>

static GVariant *
reply_body (GDBusMessage *call)
{
  const char *member = g_dbus_message_get_member (call);
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  if (g_strcmp0 (member, "GetAll") == 0)
    {
      g_variant_dict_insert (&dict, "version", "u", 2);
      return g_variant_new ("(@a{sv})", g_variant_dict_end (&dict));
    }
  if (g_strcmp0 (member, "Get") == 0)
    {
      g_variant_dict_clear (&dict);
      return g_variant_new ("(v)", g_variant_new_uint32 (2));
    }
  if (g_strcmp0 (member, "Register") == 0)
    {
      g_variant_dict_insert (&dict, "restore-reason", "u", 1);
      g_variant_dict_insert (&dict, "instance-id", "s", "0123456789ab");
      g_variant_dict_insert_value (&dict, "discard-instance-ids", g_variant_new_strv (NULL, 0));
      return g_variant_new ("(@a{sv})", g_variant_dict_end (&dict));
    }
  g_variant_dict_clear (&dict);
  return NULL;
}

static GDBusMessage *
answer_at_once (GDBusConnection *connection,
                GDBusMessage    *message,
                gboolean         incoming,
                gpointer         user_data)
{
  g_autoptr(GDBusMessage) call = message;
  g_autoptr(GDBusMessage) reply = NULL;

  if (!incoming || g_dbus_message_get_message_type (call) != G_DBUS_MESSAGE_TYPE_METHOD_CALL)
    return g_steal_pointer (&call);
  reply = g_dbus_message_new_method_reply (call);
  g_dbus_message_set_body (reply, reply_body (call));
  g_dbus_connection_send_message (connection, reply, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, NULL);
  return NULL;
}

static gboolean
quit (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);

  if (argc != 2 || bus == NULL)
    {
      g_printerr ("usage: bench-portal-baseline BUS-NAME (with a session bus)\n");
      return 2;
    }
  g_dbus_connection_add_filter (bus, answer_at_once, NULL, NULL);
  g_bus_own_name_on_connection (bus, argv[1], G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL, NULL);
  g_unix_signal_add (SIGTERM, quit, loop);
  g_main_loop_run (loop);
  return 0;
}
