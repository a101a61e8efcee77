/* sr-gate.h: who may call what
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-caller-cache.h"
#include "sr-polkit.h"
#include "sr-settings.h"

G_BEGIN_DECLS

/* check: argument validation and lock checks (sr-args.c), once the
 * caller is known and has passed the sandbox rule, before polkit; it
 * reads the settings, and changes nothing. run: the
 * method itself, once the caller is authorized. @owner is the gate's
 * owner (the daemon). */
typedef gboolean (*SrMethodCheck) (SrSettings             *settings,
                                   GVariant               *params,
                                   GError                **error);
typedef void     (*SrMethodRun)   (gpointer                owner,
                                   SrCaller               *caller,
                                   GVariant               *params,
                                   GDBusMethodInvocation  *invocation);

typedef struct {
  const char *name;
  const char *polkit_action;      /* NULL: no polkit (the hot path) */
  gboolean sandboxed_own_app;     /* sandboxed callers may call it about
                                   * their own app id, given as argument 0 */
  SrMethodCheck check;            /* (nullable) */
  SrMethodRun run;
} SrMethod;

#define SR_TYPE_GATE (sr_gate_get_type ())
G_DECLARE_FINAL_TYPE (SrGate, sr_gate, SR, GATE, GObject)

SrGate *sr_gate_new  (SrCallerCache          *callers,
                      SrPolkit               *polkit,
                      SrSettings             *settings,
                      gpointer                owner);
void    sr_gate_call (SrGate                 *self,
                      const SrMethod         *method,
                      GDBusMethodInvocation  *invocation);

G_END_DECLS
