/* sr-decide.c: the decision rules of CheckSave and CheckRestore
 *
 * The rules of DESIGN.md, in their order; the first that matches answers.
 * Nothing here touches the disk or the bus: this is the hot path.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-decide"

#include "config.h"

#include <string.h>

#include "sr-app-id.h"
#include "sr-decide.h"
#include "sr-error.h"
#include "sr-vardict.h"

#define USEC_PER_DAY (G_USEC_PER_SEC * (gint64) 86400)

static gboolean
answer (SrVerdict    verdict,
        const char  *why,
        SrVerdict   *out_verdict,
        const char **out_why)
{
  *out_verdict = verdict;
  *out_why = why;
  return TRUE;
}

/* Rules 1 to 3, shared by saving and restoring. Returns TRUE when one of
 * them decided (or failed), FALSE when the later rules must go on. */
static gboolean
decide_common (const SrDecisionContext  *ctx,
               const char               *app_id,
               gboolean                 *decided,
               SrVerdict                *out_verdict,
               const char              **out_why,
               GError                  **error)
{
  *decided = TRUE;

  if (!sr_app_id_validate (app_id, error))
    return FALSE;

  if (!ctx->policy->enabled)
    return answer (SR_VERDICT_DENY, "disabled", out_verdict, out_why);

  if (g_hash_table_contains (ctx->policy->excluded, app_id))
    return answer (SR_VERDICT_DENY, "excluded", out_verdict, out_why);

  *decided = FALSE;
  return TRUE;
}

gboolean
sr_decide_save (const SrDecisionContext  *ctx,
                const char               *app_id,
                SrVerdict                *out_verdict,
                const char              **out_why,
                GError                  **error)
{
  gboolean decided;

  if (!decide_common (ctx, app_id, &decided, out_verdict, out_why, error))
    return FALSE;
  if (decided)
    return TRUE;

  return answer (SR_VERDICT_ALLOW, "allowed", out_verdict, out_why);
}

/* Whether @value, an option given as @name, is of the type @type. */
static gboolean
option_is (GVariant   *value,
           const char *name,
           const char *type,
           GError    **error)
{
  if (g_variant_is_of_type (value, G_VARIANT_TYPE (type)))
    return TRUE;
  g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
               "The option “%s” must be of type “%s”, not “%s”", name, type,
               g_variant_get_type_string (value));
  return FALSE;
}

/* The options "saved-at" and "interactive", if given; the first of each
 * counts, as with g_variant_lookup(). One pass over the entries, without
 * format strings (sr_vardict_read()): GVariant's format parsing costs
 * more than all the rules together. */
static gboolean
find_options (GVariant  *options,
              gboolean  *out_found,
              gint64    *out_saved_at,
              gboolean  *out_interactive,
              GError   **error)
{
  static const char *const keys[] = { "saved-at", "interactive" };
  GVariant *values[G_N_ELEMENTS (keys)];
  g_autoptr(GVariant) saved_at = NULL;
  g_autoptr(GVariant) interactive = NULL;

  sr_vardict_read (options, keys, G_N_ELEMENTS (keys), values);
  saved_at = values[0];
  interactive = values[1];
  if ((saved_at != NULL && !option_is (saved_at, keys[0], "x", error)) ||
      (interactive != NULL && !option_is (interactive, keys[1], "b", error)))
    return FALSE;
  *out_found = saved_at != NULL;
  if (saved_at != NULL)
    *out_saved_at = g_variant_get_int64 (saved_at);
  *out_interactive = interactive != NULL && g_variant_get_boolean (interactive);
  return TRUE;
}

gboolean
sr_decide_restore (const SrDecisionContext  *ctx,
                   const char               *app_id,
                   guint32                   reason,
                   GVariant                 *options,
                   SrVerdict                *out_verdict,
                   const char              **out_why,
                   GError                  **error)
{
  const SrPolicy *policy = ctx->policy;
  gboolean decided, has_saved_at, interactive;
  gint64 saved_at = 0;

  /* An unknown reason is a caller bug whatever the settings say, so it is
   * refused before the settings are read, like a bad app id. */
  if (reason < SR_REASON_LAUNCH || reason > SR_REASON_RESTORE)
    {
      g_set_error (error, SR_ERROR, SR_ERROR_INVALID_ARGS,
                   "Restore reason %u is not one of LAUNCH (1), RECOVER (2) or RESTORE (3)",
                   reason);
      return FALSE;
    }

  if (!find_options (options, &has_saved_at, &saved_at, &interactive, error))
    return FALSE;

  if (!decide_common (ctx, app_id, &decided, out_verdict, out_why, error))
    return FALSE;
  if (decided)
    return TRUE;

  switch ((SrRestoreReason) reason)
    {
    case SR_REASON_LAUNCH:
      if (!policy->restore_on_launch)
        return answer (SR_VERDICT_DENY, "launch-off", out_verdict, out_why);
      break;

    case SR_REASON_RECOVER:
      if (!policy->restore_after_crash)
        return answer (SR_VERDICT_DENY, "recover-off", out_verdict, out_why);
      if (ctx->crash_guard != NULL &&
          sr_crash_guard_in_loop (ctx->crash_guard, app_id, ctx->now,
                                  policy->crash_loop_threshold,
                                  policy->crash_loop_window))
        return answer (SR_VERDICT_DENY, "crash-loop", out_verdict, out_why);
      break;

    case SR_REASON_RESTORE:
      if (policy->login_restore == SR_LOGIN_RESTORE_NEVER)
        return answer (SR_VERDICT_DENY, "login-off", out_verdict, out_why);
      if (policy->login_restore == SR_LOGIN_RESTORE_ASK)
        {
          const SrLoginAnswer *login = ctx->login_answer;

          if (!interactive)
            return answer (SR_VERDICT_ASK, "ask", out_verdict, out_why);
          if (login == NULL)
            return answer (SR_VERDICT_ASK, SR_WHY_INTERACTIVE, out_verdict, out_why);
          if (login->deny_why != NULL)
            return answer (SR_VERDICT_DENY, login->deny_why, out_verdict, out_why);
          if (login->declined != NULL && g_hash_table_contains (login->declined, app_id))
            return answer (SR_VERDICT_DENY, "declined", out_verdict, out_why);
          /* The user said yes: on to the age of the state. */
        }
      break;

    case SR_REASON_PRISTINE:
    default:
      g_assert_not_reached ();
    }

  if (has_saved_at)
    {
      if (ctx->clear_points != NULL &&
          saved_at <= sr_clear_points_get (ctx->clear_points, app_id))
        return answer (SR_VERDICT_DENY, "cleared", out_verdict, out_why);

      /* saved_at is the caller's: now - saved_at could overflow. */
      if (policy->max_age_days >= 0 &&
          saved_at < ctx->now - (gint64) policy->max_age_days * USEC_PER_DAY)
        return answer (SR_VERDICT_DENY, "expired", out_verdict, out_why);
    }

  return answer (SR_VERDICT_ALLOW, "allowed", out_verdict, out_why);
}

/* The hot path reads its arguments and builds its answer without GVariant
 * format strings: parsing them costs more than the decision. */
GVariant *
sr_decide_call (const SrDecisionContext  *ctx,
                gboolean                  restore,
                GVariant                 *params,
                GError                  **error)
{
  g_autoptr(GVariant) app_arg = g_variant_get_child_value (params, 0);
  const char *app_id = g_variant_get_string (app_arg, NULL), *why = NULL;
  SrVerdict verdict = SR_VERDICT_DENY;
  GVariant *answer[2];
  gboolean ok;

  if (restore)
    {
      g_autoptr(GVariant) reason = g_variant_get_child_value (params, 1);
      g_autoptr(GVariant) options = g_variant_get_child_value (params, 2);

      ok = sr_decide_restore (ctx, app_id, g_variant_get_uint32 (reason), options,
                              &verdict, &why, error);
    }
  else
    ok = sr_decide_save (ctx, app_id, &verdict, &why, error);
  if (!ok)
    return NULL;

  answer[0] = g_variant_new_uint32 (verdict);
  answer[1] = g_variant_new_string (why);
  return g_variant_new_tuple (answer, 2);
}

gboolean
sr_decide_is_interactive (GVariant *answer)
{
  g_autoptr(GVariant) why = g_variant_get_child_value (answer, 1);

  return strcmp (g_variant_get_string (why, NULL), SR_WHY_INTERACTIVE) == 0;
}

/* Whether an answer of sr_decide_call() is the crash-loop guard's DENY:
 * the app is to start without its saved state, a held start
 * (sr_crash_guard_note_held_start()). */
gboolean
sr_decide_is_crash_loop (GVariant *answer)
{
  g_autoptr(GVariant) why = g_variant_get_child_value (answer, 1);

  return strcmp (g_variant_get_string (why, NULL), "crash-loop") == 0;
}

/* What the rules will do with each app's state in a ListStoredState
 * listing: "state" is "valid", "expired" (older than max-age-days) or
 * "cleared" (saved before a clear point), judged by its newest save
 * ("last-saved"), or where the app's own time is not known (an entry in
 * gnome-session's file) by the time of the file, which it cannot be newer
 * than and by which retention purges it ("last-written"); and
 * "crash-loop", whether the guard holds its recovery back. Returns a
 * floating a(sa{sv}). */
GVariant *
sr_decide_annotate_listing (const SrDecisionContext *ctx,
                            GVariant                *listing)
{
  const SrPolicy *policy = ctx->policy;
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sa{sv})"));
  GVariantIter iter;
  const char *app_id;
  GVariant *info;

  g_variant_iter_init (&iter, listing);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &app_id, &info))
    {
      GVariantDict dict;
      gint64 last_saved = 0;
      const char *state = "valid";

      /* The row of the stores that could not be read is no app's. */
      if (*app_id == '\0')
        {
          g_variant_builder_add (&builder, "(s@a{sv})", app_id, info);
          g_variant_unref (info);
          continue;
        }

      g_variant_dict_init (&dict, info);
      g_variant_unref (info);

      if (!g_variant_dict_lookup (&dict, "last-saved", "x", &last_saved))
        g_variant_dict_lookup (&dict, "last-written", "x", &last_saved);
      if (ctx->clear_points != NULL &&
          last_saved <= sr_clear_points_get (ctx->clear_points, app_id))
        state = "cleared";
      else if (policy->max_age_days >= 0 &&
               ctx->now - last_saved > (gint64) policy->max_age_days * USEC_PER_DAY)
        state = "expired";
      g_variant_dict_insert (&dict, "state", "s", state);
      g_variant_dict_insert (&dict, "crash-loop", "b",
                             policy->restore_after_crash && ctx->crash_guard != NULL &&
                             sr_crash_guard_in_loop (ctx->crash_guard, app_id, ctx->now,
                                                     policy->crash_loop_threshold,
                                                     policy->crash_loop_window));
      g_variant_builder_add (&builder, "(s@a{sv})", app_id, g_variant_dict_end (&dict));
    }
  return g_variant_builder_end (&builder);
}

/* The apps the login prompt (sr-prompt.c) offers, from a ListStoredState
 * listing: those whose state the session manager reopens at login and
 * that the rules would restore (not excluded; "state" "valid"), each with
 * its "windows" when the listing counts them. Returns a floating
 * a(sa{sv}). */
GVariant *
sr_decide_login_apps (const SrDecisionContext *ctx,
                      GVariant                *listing)
{
  g_autoptr(GVariant) annotated = g_variant_ref_sink (sr_decide_annotate_listing (ctx, listing));
  g_auto(GVariantBuilder) apps = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sa{sv})"));
  GVariantIter iter;
  const char *app_id;
  GVariant *info;

  g_variant_iter_init (&iter, annotated);
  while (g_variant_iter_next (&iter, "(&s@a{sv})", &app_id, &info))
    {
      g_auto(GVariantDict) dict = G_VARIANT_DICT_INIT (info);
      g_auto(GVariantDict) shown = G_VARIANT_DICT_INIT (NULL);
      gboolean at_login = FALSE;
      const char *state = "valid";
      guint32 windows;

      g_variant_unref (info);
      g_variant_dict_lookup (&dict, "at-login", "b", &at_login);
      g_variant_dict_lookup (&dict, "state", "&s", &state);
      if (!at_login || !g_str_equal (state, "valid") ||
          g_hash_table_contains (ctx->policy->excluded, app_id))
        continue;
      if (g_variant_dict_lookup (&dict, "windows", "u", &windows))
        g_variant_dict_insert (&shown, "windows", "u", windows);
      g_variant_builder_add (&apps, "(s@a{sv})", app_id, g_variant_dict_end (&shown));
    }
  return g_variant_builder_end (&apps);
}

/* Session prepare (sr-store-prepare.c): what of an app's instances in the
 * session manager's record the rules take away before login, where the
 * session manager asks nobody. What discards state anyway (rules 2 and
 * 3, "disabled" and "excluded") takes the whole app; the crash-loop
 * guard, which holds recovery back (rule 4: RECOVER only, and only while
 * restore-after-crash lets anything recover), the instances that would
 * be recovered: a session manager that asks nobody cannot be told to
 * start one without its state. LAUNCH and RESTORE being off ("launch-off",
 * "login-off", "ask"), and RECOVER ("recover-off"), discard nothing
 * (DESIGN.md): they are the session manager's to honour. */
SrPrepareApp
sr_decide_prepare_app (const SrDecisionContext  *ctx,
                       const char               *app_id,
                       const char              **out_why)
{
  const SrPolicy *policy = ctx->policy;

  *out_why = NULL;
  if (!policy->enabled)
    *out_why = "disabled";
  else if (g_hash_table_contains (policy->excluded, app_id))
    *out_why = "excluded";
  if (*out_why != NULL)
    return SR_PREPARE_REMOVE;
  if (policy->restore_after_crash && ctx->crash_guard != NULL &&
      sr_crash_guard_in_loop (ctx->crash_guard, app_id, ctx->now, policy->crash_loop_threshold,
                              policy->crash_loop_window))
    {
      *out_why = "crash-loop";
      return SR_PREPARE_RECOVERY_HELD;
    }
  return SR_PREPARE_KEEP;
}

/* Rule 5 for one instance saved at @saved_at (µs since the epoch), as
 * CheckRestore judges "saved-at": "cleared", "expired", or NULL to keep
 * it. */
const char *
sr_decide_prepare_instance (const SrDecisionContext *ctx,
                            const char              *app_id,
                            gint64                   saved_at)
{
  const SrPolicy *policy = ctx->policy;

  if (ctx->clear_points != NULL && saved_at <= sr_clear_points_get (ctx->clear_points, app_id))
    return "cleared";
  if (policy->max_age_days >= 0 &&
      saved_at < ctx->now - (gint64) policy->max_age_days * USEC_PER_DAY)
    return "expired";
  return NULL;
}
