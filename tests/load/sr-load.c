/* sr-load.c: many clients asking policyd at once
 *
 * Run by test_load.py inside a private session, while the test changes the
 * settings under it. Each client is a thread with its own bus connection
 * and its own main context, and keeps a few CheckSave and CheckRestore
 * calls in flight. Every call is written down: when it was sent, when its
 * answer came (CLOCK_MONOTONIC, as g_get_monotonic_time() and Python's
 * time.monotonic() read it), what it asked and what it got. Judging the
 * answers is the test's business: this tool only asks and records.
 *
 * Usage: sr-load OUTPUT [CLIENTS [CALLS [DEPTH]]]
 * OUTPUT gets one line per call:
 *   client sent-µs replied-µs app-index kind verdict why
 * kind: 0 CheckSave, else the restore reason (1 LAUNCH, 2 RECOVER,
 * 3 RESTORE); verdict -1 and why "-" for a call that failed. The exit
 * status is 0 only when every call was answered.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-load"

#include "config.h"
#include "sr-bus.h"

#include <errno.h>
#include <stdio.h>

#include <gio/gio.h>

/* Long enough that only a hang times out, even under the sanitizers. */
#define CALL_TIMEOUT_MSEC (120 * 1000)

/* The apps the clients ask about; the test excludes some of them. */
static const char * const apps[] = {
  "org.example.LoadApp0",
  "org.example.LoadApp1",
  "org.example.LoadApp2",
  "org.example.LoadApp3",
};

typedef struct {
  gint64 sent;
  gint64 replied;
  guint8 app;
  guint8 kind;
  gint8 verdict;           /* -1: the call failed */
  const char *why;         /* (unowned) interned */
} Record;

typedef struct {
  guint index;
  const char *address;
  guint calls;
  guint depth;
  Record *records;         /* (owned) calls of them */
  guint sent;
  guint done;
  guint failed;
  char *first_error;       /* (owned) (nullable) */
  GDBusConnection *bus;    /* (owned) (nullable) */
  GRand *rand;             /* (owned) */
  gint64 saved_at;
} Client;

typedef struct {
  Client *client;          /* (unowned) */
  guint index;
} Pending;

/* All clients connect first, then start together. */
static GMutex start_lock;
static GCond start_cond;
static guint clients_ready;
static gboolean started;

static void send_next (Client *client);

static void
on_reply_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autofree Pending *pending = user_data;
  Client *client = pending->client;
  Record *record = &client->records[pending->index];
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source),
                                                             result, &error);

  record->replied = g_get_monotonic_time ();
  if (reply == NULL)
    {
      record->verdict = -1;
      record->why = "-";
      if (client->failed++ == 0)
        client->first_error = g_strdup (error->message);
    }
  else
    {
      guint32 verdict;
      const char *why;

      g_variant_get (reply, "(u&s)", &verdict, &why);
      /* Anything out of range is kept as it came, for the test to flag. */
      record->verdict = (gint8) MIN (verdict, 100);
      record->why = g_intern_string (why);
    }
  client->done++;
  send_next (client);
}

static void
send_next (Client *client)
{
  Pending *pending;
  Record *record;
  GVariant *params;
  const char *app;

  if (client->sent >= client->calls)
    return;

  pending = g_new0 (Pending, 1);
  pending->client = client;
  pending->index = client->sent++;
  record = &client->records[pending->index];
  record->app = g_rand_int_range (client->rand, 0, G_N_ELEMENTS (apps));
  record->kind = g_rand_int_range (client->rand, 0, 4);
  app = apps[record->app];

  if (record->kind == 0)
    {
      params = g_variant_new ("(s)", app);
    }
  else
    {
      GVariantDict options;

      /* Half of them say when the state was saved: in the future, so
       * that no clear point recorded during the run (an opt-out, the
       * switch going off) and no max-age applies; rule 5 stays out of
       * the picture while its code still runs. */
      g_variant_dict_init (&options, NULL);
      if (g_rand_boolean (client->rand))
        g_variant_dict_insert (&options, "saved-at", "x", client->saved_at);
      params = g_variant_new ("(su@a{sv})", app, (guint32) record->kind,
                              g_variant_dict_end (&options));
    }

  record->sent = g_get_monotonic_time ();
  g_dbus_connection_call (client->bus, SR_BUS_NAME, SR_OBJECT_PATH, SR_BUS_NAME,
                          record->kind == 0 ? "CheckSave" : "CheckRestore",
                          params, G_VARIANT_TYPE ("(us)"),
                          G_DBUS_CALL_FLAGS_NO_AUTO_START, CALL_TIMEOUT_MSEC,
                          NULL, on_reply_cb, pending);
}

static gpointer
client_thread (gpointer data)
{
  Client *client = data;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GError) error = NULL;

  g_main_context_push_thread_default (context);
  client->bus = g_dbus_connection_new_for_address_sync (client->address,
                                                        G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                        G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                        NULL, NULL, &error);
  if (client->bus == NULL)
    g_error ("client %u: %s", client->index, error->message);

  g_mutex_lock (&start_lock);
  clients_ready++;
  g_cond_broadcast (&start_cond);
  while (!started)
    g_cond_wait (&start_cond, &start_lock);
  g_mutex_unlock (&start_lock);

  for (guint i = 0; i < client->depth; i++)
    send_next (client);
  while (client->done < client->calls)
    g_main_context_iteration (context, TRUE);

  g_dbus_connection_close_sync (client->bus, NULL, NULL);
  g_clear_object (&client->bus);
  while (g_main_context_iteration (context, FALSE))
    ;
  g_main_context_pop_thread_default (context);
  return NULL;
}

static guint
parse_count (const char *text,
             const char *what)
{
  guint64 value;

  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXINT / 2, &value, NULL))
    g_error ("%s: “%s” is not a positive number", what, text);
  return value;
}

int
main (int argc, char **argv)
{
  const char *address = g_getenv ("DBUS_SESSION_BUS_ADDRESS");
  guint n_clients = 64, calls = 10000, depth = 2;
  g_autofree Client *clients = NULL;
  g_autofree GThread **threads = NULL;
  guint64 total = 0, failed = 0;
  gint64 start, elapsed;
  FILE *out;

  if (argc < 2 || argc > 5)
    {
      g_printerr ("Usage: %s OUTPUT [CLIENTS [CALLS [DEPTH]]]\n", argv[0]);
      return 2;
    }
  if (argc > 2)
    n_clients = parse_count (argv[2], "CLIENTS");
  if (argc > 3)
    calls = parse_count (argv[3], "CALLS");
  if (argc > 4)
    depth = parse_count (argv[4], "DEPTH");
  if (address == NULL)
    g_error ("DBUS_SESSION_BUS_ADDRESS is not set");

  clients = g_new0 (Client, n_clients);
  threads = g_new0 (GThread *, n_clients);
  for (guint i = 0; i < n_clients; i++)
    {
      Client *client = &clients[i];

      client->index = i;
      client->address = address;
      client->calls = calls;
      client->depth = depth;
      client->records = g_new0 (Record, calls);
      client->rand = g_rand_new_with_seed (i + 1);
      client->saved_at = g_get_real_time () + (gint64) 3600 * G_USEC_PER_SEC;
      threads[i] = g_thread_new ("client", client_thread, client);
    }

  g_mutex_lock (&start_lock);
  while (clients_ready < n_clients)
    g_cond_wait (&start_cond, &start_lock);
  started = TRUE;
  start = g_get_monotonic_time ();
  g_cond_broadcast (&start_cond);
  g_mutex_unlock (&start_lock);

  for (guint i = 0; i < n_clients; i++)
    g_thread_join (threads[i]);
  elapsed = g_get_monotonic_time () - start;

  out = fopen (argv[1], "w");
  if (out == NULL)
    g_error ("%s: %s", argv[1], g_strerror (errno));
  for (guint i = 0; i < n_clients; i++)
    {
      Client *client = &clients[i];

      for (guint j = 0; j < client->calls; j++)
        {
          const Record *r = &client->records[j];

          fprintf (out, "%u %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %u %u %d %s\n",
                   i, r->sent, r->replied, r->app, r->kind, r->verdict, r->why);
        }
      total += client->done;
      failed += client->failed;
      if (client->first_error != NULL)
        g_printerr ("client %u: %u calls failed, the first: %s\n",
                    i, client->failed, client->first_error);
      g_free (client->first_error);
      g_free (client->records);
      g_rand_free (client->rand);
    }
  if (fclose (out) != 0)
    g_error ("%s: %s", argv[1], g_strerror (errno));

  g_print ("sr-load: %u clients x %u calls, %u in flight each: %" G_GUINT64_FORMAT
           " answered, %" G_GUINT64_FORMAT " failed, %.2f s, %.0f calls/s\n",
           n_clients, calls, depth, total - failed, failed, elapsed / 1e6,
           total / (elapsed / 1e6));
  return failed == 0 ? 0 : 1;
}
