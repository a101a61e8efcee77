/* main.c: session-restore-ctl, the command line of Session Restore
 *
 * Finds the command and runs it; each command parses its own options
 * (so each has its own --help) and talks only to policyd, but for
 * "session end", which is session-restore-portal's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sr-ctl.h"

static const struct {
  const char *name;
  SrCtlCommandFunc func;
  const char *summary;   /* NULL: not listed (an old name, or for the shell's
                          * completion) */
} commands[] = {
  { "status", sr_ctl_cmd_status, "Settings, locks, saved sessions, the service (the default)" },
  { "list", sr_ctl_cmd_list, "Saved sessions per app (--json for scripts)" },
  { "clear", sr_ctl_cmd_clear, "Clear the saved sessions of some apps or of all" },
  { "exclude", sr_ctl_cmd_exclude, "Opt apps out of save and restore" },
  { "include", sr_ctl_cmd_exclude, "Opt apps back in" },
  { "allow-recovery", sr_ctl_cmd_allow_recovery,
    "Restore an app's saved sessions after a crash again" },
  /* Its first name, accepted still; one command per action is listed. */
  { "reset-crash-guard", sr_ctl_cmd_allow_recovery, NULL },
  { "get", sr_ctl_cmd_get, "Print a setting" },
  { "set", sr_ctl_cmd_set, "Change a setting" },
  { "reset", sr_ctl_cmd_reset, "Put a setting back to its default" },
  { "check", sr_ctl_cmd_check, "What the service would answer about an app, and why" },
  { "monitor", sr_ctl_cmd_monitor, "Print changes as they happen" },
  { "session", sr_ctl_cmd_session,
    "“session end”: the session ends (for the portal); “session prepare”: before login" },
  { "_complete", sr_ctl_cmd_complete, NULL },
};

static int
run_command (SrCtl  *ctl,
             guint   i,
             int     argc,
             char  **argv)
{
  /* Each command's --help then reads "session-restore-ctl COMMAND …". */
  g_autofree char *prgname = g_strconcat ("session-restore-ctl ", commands[i].name, NULL);
  int status;

  g_set_prgname (prgname);
  status = commands[i].func (ctl, argc, argv);
  sr_ctl_clear (ctl);
  return status;
}

static void
print_help (void)
{
  int width = 0;

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (commands[i].summary != NULL)
      width = MAX (width, (int) strlen (commands[i].name));
  g_print ("Usage:\n"
           "  session-restore-ctl [COMMAND [OPTION…] [ARGUMENT…]]\n"
           "\n"
           "Control session save and restore through session-restore-policyd.\n"
           "Without a command, shows “status”.\n"
           "\n"
           "Commands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (commands[i].summary != NULL)
      g_print ("  %-*s  %s\n", width, commands[i].name, commands[i].summary);
  g_print ("\n"
           "Options:\n"
           "  -h, --help     Show this help; “help COMMAND” or “COMMAND --help”\n"
           "                 shows a command's\n"
           "  --version      Show the version\n"
           "  --verbose      With any command: errors name their D-Bus error\n"
           "\n"
           "Exit status: 0 success (check: allowed), 1 denied, 2 ask, 3 invalid\n"
           "arguments, 4 locked, 5 not allowed, 6 service unavailable, 7 other failure.\n"
           "See session-restore-ctl(1).\n");
}

int
main (int    argc,
      char **argv)
{
  SrCtl ctl = { 0 };
  const char *no_color = g_getenv ("NO_COLOR");

  /* For the locale's character set and time format; the messages are
   * English (see session-restore-ctl(1)). */
  setlocale (LC_ALL, "");

  /* --verbose is every command's: taken out wherever it is before "--". */
  for (int i = 1; i < argc && !g_str_equal (argv[i], "--"); i++)
    if (g_str_equal (argv[i], "--verbose"))
      {
        sr_ctl_set_verbose (TRUE);
        memmove (argv + i, argv + i + 1, (argc - i) * sizeof (char *));
        argc--;
        i--;
      }

  if (argc >= 2 && (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h") ||
      g_str_equal (argv[1], "help")))
    {
      /* "help COMMAND" is "COMMAND --help". */
      if (argc > 2 && g_str_equal (argv[1], "help"))
        {
          char *help_argv[] = { argv[2], (char *) "--help", NULL };
          for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
            if (g_str_equal (commands[i].name, argv[2]))
              return run_command (&ctl, i, 2, help_argv);
          return sr_ctl_usage_error (NULL, "There is no command “%s”", argv[2]);
        }
      print_help ();
      return SR_CTL_EXIT_OK;
    }
  if (argc >= 2 && g_str_equal (argv[1], "--version"))
    {
      g_print ("session-restore-ctl %s\n", PACKAGE_VERSION);
      return SR_CTL_EXIT_OK;
    }

  ctl.color = isatty (STDOUT_FILENO) && (no_color == NULL || *no_color == '\0');
  ctl.interactive = isatty (STDIN_FILENO);

  /* As systemctl and powerprofilesctl do. */
  if (argc < 2)
    {
      char *status_argv[] = { (char *) commands[0].name, NULL };
      return run_command (&ctl, 0, 1, status_argv);
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      if (g_str_equal (commands[i].name, argv[1]))
        return run_command (&ctl, i, argc - 1, argv + 1);
    }
  if (argv[1][0] == '-')
    return sr_ctl_usage_error (NULL, "Unknown option “%s”", argv[1]);
  return sr_ctl_usage_error (NULL, "There is no command “%s”", argv[1]);
}
