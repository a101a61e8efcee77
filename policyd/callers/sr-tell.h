/* sr-tell.h: signals about apps, sent to each caller, never broadcast
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-caller-cache.h"

G_BEGIN_DECLS

void sr_tell_callers (SrCallerCache      *callers,
                      GDBusConnection    *bus,
                      const char         *signal_name,
                      const char * const *apps);

G_END_DECLS
