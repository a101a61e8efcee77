/* sr-ctl-check.c: ask policyd what it would answer a consumer, in words
 *
 * For consumer developers and administrators debugging a lockdown: the
 * same call a compositor or portal makes, the verdict as the exit status,
 * and the rule that decided it, naming the setting behind it and whether
 * the administrator locked that setting.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "session-restore-ctl"

#include "config.h"

#include <stdlib.h>

#include "sr-bus.h"
#include "sr-ctl.h"
#include "sr-ctl-json.h"
#include "sr-ctl-output.h"
#include "sr-error.h"

static const struct {
  const char *name;
  int reason;              /* -1: CheckSave */
} reasons[] = {
  { "save", -1 },
  { "launch", SR_REASON_LAUNCH },
  { "recover", SR_REASON_RECOVER },
  { "restore", SR_REASON_RESTORE },
};

/* TIME: "@SECONDS" since the epoch, an ISO 8601 date and time (local time
 * unless it names a zone), a date (its midnight, local), or an age: "30d",
 * "12h", "5m", "40s" ago. */
static gboolean
parse_time (const char  *text,
            gint64      *out_usec,
            GError     **error)
{
  g_autoptr(GTimeZone) local = g_time_zone_new_local ();
  g_autoptr(GDateTime) when = NULL;
  char *end = NULL;

  if (text[0] == '@')
    {
      gint64 seconds = g_ascii_strtoll (text + 1, &end, 10);
      if (end != text + 1 && *end == '\0')
        {
          *out_usec = seconds * G_USEC_PER_SEC;
          return TRUE;
        }
    }
  else if (g_ascii_isdigit (text[0]))
    {
      guint64 amount = g_ascii_strtoull (text, &end, 10);
      gint64 unit = 0;

      if (end != NULL && end[0] != '\0' && end[1] == '\0')
        unit = end[0] == 'd' ? G_TIME_SPAN_DAY : end[0] == 'h' ? G_TIME_SPAN_HOUR :
               end[0] == 'm' ? G_TIME_SPAN_MINUTE : end[0] == 's' ? G_TIME_SPAN_SECOND : 0;
      if (unit != 0 && amount < 100000)
        {
          *out_usec = g_get_real_time () - (gint64) amount * unit;
          return TRUE;
        }

      when = g_date_time_new_from_iso8601 (text, local);
      if (when == NULL && strlen (text) == 10)
        {
          g_autofree char *midnight = g_strconcat (text, "T00:00:00", NULL);
          when = g_date_time_new_from_iso8601 (midnight, local);
        }
      if (when != NULL)
        {
          *out_usec = g_date_time_to_unix (when) * G_USEC_PER_SEC +
                      g_date_time_get_microsecond (when);
          return TRUE;
        }
    }
  g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
               "“%s” is not a time: give @SECONDS since the epoch, a date and time "
               "(2026-12-01T09:30, 2026-12-01) or an age (30d, 12h, 5m, 40s)", text);
  return FALSE;
}

static const char *
lock_note (SrCtl      *ctl,
           const char *key)
{
  if (sr_policy_client_is_locked (ctl->client, key))
    return ", locked by the administrator";
  return "";
}

/* The "why" of the contract, as a sentence that points at the setting. */
static char *
explain (SrCtl      *ctl,
         const char *app_id,
         const char *why)
{
  if (g_str_equal (why, "allowed"))
    return g_strdup ("No setting stops it.");
  if (g_str_equal (why, "disabled"))
    return g_strdup_printf ("Session save and restore is switched off (“enabled”, or GNOME's "
                            "org.gnome.desktop.session “save-restore”, is false%s).",
                            lock_note (ctl, "enabled"));
  if (g_str_equal (why, "excluded"))
    {
      const char *const *admin = sr_policy_client_get_admin_excluded_apps (ctl->client);
      if (g_strv_contains (admin, app_id))
        return g_strdup_printf ("The administrator excluded %s (“admin-excluded-apps”).", app_id);
      return g_strdup_printf ("%s is excluded (“excluded-apps”%s).", app_id,
                              lock_note (ctl, "excluded-apps"));
    }
  if (g_str_equal (why, "launch-off"))
    return g_strdup_printf ("Restoring on a normal launch is off (“restore-on-launch” is false%s).",
                            lock_note (ctl, "restore-on-launch"));
  if (g_str_equal (why, "recover-off"))
    return g_strdup_printf ("Restoring after a crash is off (“restore-after-crash” is false%s).",
                            lock_note (ctl, "restore-after-crash"));
  if (g_str_equal (why, "crash-loop"))
    {
      guint window = sr_policy_client_get_crash_loop_window (ctl->client);

      /* What releases it is the service's rule (NoteExit, ResetCrashGuard). */
      return g_strdup_printf ("%s exited unexpectedly %u times or more within %u seconds, so the "
                              "crash-loop guard holds its saved sessions back: it starts without "
                              "them. It is released once it exits normally after such a start (as "
                              "the portal or session manager that started it reports), once those "
                              "crashes are more than %u seconds old, or by “session-restore-ctl "
                              "allow-recovery %s”.",
                              app_id, sr_policy_client_get_crash_loop_threshold (ctl->client),
                              window, window, app_id);
    }
  if (g_str_equal (why, "login-off"))
    return g_strdup_printf ("Apps are not reopened at login (“login-restore” is never%s).",
                            lock_note (ctl, "login-restore"));
  if (g_str_equal (why, "ask"))
    return g_strdup_printf ("The session manager asks the user first (“login-restore” is ask%s).",
                            lock_note (ctl, "login-restore"));
  if (g_str_equal (why, "cleared"))
    return g_strdup ("That saved session dates from before the app was last cleared, so it is not restored.");
  if (g_str_equal (why, "expired"))
    {
      int days = sr_policy_client_get_max_age_days (ctl->client);
      return g_strdup_printf ("That saved session is older than %d %s (“max-age-days”%s).",
                              days, days == 1 ? "day" : "days", lock_note (ctl, "max-age-days"));
    }
  if (g_str_equal (why, "declined"))
    return g_strdup ("The user said no when asked.");
  if (g_str_equal (why, "ask-timeout"))
    return g_strdup ("The user did not answer in time.");
  if (g_str_equal (why, "ask-unavailable"))
    return g_strdup ("The user could not be asked.");
  {
    g_autofree char *shown = sr_ctl_escape (why);
    return g_strdup_printf ("The service gave the reason “%s”.", shown);
  }
}

static void
write_json (const char *app_id,
            const char *reason,
            gint64      saved_at,
            gboolean    has_saved_at,
            const char *verdict,
            const char *why,
            const char *explanation)
{
  g_autoptr(GString) out = g_string_new (NULL);
  SrJson json;

  sr_json_init (&json, out);
  sr_json_begin_object (&json);
  sr_json_key (&json, "app_id");
  sr_json_string (&json, app_id);
  sr_json_key (&json, "reason");
  sr_json_string (&json, reason);
  sr_json_key (&json, "saved_at_usec");
  if (has_saved_at)
    sr_json_int (&json, saved_at);
  else
    sr_json_null (&json);
  sr_json_key (&json, "verdict");
  sr_json_string (&json, verdict);
  sr_json_key (&json, "why");
  sr_json_string (&json, why);
  sr_json_key (&json, "explanation");
  sr_json_string (&json, explanation);
  sr_json_end_object (&json);
  sr_ctl_print (out);
}

int
sr_ctl_cmd_check (SrCtl  *ctl,
                  int     argc,
                  char  **argv)
{
  g_autofree char *reason_text = NULL;
  g_autofree char *saved_at_text = NULL;
  gboolean json = FALSE;
  const GOptionEntry entries[] = {
    { "reason", 'r', 0, G_OPTION_ARG_STRING, &reason_text,
      "save (the default), launch, recover or restore", "REASON" },
    { "saved-at", 's', 0, G_OPTION_ARG_STRING, &saved_at_text,
      "When the state to restore was saved: @SECONDS, 2026-12-01T09:30, 2026-12-01, 30d", "TIME" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON (keys in session-restore-ctl(1))", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("APP");
  g_autoptr(GError) error = NULL;
  const char *why;
  SrWhy why_code = SR_WHY_UNKNOWN;
  g_autofree char *shown_why = NULL;
  g_autofree char *words = NULL;
  g_autofree char *verdict_text = NULL;
  const char *app_id;
  const char *reason_name = "save";
  const char *verdict_name;
  int reason = -1;
  gint64 saved_at = 0;
  SrVerdict verdict;
  int status;

  g_option_context_set_summary (context,
    "Ask the service what it would answer a compositor or portal about APP, and\n"
    "why. Exit status: 0 allowed, 1 denied, 2 ask the user first.");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!sr_ctl_parse_options (context, &argc, &argv, &status))
    return status;
  if (argc != 2)
    return sr_ctl_usage_error ("check", "“check” takes one app id");
  app_id = argv[1];
  if (!sr_ctl_validate_app_ids (argv + 1, &error))
    return sr_ctl_fail (error);

  if (reason_text != NULL)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (reasons); i++)
        if (g_str_equal (reasons[i].name, reason_text))
          {
            reason = reasons[i].reason;
            reason_name = reasons[i].name;
            found = TRUE;
          }
      if (!found)
        return sr_ctl_usage_error ("check", "“%s” is not a reason: give save, launch, recover or restore",
                                   reason_text);
    }
  if (saved_at_text != NULL)
    {
      if (reason < 0)
        return sr_ctl_usage_error ("check", "--saved-at needs a restore --reason (launch, recover or restore)");
      if (!parse_time (saved_at_text, &saved_at, &error))
        return sr_ctl_fail (error);
    }

  if (!sr_ctl_connect (ctl, &error))
    return sr_ctl_fail (error);

  /* A time of 0 is "not known", as the library sends no "saved-at" then;
   * @0 is the epoch itself, long expired anyway. */
  if (reason < 0)
    verdict = sr_policy_client_check_save_sync (ctl->client, app_id, &why_code, NULL, &error);
  else
    verdict = sr_policy_client_check_restore_sync (ctl->client, app_id, reason,
                                                   saved_at_text != NULL ? saved_at : 0,
                                                   SR_CALL_FLAGS_NONE, &why_code, NULL, &error);
  if (error != NULL)
    return sr_ctl_fail (error);
  why = sr_why_to_string (why_code);

  words = explain (ctl, app_id, why);
  shown_why = sr_ctl_escape (why);
  switch (verdict)
    {
    case SR_VERDICT_ALLOW:
      verdict_name = "allow";
      verdict_text = sr_ctl_styled (ctl->color, SR_CTL_STYLE_GOOD, verdict_name);
      status = SR_CTL_EXIT_OK;
      break;
    case SR_VERDICT_ASK:
      verdict_name = "ask";
      verdict_text = sr_ctl_styled (ctl->color, SR_CTL_STYLE_WARN, verdict_name);
      status = SR_CTL_EXIT_ASK;
      break;
    case SR_VERDICT_DENY:
      verdict_name = "deny";
      verdict_text = sr_ctl_styled (ctl->color, SR_CTL_STYLE_BAD, verdict_name);
      status = SR_CTL_EXIT_DENY;
      break;
    default:
      g_set_error (&error, SR_ERROR, SR_ERROR_FAILED, "The service answered verdict %u", verdict);
      return sr_ctl_fail (error);
    }
  /* The exit status is the verdict either way. */
  if (json)
    write_json (app_id, reason_name, saved_at, saved_at_text != NULL, verdict_name, why, words);
  else
    g_print ("%s (%s)\n%s\n", verdict_text, shown_why, words);
  return status;
}
