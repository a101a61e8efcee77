/* sr-pattern.h: the file name patterns of store drop-ins
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A pattern describes one file name, and a file name is at most 255 bytes. */
#define SR_PATTERN_MAX_LENGTH 255

typedef struct _SrPattern SrPattern;

SrPattern *sr_pattern_new     (const char       *pattern,
                               GError          **error);
void       sr_pattern_free    (SrPattern        *self);
gboolean   sr_pattern_has_app (const SrPattern  *self);
gboolean   sr_pattern_ends_in_text (const SrPattern *self);
gboolean   sr_pattern_match   (const SrPattern  *self,
                               const char       *name,
                               char            **out_app);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrPattern, sr_pattern_free)

G_END_DECLS
