/* sr-ctl-client.c: reaching policyd, and turning its errors into exit statuses
 *
 * Whatever owns org.gnome.SessionRestore.Policy answers as the service:
 * while policyd is not running, that may be a sandboxed app that took the
 * name. The tool asks the owner nothing, and believes nothing it said,
 * until it has verified it as a host process of this user (sr-peer.c);
 * the proxy then sends every call to that owner's unique name. Otherwise
 * it says so and exits 6, as when there is no service at all.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <stdio.h>

#include "sr-app-id.h"
#include "sr-bus.h"
#include "sr-ctl.h"
#include "sr-ctl-output.h"
#include "sr-error.h"
#include "sr-peer.h"

/* A call waits longer than policyd waits for polkit (SR_POLKIT_WAIT_MS), so
 * that the answer comes from policyd ("polkit did not answer") and not
 * from a timeout of ours, after which polkit's late "yes" could still
 * apply the change: policyd does not act on an answer later than its own
 * wait, nor for a caller that left. Removing thousands of files adds
 * seconds. With interaction (a terminal), as long as it takes: a person is
 * at the authentication dialog, which policyd waits for up to
 * SR_POLKIT_INTERACTIVE_WAIT_MS. */
#define CALL_TIMEOUT_MS (SR_POLKIT_WAIT_MS + 40000)
G_STATIC_ASSERT (CALL_TIMEOUT_MS > SR_POLKIT_WAIT_MS);

/* D-Bus activation is tried when the service is not running, by hand
 * rather than by the proxy: the proxy swallows the bus's answer, and the
 * answer ("not provided by any .service files", "exited with status 1") is
 * what a user needs to hear. */
static gboolean
start_service (GDBusConnection  *bus,
               GError          **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) local_error = NULL;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "StartServiceByName",
                                       g_variant_new ("(su)", SR_BUS_NAME, 0),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE,
                                       -1, NULL, &local_error);
  if (reply == NULL)
    {
      g_dbus_error_strip_remote_error (local_error);
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "The Session Restore service (%s) is not running and could not be started: %s",
                   SR_BUS_NAME, local_error->message);
      return FALSE;
    }
  return TRUE;
}

static SrDBusPolicy *
new_proxy (SrCtl            *ctl,
           GDBusProxyFlags   flags,
           GError          **error)
{
  SrDBusPolicy *proxy =
    sr_dbus_policy_proxy_new_sync (ctl->bus,
                                   flags | G_DBUS_PROXY_FLAGS_DO_NOT_AUTO_START_AT_CONSTRUCTION,
                                   SR_BUS_NAME, SR_OBJECT_PATH, NULL, error);

  /* For the generated calls too (a listing needs polkit). */
  if (proxy != NULL)
    g_dbus_proxy_set_default_timeout (G_DBUS_PROXY (proxy),
                                      ctl->interactive ? G_MAXINT : CALL_TIMEOUT_MS);
  return proxy;
}

/* Verifies the proxy's owner, unless it is the one verified already;
 * FALSE with an Unavailable error that says why it is not trusted. A
 * service that stopped has no owner to distrust. */
gboolean
sr_ctl_trust_owner (SrCtl   *ctl,
                    GError **error)
{
  g_autofree char *owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (ctl->proxy));
  g_autoptr(GError) local_error = NULL;

  if (owner == NULL || g_strcmp0 (owner, ctl->owner) == 0)
    return TRUE;
  if (!sr_peer_verify_sync (ctl->bus, owner, NULL, NULL, NULL, NULL, &local_error))
    {
      ctl->untrusted = TRUE;
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "The program answering as the Session Restore service (%s) is not one "
                   "this tool trusts: %s. Nothing it says is used, and nothing was changed.",
                   SR_BUS_NAME, local_error->message);
      return FALSE;
    }
  g_free (ctl->owner);
  ctl->owner = g_steal_pointer (&owner);
  return TRUE;
}

gboolean
sr_ctl_connect (SrCtl            *ctl,
                GDBusProxyFlags   flags,
                GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *owner = NULL;

  sr_error_quark ();   /* registers the D-Bus error names before any call */

  ctl->bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &local_error);
  if (ctl->bus == NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "Cannot reach the session bus: %s", local_error->message);
      return FALSE;
    }

  /* Usually the service runs: the proxy finds its owner, and nothing
   * else is asked of the bus. */
  ctl->proxy = new_proxy (ctl, flags, error);
  if (ctl->proxy == NULL)
    return FALSE;
  owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (ctl->proxy));
  if (owner != NULL)
    return sr_ctl_trust_owner (ctl, error);

  if (!start_service (ctl->bus, error))
    return FALSE;
  g_clear_object (&ctl->proxy);
  ctl->proxy = new_proxy (ctl, flags, error);
  if (ctl->proxy == NULL)
    return FALSE;
  /* It may have gone again between the activation and now. */
  owner = g_dbus_proxy_get_name_owner (G_DBUS_PROXY (ctl->proxy));
  if (owner == NULL)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "The Session Restore service (%s) is not running", SR_BUS_NAME);
      return FALSE;
    }
  return sr_ctl_trust_owner (ctl, error);
}

/* The generated call functions send no flags; this is the proxy's own call
 * for the methods polkit guards, so that an agent may ask for a password
 * when a person is at the terminal (and the call may then take a while). */
GVariant *
sr_ctl_call (SrCtl               *ctl,
             const char          *method,
             GVariant            *parameters,
             const GVariantType  *reply_type,
             GError             **error)
{
  GDBusCallFlags flags = G_DBUS_CALL_FLAGS_NONE;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) local_error = NULL;

  if (ctl->interactive)
    flags |= G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION;
  /* -1: the proxy's timeout (new_proxy()). */
  reply = g_dbus_proxy_call_sync (G_DBUS_PROXY (ctl->proxy), method, parameters,
                                  flags, -1, NULL, &local_error);
  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE,
                   "The Session Restore service did not answer %s within %d s",
                   method, CALL_TIMEOUT_MS / 1000);
      return NULL;
    }
  if (reply == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (reply_type != NULL && !g_variant_is_of_type (reply, reply_type))
    {
      g_set_error (error, SR_ERROR, SR_ERROR_FAILED,
                   "%s answered with type “%s”, not “%s”", method,
                   g_variant_get_type_string (reply), g_variant_type_peek_string (reply_type));
      return NULL;
    }
  return g_steal_pointer (&reply);
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

/* One line on stderr, without the D-Bus error name: the exit status
 * carries the kind of error, the message what to do about it. */
int
sr_ctl_fail (const GError *error)
{
  g_autoptr(GError) copy = g_error_copy (error);
  g_autofree char *message = NULL;

  if (g_dbus_error_is_remote_error (copy))
    g_dbus_error_strip_remote_error (copy);
  /* The message may be the service's, naming what a caller sent it. */
  message = sr_ctl_escape (copy->message);
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
  g_clear_object (&ctl->proxy);
  g_clear_object (&ctl->bus);
  g_clear_pointer (&ctl->owner, g_free);
}
