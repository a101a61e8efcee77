/* sr-store-confine.h: where a store may be, and what a user's drop-in may
 * declare
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

#include "sr-store-dropin.h"

G_BEGIN_DECLS

gboolean    sr_store_confine         (SrStore        *store,
                                      GError        **error);
const char *sr_store_root_below_base (const SrStore  *store);

G_END_DECLS
