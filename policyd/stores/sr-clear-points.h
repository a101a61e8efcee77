/* sr-clear-points.h: when each app's stored state was last cleared
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SrClearPoints SrClearPoints;

/* The most apps with a point of their own; beyond, the oldest are folded
 * into the global point. */
#define SR_CLEAR_POINTS_MAX_APPS 1024

SrClearPoints *sr_clear_points_new    (const char          *path);
void           sr_clear_points_free   (SrClearPoints       *self);
gint64         sr_clear_points_get    (SrClearPoints       *self,
                                       const char          *app_id);
gboolean       sr_clear_points_record (SrClearPoints       *self,
                                       const char * const  *app_ids,
                                       gint64               when,
                                       GError             **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrClearPoints, sr_clear_points_free)

G_END_DECLS
