/* sr-polkit-call.h: polkitd's CheckAuthorization, asked over D-Bus
 *
 * policyd (policyd/callers/sr-polkit.c, for its callers) and the panel
 * (panel/sr-permissions.c, for itself) ask polkitd directly rather than
 * through libpolkit-gobject: the same name, object, subject and arguments
 * as the library sends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#define SR_POLKIT_NAME "org.freedesktop.PolicyKit1"
#define SR_POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define SR_POLKIT_INTERFACE "org.freedesktop.PolicyKit1.Authority"
#define SR_POLKIT_ALLOW_USER_INTERACTION 1u

/* Starts a connection to the system bus of the caller's own, finished with
 * g_dbus_connection_new_for_address_finish(): not g_bus_get()'s shared
 * one, which would end the process if the system bus went away. FALSE,
 * with @error set, when there is no system bus to connect to. */
static inline gboolean
sr_polkit_connect_async (GCancellable         *cancellable,
                         GAsyncReadyCallback   callback,
                         gpointer              user_data,
                         GError              **error)
{
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SYSTEM, NULL, error);

  if (address == NULL)
    return FALSE;
  g_dbus_connection_new_for_address (address,
                                     G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                     G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                     NULL, cancellable, callback, user_data);
  return TRUE;
}

/* polkit's "unix-process" subject: @start_time in clock ticks since boot
 * (field 22 of /proc/PID/stat). Floating. */
static inline GVariant *
sr_polkit_unix_process (guint32 pid,
                        guint64 start_time,
                        guint32 uid)
{
  GVariantBuilder details;

  g_variant_builder_init (&details, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&details, "{sv}", "pid", g_variant_new_uint32 (pid));
  g_variant_builder_add (&details, "{sv}", "start-time", g_variant_new_uint64 (start_time));
  g_variant_builder_add (&details, "{sv}", "uid", g_variant_new_int32 ((gint32) uid));
  return g_variant_new ("(s@a{sv})", "unix-process", g_variant_builder_end (&details));
}

/* CheckAuthorization's arguments, no details, no cancellation id.
 * Floating; its reply is "((bba{ss}))": authorized, challenge, details. */
static inline GVariant *
sr_polkit_check_parameters (GVariant   *subject,
                            const char *action_id,
                            guint32     flags)
{
  return g_variant_new ("(@(sa{sv})s@a{ss}us)", subject, action_id,
                        g_variant_new_array (G_VARIANT_TYPE ("{ss}"), NULL, 0), flags, "");
}
