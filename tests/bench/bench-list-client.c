/* bench-list-client.c: the bare ListStoredState round trip as a program
 * makes it, for bench_ctl.py: start, connect to the session bus, call,
 * exit. Nothing is decoded or printed; the reply is not freed (neither
 * does session-restore-ctl free its own).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "bench-list-client"

#include <gio/gio.h>

#include "sr-bus.h"

int
main (void)
{
  g_autoptr(GError) error = NULL;
  GDBusConnection *bus;
  GVariant *reply;

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (bus == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  reply = g_dbus_connection_call_sync (bus, SR_BUS_NAME, SR_OBJECT_PATH, SR_INTERFACE_NAME,
                                       "ListStoredState", NULL, G_VARIANT_TYPE ("(a(sa{sv}))"),
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  if (reply == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  return 0;
}
