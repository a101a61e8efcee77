/* sr-error.h: the service's named D-Bus errors, for policyd and its clients
 *
 * policyd compiles sr-error.c into its own code (common/meson.build) and
 * does not link the library for it; both register the same names under
 * the same quark name, so a GError crosses between them unchanged.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-version.h"

G_BEGIN_DECLS

/* The codes map one to one onto org.gnome.SessionRestore.Error.*; they are
 * part of the public contract, so never renumber them (documented in
 * sr-error.c). */
typedef enum {
  SR_ERROR_INVALID_ARGS,
  SR_ERROR_LOCKED,
  SR_ERROR_NOT_ALLOWED,
  SR_ERROR_FAILED,
  SR_ERROR_UNAVAILABLE,
} SrError;

/**
 * SR_ERROR:
 *
 * The error domain of the Session Restore service: #SrError.
 */
#define SR_ERROR (sr_error_quark ())
SR_AVAILABLE_IN_ALL
GQuark sr_error_quark (void);

G_END_DECLS
