/* sr-ctl.h: what the commands of session-restore-ctl share
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "session-restore.h"

G_BEGIN_DECLS

/* The exit statuses are part of the tool's contract (session-restore-ctl(1));
 * 1 and 2 are the verdicts of "check", so scripts can test them directly. */
typedef enum {
  SR_CTL_EXIT_OK = 0,            /* success; "check": allowed */
  SR_CTL_EXIT_DENY = 1,          /* "check": denied */
  SR_CTL_EXIT_ASK = 2,           /* "check": ask the user first */
  SR_CTL_EXIT_INVALID = 3,       /* bad command line or argument; nothing changed */
  SR_CTL_EXIT_LOCKED = 4,        /* the administrator locked the setting */
  SR_CTL_EXIT_NOT_ALLOWED = 5,   /* polkit (or the sandbox rule) refused */
  SR_CTL_EXIT_UNAVAILABLE = 6,   /* no bus, no service (or one not to trust),
                                  * or polkit unreachable */
  SR_CTL_EXIT_FAILED = 7,        /* anything else, including a partly failed clear */
} SrCtlExit;

typedef struct {
  SrPolicyClient *client;   /* (owned) (nullable): until connected; it
                             * verifies the service before believing it */
  gboolean untrusted;       /* the name's owner is not to be trusted */
  gboolean color;           /* stdout is a terminal and NO_COLOR is unset */
  gboolean interactive;     /* stdin is a terminal: polkit may ask, clear asks */
} SrCtl;

/* A command: argv[0] is the command's name. Returns an SrCtlExit. */
typedef int (*SrCtlCommandFunc) (SrCtl *ctl, int argc, char **argv);

/* sr-ctl-client.c */
gboolean   sr_ctl_connect          (SrCtl            *ctl,
                                    GError          **error);
gboolean   sr_ctl_trust_owner      (SrCtl            *ctl,
                                    GError          **error);
SrCallFlags sr_ctl_call_flags      (SrCtl            *ctl);
int        sr_ctl_fail             (const GError     *error);
void       sr_ctl_set_verbose      (gboolean          verbose);
int        sr_ctl_usage_error      (const char       *command,
                                    const char       *format,
                                    ...) G_GNUC_PRINTF (2, 3);
gboolean   sr_ctl_parse_options    (GOptionContext   *context,
                                    int              *argc,
                                    char           ***argv,
                                    int              *out_exit);
gboolean   sr_ctl_validate_app_ids (char            **app_ids,
                                    GError          **error);

/* sr-ctl-status.c */
int sr_ctl_cmd_status  (SrCtl *ctl, int argc, char **argv);

/* sr-ctl-settings.c */
int sr_ctl_cmd_get     (SrCtl *ctl, int argc, char **argv);
int sr_ctl_cmd_set     (SrCtl *ctl, int argc, char **argv);
int sr_ctl_cmd_reset   (SrCtl *ctl, int argc, char **argv);
int sr_ctl_cmd_exclude (SrCtl *ctl, int argc, char **argv);

/* sr-ctl-recovery.c */
int sr_ctl_cmd_allow_recovery (SrCtl *ctl, int argc, char **argv);

/* sr-ctl-list.c, sr-ctl-clear.c */
int sr_ctl_cmd_list    (SrCtl *ctl, int argc, char **argv);
int sr_ctl_cmd_clear   (SrCtl *ctl, int argc, char **argv);

/* sr-ctl-check.c */
int sr_ctl_cmd_check   (SrCtl *ctl, int argc, char **argv);

/* sr-ctl-monitor.c */
int sr_ctl_cmd_monitor (SrCtl *ctl, int argc, char **argv);

/* sr-ctl-session.c */
int sr_ctl_cmd_session (SrCtl *ctl, int argc, char **argv);

/* sr-ctl-complete.c */
int sr_ctl_cmd_complete (SrCtl *ctl, int argc, char **argv);

void sr_ctl_clear (SrCtl *ctl);

G_END_DECLS
