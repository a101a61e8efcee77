/* sr-window-size.c: the window opens at the size it was closed at
 *
 * The app has no GSettings schema of its own (org.gnome.SessionRestore is
 * policyd's, and written only through it): the size lives in a key file,
 * $XDG_CONFIG_HOME/session-restore/panel.ini. Failing to read or write it
 * costs nothing but the size.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <errno.h>

#include <glib/gstdio.h>

#include "sr-window-size.h"

static char *
keyfile_path (void)
{
  return g_build_filename (g_get_user_config_dir (), "session-restore", "panel.ini", NULL);
}

void
sr_window_size_restore (GtkWindow *window)
{
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autofree char *path = keyfile_path ();
  int width, height;

  if (!g_key_file_load_from_file (keyfile, path, G_KEY_FILE_NONE, NULL))
    return;
  width = g_key_file_get_integer (keyfile, "window", "width", NULL);
  height = g_key_file_get_integer (keyfile, "window", "height", NULL);
  if (width >= 360 && height >= 294 && width <= 16384 && height <= 16384)
    gtk_window_set_default_size (window, width, height);
  if (g_key_file_get_boolean (keyfile, "window", "maximized", NULL))
    gtk_window_maximize (window);
}

void
sr_window_size_save (GtkWindow *window)
{
  g_autoptr(GKeyFile) keyfile = g_key_file_new ();
  g_autofree char *path = keyfile_path ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;
  int width, height;

  gtk_window_get_default_size (window, &width, &height);
  g_key_file_set_integer (keyfile, "window", "width", width);
  g_key_file_set_integer (keyfile, "window", "height", height);
  g_key_file_set_boolean (keyfile, "window", "maximized", gtk_window_is_maximized (window));
  if (g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_key_file_save_to_file (keyfile, path, &error))
    g_message ("Could not remember the window size in %s: %s", path,
               error != NULL ? error->message : g_strerror (errno));
}
