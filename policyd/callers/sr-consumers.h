/* sr-consumers.h: which programs consult policyd
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

#include "sr-caller-cache.h"

G_BEGIN_DECLS

typedef struct _SrConsumers SrConsumers;

/* The most programs remembered. */
#define SR_CONSUMERS_MAX_PROGRAMS 64

SrConsumers *sr_consumers_new   (const char     *path);
void         sr_consumers_free  (SrConsumers    *self);
void         sr_consumers_watch (SrConsumers    *self,
                                 SrCallerCache  *callers);
gboolean     sr_consumers_note  (SrConsumers    *self,
                                 SrCaller       *caller,
                                 gint64          when);
GVariant    *sr_consumers_list  (SrConsumers    *self,
                                 gint64          now);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrConsumers, sr_consumers_free)

G_END_DECLS
