/* sr-ctl-client.c: reaching policyd, and turning its errors into exit statuses
 *
 * Whatever owns org.gnome.SessionRestore.Policy answers as the service:
 * while policyd is not running, that may be a sandboxed app that took the
 * name. libsessionrestore's client asks the owner nothing, and believes
 * nothing it said, until it has verified it as a host process of this
 * user, and then sends every call to that owner's unique name. Otherwise
 * the tool says so and exits 6, as when there is no service at all.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sr-app-id.h"
#include "sr-bus.h"
#include "sr-ctl.h"
#include "sr-ctl-output.h"
#include "sr-error.h"

/* Whether the service found is one to ask: libsessionrestore verified its
 * owner; one that is not to be trusted is told apart from a missing
 * service only in the message, both being unavailable to the tool (exit
 * 6). */
gboolean
sr_ctl_trust_owner (SrCtl   *ctl,
                    GError **error)
{
  const char *distrust = sr_policy_client_get_distrust (ctl->client);

  if (distrust != NULL)
    {
      ctl->untrusted = TRUE;
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "The program answering as the Session Restore service (%s) is not one "
                   "this tool trusts: %s. Nothing it says is used, and nothing was changed.",
                   SR_BUS_NAME, distrust);
      return FALSE;
    }
  return sr_policy_client_check_service (ctl->client, error);
}

/* Usually the service runs: its owner is verified and its properties
 * read; if not, it is started (by the library, so that the bus's answer
 * when it cannot be, "not provided by any .service files", is what the
 * user hears). */
gboolean
sr_ctl_connect (SrCtl   *ctl,
                GError **error)
{
  g_autoptr(GError) local_error = NULL;

  ctl->client = sr_policy_client_new_for_bus_sync (NULL, SR_POLICY_CLIENT_FLAGS_NONE, NULL,
                                                   &local_error);
  if (ctl->client == NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "Cannot reach the session bus: %s", local_error->message);
      return FALSE;
    }
  return sr_ctl_trust_owner (ctl, error);
}

/* For the methods polkit guards: an agent may ask for a password when a
 * person is at the terminal (and the call then waits as long as it
 * takes). */
SrCallFlags
sr_ctl_call_flags (SrCtl *ctl)
{
  return ctl->interactive ? SR_CALL_FLAGS_ALLOW_INTERACTION : SR_CALL_FLAGS_NONE;
}

static int
exit_status_for (const GError *error)
{
  if (error->domain == SR_ERROR)
    {
      switch ((SrError) error->code)
        {
        case SR_ERROR_INVALID_ARGS: return SR_CTL_EXIT_INVALID;
        case SR_ERROR_LOCKED: return SR_CTL_EXIT_LOCKED;
        case SR_ERROR_NOT_ALLOWED: return SR_CTL_EXIT_NOT_ALLOWED;
        case SR_ERROR_UNAVAILABLE: return SR_CTL_EXIT_UNAVAILABLE;
        case SR_ERROR_FAILED: return SR_CTL_EXIT_FAILED;
        default: return SR_CTL_EXIT_FAILED;
        }
    }
  if (error->domain == G_DBUS_ERROR)
    {
      switch (error->code)
        {
        case G_DBUS_ERROR_SERVICE_UNKNOWN:
        case G_DBUS_ERROR_NAME_HAS_NO_OWNER:
        case G_DBUS_ERROR_NO_REPLY:
        case G_DBUS_ERROR_TIMEOUT:
        case G_DBUS_ERROR_TIMED_OUT:
        case G_DBUS_ERROR_DISCONNECTED:
        case G_DBUS_ERROR_NO_SERVER:
        case G_DBUS_ERROR_SPAWN_FAILED:
        case G_DBUS_ERROR_SPAWN_EXEC_FAILED:
        case G_DBUS_ERROR_SPAWN_CHILD_EXITED:
        case G_DBUS_ERROR_SPAWN_CHILD_SIGNALED:
          return SR_CTL_EXIT_UNAVAILABLE;
        case G_DBUS_ERROR_ACCESS_DENIED:
        case G_DBUS_ERROR_AUTH_FAILED:
          return SR_CTL_EXIT_NOT_ALLOWED;
        case G_DBUS_ERROR_INVALID_ARGS:
          return SR_CTL_EXIT_INVALID;
        default:
          return SR_CTL_EXIT_FAILED;
        }
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
    return SR_CTL_EXIT_UNAVAILABLE;
  return SR_CTL_EXIT_FAILED;
}

static gboolean verbose;

/* --verbose, anywhere before "--": errors name their D-Bus error. */
void
sr_ctl_set_verbose (gboolean value)
{
  verbose = value;
}

/* The D-Bus error an error came as, or would go as: the remote name
 * GDBus kept, else the registered name of the service's and the bus's
 * errors (libsessionrestore strips the remote part of its calls'). */
static char *
dbus_error_name (const GError *error)
{
  if (g_dbus_error_is_remote_error (error))
    return g_dbus_error_get_remote_error (error);
  if (error->domain == SR_ERROR || error->domain == G_DBUS_ERROR)
    return g_dbus_error_encode_gerror (error);
  return NULL;
}

/* One line on stderr, without the D-Bus error name (but with --verbose,
 * as GDBus gives it): the exit status carries the kind of error, the
 * message what to do about it. */
int
sr_ctl_fail (const GError *error)
{
  g_autoptr(GError) copy = g_error_copy (error);
  g_autofree char *name = verbose ? dbus_error_name (error) : NULL;
  g_autofree char *message = NULL;

  if (g_dbus_error_is_remote_error (copy))
    g_dbus_error_strip_remote_error (copy);
  /* The message may be the service's, naming what a caller sent it. */
  message = sr_ctl_escape (copy->message);
  if (name != NULL)
    {
      g_autofree char *name_shown = sr_ctl_escape (name);
      g_printerr ("session-restore-ctl: GDBus.Error:%s: %s\n", name_shown, message);
    }
  else
    g_printerr ("session-restore-ctl: %s\n", message);
  return exit_status_for (error);
}

int
sr_ctl_usage_error (const char *command,
                    const char *format,
                    ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_printerr ("session-restore-ctl: %s\n", message);
  if (command != NULL)
    g_printerr ("Try “session-restore-ctl %s --help”.\n", command);
  else
    g_printerr ("Try “session-restore-ctl --help”.\n");
  return SR_CTL_EXIT_INVALID;
}

/* Parses a command's options; FALSE with *out_exit set when the command
 * must not run (a bad option, or --help, which was printed). */
gboolean
sr_ctl_parse_options (GOptionContext   *context,
                      int              *argc,
                      char           ***argv,
                      int              *out_exit)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      /* GLib's words, in the tool's quotes where they are English. */
      if (g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION) &&
          g_str_has_prefix (error->message, "Unknown option "))
        *out_exit = sr_ctl_usage_error ((*argv)[0], "Unknown option “%s”",
                                        error->message + strlen ("Unknown option "));
      else
        *out_exit = sr_ctl_usage_error ((*argv)[0], "%s", error->message);
      return FALSE;
    }
  return TRUE;
}

/* The service checks app ids too; checking them here as well means a bad
 * one is reported before anything (a listing, a clear of the others) is
 * done, with the same rules (common/sr-app-id.c). */
gboolean
sr_ctl_validate_app_ids (char    **app_ids,
                         GError  **error)
{
  for (guint i = 0; app_ids != NULL && app_ids[i] != NULL; i++)
    if (!sr_app_id_validate (app_ids[i], error))
      return FALSE;
  return TRUE;
}

void
sr_ctl_clear (SrCtl *ctl)
{
  g_clear_object (&ctl->client);
}
