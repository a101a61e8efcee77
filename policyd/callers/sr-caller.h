/* sr-caller.h: who is calling, from the bus's credentials
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

#include "sr-bus-sockets.h"

G_BEGIN_DECLS

typedef enum {
  SR_CALLER_HOST,
  SR_CALLER_FLATPAK,
  SR_CALLER_SNAP,
} SrCallerKind;

/* Refcounted (sr_caller_ref/unref); never changed once identified but
 * for last_call. */
typedef struct {
  SrCallerKind kind;
  char *app_id;          /* (owned) (nullable): sandboxed callers only */
  char *program;         /* (owned): the executable's name, or the app id of
                          * a sandboxed caller; for Consumers */
  char *sender;          /* (owned): its unique bus name */
  guint32 uid;
  guint32 pid;
  guint64 start_time;    /* in clock ticks since boot, as polkit wants it */
  gint64 last_call;      /* (atomic) µs since the epoch of its last check or
                          * exit report; 0 if none */
} SrCaller;

SrCaller       *sr_caller_ref                (SrCaller             *caller);
void            sr_caller_unref              (SrCaller             *caller);
gboolean        sr_caller_may_ask_about      (const SrCaller       *caller,
                                              const char           *app_id);

/* Identification, for the cache; exposed for tests. */
SrCaller       *sr_caller_identify           (GVariant             *credentials,
                                              GUnixFDList          *fds,
                                              gint64                appeared_ns,
                                              const SrBusSockets   *bus_sockets,
                                              GError              **error);
gboolean        sr_caller_started_after      (guint64               start_time,
                                              gint64                appeared_ns,
                                              long                  ticks_per_sec);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrCaller, sr_caller_unref)

G_END_DECLS
