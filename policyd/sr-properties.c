/* sr-properties.c: the values of the object's properties
 *
 * Version, one property per setting and LockedSettings are the settings'
 * (sr-settings.c); Consumers, which programs consult policyd and when
 * they last did, is sr-consumers.c's. Get and GetAll (sr-daemon.c, after
 * the gate) read them here; PropertiesChanged is sr-daemon.c's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-properties"

#include "config.h"

#include "sr-dbus-iface.h"
#include "sr-properties.h"

/* A new reference to property @name's value (a property of the interface,
 * as GDBus checked). */
GVariant *
sr_properties_get (SrSettings  *settings,
                   SrConsumers *consumers,
                   const char  *name)
{
  if (g_str_equal (name, "Consumers"))
    return g_variant_ref_sink (sr_consumers_list (consumers, g_get_real_time ()));
  return sr_settings_get_property (settings, name);
}

/* Every property of the interface: a floating a{sv}. */
GVariant *
sr_properties_get_all (SrSettings  *settings,
                       SrConsumers *consumers)
{
  g_auto(GVariantBuilder) all = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE_VARDICT);

  for (guint i = 0; sr_dbus_policy_interface.properties[i] != NULL; i++)
    {
      const char *name = sr_dbus_policy_interface.properties[i]->name;
      g_autoptr(GVariant) value = sr_properties_get (settings, consumers, name);

      g_variant_builder_add (&all, "{sv}", name, value);
    }
  return g_variant_builder_end (&all);
}
