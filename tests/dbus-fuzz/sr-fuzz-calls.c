/* sr-fuzz-calls.c: the calls sr-dbus-fuzz makes, and what may answer them
 *
 * Each kind of call, with its weight: policyd's methods with their own
 * signatures and random values (app ids valid and not, setting keys and
 * values of every type, lists and option dicts up to 100,000 items), its
 * methods with random bodies, unknown members, interfaces and object
 * paths, and the standard interfaces. App ids that would leave state
 * behind come from a fixed pool (see POOL_SIZE).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-fuzz-calls"

#include "config.h"
#include "sr-bus.h"

#include "sr-fuzz-calls.h"
#include "sr-fuzz-random.h"

/* -- Policyd's arguments ---------------------------------------------------- */

static const char *const real_members[] = {
  "CheckSave", "CheckRestore", "NoteExit", "SetSetting", "SetAppExcluded",
  "ListStoredState", "Clear",
};

static const char *const real_properties[] = {
  "Version", "Enabled", "LoginRestore", "RestoreAfterCrash", "RestoreOnLaunch",
  "ExcludedApps", "AdminExcludedApps", "MaxAgeDays", "CrashLoopThreshold",
  "CrashLoopWindow", "LockedSettings",
};

static const char *const setting_keys[] = {
  "enabled", "login-restore", "restore-after-crash", "restore-on-launch",
  "excluded-apps", "admin-excluded-apps", "max-age-days", "crash-loop-threshold",
  "crash-loop-window",
};

/* Lists of app ids: short; in a big message, often at or beyond the
 * 10,000 items policyd accepts, up to 100,000. */
static guint
random_list_length (Gen *g)
{
  static const guint limits[] = { 9999, 10000, 10001, 65536, MAX_ARRAY };

  return g->big && chance (g, 500) ? PICK (g, limits) : pick (g, 6);
}

/* Variants of the types a setting takes, and of others. */
static GVariant *
random_setting_value (Gen        *g,
                      const char *key)
{
  static const char *const nicks[] = { "always", "ask", "never", "sometimes", "" };

  if (chance (g, 300))
    {
      g_autofree char *sig = random_type (g, 1);
      g_autoptr(GVariantType) type = g_variant_type_new (sig);

      return random_value (g, type, 1);
    }

  if (g_str_equal (key, "enabled") || g_str_equal (key, "restore-after-crash") ||
      g_str_equal (key, "restore-on-launch"))
    /* Mostly on: with the switch off every check is "disabled" and the
     * deeper rules never run. */
    return g_variant_new_boolean (g_str_equal (key, "enabled") ? chance (g, 850) : chance (g, 500));
  if (g_str_equal (key, "login-restore"))
    {
      if (chance (g, 700))
        return g_variant_new_string (PICK (g, nicks));
      return g_variant_new_take_string (random_string (g));
    }
  if (g_str_equal (key, "max-age-days"))
    return g_variant_new_int32 (chance (g, 500) ? (gint32) pick (g, 3653) - 2
                                                : (gint32) random_integer (g));
  if (g_str_equal (key, "crash-loop-threshold") || g_str_equal (key, "crash-loop-window"))
    return g_variant_new_uint32 (chance (g, 500) ? pick (g, 2000) : (guint32) random_integer (g));
  if (g_str_equal (key, "excluded-apps") || g_str_equal (key, "admin-excluded-apps"))
    {
      GVariantBuilder builder;
      guint count = random_list_length (g);
      gboolean all_valid = chance (g, 700);

      g_variant_builder_init (&builder, G_VARIANT_TYPE_STRING_ARRAY);
      for (guint i = 0; i < count && spend_list_item (g); i++)
        {
          char *app = all_valid ? pool_app_id (g) : random_app_id (g, FALSE);
          g_variant_builder_add_value (&builder, g_variant_new_take_string (app));
        }
      return gen_end_array (&builder);
    }
  return g_variant_new_take_string (random_string (g));
}

static GVariant *
random_restore_options (Gen *g)
{
  static const gint64 days[] = { 0, 1, 29, 30, 31, 3650, 3651, 100000 };
  GVariantBuilder builder;
  guint n = g->big && chance (g, 200) ? random_count (g) : pick (g, 4);

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  for (guint i = 0; i < n && spend (g, 16, 2); i++)
    {
      g_autofree char *key = chance (g, 500) ? g_strdup ("saved-at") : random_string (g);
      GVariant *value;

      if (g_str_equal (key, "saved-at") && chance (g, 800))
        value = g_variant_new_int64 (chance (g, 500)
                                     ? g_get_real_time () - PICK (g, days) * G_USEC_PER_SEC * 86400
                                     : (gint64) random_integer (g));
      else
        {
          g_autofree char *sig = random_type (g, 2);
          g_autoptr(GVariantType) type = g_variant_type_new (sig);

          value = random_value (g, type, 2);
        }
      g_variant_builder_add (&builder, "{sv}", key, value);
    }
  return gen_end_array (&builder);
}

static GVariant *
random_app_list (Gen *g)
{
  GVariantBuilder builder;
  guint32 r = pick (g, 100);
  guint count;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_STRING_ARRAY);
  if (r < 5)
    return gen_end_array (&builder);   /* everything */
  count = MAX (1, random_list_length (g));
  for (guint i = 0; i < count && spend_list_item (g); i++)
    g_variant_builder_add_value (&builder,
                                 g_variant_new_take_string (r < 50 || chance (g, 990)
                                                            ? pool_app_id (g)
                                                            : random_app_id (g, FALSE)));
  return gen_end_array (&builder);
}

/* -- The calls -------------------------------------------------------------- */

/* Per thousand calls. The methods that reach polkit, dconf or the disk
 * (fsync) are rarer, or the run would measure the disk. */
static const struct {
  const char *name;
  guint weight;
} kinds[N_KINDS] = {
  [KIND_CHECK_SAVE] = { "CheckSave", 130 },
  [KIND_CHECK_RESTORE] = { "CheckRestore", 150 },
  [KIND_NOTE_EXIT] = { "NoteExit", 30 },
  [KIND_SET_SETTING] = { "SetSetting", 25 },
  [KIND_SET_APP_EXCLUDED] = { "SetAppExcluded", 8 },
  [KIND_LIST] = { "ListStoredState", 7 },
  [KIND_CLEAR] = { "Clear", 20 },
  [KIND_WRONG_SIGNATURE] = { "real member, random body", 100 },
  [KIND_UNKNOWN_MEMBER] = { "unknown member", 60 },
  [KIND_UNKNOWN_INTERFACE] = { "unknown interface", 60 },
  [KIND_NO_INTERFACE] = { "no interface", 30 },
  [KIND_PROPERTIES] = { "Properties", 120 },
  [KIND_INTROSPECT] = { "Introspectable", 20 },
  [KIND_PEER] = { "Peer", 40 },
  [KIND_OTHER_PATH] = { "other object path", 60 },
  [KIND_RANDOM] = { "all random", 140 },
  [KIND_ORDINARY] = { "ordinary", 0 },
};

void
call_free (Call *call)
{
  g_free (call->path);
  g_free (call->iface);
  g_free (call->member);
  g_clear_pointer (&call->body, g_variant_unref);
  g_free (call);
}

static Kind
random_kind (Gen        *g,
             const char *only)
{
  guint32 total = 0, r;

  for (guint i = 0; i < N_KINDS; i++)
    if (only == NULL || strstr (kinds[i].name, only) != NULL)
      total += kinds[i].weight;
  if (total == 0)
    g_error ("No kind of call is called “%s”", only);
  r = pick (g, total);
  for (guint i = 0; i < N_KINDS; i++)
    {
      if (only != NULL && strstr (kinds[i].name, only) == NULL)
        continue;
      if (r < kinds[i].weight)
        return i;
      r -= kinds[i].weight;
    }
  g_assert_not_reached ();
}

static void
call_set (Call       *call,
          const char *iface,
          const char *member,
          GVariant   *body)
{
  g_free (call->iface);
  g_free (call->member);
  call->iface = g_strdup (iface);
  call->member = g_strdup (member);
  call->body = body ? g_variant_ref_sink (body) : NULL;
}

Call *
random_call (guint32     seed,
             guint       index,
             const char *only)
{
  Gen gen;
  Gen *g = &gen;
  Call *call = g_new0 (Call, 1);

  gen_init (g, seed, index);

  call->index = index;
  call->kind = random_kind (g, only);
  call->path = g_strdup (SR_OBJECT_PATH);
  call->interactive = chance (g, 200);
  /* Now and then, file descriptors (handles in the body index them). */
  if (chance (g, 20))
    g->n_fds = 1 + pick (g, 3);

  switch (call->kind)
    {
    case KIND_CHECK_SAVE:
      {
        g_autofree char *app = random_app_id (g, TRUE);
        call_set (call, SR_IFACE, "CheckSave", g_variant_new ("(s)", app));
      }
      break;

    case KIND_CHECK_RESTORE:
      {
        static const guint32 reasons[] = { 0, 1, 2, 3, 1, 2, 3, 4, 255, G_MAXUINT32 };
        g_autofree char *app = random_app_id (g, TRUE);
        guint32 reason = chance (g, 900) ? PICK (g, reasons) : random_u32 (g);

        call_set (call, SR_IFACE, "CheckRestore",
                  g_variant_new ("(su@a{sv})", app, reason, random_restore_options (g)));
      }
      break;

    case KIND_NOTE_EXIT:
      {
        g_autofree char *app = random_app_id (g, FALSE);
        call_set (call, SR_IFACE, "NoteExit", g_variant_new ("(sb)", app, pick (g, 2)));
      }
      break;

    case KIND_SET_SETTING:
      {
        g_autofree char *key = chance (g, 800) ? g_strdup (PICK (g, setting_keys))
                                               : random_string (g);
        call_set (call, SR_IFACE, "SetSetting",
                  g_variant_new ("(sv)", key, random_setting_value (g, key)));
      }
      break;

    case KIND_SET_APP_EXCLUDED:
      {
        g_autofree char *app = random_app_id (g, FALSE);
        /* Mostly back in: excluded apps answer "excluded" and stop there. */
        call_set (call, SR_IFACE, "SetAppExcluded",
                  g_variant_new ("(sb)", app, chance (g, 300)));
      }
      break;

    case KIND_LIST:
      call_set (call, SR_IFACE, "ListStoredState", NULL);
      break;

    case KIND_CLEAR:
      call_set (call, SR_IFACE, "Clear", g_variant_new ("(@as)", random_app_list (g)));
      break;

    case KIND_WRONG_SIGNATURE:
      {
        static const char *const others[][2] = {
          { PROPERTIES_IFACE, "Get" }, { PROPERTIES_IFACE, "GetAll" },
          { PROPERTIES_IFACE, "Set" }, { INTROSPECTABLE_IFACE, "Introspect" },
          { PEER_IFACE, "Ping" }, { PEER_IFACE, "GetMachineId" },
        };
        if (chance (g, 750))
          call_set (call, SR_IFACE, PICK (g, real_members), random_body (g));
        else
          {
            guint i = pick (g, G_N_ELEMENTS (others));
            call_set (call, others[i][0], others[i][1], random_body (g));
          }
      }
      break;

    case KIND_UNKNOWN_MEMBER:
      {
        g_autofree char *member = random_member (g);
        call_set (call, SR_IFACE, member, chance (g, 500) ? random_body (g) : NULL);
      }
      break;

    case KIND_UNKNOWN_INTERFACE:
      {
        g_autofree char *iface = random_interface (g);
        call_set (call, iface, chance (g, 500) ? PICK (g, real_members) : "Get",
                  chance (g, 500) ? random_body (g) : NULL);
      }
      break;

    case KIND_NO_INTERFACE:
      {
        static const char *const members[] = {
          "CheckSave", "CheckRestore", "Clear", "Get", "GetAll", "Set", "Ping",
          "Introspect", "GetMachineId", "NoteExit", "Nothing",
        };
        call_set (call, NULL, PICK (g, members), chance (g, 500) ? random_body (g) : NULL);
        if (chance (g, 300))
          {
            g_free (call->path);
            call->path = random_object_path (g);
          }
      }
      break;

    case KIND_PROPERTIES:
      {
        g_autofree char *iface = chance (g, 700) ? g_strdup (SR_IFACE) :
                                 chance (g, 300) ? g_strdup ("") : random_interface (g);
        g_autofree char *prop = chance (g, 700) ? g_strdup (PICK (g, real_properties))
                                                : random_string (g);
        switch (pick (g, 3))
          {
          case 0:
            call_set (call, PROPERTIES_IFACE, "Get", g_variant_new ("(ss)", iface, prop));
            break;
          case 1:
            call_set (call, PROPERTIES_IFACE, "GetAll", g_variant_new ("(s)", iface));
            break;
          default:
            {
              g_autofree char *sig = random_type (g, 2);
              g_autoptr(GVariantType) type = g_variant_type_new (sig);

              call_set (call, PROPERTIES_IFACE, "Set",
                        g_variant_new ("(ssv)", iface, prop, random_value (g, type, 2)));
            }
            break;
          }
        if (chance (g, 200))
          {
            g_free (call->path);
            call->path = random_object_path (g);
          }
      }
      break;

    case KIND_INTROSPECT:
      g_free (call->path);
      call->path = random_object_path (g);
      call_set (call, INTROSPECTABLE_IFACE, "Introspect", NULL);
      break;

    case KIND_PEER:
      {
        g_autofree char *member = chance (g, 800) ? g_strdup (pick (g, 2) ? "Ping" : "GetMachineId")
                                                  : random_member (g);
        g_free (call->path);
        call->path = random_object_path (g);
        call_set (call, PEER_IFACE, member, NULL);
      }
      break;

    case KIND_OTHER_PATH:
      {
        g_autofree char *path = random_object_path (g);
        while (g_str_equal (path, SR_OBJECT_PATH))
          {
            g_free (path);
            path = random_object_path (g);
          }
        g_free (call->path);
        call->path = g_steal_pointer (&path);
        if (chance (g, 500))
          call_set (call, SR_IFACE, "CheckSave", g_variant_new ("(s)", "org.fuzz.App00"));
        else if (chance (g, 500))
          call_set (call, PROPERTIES_IFACE, "GetAll", g_variant_new ("(s)", SR_IFACE));
        else
          call_set (call, SR_IFACE, PICK (g, real_members), random_body (g));
      }
      break;

    case KIND_RANDOM:
    case KIND_ORDINARY:
    case N_KINDS:
    default:
      {
        g_autofree char *iface = chance (g, 500) ? random_interface (g)
                                                 : g_strdup (chance (g, 500) ? SR_IFACE
                                                                             : PROPERTIES_IFACE);
        g_autofree char *member = chance (g, 500) ? random_member (g)
                                                  : g_strdup (PICK (g, real_members));
        g_free (call->path);
        call->path = random_object_path (g);
        call_set (call, iface, member, random_body (g));
      }
      break;
    }

  call->n_fds = g->n_fds;
  return call;
}

/* What a warm-up does: the methods with valid arguments, as consumers and
 * the panel call them. */
Call *
ordinary_call (guint i)
{
  Call *call = g_new0 (Call, 1);
  g_autofree char *app = g_strdup_printf ("org.fuzz.App%02u", i % POOL_SIZE);

  call->index = i;
  call->kind = KIND_ORDINARY;
  call->path = g_strdup (SR_OBJECT_PATH);

  switch (i % 10)
    {
    case 0:
    case 1:
    case 2:
      call_set (call, SR_IFACE, "CheckSave", g_variant_new ("(s)", app));
      break;
    case 3:
    case 4:
    case 5:
      {
        GVariantDict options;

        g_variant_dict_init (&options, NULL);
        g_variant_dict_insert (&options, "saved-at", "x", g_get_real_time () - G_USEC_PER_SEC);
        call_set (call, SR_IFACE, "CheckRestore",
                  g_variant_new ("(su@a{sv})", app, 1 + i % 3, g_variant_dict_end (&options)));
      }
      break;
    case 6:
      call_set (call, SR_IFACE, "NoteExit", g_variant_new ("(sb)", app, TRUE));
      break;
    case 7:
      call_set (call, PROPERTIES_IFACE, "GetAll", g_variant_new ("(s)", SR_IFACE));
      break;
    case 8:
      call_set (call, PEER_IFACE, "Ping", NULL);
      break;
    default:
      /* The polkit path too, so that what it sets up lazily is part of
       * the baseline. */
      if (i % 100 == 9)
        call_set (call, SR_IFACE, "SetSetting",
                  g_variant_new ("(sv)", "restore-on-launch", g_variant_new_boolean (TRUE)));
      else if (i % 100 == 19)
        call_set (call, SR_IFACE, "Clear", g_variant_new ("(^as)", (const char *[]) { app, NULL }));
      else if (i % 100 == 29)
        call_set (call, SR_IFACE, "ListStoredState", NULL);
      else
        call_set (call, PROPERTIES_IFACE, "Get", g_variant_new ("(ss)", SR_IFACE, "Enabled"));
      break;
    }
  return call;
}

char *
call_describe (const Call *call)
{
  g_autoptr(GString) s = g_string_new (NULL);
  const char *sig = call->body ? g_variant_get_type_string (call->body) : "()";
  gsize size = call->body ? g_variant_get_size (call->body) : 0;

  g_string_append_printf (s, "call #%u (%s): %s %s.%s %.*s%s, %" G_GSIZE_FORMAT " bytes",
                          call->index, kinds[call->kind].name,
                          strlen (call->path) > 80 ? "(long path)" : call->path,
                          call->iface ? call->iface : "(no interface)", call->member,
                          (int) MIN (strlen (sig), 100), sig, strlen (sig) > 100 ? "…" : "",
                          size);
  if (call->n_fds > 0)
    g_string_append_printf (s, ", %u fds", call->n_fds);
  if (size < 400 && call->body != NULL)
    {
      g_autofree char *shown = g_variant_print (call->body, TRUE);
      g_string_append_printf (s, "\n    body: %.400s", shown);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* The reply type of a method that may succeed; NULL: it must be refused. */
const char *
call_expected_return (const Call *call)
{
  static const char *const returns[][3] = {
    { SR_IFACE, "CheckSave", "(us)" },
    { SR_IFACE, "CheckRestore", "(us)" },
    { SR_IFACE, "NoteExit", "()" },
    { SR_IFACE, "SetSetting", "()" },
    { SR_IFACE, "SetAppExcluded", "()" },
    { SR_IFACE, "ListStoredState", "(a(sa{sv}))" },
    { SR_IFACE, "Clear", "(a{sv})" },
    { PROPERTIES_IFACE, "Get", "(v)" },
    { PROPERTIES_IFACE, "GetAll", "(a{sv})" },
    { INTROSPECTABLE_IFACE, "Introspect", "(s)" },
    { PEER_IFACE, "Ping", "()" },
    { PEER_IFACE, "GetMachineId", "(s)" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (returns); i++)
    {
      /* Peer and Introspectable answer on any path; the rest only on
       * policyd's object. */
      gboolean any_path = i >= G_N_ELEMENTS (returns) - 3;

      if ((call->iface == NULL || g_str_equal (call->iface, returns[i][0])) &&
          g_str_equal (call->member, returns[i][1]) &&
          (any_path || g_str_equal (call->path, SR_OBJECT_PATH)))
        return returns[i][2];
    }
  return NULL;
}

const char *
kind_name (Kind kind)
{
  return kinds[kind].name;
}
