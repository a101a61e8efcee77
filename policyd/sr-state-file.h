/* sr-state-file.h: policyd's own small state files
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* State files hold a few hundred bytes per app; anything far larger is
 * not ours. */
#define SR_STATE_FILE_MAX (64 * 1024 * 1024)

/* The files, in $XDG_STATE_HOME/session-restore/. */
#define SR_STATE_FILE_CRASH_COUNTERS "crash-counters"
#define SR_STATE_FILE_CLEAR_POINTS "clear-points"
#define SR_STATE_FILE_PENDING_CLEARS "pending-clears"
#define SR_STATE_FILE_CONSUMERS "consumers"

char     *sr_state_file_path (const char          *name);
GMappedFile *sr_state_file_map (const char        *path,
                                GError           **error);
GVariant *sr_state_file_load (const char          *path,
                              const GVariantType  *type,
                              GError             **error);
GVariant *sr_state_file_load_any (const char                 *path,
                                  const GVariantType * const *types,
                                  GError                    **error);
gboolean  sr_state_file_save (const char          *path,
                              GVariant            *value,
                              GError             **error);
guint     sr_state_file_remove_leftovers (void);

G_END_DECLS
