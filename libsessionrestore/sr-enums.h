/* sr-enums.h: the values of the policy service's contract
 *
 * Numbers are the D-Bus contract's (org.gnome.SessionRestore.Policy.xml
 * and the save/restore portal's restore reasons): never renumber them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(SR_INSIDE_LIBSESSIONRESTORE) && !defined(__SESSION_RESTORE_H_INSIDE__)
#include <session-restore.h>
#endif

#include <glib.h>

#include "sr-version.h"

G_BEGIN_DECLS

typedef enum {
  SR_VERDICT_DENY = 0,
  SR_VERDICT_ALLOW = 1,
  SR_VERDICT_ASK = 2,
} SrVerdict;

typedef enum {
  SR_RESTORE_REASON_PRISTINE = 0,
  SR_RESTORE_REASON_LAUNCH = 1,
  SR_RESTORE_REASON_RECOVER = 2,
  SR_RESTORE_REASON_RESTORE = 3,
} SrRestoreReason;

/* The "why" strings of CheckSave/CheckRestore; SR_WHY_UNKNOWN for one this
 * version does not know (a newer service). */
typedef enum {
  SR_WHY_UNKNOWN = 0,
  SR_WHY_ALLOWED,
  SR_WHY_DISABLED,
  SR_WHY_EXCLUDED,
  SR_WHY_LAUNCH_OFF,
  SR_WHY_RECOVER_OFF,
  SR_WHY_CRASH_LOOP,
  SR_WHY_LOGIN_OFF,
  SR_WHY_ASK,
  SR_WHY_CLEARED,
  SR_WHY_EXPIRED,
  SR_WHY_DECLINED,
  SR_WHY_ASK_TIMEOUT,
  SR_WHY_ASK_UNAVAILABLE,
} SrWhy;

typedef enum {
  SR_LOGIN_RESTORE_ALWAYS = 0,
  SR_LOGIN_RESTORE_ASK = 1,
  SR_LOGIN_RESTORE_NEVER = 2,
} SrLoginRestore;

/* Whether the owner of the service's name can be believed. */
typedef enum {
  SR_SERVICE_STATE_UNKNOWN = 0,   /* not asked yet */
  SR_SERVICE_STATE_RUNNING,       /* owned by a host process of this user */
  SR_SERVICE_STATE_MISSING,       /* nobody owns the name */
  SR_SERVICE_STATE_UNTRUSTED,     /* owned by a sandboxed process or another user's */
} SrServiceState;

SR_AVAILABLE_IN_ALL
const char *sr_why_to_string   (SrWhy       why);
SR_AVAILABLE_IN_ALL
SrWhy       sr_why_from_string (const char *why);

G_END_DECLS
