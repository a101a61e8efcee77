/* sr-fuzz-raw.h: messages GDBus will not send, written by hand
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Prints a table; returns how many corrupt messages got through. */
guint sr_fuzz_send_corrupt_messages (const char *destination);

G_END_DECLS
