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

/* The verdicts of CheckSave and CheckRestore, and the portal's restore
 * reasons: libsessionrestore's enums. Only that header, without the rest
 * of the library's: policyd does not link the library. */
#ifdef SR_INSIDE_LIBSESSIONRESTORE
#include "sr-enums.h"
#else
#define SR_INSIDE_LIBSESSIONRESTORE
#include "sr-enums.h"
#undef SR_INSIDE_LIBSESSIONRESTORE
#endif

/* policyd's names for the restore reasons. */
#define SR_REASON_PRISTINE SR_RESTORE_REASON_PRISTINE
#define SR_REASON_LAUNCH SR_RESTORE_REASON_LAUNCH
#define SR_REASON_RECOVER SR_RESTORE_REASON_RECOVER
#define SR_REASON_RESTORE SR_RESTORE_REASON_RESTORE
