/* sr-gtk-state.c: GTK's per-instance app state files
 *
 * $XDG_STATE_HOME/<app-id>#<instance-id>.state is a serialized
 * (a{sv}a{sv}a(a{sv}a{sv})): GTK's global state, the app's global state,
 * and one (GTK state, app state) pair per window. Only the shape is read
 * here, to tell how many windows an instance would bring back.
 *
 * The file comes from another program; like sr-gnome-session.c, nothing
 * here trusts it beyond what GVariant's own checks allow.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-gtk-state"

#include "config.h"

#include "sr-error.h"
#include "sr-gtk-state.h"

#define GTK_STATE_TYPE G_VARIANT_TYPE ("(a{sv}a{sv}a(a{sv}a{sv}))")

gboolean
sr_gtk_state_parse (const void  *data,
                    gsize        size,
                    guint       *out_windows,
                    GError     **error)
{
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GVariant) state = NULL;
  g_autoptr(GVariant) windows = NULL;
  gsize n;

  if (size > SR_GTK_STATE_MAX_SIZE)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_FAILED,
                   "is %" G_GSIZE_FORMAT " bytes, more than a GTK state can be", size);
      return FALSE;
    }

  /* Nothing made from @data outlives this call: no copy. */
  bytes = g_bytes_new_static (data, size);
  state = g_variant_ref_sink (g_variant_new_from_bytes (GTK_STATE_TYPE, bytes, FALSE));
  /* GTK writes what GVariant serialized, which is always in normal form;
   * anything else was not written by GTK, and counting its children would
   * count what GVariant made up for it. (GVariant takes an empty file, and
   * most runs of zeros, for normal: no windows, or empty windows, which is
   * also what GTK would restore from them.) */
  if (!g_variant_is_normal_form (state))
    {
      g_set_error_literal (error, SR_ERROR, SR_ERROR_FAILED,
                           "is not a serialized (a{sv}a{sv}a(a{sv}a{sv}))");
      return FALSE;
    }

  windows = g_variant_get_child_value (state, 2);
  n = g_variant_n_children (windows);
  if (out_windows != NULL)
    *out_windows = MIN (n, G_MAXUINT);
  return TRUE;
}
