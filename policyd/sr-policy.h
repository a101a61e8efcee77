/* sr-policy.h: the settings in force, as the decision rules read them
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

/* SrLoginRestore: the nicks of the login-restore enum, in that order. */
#include "sr-bus.h"

G_BEGIN_DECLS

/* A snapshot: never changed once built, so that any thread may read one it
 * holds a reference to while the main thread builds the next. Built with
 * sr_policy_new() it is refcounted; tests may fill one on the stack. */
typedef struct {
  gboolean enabled;                 /* effective: both master switches */
  SrLoginRestore login_restore;
  gboolean restore_after_crash;
  gboolean restore_on_launch;
  GHashTable *excluded;             /* set: user ∪ admin app ids */
  /* (owned) (nullable): the lists the keys of @excluded point into, when
   * built by sr_policy_new() */
  GVariant *excluded_lists[2];
  int max_age_days;                 /* -1: forever */
  guint crash_loop_threshold;       /* 0: guard off */
  guint crash_loop_window;          /* seconds */
} SrPolicy;

/* The values a policy is built from: the keys of org.gnome.SessionRestore
 * (each of the key's type), and GNOME's switch. All (unowned). */
typedef struct {
  GVariant *enabled;
  GVariant *login_restore;
  GVariant *restore_after_crash;
  GVariant *restore_on_launch;
  GVariant *excluded_apps;
  GVariant *admin_excluded_apps;
  GVariant *max_age_days;
  GVariant *crash_loop_threshold;
  GVariant *crash_loop_window;
  GVariant *desktop_enabled;        /* (nullable): where it is installed */
} SrPolicyKeys;

SrPolicy       *sr_policy_new   (const SrPolicyKeys *keys);
const SrPolicy *sr_policy_ref   (const SrPolicy  *policy);
void            sr_policy_unref (const SrPolicy  *policy);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrPolicy, sr_policy_unref)

G_END_DECLS
