/* sr-format-gtk.c: GTK's per-instance app state files
 *
 * $XDG_STATE_HOME/<app-id>@<instance-id>.state (<app-id>@fallback.state
 * when no session manager answered; a Flatpak app's $XDG_STATE_HOME is
 * ~/.var/app/<app-id>/.local/state) is a serialized
 * (a{sv}a{sv}a(a{sv}a{sv})): GTK's global state, the app's global state,
 * and one (GTK state, app state) pair per window. Only the shape is read
 * here, to tell how many windows an instance would bring back. GTK writes
 * it with g_file_set_contents(): a copy being written is
 * "<file>.XXXXXX", which no store's "….state" pattern names.
 *
 * The file comes from another program; like sr-format-gnome-session.c, nothing
 * here trusts it beyond what GVariant's own checks allow.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-format-gtk"

#include "config.h"

#include <string.h>

#include "sr-app-id.h"
#include "sr-error.h"
#include "sr-format-gtk.h"
#include "sr-serialized.h"

#define GTK_STATE_TYPE G_VARIANT_TYPE ("(a{sv}a{sv}a(a{sv}a{sv}))")

gboolean
sr_format_gtk_parse (const void  *data,
                    gsize        size,
                    guint       *out_windows,
                    GError     **error)
{
  /* Nothing made from @data outlives this call: no copy. GVariant takes
   * an empty file, and most runs of zeros, for normal: no windows, or
   * empty windows, which is also what GTK would restore from them. */
  g_autoptr(GBytes) bytes = g_bytes_new_static (data, size);
  g_autoptr(GVariant) state = sr_serialized_load (GTK_STATE_TYPE, bytes,
                                                  SR_FORMAT_GTK_MAX_SIZE, error);
  g_autoptr(GVariant) windows = NULL;
  gsize n;

  if (state == NULL)
    return FALSE;

  windows = g_variant_get_child_value (state, 2);
  n = g_variant_n_children (windows);
  if (out_windows != NULL)
    *out_windows = MIN (n, G_MAXUINT);
  return TRUE;
}

/* Whether @app_id can name a GTK state file: GTK names it after its
 * GApplication's id, which has a dot (g_application_id_is_valid()).
 * Others keep files of the same shape in the same directory,
 * "gnome-session@gnome.state" and our backend's
 * "session-restore-portal@sway.state": their "app" has none, and they are
 * no app's GTK state. Beyond the dot, any app id goes, "+" included, as
 * everywhere else (sr-app-id.c). */
gboolean
sr_format_gtk_app_id_is_valid (const char *app_id)
{
  return sr_app_id_validate (app_id, NULL) && strchr (app_id, '.') != NULL;
}
