/* sr-enums.c: the values of the policy service's contract
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define G_LOG_DOMAIN "libsessionrestore"

#include "config.h"

#include "session-restore.h"

/**
 * SrVerdict:
 * @SR_VERDICT_DENY: do not save or restore
 * @SR_VERDICT_ALLOW: go ahead
 * @SR_VERDICT_ASK: ask the user first
 *
 * The answer of a check (`CheckSave` and `CheckRestore`).
 */

/**
 * SrRestoreReason:
 * @SR_RESTORE_REASON_PRISTINE: start without state (never sent to the
 *   service: it is the answer when restoring is denied)
 * @SR_RESTORE_REASON_LAUNCH: an ordinary launch
 * @SR_RESTORE_REASON_RECOVER: a launch after the last instance crashed
 * @SR_RESTORE_REASON_RESTORE: relaunched by the session at login
 *
 * Why an app is about to restore state: the restore reasons of the
 * save/restore portal.
 */

/**
 * SrWhy:
 * @SR_WHY_UNKNOWN: a reason this version of the library does not know
 *   (from a newer service)
 * @SR_WHY_ALLOWED: "allowed"
 * @SR_WHY_DISABLED: "disabled": the master switch is off
 * @SR_WHY_EXCLUDED: "excluded": the user or the administrator opted the app out
 * @SR_WHY_LAUNCH_OFF: "launch-off": no restoring on an ordinary launch
 * @SR_WHY_RECOVER_OFF: "recover-off": no restoring after a crash
 * @SR_WHY_CRASH_LOOP: "crash-loop": the app crashed too often lately
 * @SR_WHY_LOGIN_OFF: "login-off": apps are not reopened at login
 * @SR_WHY_ASK: "ask": the user is to be asked first
 * @SR_WHY_CLEARED: "cleared": the state was saved before a clear
 * @SR_WHY_EXPIRED: "expired": the state is older than the maximum age
 * @SR_WHY_DECLINED: "declined": the user chose not to restore it
 * @SR_WHY_ASK_TIMEOUT: "ask-timeout": nobody answered the prompt in time
 * @SR_WHY_ASK_UNAVAILABLE: "ask-unavailable": no prompt could be shown
 *
 * Why a check answered as it did: the "why" strings of the D-Bus contract.
 */

/**
 * SrLoginRestore:
 * @SR_LOGIN_RESTORE_ALWAYS: apps are reopened at login ("always")
 * @SR_LOGIN_RESTORE_ASK: the user is asked first ("ask")
 * @SR_LOGIN_RESTORE_NEVER: apps are not reopened ("never")
 *
 * The "login-restore" setting.
 */

/**
 * SrServiceState:
 * @SR_SERVICE_STATE_UNKNOWN: not known yet (the client is being
 *   initialized, or the name changed hands and the new owner is being
 *   verified)
 * @SR_SERVICE_STATE_RUNNING: the service runs, as a host process of this
 *   user (or root's)
 * @SR_SERVICE_STATE_MISSING: nobody owns the service's name
 * @SR_SERVICE_STATE_UNTRUSTED: the name is owned by a sandboxed process
 *   or another user's: nothing it says is believed, and nothing is sent to
 *   it but the GetAll of the properties asked while it was being found and
 *   verified
 *
 * Whether the owner of the service's name can be believed.
 */

static const char *const why_strings[] = {
  [SR_WHY_UNKNOWN] = "unknown",
  [SR_WHY_ALLOWED] = "allowed",
  [SR_WHY_DISABLED] = "disabled",
  [SR_WHY_EXCLUDED] = "excluded",
  [SR_WHY_LAUNCH_OFF] = "launch-off",
  [SR_WHY_RECOVER_OFF] = "recover-off",
  [SR_WHY_CRASH_LOOP] = "crash-loop",
  [SR_WHY_LOGIN_OFF] = "login-off",
  [SR_WHY_ASK] = "ask",
  [SR_WHY_CLEARED] = "cleared",
  [SR_WHY_EXPIRED] = "expired",
  [SR_WHY_DECLINED] = "declined",
  [SR_WHY_ASK_TIMEOUT] = "ask-timeout",
  [SR_WHY_ASK_UNAVAILABLE] = "ask-unavailable",
};

G_STATIC_ASSERT (G_N_ELEMENTS (why_strings) == SR_WHY_ASK_UNAVAILABLE + 1);

/**
 * sr_why_to_string:
 * @why: a reason
 *
 * The D-Bus contract's string for @why ("crash-loop"); "unknown" for
 * #SR_WHY_UNKNOWN or a value out of range.
 *
 * Returns: (transfer none): a static string
 */
const char *
sr_why_to_string (SrWhy why)
{
  if ((guint) why >= G_N_ELEMENTS (why_strings))
    return why_strings[SR_WHY_UNKNOWN];
  return why_strings[why];
}

/**
 * sr_why_from_string:
 * @why: (nullable): a "why" string of the D-Bus contract
 *
 * The reason named by @why; #SR_WHY_UNKNOWN for %NULL or a string this
 * version does not know (a newer service's).
 *
 * Returns: the reason
 */
SrWhy
sr_why_from_string (const char *why)
{
  for (guint i = SR_WHY_ALLOWED; why != NULL && i < G_N_ELEMENTS (why_strings); i++)
    if (g_str_equal (why_strings[i], why))
      return (SrWhy) i;
  return SR_WHY_UNKNOWN;
}
