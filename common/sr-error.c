/* sr-error.c: the service's named D-Bus errors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-error"

#include "config.h"

#include "sr-error.h"

static const GDBusErrorEntry sr_error_entries[] = {
  { SR_ERROR_INVALID_ARGS, "org.gnome.SessionRestore.Error.InvalidArgs" },
  { SR_ERROR_LOCKED, "org.gnome.SessionRestore.Error.Locked" },
  { SR_ERROR_NOT_ALLOWED, "org.gnome.SessionRestore.Error.NotAllowed" },
  { SR_ERROR_FAILED, "org.gnome.SessionRestore.Error.Failed" },
  { SR_ERROR_UNAVAILABLE, "org.gnome.SessionRestore.Error.Unavailable" },
};

G_STATIC_ASSERT (G_N_ELEMENTS (sr_error_entries) == SR_ERROR_UNAVAILABLE + 1);

GQuark
sr_error_quark (void)
{
  static gsize quark = 0;

  g_dbus_error_register_error_domain ("sr-error-quark", &quark,
                                      sr_error_entries,
                                      G_N_ELEMENTS (sr_error_entries));
  return (GQuark) quark;
}
