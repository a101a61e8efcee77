/* sr-log.h: where policyd's and the portal backend's messages go (sr-log.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Before anything is logged or printed. */
void sr_log_init (void);

G_END_DECLS
