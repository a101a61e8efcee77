/* test-panel-application.c: what the panel's application loads for
 * itself (sr-panel-application.c)
 *
 * It sets no resource base path, so that GtkApplication does not add an
 * icons folder to the icon theme as it starts (which can make GTK load
 * the theme a second time, on the main thread, before the first frame),
 * and it loads its style sheet by hand. Nothing else that a base path
 * would have loaded may be in the resources: it would be missed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-panel-application"

#include "config.h"

#include "sr-panel-application.h"

#define BASE "/org/gnome/SessionRestore"

static void
test_no_resource_base_path (void)
{
  g_autoptr(SrPanelApplication) app = sr_panel_application_new ();

  g_assert_null (g_application_get_resource_base_path (G_APPLICATION (app)));
}

static gboolean
resource_exists (const char *path)
{
  return g_resources_get_info (path, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL, NULL, NULL);
}

/* What GtkApplication (icons, menus, help overlay) and AdwApplication
 * (style sheets) would have taken from the base path: only style.css,
 * which the application loads. */
static void
test_nothing_else_to_load (void)
{
  const char *missed[] = { "style-dark.css", "style-hc.css", "style-hc-dark.css",
                           "gtk/menus.ui", "gtk/menus-common.ui", "gtk/help-overlay.ui" };
  g_auto(GStrv) icons = g_resources_enumerate_children (BASE "/icons", G_RESOURCE_LOOKUP_FLAGS_NONE,
                                                        NULL);

  g_assert_true (resource_exists (BASE "/style.css"));
  g_assert_null (icons);
  for (guint i = 0; i < G_N_ELEMENTS (missed); i++)
    {
      g_autofree char *path = g_strconcat (BASE "/", missed[i], NULL);
      if (resource_exists (path))
        g_test_fail_printf ("%s is in the resources, but nothing loads it", path);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/panel-application/no-resource-base-path", test_no_resource_base_path);
  g_test_add_func ("/panel-application/nothing-else-to-load", test_nothing_else_to_load);
  return g_test_run ();
}
