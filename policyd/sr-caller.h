/* sr-caller.h: who is calling, from the bus's credentials
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  SR_CALLER_HOST,
  SR_CALLER_FLATPAK,
  SR_CALLER_SNAP,
} SrCallerKind;

typedef struct {
  SrCallerKind kind;
  char *app_id;          /* (owned) (nullable): sandboxed callers only */
  guint32 uid;
  guint32 pid;
  guint64 start_time;    /* in clock ticks since boot, as polkit wants it */
} SrCaller;

typedef struct _SrCallerCache SrCallerCache;

SrCallerCache  *sr_caller_cache_new          (GDBusConnection      *bus);
void            sr_caller_cache_free         (SrCallerCache        *self);
const SrCaller *sr_caller_cache_peek         (SrCallerCache        *self,
                                              const char           *sender);
gboolean        sr_caller_cache_may_ask_about (SrCallerCache       *self,
                                               const char          *sender,
                                               const char          *app_id);
void            sr_caller_cache_lookup_async (SrCallerCache        *self,
                                              const char           *sender,
                                              GAsyncReadyCallback   callback,
                                              gpointer              user_data);
const SrCaller *sr_caller_cache_lookup_finish (SrCallerCache       *self,
                                               GAsyncResult        *result,
                                               GError             **error);

/* Exposed for tests: parse what identifies a sandboxed app. */
char           *sr_caller_parse_flatpak_info (const char           *data,
                                              gsize                 len,
                                              GError              **error);
char           *sr_caller_parse_snap_label   (const char           *label);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrCallerCache, sr_caller_cache_free)

G_END_DECLS
