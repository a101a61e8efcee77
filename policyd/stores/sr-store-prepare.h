/* sr-store-prepare.h: the settings applied to what the session manager
 * and the compositor read at login
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum {
  SR_PREPARE_KEEP,           /* each instance is judged by its age */
  SR_PREPARE_RECOVERY_HELD,  /* the instances it would recover go */
  SR_PREPARE_REMOVE,         /* the whole app goes */
} SrPrepareApp;

/* What the rules say (sr-session-prepare.c), asked on the store worker's
 * thread: the functions read only what may be read from any thread.
 * @off: saving is off: every instance goes, and the compositors' files.
 * @judge_app: what goes of a valid app id's instances, with why.
 * @judge_instance: why one instance goes, saved at @saved_at (µs since
 * the epoch), or NULL to keep it.
 * @check_owners: whether the owners of the records and files are stopped,
 * asked before anything is touched; FALSE with an error when one runs. */
typedef struct {
  gboolean off;
  SrPrepareApp (*judge_app)      (const char  *app_id,
                                  const char **out_why,
                                  gpointer     user_data);
  const char  *(*judge_instance) (const char  *app_id,
                                  gint64       saved_at,
                                  gpointer     user_data);
  gboolean     (*check_owners)   (gpointer     user_data,
                                  GError     **error);
  gpointer user_data;
  GDestroyNotify destroy;   /* (nullable): of @user_data */
} SrPrepareRules;

void      sr_prepare_rules_free (SrPrepareRules       *rules);
/* @stores: (element-type SrStore) every store. Returns the report of
 * PrepareSession (data/org.gnome.SessionRestore.Policy.xml). */
GVariant *sr_store_prepare      (GPtrArray            *stores,
                                 const SrPrepareRules *rules,
                                 GError              **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrPrepareRules, sr_prepare_rules_free)

G_END_DECLS
