/* sr-fast-path.h: checks answered on GDBus's worker thread
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-caller-cache.h"
#include "sr-clear-points.h"
#include "sr-crash-guard.h"
#include "sr-settings.h"

G_BEGIN_DECLS

typedef struct _SrFastPath SrFastPath;

/* What the worker thread reads; all (unowned), kept alive by the caller
 * until sr_fast_path_close(). */
typedef struct {
  SrSettings *settings;
  SrCallerCache *callers;
  SrCrashGuard *crash_guard;
  SrClearPoints *clear_points;
} SrFastPathSources;

SrFastPath *sr_fast_path_open            (GDBusConnection          *bus,
                                          const SrFastPathSources  *sources);
void        sr_fast_path_close           (SrFastPath               *self);
gboolean    sr_fast_path_take_calls_seen (SrFastPath               *self);

G_END_DECLS
