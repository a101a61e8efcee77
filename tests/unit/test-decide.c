/* test-decide.c: the decision table, rule by rule and in order
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-decide"

#include "config.h"

#include <glib/gstdio.h>

#include "sr-decide.h"
#include "sr-error.h"

#define DAY (G_USEC_PER_SEC * (gint64) 86400)
#define NOW ((gint64) 1800000000 * G_USEC_PER_SEC)

typedef struct {
  SrPolicy policy;
  GHashTable *excluded;
  char *dir;
  SrCrashGuard *guard;
  SrClearPoints *clear_points;
  SrDecisionContext ctx;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *guard_path = NULL;
  g_autofree char *points_path = NULL;

  f->dir = g_dir_make_tmp ("sr-decide-XXXXXX", NULL);
  guard_path = g_build_filename (f->dir, "crash-counters", NULL);
  points_path = g_build_filename (f->dir, "clear-points", NULL);
  f->excluded = g_hash_table_new (g_str_hash, g_str_equal);
  f->policy = (SrPolicy) {
    .enabled = TRUE,
    .login_restore = SR_LOGIN_RESTORE_ALWAYS,
    .restore_after_crash = TRUE,
    .restore_on_launch = TRUE,
    .excluded = f->excluded,
    .max_age_days = 30,
    .crash_loop_threshold = 3,
    .crash_loop_window = 600,
  };
  f->guard = sr_crash_guard_new (guard_path, 7 * 24 * 60 * 60);
  f->clear_points = sr_clear_points_new (points_path);
  f->ctx = (SrDecisionContext) {
    .policy = &f->policy,
    .crash_guard = f->guard,
    .clear_points = f->clear_points,
    .now = NOW,
  };
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
  sr_crash_guard_free (f->guard);
  sr_clear_points_free (f->clear_points);
  g_hash_table_unref (f->excluded);
}

static GVariant *
saved_at (gint64 when)
{
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "saved-at", "x", when);
  return g_variant_ref_sink (g_variant_dict_end (&dict));
}

#define assert_save(f, app, verdict, why) \
  G_STMT_START { \
    SrVerdict v_ = 99; const char *w_ = NULL; g_autoptr(GError) e_ = NULL; \
    g_assert_true (sr_decide_save (&(f)->ctx, (app), &v_, &w_, &e_)); \
    g_assert_no_error (e_); \
    g_assert_cmpstr (w_, ==, (why)); \
    g_assert_cmpint (v_, ==, (verdict)); \
  } G_STMT_END

#define assert_restore(f, app, reason, options, verdict, why) \
  G_STMT_START { \
    SrVerdict v_ = 99; const char *w_ = NULL; g_autoptr(GError) e_ = NULL; \
    g_assert_true (sr_decide_restore (&(f)->ctx, (app), (reason), (options), &v_, &w_, &e_)); \
    g_assert_no_error (e_); \
    g_assert_cmpstr (w_, ==, (why)); \
    g_assert_cmpint (v_, ==, (verdict)); \
  } G_STMT_END

#define assert_restore_invalid(f, app, reason, options) \
  G_STMT_START { \
    SrVerdict v_ = 99; const char *w_ = NULL; g_autoptr(GError) e_ = NULL; \
    g_assert_false (sr_decide_restore (&(f)->ctx, (app), (reason), (options), &v_, &w_, &e_)); \
    g_assert_error (e_, SR_ERROR, SR_ERROR_INVALID_ARGS); \
  } G_STMT_END

static void
crash (Fixture    *f,
       const char *app,
       guint       times)
{
  for (guint i = 0; i < times; i++)
    g_assert_true (sr_crash_guard_note_exit (f->guard, app, FALSE, ":1.1", NOW - i, 3, 600, NULL));
}

static void
test_allowed_by_default (Fixture *f, gconstpointer data)
{
  g_autoptr(GVariant) fresh = saved_at (NOW - G_USEC_PER_SEC);

  assert_save (f, "org.example.App", SR_VERDICT_ALLOW, "allowed");
  for (guint reason = SR_REASON_LAUNCH; reason <= SR_REASON_RESTORE; reason++)
    {
      assert_restore (f, "org.example.App", reason, NULL, SR_VERDICT_ALLOW, "allowed");
      assert_restore (f, "org.example.App", reason, fresh, SR_VERDICT_ALLOW, "allowed");
    }
}

static void
test_rule1_invalid_app_id (Fixture *f, gconstpointer data)
{
  const char *bad[] = { "", "a/b.c", "a..b", "org.example.App\x01", ".a.b", "a.b.",
                        "org.ex ample.App", "vlc.desktop", "-x", "a#b" };
  g_autofree char *long_id = g_strnfill (256, 'a');

  long_id[3] = '.';
  /* Rule 1 comes before everything, even a disabled switch. */
  f->policy.enabled = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      SrVerdict v;
      const char *w;
      g_autoptr(GError) e1 = NULL;
      g_autoptr(GError) e2 = NULL;

      g_assert_false (sr_decide_save (&f->ctx, bad[i], &v, &w, &e1));
      g_assert_error (e1, SR_ERROR, SR_ERROR_INVALID_ARGS);
      g_assert_false (sr_decide_restore (&f->ctx, bad[i], SR_REASON_LAUNCH, NULL, &v, &w, &e2));
      g_assert_error (e2, SR_ERROR, SR_ERROR_INVALID_ARGS);
    }
  assert_restore_invalid (f, long_id, SR_REASON_LAUNCH, NULL);
  long_id[255] = '\0';
  assert_restore (f, long_id, SR_REASON_LAUNCH, NULL, SR_VERDICT_DENY, "disabled");
}

static void
test_rule2_disabled (Fixture *f, gconstpointer data)
{
  f->policy.enabled = FALSE;
  /* Before exclusion and every later rule. */
  g_hash_table_add (f->excluded, (gpointer) "org.example.App");
  f->policy.restore_on_launch = FALSE;
  assert_save (f, "org.example.App", SR_VERDICT_DENY, "disabled");
  for (guint reason = SR_REASON_LAUNCH; reason <= SR_REASON_RESTORE; reason++)
    assert_restore (f, "org.example.App", reason, NULL, SR_VERDICT_DENY, "disabled");
}

static void
test_rule3_excluded (Fixture *f, gconstpointer data)
{
  g_autoptr(GVariant) old = saved_at (NOW - 100 * DAY);

  g_hash_table_add (f->excluded, (gpointer) "org.example.App");
  f->policy.login_restore = SR_LOGIN_RESTORE_ASK;
  crash (f, "org.example.App", 5);
  assert_save (f, "org.example.App", SR_VERDICT_DENY, "excluded");
  for (guint reason = SR_REASON_LAUNCH; reason <= SR_REASON_RESTORE; reason++)
    assert_restore (f, "org.example.App", reason, old, SR_VERDICT_DENY, "excluded");
  assert_save (f, "org.example.Other", SR_VERDICT_ALLOW, "allowed");
}

static void
test_rule4_launch (Fixture *f, gconstpointer data)
{
  g_autoptr(GVariant) old = saved_at (NOW - 100 * DAY);

  f->policy.restore_on_launch = FALSE;
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, old, SR_VERDICT_DENY, "launch-off");
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, NULL, SR_VERDICT_ALLOW, "allowed");
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, NULL, SR_VERDICT_ALLOW, "allowed");
  /* Saving is not affected by restore settings. */
  assert_save (f, "org.example.App", SR_VERDICT_ALLOW, "allowed");
}

static void
test_rule4_recover (Fixture *f, gconstpointer data)
{
  g_autoptr(GVariant) old = saved_at (NOW - 100 * DAY);

  crash (f, "org.example.App", 3);
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, NULL, SR_VERDICT_DENY, "crash-loop");
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, old, SR_VERDICT_DENY, "crash-loop");
  assert_restore (f, "org.example.Other", SR_REASON_RECOVER, NULL, SR_VERDICT_ALLOW, "allowed");
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, NULL, SR_VERDICT_ALLOW, "allowed");

  /* recover-off comes before the crash loop. */
  f->policy.restore_after_crash = FALSE;
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, NULL, SR_VERDICT_DENY, "recover-off");
  assert_restore (f, "org.example.Other", SR_REASON_RECOVER, NULL, SR_VERDICT_DENY, "recover-off");
}

static void
test_rule4_crash_loop_threshold (Fixture *f, gconstpointer data)
{
  crash (f, "org.example.App", 2);
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, NULL, SR_VERDICT_ALLOW, "allowed");
  f->policy.crash_loop_threshold = 2;
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, NULL, SR_VERDICT_DENY, "crash-loop");
  f->policy.crash_loop_threshold = 0;
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, NULL, SR_VERDICT_ALLOW, "allowed");
  /* Outside the window the exits no longer count. */
  f->policy.crash_loop_threshold = 2;
  f->ctx.now = NOW + 601 * G_USEC_PER_SEC;
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, NULL, SR_VERDICT_ALLOW, "allowed");
}

static void
test_rule4_login (Fixture *f, gconstpointer data)
{
  g_autoptr(GVariant) old = saved_at (NOW - 100 * DAY);

  f->policy.login_restore = SR_LOGIN_RESTORE_NEVER;
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, old, SR_VERDICT_DENY, "login-off");
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, NULL, SR_VERDICT_ALLOW, "allowed");
  f->policy.login_restore = SR_LOGIN_RESTORE_ASK;
  /* ask comes before expiry: rule 4 before rule 5. */
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, old, SR_VERDICT_ASK, "ask");
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, NULL, SR_VERDICT_ALLOW, "allowed");
}

static GVariant *
interactive (gboolean on, gint64 when)
{
  GVariantDict dict;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "interactive", "b", on);
  if (when != 0)
    g_variant_dict_insert (&dict, "saved-at", "x", when);
  return g_variant_ref_sink (g_variant_dict_end (&dict));
}

static void
test_rule4_login_interactive (Fixture *f, gconstpointer data)
{
  g_autoptr(GVariant) on = interactive (TRUE, 0);
  g_autoptr(GVariant) off = interactive (FALSE, 0);
  g_autoptr(GVariant) old = interactive (TRUE, NOW - 100 * DAY);
  g_autoptr(GHashTable) declined = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GVariant) wrong = NULL;
  SrLoginAnswer yes = { NULL, declined }, no = { "declined", NULL };
  SrLoginAnswer timeout = { "ask-timeout", NULL };

  /* Not in ask mode, or not RESTORE: the option changes nothing. */
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, on, SR_VERDICT_ALLOW, "allowed");
  f->policy.login_restore = SR_LOGIN_RESTORE_ASK;
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, on, SR_VERDICT_ALLOW, "allowed");
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, off, SR_VERDICT_ASK, "ask");
  /* No answer yet: the caller must hold the call. */
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, on, SR_VERDICT_ASK, SR_WHY_INTERACTIVE);
  /* The exclusions come first. */
  g_hash_table_add (f->excluded, (gpointer) "org.example.App");
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, on, SR_VERDICT_DENY, "excluded");
  g_hash_table_remove (f->excluded, "org.example.App");

  f->ctx.login_answer = &yes;
  g_hash_table_add (declined, (gpointer) "org.example.Unticked");
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, on, SR_VERDICT_ALLOW, "allowed");
  assert_restore (f, "org.example.Unticked", SR_REASON_RESTORE, on, SR_VERDICT_DENY, "declined");
  /* Yes, then the age of the state. */
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, old, SR_VERDICT_DENY, "expired");
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, off, SR_VERDICT_ASK, "ask");
  f->ctx.login_answer = &no;
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, on, SR_VERDICT_DENY, "declined");
  f->ctx.login_answer = &timeout;
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, on, SR_VERDICT_DENY, "ask-timeout");

  wrong = g_variant_ref_sink (g_variant_new_parsed ("{'interactive': <'yes'>}"));
  assert_restore_invalid (f, "org.example.App", SR_REASON_RESTORE, wrong);
}

static void
test_rule4_invalid_reasons (Fixture *f, gconstpointer data)
{
  assert_restore_invalid (f, "org.example.App", SR_REASON_PRISTINE, NULL);
  assert_restore_invalid (f, "org.example.App", 4, NULL);
  assert_restore_invalid (f, "org.example.App", G_MAXUINT32, NULL);
}

static void
test_rule5_cleared (Fixture *f, gconstpointer data)
{
  const char *one[] = { "org.example.App", NULL };
  g_autoptr(GVariant) before = saved_at (NOW - 10 * G_USEC_PER_SEC);
  g_autoptr(GVariant) at = saved_at (NOW - 5 * G_USEC_PER_SEC);
  g_autoptr(GVariant) after = saved_at (NOW - 1 * G_USEC_PER_SEC);

  g_assert_true (sr_clear_points_record (f->clear_points, one, NOW - 5 * G_USEC_PER_SEC, NULL));
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, before, SR_VERDICT_DENY, "cleared");
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, at, SR_VERDICT_DENY, "cleared");
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, after, SR_VERDICT_ALLOW, "allowed");
  assert_restore (f, "org.example.Other", SR_REASON_LAUNCH, before, SR_VERDICT_ALLOW, "allowed");
  /* Without saved-at there is nothing to compare. */
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, NULL, SR_VERDICT_ALLOW, "allowed");

  /* A global clear point covers every app. */
  g_assert_true (sr_clear_points_record (f->clear_points, NULL, NOW - 2 * G_USEC_PER_SEC, NULL));
  assert_restore (f, "org.example.Other", SR_REASON_LAUNCH, before, SR_VERDICT_DENY, "cleared");
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, after, SR_VERDICT_ALLOW, "allowed");
}

static void
test_rule5_cleared_before_expired (Fixture *f, gconstpointer data)
{
  g_autoptr(GVariant) old = saved_at (NOW - 100 * DAY);

  g_assert_true (sr_clear_points_record (f->clear_points, NULL, NOW - DAY, NULL));
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, old, SR_VERDICT_DENY, "cleared");
}

static void
test_rule5_expired (Fixture *f, gconstpointer data)
{
  g_autoptr(GVariant) edge = saved_at (NOW - 30 * DAY);
  g_autoptr(GVariant) past = saved_at (NOW - 30 * DAY - 1);
  g_autoptr(GVariant) future = saved_at (NOW + DAY);

  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, edge, SR_VERDICT_ALLOW, "allowed");
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, past, SR_VERDICT_DENY, "expired");
  assert_restore (f, "org.example.App", SR_REASON_RECOVER, past, SR_VERDICT_DENY, "expired");
  assert_restore (f, "org.example.App", SR_REASON_RESTORE, past, SR_VERDICT_DENY, "expired");
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, future, SR_VERDICT_ALLOW, "allowed");
  f->policy.max_age_days = -1;
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, past, SR_VERDICT_ALLOW, "allowed");
  f->policy.max_age_days = 0;
  assert_restore (f, "org.example.App", SR_REASON_LAUNCH, edge, SR_VERDICT_DENY, "expired");
}

static void
test_saved_at_type (Fixture *f, gconstpointer data)
{
  GVariantDict dict;
  g_autoptr(GVariant) options = NULL;

  g_variant_dict_init (&dict, NULL);
  g_variant_dict_insert (&dict, "saved-at", "t", (guint64) NOW);
  options = g_variant_ref_sink (g_variant_dict_end (&dict));
  assert_restore_invalid (f, "org.example.App", SR_REASON_LAUNCH, options);
}

/* The listing's "state" and "crash-loop" follow the same rules as a
 * CheckRestore with the app's newest "saved-at". */
static GVariant *
listing_of (gint64 last_saved)
{
  return g_variant_new_parsed ("[(%s, {'last-saved': <%x>})]", "org.example.App", last_saved);
}

static void
assert_listed (Fixture    *f,
               gint64      last_saved,
               const char *state,
               gboolean    crash_loop)
{
  g_autoptr(GVariant) listing = g_variant_ref_sink (listing_of (last_saved));
  g_autoptr(GVariant) annotated = g_variant_ref_sink (sr_decide_annotate_listing (&f->ctx, listing));
  g_autoptr(GVariant) info = NULL;
  const char *app, *got = NULL;
  gboolean loop = !crash_loop;

  g_assert_cmpuint (g_variant_n_children (annotated), ==, 1);
  g_variant_get_child (annotated, 0, "(&s@a{sv})", &app, &info);
  g_assert_cmpstr (app, ==, "org.example.App");
  g_assert_true (g_variant_lookup (info, "state", "&s", &got));
  g_assert_true (g_variant_lookup (info, "crash-loop", "b", &loop));
  g_assert_cmpstr (got, ==, state);
  g_assert_cmpint (loop, ==, crash_loop);
}

static void
test_listing_states (Fixture *f, gconstpointer data)
{
  const char *apps[] = { "org.example.App", NULL };

  assert_listed (f, NOW - DAY, "valid", FALSE);
  assert_listed (f, NOW - 31 * DAY, "expired", FALSE);
  f->policy.max_age_days = -1;
  assert_listed (f, NOW - 400 * DAY, "valid", FALSE);
  g_assert_true (sr_clear_points_record (f->clear_points, apps, NOW - 2 * DAY, NULL));
  assert_listed (f, NOW - 3 * DAY, "cleared", FALSE);
  assert_listed (f, NOW - DAY, "valid", FALSE);

  for (guint i = 0; i < 3; i++)
    g_assert_true (sr_crash_guard_note_exit (f->guard, "org.example.App", FALSE, ":1.1", NOW - 10,
                                             3, 600, NULL));
  assert_listed (f, NOW - DAY, "valid", TRUE);
  /* With recovery off, the guard holds nothing back. */
  f->policy.restore_after_crash = FALSE;
  assert_listed (f, NOW - DAY, "valid", FALSE);
}

/* The login prompt offers what reopens at login and would be restored,
 * with its window count and nothing else. */
static void
test_login_apps (Fixture *f, gconstpointer data)
{
  const char *cleared[] = { "org.example.Cleared", NULL };
  g_autoptr(GVariant) listing = g_variant_ref_sink (g_variant_new_parsed (
    "[('org.example.Shown', {'last-saved': <%x>, 'at-login': <true>, 'windows': <@u 2>,"
    "                        'bytes': <@t 100>}),"
    " ('org.example.NoCount', {'last-saved': <%x>, 'at-login': <true>}),"
    " ('org.example.NotAtLogin', {'last-saved': <%x>, 'at-login': <false>}),"
    " ('org.example.Unsaid', {'last-saved': <%x>}),"
    " ('org.example.Excluded', {'last-saved': <%x>, 'at-login': <true>}),"
    " ('org.example.Expired', {'last-saved': <%x>, 'at-login': <true>}),"
    " ('org.example.Cleared', {'last-saved': <%x>, 'at-login': <true>})]",
    NOW - DAY, NOW - DAY, NOW - DAY, NOW - DAY, NOW - DAY, NOW - 31 * DAY, NOW - 3 * DAY));
  g_autoptr(GVariant) apps = NULL;
  g_autofree char *text = NULL;

  g_hash_table_add (f->excluded, (gpointer) "org.example.Excluded");
  g_assert_true (sr_clear_points_record (f->clear_points, cleared, NOW - 2 * DAY, NULL));
  apps = g_variant_ref_sink (sr_decide_login_apps (&f->ctx, listing));
  g_assert_cmpstr (g_variant_get_type_string (apps), ==, "a(sa{sv})");
  text = g_variant_print (apps, FALSE);
  g_assert_cmpstr (text, ==,
                   "[('org.example.Shown', {'windows': <uint32 2>}), ('org.example.NoCount', {})]");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(name) \
  g_test_add ("/decide/" #name, Fixture, NULL, fixture_setup, test_##name, fixture_teardown)
  ADD (allowed_by_default);
  ADD (rule1_invalid_app_id);
  ADD (rule2_disabled);
  ADD (rule3_excluded);
  ADD (rule4_launch);
  ADD (rule4_recover);
  ADD (rule4_crash_loop_threshold);
  ADD (rule4_login);
  ADD (rule4_login_interactive);
  ADD (rule4_invalid_reasons);
  ADD (rule5_cleared);
  ADD (rule5_cleared_before_expired);
  ADD (rule5_expired);
  ADD (saved_at_type);
  ADD (listing_states);
  ADD (login_apps);
#undef ADD

  return g_test_run ();
}
