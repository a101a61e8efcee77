/* main.c: session-restore-panel
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-panel"

#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "sr-error.h"
#include "sr-panel-application.h"

int
main (int    argc,
      char **argv)
{
  g_autoptr(SrPanelApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* Registers org.gnome.SessionRestore.Error.* with GDBus, so that
   * policyd's errors arrive as SR_ERROR codes. */
  (void) SR_ERROR;

  app = sr_panel_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
