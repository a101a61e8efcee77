/* test-format-gnome-session.c: gnome-session's state file
 * (policyd/stores/sr-format-gnome-session.c)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-format-gnome-session"

#include "config.h"

#include "sr-format-gnome-session.h"

static GVariant *
session_state (void)
{
  return g_variant_ref_sink (g_variant_new_parsed (
    "{'version': <uint32 1>, 'instances': <@a{s(a{sv}aa{sv})} {"
    "  'org.example.A': ({}, [{'instance-id': <'1'>}, {'instance-id': <'2'>}]),"
    "  'org.example.B': ({}, [{'instance-id': <'1'>}]),"
    "  '../bad': ({}, [{'instance-id': <'1'>}])}>, 'dirty': <false>}"));
}

static void
count_app (const char *app_id,
           guint       entries,
           guint64     bytes,
           gboolean    reopens,
           gint64      saved_at,
           gpointer    user_data)
{
  g_hash_table_insert (user_data, g_strdup (app_id), GUINT_TO_POINTER (entries));
}

static void
reopening_app (const char *app_id,
               guint       entries,
               guint64     bytes,
               gboolean    reopens,
               gint64      saved_at,
               gpointer    user_data)
{
  if (reopens)
    g_ptr_array_add (user_data, g_strdup (app_id));
}

static void
test_session_parse_and_list (void)
{
  g_autoptr(GVariant) state = session_state ();
  g_autoptr(GVariant) parsed = NULL;
  g_autoptr(GHashTable) apps = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GError) error = NULL;

  parsed = sr_format_gnome_session_parse (g_variant_get_data (state), g_variant_get_size (state), &error);
  g_assert_no_error (error);
  sr_format_gnome_session_foreach_app (parsed, count_app, apps);
  g_assert_cmpuint (g_hash_table_size (apps), ==, 2);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (apps, "org.example.A")), ==, 2);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (apps, "org.example.B")), ==, 1);
}

/* session-restore-portal's record keeps the instances of apps that quit or
 * crashed, for their next launch: only those ended by the session's end,
 * not crashed, reopen at login. gnome-session's own instances, without
 * the key, reopen unless they crashed: gnome-session 51 relaunches only
 * those whose "crashed" is false. */
static void
test_session_reopens (void)
{
  g_autoptr(GVariant) state = g_variant_ref_sink (g_variant_new_parsed (
    "{'instances': <@a{s(a{sv}aa{sv})} {"
    "  'org.example.Open': ({}, [{'instance-id': <'1'>, 'crashed': <false>,"
    "                            'ended-at-session-end': <false>},"
    "                           {'instance-id': <'2'>, 'crashed': <false>,"
    "                            'ended-at-session-end': <true>}]),"
    "  'org.example.Crashed': ({}, [{'instance-id': <'1'>, 'crashed': <true>,"
    "                               'ended-at-session-end': <false>}]),"
    "  'org.example.CrashedAtEnd': ({}, [{'instance-id': <'1'>, 'crashed': <true>,"
    "                                    'ended-at-session-end': <true>}]),"
    "  'org.example.Quit': ({}, [{'instance-id': <'1'>, 'crashed': <false>,"
    "                            'ended-at-session-end': <false>}]),"
    "  'org.example.GnomeSession': ({}, [{'instance-id': <'1'>}]),"
    "  'org.example.GnomeSessionRan': ({}, [{'instance-id': <'1'>, 'crashed': <false>}]),"
    "  'org.example.GnomeSessionCrashed': ({}, [{'instance-id': <'1'>, 'crashed': <true>}]),"
    "  'org.example.GnomeSessionOneCrashed': ({}, [{'instance-id': <'1'>, 'crashed': <true>},"
    "                                             {'instance-id': <'2'>, 'crashed': <false>}]),"
    "  'org.example.None': ({}, @aa{sv} [])}>}"));
  g_autoptr(GPtrArray) reopening = g_ptr_array_new_with_free_func (g_free);

  sr_format_gnome_session_foreach_app (state, reopening_app, reopening);
  g_assert_cmpuint (reopening->len, ==, 4);
  g_assert_cmpstr (reopening->pdata[0], ==, "org.example.Open");
  g_assert_cmpstr (reopening->pdata[1], ==, "org.example.GnomeSession");
  g_assert_cmpstr (reopening->pdata[2], ==, "org.example.GnomeSessionRan");
  g_assert_cmpstr (reopening->pdata[3], ==, "org.example.GnomeSessionOneCrashed");
}

static void
saving_app (const char *app_id,
            guint       entries,
            guint64     bytes,
            gboolean    reopens,
            gint64      saved_at,
            gpointer    user_data)
{
  g_hash_table_insert (user_data, g_strdup (app_id), g_memdup2 (&saved_at, sizeof saved_at));
}

/* An app's own time is its newest instance's "saved-at" (the portal's
 * record), not the file's: gnome-session's instances, without one, have
 * none (0), and a negative one is none either. */
static void
test_session_saved_at (void)
{
  g_autoptr(GVariant) state = g_variant_ref_sink (g_variant_new_parsed (
    "{'instances': <@a{s(a{sv}aa{sv})} {"
    "  'org.example.Two': ({}, [{'instance-id': <'1'>, 'saved-at': <int64 5000>},"
    "                           {'instance-id': <'2'>, 'saved-at': <int64 9000>},"
    "                           {'instance-id': <'3'>}]),"
    "  'org.example.Negative': ({}, [{'instance-id': <'1'>, 'saved-at': <int64 -7>}]),"
    "  'org.example.WrongType': ({}, [{'instance-id': <'1'>, 'saved-at': <'9000'>}]),"
    "  'org.example.GnomeSession': ({}, [{'instance-id': <'1'>}])}>}"));
  g_autoptr(GHashTable) saved = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  sr_format_gnome_session_foreach_app (state, saving_app, saved);
  g_assert_cmpint (*(gint64 *) g_hash_table_lookup (saved, "org.example.Two"), ==, 9000);
  g_assert_cmpint (*(gint64 *) g_hash_table_lookup (saved, "org.example.Negative"), ==, 0);
  g_assert_cmpint (*(gint64 *) g_hash_table_lookup (saved, "org.example.WrongType"), ==, 0);
  g_assert_cmpint (*(gint64 *) g_hash_table_lookup (saved, "org.example.GnomeSession"), ==, 0);
}

/* Retention's choice in a shared file: an app goes when its newest
 * "saved-at" is older than the limit, an app without one when the file
 * is; @among narrows it. */
static void
test_session_saved_before (void)
{
  g_autoptr(GVariant) state = g_variant_ref_sink (g_variant_new_parsed (
    "{'instances': <@a{s(a{sv}aa{sv})} {"
    "  'org.example.Stale': ({}, [{'instance-id': <'1'>, 'saved-at': <int64 100>},"
    "                             {'instance-id': <'2'>, 'saved-at': <int64 200>}]),"
    "  'org.example.Mixed': ({}, [{'instance-id': <'1'>, 'saved-at': <int64 100>},"
    "                             {'instance-id': <'2'>, 'saved-at': <int64 5000>}]),"
    "  'org.example.GnomeSession': ({}, [{'instance-id': <'1'>}])}>}"));
  g_autoptr(GHashTable) fresh_file = sr_format_gnome_session_saved_before (state, 1000, 9000, NULL);
  g_autoptr(GHashTable) old_file = sr_format_gnome_session_saved_before (state, 1000, 500, NULL);
  g_autoptr(GHashTable) among = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) narrowed = NULL;

  g_assert_cmpuint (g_hash_table_size (fresh_file), ==, 1);
  g_assert_true (g_hash_table_contains (fresh_file, "org.example.Stale"));
  g_assert_cmpuint (g_hash_table_size (old_file), ==, 2);
  g_assert_true (g_hash_table_contains (old_file, "org.example.GnomeSession"));
  g_assert_false (g_hash_table_contains (old_file, "org.example.Mixed"));

  g_hash_table_add (among, (gpointer) "org.example.GnomeSession");
  narrowed = sr_format_gnome_session_saved_before (state, 1000, 500, among);
  g_assert_cmpuint (g_hash_table_size (narrowed), ==, 1);
  g_assert_true (g_hash_table_contains (narrowed, "org.example.GnomeSession"));
}

static void
test_session_without (void)
{
  g_autoptr(GVariant) state = session_state ();
  g_autoptr(GHashTable) which = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) removed = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GVariant) without = NULL;
  g_autoptr(GVariant) all = NULL;
  g_autoptr(GVariant) instances = NULL;
  g_autoptr(GVariant) none = NULL;
  guint entries;
  guint64 bytes;
  guint32 version;

  g_hash_table_add (which, (gpointer) "org.example.A");
  without = sr_format_gnome_session_without (state, which, &entries, &bytes, removed);
  g_assert_nonnull (without);
  g_assert_cmpuint (entries, ==, 2);
  g_assert_cmpuint (bytes, >, 0);
  g_assert_cmpuint (removed->len, ==, 1);
  /* Everything else is kept, in order. */
  g_assert_true (g_variant_lookup (without, "version", "u", &version));
  g_assert_cmpuint (version, ==, 1);
  instances = g_variant_lookup_value (without, "instances", NULL);
  g_assert_cmpuint (g_variant_n_children (instances), ==, 2);
  g_assert_cmpuint (g_variant_n_children (without), ==, 3);

  /* Nothing to remove: no rewrite. */
  g_hash_table_remove_all (which);
  g_hash_table_add (which, (gpointer) "org.example.Z");
  none = sr_format_gnome_session_without (state, which, &entries, &bytes, NULL);
  g_assert_null (none);

  /* All: even the entry that is no app id goes. */
  all = sr_format_gnome_session_without (state, NULL, &entries, &bytes, NULL);
  g_assert_cmpuint (entries, ==, 4);
}

/* What a filter is asked, and what it decides: apps named in "remove"
 * go whole, instances whose id is in "drop" go. */
typedef struct {
  const char *remove_app;
  const char *drop;
  GString *asked;       /* "app:id:recoverable " per instance asked */
  GString *removed;     /* "app:id:kind " per id removed */
} Filtering;

static gboolean
filter_remove_app (const char *app_id,
                   gpointer    user_data)
{
  Filtering *f = user_data;

  return f->remove_app != NULL && g_str_equal (app_id, f->remove_app);
}

static gboolean
filter_remove_instance (const char *app_id,
                        GVariant   *instance,
                        gboolean    recoverable,
                        gpointer    user_data)
{
  Filtering *f = user_data;
  const char *id = "";

  g_variant_lookup (instance, "instance-id", "&s", &id);
  g_string_append_printf (f->asked, "%s:%s:%d ", app_id, id, recoverable);
  return f->drop != NULL && g_str_equal (id, f->drop);
}

static void
filter_removed (const char             *app_id,
                const char             *instance_id,
                SrFormatGnomeSessionId  kind,
                gpointer                user_data)
{
  Filtering *f = user_data;

  g_string_append_printf (f->removed, "%s:%s:%d ", app_id, instance_id, kind);
}

static const SrFormatGnomeSessionFilter test_filter = {
  filter_remove_app, filter_remove_instance, filter_removed,
};

static GVariant *
app_entry (GVariant   *state,
           const char *app_id)
{
  g_autoptr(GVariant) instances = g_variant_lookup_value (state, "instances", NULL);

  return g_variant_lookup_value (instances, app_id, NULL);
}

/* Session prepare's filter: whole apps with all their ids, single
 * instances with theirs; everything else as it was, byte for byte. */
static void
test_session_filter (void)
{
  g_autoptr(GVariant) state = g_variant_ref_sink (g_variant_new_parsed (
    "{'version': <uint32 1>, 'dirty': <false>, 'instances': <@a{s(a{sv}aa{sv})} {"
    "  'org.example.A': ({'next-instance-id': <'n'>, 'discarded-instance-ids': <['d1', 'd2']>},"
    "                    [{'instance-id': <'a1'>, 'crashed': <false>}]),"
    "  'org.example.B': ({'next-instance-id': <'bn'>},"
    "                    [{'instance-id': <'b1'>, 'crashed': <true>},"
    "                     {'instance-id': <'b2'>, 'crashed': <false>}]),"
    "  'org.example.C': ({}, [{'instance-id': <'c1'>, 'crashed': <false>}])}>,"
    " 'other': <'kept'>}"));
  Filtering f = { "org.example.A", "b1", g_string_new (NULL), g_string_new (NULL) };
  g_autoptr(GVariant) filtered = sr_format_gnome_session_filter (state, &test_filter, &f);
  g_autoptr(GVariant) b = NULL;
  g_autoptr(GVariant) c_before = app_entry (state, "org.example.C");
  g_autoptr(GVariant) c_after = NULL;
  g_autoptr(GVariant) a_after = NULL;
  g_autofree char *printed = NULL;

  g_assert_nonnull (filtered);
  g_assert_cmpstr (f.asked->str, ==, "org.example.B:b1:1 org.example.B:b2:0 org.example.C:c1:0 ");
  g_assert_cmpstr (f.removed->str, ==,
                   "org.example.A:a1:0 org.example.A:n:1 org.example.A:d1:2 org.example.A:d2:2 "
                   "org.example.B:b1:0 ");
  a_after = app_entry (filtered, "org.example.A");
  g_assert_null (a_after);
  b = app_entry (filtered, "org.example.B");
  printed = g_variant_print (b, FALSE);
  g_assert_cmpstr (printed, ==,
                   "({'next-instance-id': <'bn'>}, [{'instance-id': <'b2'>, 'crashed': <false>}])");
  c_after = app_entry (filtered, "org.example.C");
  g_assert_cmpmem (g_variant_get_data (c_after), g_variant_get_size (c_after),
                   g_variant_get_data (c_before), g_variant_get_size (c_before));
  g_clear_pointer (&printed, g_free);
  printed = g_variant_print (filtered, FALSE);
  g_assert_true (g_str_has_prefix (printed, "{'version': <uint32 1>, 'dirty': <false>, 'instances': "));
  g_assert_true (g_str_has_suffix (printed, ", 'other': <'kept'>}"));

  /* Nothing to take: no rewrite. */
  f.remove_app = NULL;
  f.drop = NULL;
  g_assert_null (sr_format_gnome_session_filter (state, &test_filter, &f));

  g_string_free (f.asked, TRUE);
  g_string_free (f.removed, TRUE);
}

/* gnome-session recovers every instance of a session that did not end
 * ("dirty"), and reads no record without "dirty": recoverable, both. */
static void
test_session_filter_recoverable (void)
{
  const char *records[] = {
    "{'version': <uint32 1>, 'dirty': <true>, 'instances': <@a{s(a{sv}aa{sv})} {"
    "  'org.example.A': ({}, [{'instance-id': <'a1'>, 'crashed': <false>}])}>}",
    "{'version': <uint32 1>, 'instances': <@a{s(a{sv}aa{sv})} {"
    "  'org.example.A': ({}, [{'instance-id': <'a1'>, 'crashed': <false>}])}>}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (records); i++)
    {
      g_autoptr(GVariant) state = g_variant_ref_sink (g_variant_new_parsed (records[i]));
      Filtering f = { NULL, NULL, g_string_new (NULL), g_string_new (NULL) };

      g_assert_null (sr_format_gnome_session_filter (state, &test_filter, &f));
      g_assert_cmpstr (f.asked->str, ==, "org.example.A:a1:1 ");
      g_string_free (f.asked, TRUE);
      g_string_free (f.removed, TRUE);
    }
}

static void
test_session_rejects (void)
{
  g_autoptr(GVariant) wrong = g_variant_ref_sink (g_variant_new_parsed ("{'instances': <'x'>}"));
  g_autoptr(GError) error = NULL;
  const char garbage[] = "\x01\x02\x03 not a variant";

  g_assert_null (sr_format_gnome_session_parse (g_variant_get_data (wrong), g_variant_get_size (wrong), &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null (sr_format_gnome_session_parse (garbage, sizeof garbage, &error));
  g_assert_nonnull (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/format-gnome-session/parse-and-list", test_session_parse_and_list);
  g_test_add_func ("/format-gnome-session/reopens", test_session_reopens);
  g_test_add_func ("/format-gnome-session/saved-at", test_session_saved_at);
  g_test_add_func ("/format-gnome-session/saved-before", test_session_saved_before);
  g_test_add_func ("/format-gnome-session/without", test_session_without);
  g_test_add_func ("/format-gnome-session/rejects", test_session_rejects);
  g_test_add_func ("/format-gnome-session/filter", test_session_filter);
  g_test_add_func ("/format-gnome-session/filter-recoverable", test_session_filter_recoverable);

  return g_test_run ();
}
