/* sr-properties.h: the values of the object's properties
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-consumers.h"
#include "sr-settings.h"

G_BEGIN_DECLS

/* @settings and @consumers (unowned) are only read. sr_properties_get():
 * (transfer full), a new reference; sr_properties_get_all(): a floating
 * a{sv}. */
GVariant *sr_properties_get     (SrSettings  *settings,
                                 SrConsumers *consumers,
                                 const char  *name);
GVariant *sr_properties_get_all (SrSettings  *settings,
                                 SrConsumers *consumers);

G_END_DECLS
