/* sr-ctl-stored.h: what ListStoredState tells per app, decoded once
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include "sr-ctl.h"
#include "sr-ctl-json.h"

G_BEGIN_DECLS

/* One app of a listing. The strings are borrowed from the reply, which
 * holds them whether it is serialized or not, and outlives the rows. */
typedef struct {
  const char *app_id;
  gboolean stored;            /* FALSE: named on the command line, nothing stored */
  guint64 bytes;
  guint32 entries;
  gboolean has_windows;
  guint32 windows;
  gboolean has_last_saved;
  gint64 last_saved;
  GVariant *stores;           /* (owned) (nullable): as */
  const char *state;          /* (nullable): older services do not say */
  int at_login;               /* -1: the service does not say */
  int crash_loop;             /* -1: the service does not say */
  gboolean excluded;          /* by the user */
  gboolean admin_excluded;
} SrCtlStoredApp;

GArray   *sr_ctl_stored_apps         (SrCtl     *ctl,
                                      GVariant  *apps,
                                      char     **wanted);
GVariant *sr_ctl_stored_errors       (GVariant  *apps);
void      sr_ctl_stored_print_errors (GVariant  *errors);
char     *sr_ctl_stored_totals       (guint      saved,
                                      guint      expired,
                                      guint      cleared,
                                      guint64    bytes,
                                      gboolean   noun);
gboolean  sr_ctl_app_installed       (const char *app_id);
GHashTable *sr_ctl_unknown_apps      (SrCtl     *ctl,
                                      char     **app_ids);
void      sr_ctl_warn_unknown_app    (GHashTable *unknown,
                                      const char *app_id);
void      sr_ctl_json_app_result     (SrJson     *json,
                                      const char *app_id,
                                      const char *result,
                                      GHashTable *unknown);

G_END_DECLS
