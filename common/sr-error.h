/* sr-error.h: the service's named D-Bus errors, for policyd and its clients
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The codes map one to one onto org.gnome.SessionRestore.Error.*; they are
 * part of the public contract, so never renumber them. */
typedef enum {
  SR_ERROR_INVALID_ARGS,
  SR_ERROR_LOCKED,
  SR_ERROR_NOT_ALLOWED,
  SR_ERROR_FAILED,
  SR_ERROR_UNAVAILABLE,   /* something policyd depends on (polkit) cannot be reached */
} SrError;

#define SR_ERROR (sr_error_quark ())
GQuark sr_error_quark (void);

G_END_DECLS
