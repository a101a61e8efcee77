/* sr-error.c: the service's named D-Bus errors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define G_LOG_DOMAIN "sr-error"

#include "config.h"

#include "sr-error.h"

/**
 * SrError:
 * @SR_ERROR_INVALID_ARGS: an argument is malformed (a bad app id, an
 *   unknown setting, a value out of range);
 *   `org.gnome.SessionRestore.Error.InvalidArgs`
 * @SR_ERROR_LOCKED: the administrator locked the setting; nothing was
 *   changed; `org.gnome.SessionRestore.Error.Locked`
 * @SR_ERROR_NOT_ALLOWED: the caller may not do this (polkit said no, the
 *   sandbox rule), or, from #SrPolicyClient, the program owning the
 *   service's name is not to be trusted and nothing was sent to it;
 *   `org.gnome.SessionRestore.Error.NotAllowed`
 * @SR_ERROR_FAILED: the request was valid and allowed but could not be
 *   carried out; `org.gnome.SessionRestore.Error.Failed`
 * @SR_ERROR_UNAVAILABLE: the service, or something it depends on (polkit),
 *   cannot be reached or did not answer in time: a fault, not a refusal;
 *   `org.gnome.SessionRestore.Error.Unavailable`
 *
 * The errors of the Session Restore service, in the #SR_ERROR domain. They
 * are registered with GDBus, so that a reply carrying one of the D-Bus
 * names arrives as the matching code.
 */
static const GDBusErrorEntry sr_error_entries[] = {
  { SR_ERROR_INVALID_ARGS, "org.gnome.SessionRestore.Error.InvalidArgs" },
  { SR_ERROR_LOCKED, "org.gnome.SessionRestore.Error.Locked" },
  { SR_ERROR_NOT_ALLOWED, "org.gnome.SessionRestore.Error.NotAllowed" },
  { SR_ERROR_FAILED, "org.gnome.SessionRestore.Error.Failed" },
  { SR_ERROR_UNAVAILABLE, "org.gnome.SessionRestore.Error.Unavailable" },
};

G_STATIC_ASSERT (G_N_ELEMENTS (sr_error_entries) == SR_ERROR_UNAVAILABLE + 1);

/**
 * sr_error_quark:
 *
 * The quark of the #SR_ERROR domain; the first call registers its D-Bus
 * error names.
 *
 * Returns: the error domain
 */
GQuark
sr_error_quark (void)
{
  static gsize quark = 0;

  g_dbus_error_register_error_domain ("sr-error-quark", &quark,
                                      sr_error_entries,
                                      G_N_ELEMENTS (sr_error_entries));
  return (GQuark) quark;
}
