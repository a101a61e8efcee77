/* sr-caller-cache.h: the callers on the bus, each identified once
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-caller.h"

G_BEGIN_DECLS

#define SR_TYPE_CALLER_CACHE (sr_caller_cache_get_type ())
G_DECLARE_FINAL_TYPE (SrCallerCache, sr_caller_cache, SR, CALLER_CACHE, GObject)

SrCallerCache  *sr_caller_cache_new          (GDBusConnection      *bus);
SrCaller       *sr_caller_cache_dup          (SrCallerCache        *self,
                                              const char           *sender);
GPtrArray      *sr_caller_cache_dup_all      (SrCallerCache        *self);
void            sr_caller_cache_lookup_async (SrCallerCache        *self,
                                              const char           *sender,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
SrCaller       *sr_caller_cache_lookup_finish (SrCallerCache       *self,
                                               GAsyncResult        *result,
                                               GError             **error);

G_END_DECLS
