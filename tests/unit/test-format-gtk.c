/* test-format-gtk.c: GTK's app state files (policyd/stores/sr-format-gtk.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-format-gtk"

#include "config.h"

#include "sr-format-gtk.h"

static GVariant *
gtk_state (guint windows)
{
  GVariantBuilder list;

  g_variant_builder_init (&list, G_VARIANT_TYPE ("a(a{sv}a{sv})"));
  for (guint i = 0; i < windows; i++)
    g_variant_builder_add_parsed (&list, "({'maximized': <false>}, {'width': <800>})");
  return g_variant_ref_sink (g_variant_new_parsed ("({'app-id': <'org.example.A'>}, "
                                                   "{'data': <@ay [1, 2]>}, %@a(a{sv}a{sv}))",
                                                   g_variant_builder_end (&list)));
}

static void
test_gtk_state_windows (void)
{
  guint n;

  for (guint windows = 0; windows < 4; windows++)
    {
      g_autoptr(GVariant) state = gtk_state (windows);
      g_autoptr(GError) error = NULL;

      n = 99;
      g_assert_true (sr_format_gtk_parse (g_variant_get_data (state), g_variant_get_size (state),
                                         &n, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (n, ==, windows);
    }

  /* What GTK reads out of an empty file, too. */
  g_assert_true (sr_format_gtk_parse ("", 0, &n, NULL));
  g_assert_cmpuint (n, ==, 0);
}

static void
test_gtk_state_rejects (void)
{
  g_autoptr(GVariant) state = gtk_state (2);
  g_autoptr(GVariant) wrong = g_variant_ref_sink (g_variant_new_parsed ("{'windows': <uint32 2>}"));
  g_autofree char *offsets_swapped = g_memdup2 (g_variant_get_data (state),
                                                g_variant_get_size (state));
  gsize size = g_variant_get_size (state);
  struct { const void *data; gsize size; } bad[] = {
    { offsets_swapped, size },
    { g_variant_get_data (wrong), g_variant_get_size (wrong) },
    { g_variant_get_data (state), size - 1 },
    { "\0", 1 },
  };
  char swap;

  /* Not normal form: GVariant would still read something out of it. */
  swap = offsets_swapped[size - 1];
  offsets_swapped[size - 1] = offsets_swapped[size - 2];
  offsets_swapped[size - 2] = swap;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      guint n = 99;

      g_assert_false (sr_format_gtk_parse (bad[i].data, bad[i].size, &n, &error));
      g_assert_nonnull (error);
      g_assert_cmpuint (n, ==, 99);
    }
}

/* The app ids a GTK state file can be named after: GApplication's have a
 * dot. The others that share $XDG_STATE_HOME and the "@" are no app's. */
static void
test_gtk_app_ids (void)
{
  const char *valid[] = {
    "org.example.App", "org.gnome.TextEditor", "a.b", "org.example.App_2", "org.example.my-app",
    /* As any app id may (sr-app-id.c): no GTK app's, but a store that
     * took them and a Clear that did not would leave them behind. */
    "org.example.foo+bar",
  };
  const char *invalid[] = {
    "gnome-session", "session-restore-portal", "firefox-esr", "vlc", "foo+bar", "c++",
    "org..example", "org.example.", ".org.example", "-org.example", "org.exa mple",
    "org/example.App", "", "org.example.App@1",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (valid); i++)
    if (!sr_format_gtk_app_id_is_valid (valid[i]))
      g_error ("“%s” was refused", valid[i]);
  for (gsize i = 0; i < G_N_ELEMENTS (invalid); i++)
    if (sr_format_gtk_app_id_is_valid (invalid[i]))
      g_error ("“%s” was taken", invalid[i]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/format-gtk/windows", test_gtk_state_windows);
  g_test_add_func ("/format-gtk/rejects", test_gtk_state_rejects);
  g_test_add_func ("/format-gtk/app-ids", test_gtk_app_ids);

  return g_test_run ();
}
