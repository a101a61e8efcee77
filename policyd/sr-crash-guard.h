/* sr-crash-guard.h: counts involuntary exits per app
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SrCrashGuard SrCrashGuard;

/* The most apps whose exits are kept: a new one beyond evicts the app
 * whose latest exit is oldest. */
#define SR_CRASH_GUARD_MAX_APPS 1024

SrCrashGuard *sr_crash_guard_new       (const char    *path,
                                        guint          max_window_secs);
void          sr_crash_guard_free      (SrCrashGuard  *self);
gboolean      sr_crash_guard_flush     (SrCrashGuard  *self);
guint         sr_crash_guard_n_apps    (SrCrashGuard  *self);
gboolean      sr_crash_guard_note_exit (SrCrashGuard  *self,
                                        const char    *app_id,
                                        gboolean       voluntary,
                                        const char    *consumer,
                                        gint64         now,
                                        guint          threshold,
                                        guint          window_secs,
                                        GError       **error);
void          sr_crash_guard_note_held_start (SrCrashGuard *self,
                                              const char   *app_id,
                                              const char   *consumer);
gboolean      sr_crash_guard_in_loop   (SrCrashGuard  *self,
                                        const char    *app_id,
                                        gint64         now,
                                        guint          threshold,
                                        guint          window_secs);
gboolean      sr_crash_guard_reset     (SrCrashGuard  *self,
                                        const char    *app_id,
                                        GError       **error);
guint         sr_crash_guard_count     (SrCrashGuard  *self,
                                        const char    *app_id,
                                        gint64         now,
                                        guint          window_secs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrCrashGuard, sr_crash_guard_free)

G_END_DECLS
