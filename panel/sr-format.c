/* sr-format.c: sizes, times and counts as people read them
 *
 * One wording for saved sessions everywhere: the dialogs that ask and the
 * toasts that follow count the same way.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-format"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "sr-format.h"

char *
sr_format_time_ago (gint64 then_usec,
                    gint64 now_usec)
{
  gint64 seconds = (now_usec - then_usec) / G_USEC_PER_SEC;
  int n;

  if (seconds < 60)
    return g_strdup (_("saved just now"));
  if (seconds < 3600)
    {
      n = (int) (seconds / 60);
      return g_strdup_printf (ngettext ("saved %d minute ago", "saved %d minutes ago", n), n);
    }
  if (seconds < 86400)
    {
      n = (int) (seconds / 3600);
      return g_strdup_printf (ngettext ("saved %d hour ago", "saved %d hours ago", n), n);
    }
  n = (int) MIN (seconds / 86400, G_MAXINT);
  if (n == 1)
    return g_strdup (_("saved yesterday"));
  return g_strdup_printf (ngettext ("saved %d day ago", "saved %d days ago", n), n);
}

/* "1 window, 260 kB", or "260 kB" when the windows are not known. */
char *
sr_format_session_size (int     windows,
                        guint64 bytes)
{
  g_autofree char *size = g_format_size (bytes);

  if (windows < 0)
    return g_steal_pointer (&size);
  /* Translators: a saved session's windows, then its size */
  return g_strdup_printf (ngettext ("%d window, %s", "%d windows, %s", windows), windows, size);
}

/* "6 saved sessions (340 kB), 2 too old to be restored", or "Nothing
 * saved": one saved session per app, as the Clear dialog counts them;
 * those that will not come back are told apart in the words of their rows
 * (and of session-restore-ctl list). @incomplete: some saved sessions
 * could not be read, so there may be more. */
char *
sr_format_totals (guint    n_saved,
                  guint    n_expired,
                  guint    n_cleared,
                  guint64  bytes,
                  gboolean incomplete)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  if (n_saved == 0)
    g_ptr_array_add (parts, g_strdup (_("Nothing saved")));
  else
    {
      g_autofree char *size = g_format_size (bytes);

      /* Translators: how many apps have a saved session, then their size */
      g_ptr_array_add (parts, g_strdup_printf (ngettext ("%u saved session (%s)",
                                                         "%u saved sessions (%s)", n_saved),
                                               n_saved, size));
    }
  if (n_expired > 0)
    /* Translators: after "6 saved sessions (340 kB)": how many of them are
     * past "Keep Saved Sessions For", as their rows say "Too old to be restored" */
    g_ptr_array_add (parts, g_strdup_printf (ngettext ("%u too old to be restored",
                                                       "%u too old to be restored", n_expired),
                                             n_expired));
  if (n_cleared > 0)
    /* Translators: after "6 saved sessions (340 kB)": how many of them
     * were cleared before and will not be restored */
    g_ptr_array_add (parts, g_strdup_printf (ngettext ("%u cleared, will not be restored",
                                                       "%u cleared, will not be restored",
                                                       n_cleared),
                                             n_cleared));
  if (incomplete)
    /* Translators: after the totals when some saved sessions could not be read */
    g_ptr_array_add (parts, g_strdup (_("some could not be read")));
  g_ptr_array_add (parts, NULL);
  /* Translators: what separates the parts of the saved sessions' totals */
  return g_strjoinv (_(", "), (char **) parts->pdata);
}

/* An app with nothing saved: "Not saved" when it is opted out, so that
 * the row tells it apart from one that has simply saved nothing yet. */
char *
sr_format_nothing_saved (gboolean excluded)
{
  return g_strdup (excluded ? _("Not saved") : _("Nothing saved"));
}

/* A toast's text after clearing: short, and the same count the dialog
 * gave. */
char *
sr_format_cleared (guint n_apps)
{
  return g_strdup_printf (ngettext ("Cleared %u saved session", "Cleared %u saved sessions", n_apps),
                          n_apps);
}

/* A consumer as a person reads it: a host program by its desktop file's
 * name where @program_name knows one ("GNOME Shell" for gnome-shell),
 * else by its executable's name; a sandboxed app ("flatpak/APP_ID",
 * "snap/APP_ID") by its own name where @app_name knows it, marked as an
 * app in a sandbox, which is what it is (an app asking about itself, not
 * a desktop component). */
static char *
consumer_name (const char    *name,
               SrAppNameFunc  app_name,
               SrAppNameFunc  program_name,
               gpointer       user_data)
{
  const char *slash = strchr (name, '/');
  g_autofree char *shown = NULL;

  if (slash == NULL)
    {
      shown = program_name (name, user_data);
      return shown != NULL ? g_steal_pointer (&shown) : g_strdup (name);
    }
  shown = app_name (slash + 1, user_data);
  /* Translators: an app in a sandbox (Flatpak, Snap) that asked itself */
  return g_strdup_printf (_("%s (sandboxed app)"), shown != NULL ? shown : slash + 1);
}

/* @consumers: (nullable): the Consumers property, a(sx), most frequent
 * first. */
char *
sr_format_consumers (GVariant      *consumers,
                     SrAppNameFunc  app_name,
                     SrAppNameFunc  program_name,
                     gpointer       user_data)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GVariantIter iter;
  const char *name;
  gint64 last;

  if (consumers != NULL)
    {
      g_variant_iter_init (&iter, consumers);
      while (g_variant_iter_next (&iter, "(&sx)", &name, &last))
        /* "session-restore-ctl check" asks as a script would, to see what
         * policyd says: it saves and restores nothing. */
        if (!g_str_equal (name, "session-restore-ctl"))
          g_ptr_array_add (names, consumer_name (name, app_name, program_name, user_data));
    }
  if (names->len == 0)
    return g_strdup (_("Nothing on this desktop has asked yet: your desktop may not restore apps"));
  if (names->len == 1)
    return g_strdup_printf (_("Used by %s"), (const char *) names->pdata[0]);
  if (names->len == 2)
    /* Translators: the names of two programs */
    return g_strdup_printf (_("Used by %s and %s"), (const char *) names->pdata[0],
                            (const char *) names->pdata[1]);
  /* Translators: the names of two programs, then how many others */
  return g_strdup_printf (ngettext ("Used by %s, %s and %u other", "Used by %s, %s and %u others",
                                    names->len - 2),
                          (const char *) names->pdata[0], (const char *) names->pdata[1],
                          names->len - 2);
}
