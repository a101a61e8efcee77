/* test-policy-client.c: libsessionrestore's SrPolicyClient against a
 * stand-in service in this process, on a private bus (GTestDBus): the
 * service missing and then appearing, properties changed and invalidated,
 * StoredStateCleared, signals that another connection forges in the
 * service's name, which must change nothing, and calls pipelined before
 * the owner is verified, whose answers count only from the verified owner.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "test-policy-client"

#include "config.h"

#include <session-restore.h>

#include "sr-bus.h"

static const char service_xml[] =
  "<node><interface name='" SR_INTERFACE_NAME "'>"
  "  <property name='Version' type='u' access='read'/>"
  "  <property name='Enabled' type='b' access='read'/>"
  "  <property name='MaxAgeDays' type='i' access='read'/>"
  "  <property name='ExcludedApps' type='as' access='read'/>"
  "  <method name='CheckSave'>"
  "    <arg name='app_id' type='s' direction='in'/>"
  "    <arg name='verdict' type='u' direction='out'/>"
  "    <arg name='why' type='s' direction='out'/>"
  "  </method>"
  "  <method name='ListStoredState'>"
  "    <arg name='apps' type='a(sa{sv})' direction='out'/>"
  "  </method>"
  "</interface></node>";

typedef struct {
  GTestDBus *bus;
  GDBusConnection *client_bus;    /* the client's */
  GDBusConnection *service_bus;   /* the stand-in service's */
  GDBusConnection *forger_bus;    /* another program's */
  GDBusNodeInfo *node;
  const char *excluded[2];        /* what the service says ExcludedApps is */
  int max_age_days;
  GPtrArray *cleared;             /* of GStrv: each stored-state-cleared */
  GArray *max_ages;               /* of int: each notify::max-age-days */
  GPtrArray *heard;               /* of char*: what the stand-ins were asked, in
                                   * order ("properties" for a read of them) */
} Fixture;

static GDBusConnection *
connect_to (Fixture *fixture)
{
  g_autoptr(GError) error = NULL;
  GDBusConnection *connection =
    g_dbus_connection_new_for_address_sync (g_test_dbus_get_bus_address (fixture->bus),
                                            G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                            G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                            NULL, NULL, &error);
  g_assert_no_error (error);
  return connection;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture->bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (fixture->bus);
  fixture->client_bus = connect_to (fixture);
  fixture->service_bus = connect_to (fixture);
  fixture->forger_bus = connect_to (fixture);
  fixture->node = g_dbus_node_info_new_for_xml (service_xml, NULL);
  fixture->excluded[0] = NULL;
  fixture->max_age_days = 7;
  fixture->cleared = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  fixture->max_ages = g_array_new (FALSE, FALSE, sizeof (int));
  fixture->heard = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  g_dbus_node_info_unref (fixture->node);
  g_object_unref (fixture->client_bus);
  g_object_unref (fixture->service_bus);
  g_object_unref (fixture->forger_bus);
  g_test_dbus_down (fixture->bus);
  g_object_unref (fixture->bus);
  g_ptr_array_unref (fixture->cleared);
  g_array_unref (fixture->max_ages);
  g_ptr_array_unref (fixture->heard);
}

static void
on_method_call (GDBusConnection       *connection,
                const char            *sender,
                const char            *path,
                const char            *interface,
                const char            *method,
                GVariant              *parameters,
                GDBusMethodInvocation *invocation,
                gpointer               user_data)
{
  Fixture *fixture = user_data;

  g_ptr_array_add (fixture->heard, g_strdup (method));
  /* Each stand-in lists one app: its own unique name says which answered. */
  if (g_str_equal (method, "ListStoredState"))
    g_dbus_method_invocation_return_value (invocation,
      g_variant_new_parsed ("([(%s, @a{sv} {})],)", g_dbus_connection_get_unique_name (connection)));
  else
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(us)", 1, "allowed"));
}

static GVariant *
on_get_property (GDBusConnection  *connection,
                 const char       *sender,
                 const char       *path,
                 const char       *interface,
                 const char       *name,
                 GError          **error,
                 gpointer          user_data)
{
  Fixture *fixture = user_data;

  if (fixture->heard->len == 0 ||
      g_strcmp0 (g_ptr_array_index (fixture->heard, fixture->heard->len - 1), "properties") != 0)
    g_ptr_array_add (fixture->heard, g_strdup ("properties"));
  if (g_str_equal (name, "Version"))
    return g_variant_new_uint32 (2);
  if (g_str_equal (name, "Enabled"))
    return g_variant_new_boolean (TRUE);
  if (g_str_equal (name, "MaxAgeDays"))
    return g_variant_new_int32 (fixture->max_age_days);
  return g_variant_new_strv (fixture->excluded, -1);
}

static const GDBusInterfaceVTable vtable = { on_method_call, on_get_property, NULL, { 0 } };

/* A stand-in on @connection takes the service's name; returns the
 * registration id. */
static guint
start_service_on (Fixture         *fixture,
                  GDBusConnection *connection)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = NULL;
  guint id = g_dbus_connection_register_object (connection, SR_OBJECT_PATH,
                                                fixture->node->interfaces[0], &vtable,
                                                fixture, NULL, &error);

  g_assert_no_error (error);
  reply = g_dbus_connection_call_sync (connection, "org.freedesktop.DBus",
                                       "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "RequestName", g_variant_new ("(su)", SR_BUS_NAME, 4),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1,
                                       NULL, &error);
  g_assert_no_error (error);
  return id;
}

static guint
start_service (Fixture *fixture)
{
  return start_service_on (fixture, fixture->service_bus);
}

/* @connection sends what policyd sends: to the client, or to everyone. */
static void
send_signals (GDBusConnection *connection,
              const char      *destination,
              int              max_age_days,
              const char      *cleared_app)
{
  const char *apps[] = { cleared_app, NULL };
  g_autoptr(GError) error = NULL;
  GVariantBuilder changed;

  g_variant_builder_init (&changed, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&changed, "{sv}", "MaxAgeDays", g_variant_new_int32 (max_age_days));
  g_dbus_connection_emit_signal (connection, NULL, SR_OBJECT_PATH,
                                 "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                 g_variant_new ("(sa{sv}^as)", SR_INTERFACE_NAME, &changed,
                                                (const char * const[]) { "ExcludedApps", NULL }),
                                 &error);
  g_assert_no_error (error);
  g_dbus_connection_emit_signal (connection, destination, SR_OBJECT_PATH, SR_INTERFACE_NAME,
                                 "StoredStateCleared", g_variant_new ("(^as)", apps), &error);
  g_assert_no_error (error);
  g_dbus_connection_flush_sync (connection, NULL, &error);
  g_assert_no_error (error);
}

static void
on_cleared_cb (SrPolicyClient  *client,
               char           **app_ids,
               Fixture         *fixture)
{
  g_ptr_array_add (fixture->cleared, g_strdupv (app_ids));
}

static void
on_max_age_cb (SrPolicyClient *client,
               GParamSpec     *pspec,
               Fixture        *fixture)
{
  int days = sr_policy_client_get_max_age_days (client);

  g_array_append_val (fixture->max_ages, days);
}

static void
wait_for_state (SrPolicyClient *client,
                SrServiceState  state)
{
  while (sr_policy_client_get_service_state (client) != state)
    g_main_context_iteration (NULL, TRUE);
}

static void
on_result_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Asynchronously: the stand-in answers on this thread's main context. */
static SrVerdict
check_save (SrPolicyClient  *client,
            SrWhy           *out_why,
            GError         **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  sr_policy_client_check_save_async (client, "org.example.A", NULL, on_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return sr_policy_client_check_save_finish (client, result, out_why, error);
}

static void
test_missing_then_running (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrPolicyClient) client =
    sr_policy_client_new_for_bus_sync (fixture->client_bus,
                                       SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START, NULL, &error);
  SrWhy why = SR_WHY_ASK;
  guint id;

  g_assert_no_error (error);
  g_assert_cmpint (sr_policy_client_get_service_state (client), ==, SR_SERVICE_STATE_MISSING);
  g_assert_cmpint (sr_policy_client_check_save_sync (client, "org.example.A", &why, NULL, &error),
                   ==, SR_VERDICT_DENY);
  g_assert_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE);
  g_assert_cmpint (why, ==, SR_WHY_UNKNOWN);
  g_clear_error (&error);

  id = start_service (fixture);
  wait_for_state (client, SR_SERVICE_STATE_RUNNING);
  g_assert_true (sr_policy_client_get_enabled (client));
  g_assert_cmpint (sr_policy_client_get_max_age_days (client), ==, 7);
  g_assert_cmpuint (sr_policy_client_get_version (client), ==, 2);
  g_assert_cmpint (check_save (client, &why, &error), ==, SR_VERDICT_ALLOW);
  g_assert_no_error (error);
  g_assert_cmpint (why, ==, SR_WHY_ALLOWED);

  g_dbus_connection_unregister_object (fixture->service_bus, id);
  g_dbus_connection_close_sync (fixture->service_bus, NULL, NULL);
  wait_for_state (client, SR_SERVICE_STATE_MISSING);
}

/* Another program on the bus sends PropertiesChanged and
 * StoredStateCleared as if it were the service (to everyone, and to the
 * client directly): none of it is taken. What the service then sends is. */
static void
test_forged_signals_ignored (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrPolicyClient) client = NULL;
  const char *client_name = g_dbus_connection_get_unique_name (fixture->client_bus);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GVariant) pong = NULL;

  start_service (fixture);
  /* Asynchronously: the stand-in answers GetAll on this thread. */
  sr_policy_client_new_for_bus_async (fixture->client_bus,
                                      SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START, NULL,
                                      on_result_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  client = sr_policy_client_new_for_bus_finish (result, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sr_policy_client_get_max_age_days (client), ==, 7);
  g_assert_cmpint (sr_policy_client_get_service_state (client), ==, SR_SERVICE_STATE_RUNNING);
  g_signal_connect (client, "stored-state-cleared", G_CALLBACK (on_cleared_cb), fixture);
  g_signal_connect (client, "notify::max-age-days", G_CALLBACK (on_max_age_cb), fixture);

  fixture->excluded[0] = "org.example.Forged";
  send_signals (fixture->forger_bus, client_name, 1, "org.example.Forged");
  /* What the forger sent reached the client before this answer. */
  pong = g_dbus_connection_call_sync (fixture->forger_bus, client_name, "/",
                                      "org.freedesktop.DBus.Peer", "Ping", NULL, NULL,
                                      G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);

  fixture->max_age_days = 9;
  fixture->excluded[0] = "org.example.Excluded";
  send_signals (fixture->service_bus, client_name, 9, "org.example.Cleared");
  while (fixture->cleared->len == 0 ||
         g_strv_length ((char **) sr_policy_client_get_excluded_apps (client)) == 0)
    g_main_context_iteration (NULL, TRUE);

  g_assert_cmpuint (fixture->max_ages->len, ==, 1);
  g_assert_cmpint (g_array_index (fixture->max_ages, int, 0), ==, 9);
  g_assert_cmpuint (fixture->cleared->len, ==, 1);
  g_assert_cmpstrv (fixture->cleared->pdata[0], ((const char * const[]) { "org.example.Cleared", NULL }));
  /* Invalidated, and read again from the service. */
  g_assert_cmpstrv (sr_policy_client_get_excluded_apps (client),
                    ((const char * const[]) { "org.example.Excluded", NULL }));
}

/* A pipelining client made, asked for the listing before its
 * initialization begins, then initialized: returns the listing's result. */
static GAsyncResult *
list_while_initializing (Fixture          *fixture,
                         SrPolicyClient  **out_client,
                         GFunc             meanwhile)
{
  g_autoptr(SrPolicyClient) client =
    sr_policy_client_new (fixture->client_bus, SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START |
                                               SR_POLICY_CLIENT_FLAGS_PIPELINE);
  g_autoptr(GAsyncResult) listed = NULL;
  g_autoptr(GAsyncResult) initialized = NULL;
  g_autoptr(GError) error = NULL;

  sr_policy_client_list_stored_state_async (client, SR_CALL_FLAGS_NONE, NULL, on_result_cb,
                                            &listed);
  if (meanwhile != NULL)
    meanwhile (fixture, client);
  g_async_initable_init_async (G_ASYNC_INITABLE (client), G_PRIORITY_DEFAULT, NULL,
                               on_result_cb, &initialized);
  while (listed == NULL || initialized == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (g_async_initable_init_finish (G_ASYNC_INITABLE (client), initialized, &error));
  g_assert_no_error (error);
  *out_client = g_steal_pointer (&client);
  return g_steal_pointer (&listed);
}

/* The listing asked for before the client initialized reached the service
 * first, before the client read its properties (which it does once the
 * owner is verified), and its answer is taken. */
static void
test_pipelined_call_answered (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrPolicyClient) client = NULL;
  g_autoptr(GAsyncResult) listed = NULL;
  g_autoptr(GVariant) listing = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *printed = NULL;

  start_service (fixture);
  listed = list_while_initializing (fixture, &client, NULL);
  listing = sr_policy_client_list_stored_state_finish (client, listed, &error);
  g_assert_no_error (error);
  expected = g_strdup_printf ("[('%s', @a{sv} {})]",
                              g_dbus_connection_get_unique_name (fixture->service_bus));
  printed = g_variant_print (listing, TRUE);
  g_assert_cmpstr (printed, ==, expected);
  g_assert_cmpint (sr_policy_client_get_service_state (client), ==, SR_SERVICE_STATE_RUNNING);
  g_assert_cmpuint (fixture->heard->len, >=, 2);
  g_assert_cmpstr (g_ptr_array_index (fixture->heard, 0), ==, "ListStoredState");
  g_assert_cmpstr (g_ptr_array_index (fixture->heard, 1), ==, "properties");
}

/* The first stand-in answers the call and leaves before the client
 * identifies the owner; another takes the name and is verified. */
static void
hand_over (gpointer data,
           gpointer user_data)
{
  Fixture *fixture = data;
  SrPolicyClient *client = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) pong = NULL;

  while (fixture->heard->len == 0)
    g_main_context_iteration (NULL, TRUE);
  /* Its answer reached the client before this one. */
  pong = g_dbus_connection_call_sync (fixture->client_bus,
                                      g_dbus_connection_get_unique_name (fixture->service_bus),
                                      "/", "org.freedesktop.DBus.Peer", "Ping", NULL, NULL,
                                      G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (sr_policy_client_get_service_state (client), ==, SR_SERVICE_STATE_UNKNOWN);
  g_dbus_connection_close_sync (fixture->service_bus, NULL, &error);
  g_assert_no_error (error);
  start_service_on (fixture, fixture->forger_bus);
}

/* An answer to a pipelined call from a program that is not the verified
 * owner (here: the one that owned the name as the call was sent) is
 * refused, though the program answered with a listing. */
static void
test_pipelined_answer_from_another_refused (Fixture       *fixture,
                                            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrPolicyClient) client = NULL;
  g_autoptr(GAsyncResult) listed = NULL;
  g_autoptr(GVariant) listing = NULL;

  start_service (fixture);
  listed = list_while_initializing (fixture, &client, hand_over);
  g_assert_cmpint (sr_policy_client_get_service_state (client), ==, SR_SERVICE_STATE_RUNNING);
  g_assert_cmpstr (sr_policy_client_get_service_owner (client), ==,
                   g_dbus_connection_get_unique_name (fixture->forger_bus));
  listing = sr_policy_client_list_stored_state_finish (client, listed, &error);
  g_assert_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message, "its answer was not used"));
  g_assert_null (listing);
}

/* Without SR_POLICY_CLIENT_FLAGS_PIPELINE, nothing is sent before the
 * owner is verified. */
static void
test_unpipelined_call_not_sent (Fixture       *fixture,
                                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrPolicyClient) client = sr_policy_client_new (fixture->client_bus,
                                                           SR_POLICY_CLIENT_FLAGS_NONE);
  g_autoptr(GAsyncResult) listed = NULL;
  g_autoptr(GVariant) listing = NULL;

  start_service (fixture);
  sr_policy_client_list_stored_state_async (client, SR_CALL_FLAGS_NONE, NULL, on_result_cb,
                                            &listed);
  while (listed == NULL)
    g_main_context_iteration (NULL, TRUE);
  listing = sr_policy_client_list_stored_state_finish (client, listed, &error);
  g_assert_error (error, SR_ERROR, SR_ERROR_UNAVAILABLE);
  g_assert_null (listing);
  g_assert_cmpuint (fixture->heard->len, ==, 0);
}

/* A call that names an app, made by a pipelining client before its
 * initialization, is not sent until the owner is verified (after the
 * read of its properties, which begins the identification), then is. */
static void
test_pipelined_call_naming_app_waits (Fixture       *fixture,
                                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrPolicyClient) client =
    sr_policy_client_new (fixture->client_bus, SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START |
                                               SR_POLICY_CLIENT_FLAGS_PIPELINE);
  g_autoptr(GAsyncResult) checked = NULL;
  g_autoptr(GAsyncResult) initialized = NULL;
  SrWhy why = SR_WHY_UNKNOWN;

  start_service (fixture);
  sr_policy_client_check_save_async (client, "org.example.A", NULL, on_result_cb, &checked);
  g_async_initable_init_async (G_ASYNC_INITABLE (client), G_PRIORITY_DEFAULT, NULL,
                               on_result_cb, &initialized);
  while (checked == NULL || initialized == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (g_async_initable_init_finish (G_ASYNC_INITABLE (client), initialized, &error));
  g_assert_cmpint (sr_policy_client_check_save_finish (client, checked, &why, &error), ==,
                   SR_VERDICT_ALLOW);
  g_assert_no_error (error);
  g_assert_cmpint (why, ==, SR_WHY_ALLOWED);
  g_assert_cmpuint (fixture->heard->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (fixture->heard, 0), ==, "properties");
  g_assert_cmpstr (g_ptr_array_index (fixture->heard, 1), ==, "CheckSave");
}

/* Once the initialization began, a call waits for the owner to be
 * verified, and again when the name changes hands, rather than failing
 * because the owner is not identified yet. */
static void
test_call_waits_for_identification (Fixture       *fixture,
                                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SrPolicyClient) client =
    sr_policy_client_new (fixture->client_bus, SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START);
  g_autoptr(GAsyncResult) initialized = NULL;
  SrWhy why = SR_WHY_UNKNOWN;

  start_service (fixture);
  g_async_initable_init_async (G_ASYNC_INITABLE (client), G_PRIORITY_DEFAULT, NULL,
                               on_result_cb, &initialized);
  g_assert_cmpint (sr_policy_client_get_service_state (client), ==, SR_SERVICE_STATE_UNKNOWN);
  g_assert_cmpint (check_save (client, &why, &error), ==, SR_VERDICT_ALLOW);
  g_assert_no_error (error);
  g_assert_cmpint (why, ==, SR_WHY_ALLOWED);
  while (initialized == NULL)
    g_main_context_iteration (NULL, TRUE);

  /* Another stand-in takes the name: the client identifies it anew. */
  g_dbus_connection_close_sync (fixture->service_bus, NULL, &error);
  g_assert_no_error (error);
  wait_for_state (client, SR_SERVICE_STATE_MISSING);
  start_service_on (fixture, fixture->forger_bus);
  wait_for_state (client, SR_SERVICE_STATE_UNKNOWN);
  why = SR_WHY_UNKNOWN;
  g_assert_cmpint (check_save (client, &why, &error), ==, SR_VERDICT_ALLOW);
  g_assert_no_error (error);
  g_assert_cmpint (why, ==, SR_WHY_ALLOWED);
  g_assert_cmpstr (sr_policy_client_get_service_owner (client), ==,
                   g_dbus_connection_get_unique_name (fixture->forger_bus));
}

static void
test_why_strings (void)
{
  for (int why = SR_WHY_ALLOWED; why <= SR_WHY_ASK_UNAVAILABLE; why++)
    g_assert_cmpint (sr_why_from_string (sr_why_to_string (why)), ==, why);
  g_assert_cmpint (sr_why_from_string ("something-newer"), ==, SR_WHY_UNKNOWN);
  g_assert_cmpint (sr_why_from_string (NULL), ==, SR_WHY_UNKNOWN);
  g_assert_cmpstr (sr_why_to_string (SR_WHY_CRASH_LOOP), ==, "crash-loop");
  g_assert_cmpstr (sr_why_to_string (1000), ==, "unknown");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/policy-client/why-strings", test_why_strings);
  g_test_add ("/policy-client/missing-then-running", Fixture, NULL,
              fixture_set_up, test_missing_then_running, fixture_tear_down);
  g_test_add ("/policy-client/forged-signals-ignored", Fixture, NULL,
              fixture_set_up, test_forged_signals_ignored, fixture_tear_down);
  g_test_add ("/policy-client/pipelined-call-answered", Fixture, NULL,
              fixture_set_up, test_pipelined_call_answered, fixture_tear_down);
  g_test_add ("/policy-client/pipelined-answer-from-another-refused", Fixture, NULL,
              fixture_set_up, test_pipelined_answer_from_another_refused, fixture_tear_down);
  g_test_add ("/policy-client/unpipelined-call-not-sent", Fixture, NULL,
              fixture_set_up, test_unpipelined_call_not_sent, fixture_tear_down);
  g_test_add ("/policy-client/pipelined-call-naming-app-waits", Fixture, NULL,
              fixture_set_up, test_pipelined_call_naming_app_waits, fixture_tear_down);
  g_test_add ("/policy-client/call-waits-for-identification", Fixture, NULL,
              fixture_set_up, test_call_waits_for_identification, fixture_tear_down);
  return g_test_run ();
}
