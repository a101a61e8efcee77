/* sr-bus.h: where policyd is on the session bus
 *
 * The public contract of DESIGN.md; policyd, the panel, the command line
 * tool and the test tools all name it from here.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#define SR_BUS_NAME "org.gnome.SessionRestore.Policy"
#define SR_OBJECT_PATH "/org/gnome/SessionRestore/Policy"
#define SR_INTERFACE_NAME "org.gnome.SessionRestore.Policy"

/* The polkit actions of the methods that change or read stored state. */
#define SR_ACTION_CONFIGURE "org.gnome.SessionRestore.configure"
#define SR_ACTION_CLEAR "org.gnome.SessionRestore.clear"
#define SR_ACTION_LIST "org.gnome.SessionRestore.list"

/* How long policyd waits for polkit before it answers Unavailable, from
 * the moment a call arrives; an answer that comes later is not acted on.
 * A D-Bus client that sets no timeout gives up after 25 s (GDBus, libdbus
 * and sd-bus alike): without interaction policyd answers well before
 * that, so that such a client never hears "timed out" about a change that
 * polkit then lets through. With interaction a person may take a while in
 * the authentication dialog: five minutes, as sudo gives a password
 * prompt; a caller that allows interaction is to wait longer than that
 * (session-restore-ctl and the panel wait as long as it takes). */
#define SR_POLKIT_WAIT_MS 20000
#define SR_POLKIT_INTERACTIVE_WAIT_MS (5 * 60 * 1000)

/* The verdicts of CheckSave and CheckRestore. */
typedef enum {
  SR_VERDICT_DENY = 0,
  SR_VERDICT_ALLOW = 1,
  SR_VERDICT_ASK = 2,
} SrVerdict;

/* The portal's restore-reason values. */
typedef enum {
  SR_REASON_PRISTINE = 0,
  SR_REASON_LAUNCH = 1,
  SR_REASON_RECOVER = 2,
  SR_REASON_RESTORE = 3,
} SrRestoreReason;
