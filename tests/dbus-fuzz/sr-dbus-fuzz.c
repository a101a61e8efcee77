/* sr-dbus-fuzz.c: random D-Bus calls against a running policyd
 *
 * Run by test_dbus_fuzz.py inside a private session (HOME, dconf, session
 * bus, a mock polkit that allows everything, so that changes get past the
 * gate). Sends N calls (100,000 by default) to policyd's unique name, a
 * window of them in flight at once: its methods with right and wrong
 * signatures and random values, unknown members, interfaces and object
 * paths, the standard interfaces, and bodies of random types, with
 * strings of up to 1 MiB and arrays of up to 100,000 items.
 *
 * The run fails when a call is not answered (a timeout, NoReply), when it
 * is answered with an error that is no named error (GDBus's fallbacks for
 * unmapped GErrors, or errors of a bus whose peer went away), when a
 * method return has the wrong type or answers what must be refused, when
 * policyd loses its name or its process changes, and when its resident
 * memory does not come back to where it was (see check_memory()).
 *
 * Messages that break the wire format (an invalid object path, member or
 * interface name, bad UTF-8, a boolean of 2, nesting beyond the limits)
 * cannot be sent through GDBus; sr-fuzz-raw.c writes them by hand. Valid
 * messages that GDBus itself misreads are not sent in a run: see
 * gdbus_reads_back(). --unreadable N sends them on their own instead: a
 * known one and the first N of the random run, each once policyd is back,
 * and checks that policyd leaves the bus, comes back by D-Bus activation
 * and answers right (see send_unreadable()).
 *
 * Each call draws from its own generator, seeded with (seed, call number),
 * so `--seed S --call N` sends exactly call N of a run again.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-dbus-fuzz"

#include "config.h"
#include "sr-bus.h"

#include <fcntl.h>
#include <locale.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

#include "sr-fuzz-calls.h"
#include "sr-fuzz-random.h"
#include "sr-fuzz-raw.h"
#include "sr-proc.h"

#define ORDINARY_CALLS 1000

/* -- Sending and checking replies ------------------------------------------- */

typedef struct {
  GDBusConnection *bus;     /* (unowned) */
  char *owner;              /* (owned) policyd's unique name */
  guint32 pid;
  guint32 seed;
  int dev_null;
  guint timeout_ms;
  guint window;
  gboolean verbose;

  /* The batch being run */
  Call *(*next) (gpointer data, guint i);
  gpointer next_data;
  guint first, count, sent, in_flight;
  GMainLoop *loop;          /* (unowned) */

  GHashTable *replies;      /* (unowned) name → count */
  guint kind_counts[N_KINDS];
  gint64 kind_us[N_KINDS], kind_max_us[N_KINDS];
  GPtrArray *failures;      /* (unowned) (element-type utf8) */
  guint n_failures;
  gint64 slowest_us;
  guint slowest_index;
  guint owner_changes;
  guint fresh_clients;
  guint n_big_bodies;
  gsize largest_message;    /* bytes, of those of 256 KiB or more */
  gboolean send_unreadable;
  const char *only;         /* (nullable) only calls of the kinds so named */
  GPtrArray *unreadable;    /* (unowned) (element-type utf8) the first few not sent */
} Fuzz;

#define NOT_SENT "(not sent: GDBus cannot read it back)"

typedef struct {
  Fuzz *fuzz;
  Call *call;               /* (owned) */
  GDBusConnection *bus;     /* (owned): a fresh client's own connection, or the main one */
  gint64 sent_at;
} Pending;

static void
fail (Fuzz       *f,
      const Call *call,
      const char *format,
      ...) G_GNUC_PRINTF (3, 4);

static void
fail (Fuzz       *f,
      const Call *call,
      const char *format,
      ...)
{
  g_autofree char *what = NULL;
  g_autofree char *described = call ? call_describe (call) : NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  f->n_failures++;
  if (f->failures->len >= 20)
    return;
  if (call != NULL)
    g_ptr_array_add (f->failures,
                     g_strdup_printf ("%s\n    %s\n    replay: --seed %u --call %u", what,
                                      described, f->seed, call->index));
  else
    g_ptr_array_add (f->failures, g_steal_pointer (&what));
}

/* The error names a correct policyd, or GDBus on its behalf, answers with. */
static gboolean
is_named_error (const char *name)
{
  static const char *const expected[] = {
    "org.gnome.SessionRestore.Error.InvalidArgs",
    "org.gnome.SessionRestore.Error.Locked",
    "org.gnome.SessionRestore.Error.NotAllowed",
    "org.gnome.SessionRestore.Error.Failed",
    "org.freedesktop.DBus.Error.UnknownMethod",
    "org.freedesktop.DBus.Error.UnknownInterface",
    "org.freedesktop.DBus.Error.UnknownObject",
    "org.freedesktop.DBus.Error.UnknownProperty",
    "org.freedesktop.DBus.Error.PropertyReadOnly",
    "org.freedesktop.DBus.Error.InvalidArgs",
  };

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    if (g_str_equal (name, expected[i]))
      return TRUE;
  return FALSE;
}

static void
count_reply (Fuzz       *f,
             const char *name)
{
  gpointer n = g_hash_table_lookup (f->replies, name);

  g_hash_table_replace (f->replies, g_strdup (name), GUINT_TO_POINTER (GPOINTER_TO_UINT (n) + 1));
}

static void
check_reply (Fuzz         *f,
             const Call   *call,
             GDBusMessage *reply)
{
  const char *expected = call_expected_return (call);

  if (g_dbus_message_get_message_type (reply) == G_DBUS_MESSAGE_TYPE_ERROR)
    {
      const char *name = g_dbus_message_get_error_name (reply);
      g_autofree char *message = NULL;
      GVariant *body = g_dbus_message_get_body (reply);

      if (body != NULL && g_variant_is_of_type (body, G_VARIANT_TYPE ("(s)")))
        g_variant_get (body, "(s)", &message);
      count_reply (f, name ? name : "(error without a name)");
      if (name == NULL || !is_named_error (name))
        fail (f, call, "answered with the error %s: %.300s", name ? name : "(none)",
              message ? message : "(no message)");
      else if (message == NULL || message[0] == '\0')
        fail (f, call, "answered %s without a message", name);
      if (f->verbose)
        g_print ("  → #%u %s: %.300s\n", call->index, name, message ? message : "");
      return;
    }

  count_reply (f, "(method return)");
  {
    GVariant *body = g_dbus_message_get_body (reply);
    const char *type = body ? g_variant_get_type_string (body) : "()";

    if (expected == NULL)
      fail (f, call, "a call that must be refused returned %s", type);
    else if (!g_str_equal (type, expected))
      fail (f, call, "returned %s, not %s", type, expected);
    if (f->verbose)
      {
        g_autofree char *shown = body ? g_variant_print (body, TRUE) : g_strdup ("()");
        g_print ("  → #%u return %.300s\n", call->index, shown);
      }
  }
}

static void send_calls (Fuzz *f);

static void
on_reply_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Pending *pending = user_data;
  Fuzz *f = pending->fuzz;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusMessage) reply =
    g_dbus_connection_send_message_with_reply_finish (G_DBUS_CONNECTION (source), result, &error);
  gint64 took = g_get_monotonic_time () - pending->sent_at;

  f->kind_us[pending->call->kind] += took;
  f->kind_max_us[pending->call->kind] = MAX (f->kind_max_us[pending->call->kind], took);
  if (took > f->slowest_us)
    {
      f->slowest_us = took;
      f->slowest_index = pending->call->index;
    }
  if (f->verbose)
    g_print ("  ← #%u after %.1f ms\n", pending->call->index, took / 1000.0);

  if (reply == NULL)
    {
      count_reply (f, g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT)
                      ? "(timed out)" : "(no reply)");
      fail (f, pending->call, "no reply: %s", error->message);
    }
  else
    check_reply (f, pending->call, reply);

  if (pending->bus != f->bus)
    g_dbus_connection_close (pending->bus, NULL, NULL, NULL);
  g_object_unref (pending->bus);
  call_free (pending->call);
  g_free (pending);

  f->in_flight--;
  send_calls (f);
}

static GDBusConnection *
connect_bus (GError **error)
{
  return g_dbus_connection_new_for_address_sync (g_getenv ("DBUS_SESSION_BUS_ADDRESS"),
                                                 G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
                                                 G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                                 NULL, NULL, error);
}

/* GDBus (GLib 2.74 at least) misreads some valid messages: in
 * parse_value_from_blob(), an array's end is counted from before the
 * padding that aligns its first element, so when that padding is 4 bytes
 * and the last element, with its own padding, takes 4 bytes or less, the
 * array ends one element early and what follows is read out of place:
 * a(g) [('yyyy',), ('',)] comes back as [('yyyy',)], and with more after
 * it the message may not parse at all. A GDBus peer that receives such a
 * message drops its connection to the bus: policyd would leave the bus,
 * whatever its own code does. So these messages, which dbus-daemon passes
 * on as valid, are counted and not sent (see --send-unreadable). */
static gboolean
gdbus_reads_back (GDBusMessage *message)
{
  GVariant *body = g_dbus_message_get_body (message);
  g_autoptr(GDBusMessage) copy = NULL;
  g_autoptr(GDBusMessage) back = NULL;
  g_autofree guchar *blob = NULL;
  gsize size;

  /* Only arrays of structs and dict entries, which may hide in variants,
   * have elements that small and that aligned. */
  if (body == NULL ||
      (strstr (g_variant_get_type_string (body), "a(") == NULL &&
       strstr (g_variant_get_type_string (body), "a{") == NULL &&
       strchr (g_variant_get_type_string (body), 'v') == NULL))
    return TRUE;

  copy = g_dbus_message_copy (message, NULL);
  g_dbus_message_set_serial (copy, 1);
  blob = g_dbus_message_to_blob (copy, &size, G_DBUS_CAPABILITY_FLAGS_UNIX_FD_PASSING, NULL);
  if (blob != NULL)
    back = g_dbus_message_new_from_blob (blob, size, G_DBUS_CAPABILITY_FLAGS_UNIX_FD_PASSING,
                                         NULL);
  return back != NULL;
}

static void
send_call (Fuzz *f,
           Call *call)
{
  g_autoptr(GDBusMessage) message =
    g_dbus_message_new_method_call (f->owner, call->path, call->iface, call->member);
  g_autoptr(GError) error = NULL;
  Pending *pending = g_new0 (Pending, 1);
  GDBusMessageFlags flags = G_DBUS_MESSAGE_FLAGS_NO_AUTO_START;
  guint32 r = g_str_hash (call->path) ^ call->index;

  if (call->body != NULL)
    g_dbus_message_set_body (message, call->body);
  if (call->interactive)
    flags |= G_DBUS_MESSAGE_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION;
  g_dbus_message_set_flags (message, flags);
  if (call->n_fds > 0)
    {
      g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();
      for (guint i = 0; i < call->n_fds; i++)
        g_assert_cmpint (g_unix_fd_list_append (fds, f->dev_null, NULL), >=, 0);
      g_dbus_message_set_unix_fd_list (message, fds);
    }

  if (f->verbose)
    {
      g_autofree char *described = call_describe (call);
      g_print ("%s\n", described);
    }
  if (!f->send_unreadable && !gdbus_reads_back (message))
    {
      count_reply (f, NOT_SENT);
      if (f->unreadable->len < 3)
        g_ptr_array_add (f->unreadable, call_describe (call));
      call_free (call);
      g_free (pending);
      return;
    }
  if (call->body != NULL && g_variant_get_size (call->body) >= 256 * 1024)
    {
      /* The exact size on the wire, for the memory criterion. */
      g_autoptr(GDBusMessage) copy = g_dbus_message_copy (message, NULL);
      g_autofree guchar *blob = NULL;
      gsize size = 0;

      g_dbus_message_set_serial (copy, 1);
      blob = g_dbus_message_to_blob (copy, &size, G_DBUS_CAPABILITY_FLAGS_UNIX_FD_PASSING, NULL);
      f->largest_message = MAX (f->largest_message, size);
      f->n_big_bodies += size >= 512 * 1024;
    }

  pending->fuzz = f;
  pending->call = call;
  pending->sent_at = g_get_monotonic_time ();
  /* One call in 400 comes from a client of its own, so that policyd
   * identifies new callers and forgets them when they leave. */
  if (r % 400 == 0)
    {
      pending->bus = connect_bus (&error);
      if (pending->bus == NULL)
        g_error ("Could not connect a fresh client: %s", error->message);
      f->fresh_clients++;
    }
  else
    pending->bus = g_object_ref (f->bus);

  f->kind_counts[call->kind]++;
  f->in_flight++;
  g_dbus_connection_send_message_with_reply (pending->bus, message,
                                             G_DBUS_SEND_MESSAGE_FLAGS_NONE,
                                             (int) f->timeout_ms, NULL, NULL,
                                             on_reply_cb, pending);
}

static void
send_calls (Fuzz *f)
{
  while (f->in_flight < f->window && f->sent < f->count)
    send_call (f, f->next (f->next_data, f->first + f->sent++));
  if (f->in_flight == 0 && f->sent == f->count)
    g_main_loop_quit (f->loop);
}

static double
run_calls (Fuzz     *f,
           Call   *(*next) (gpointer data, guint i),
           gpointer  next_data,
           guint     first,
           guint     count)
{
  gint64 start = g_get_monotonic_time ();

  f->next = next;
  f->next_data = next_data;
  f->first = first;
  f->count = count;
  f->sent = 0;
  send_calls (f);
  if (f->in_flight > 0)
    g_main_loop_run (f->loop);
  return (g_get_monotonic_time () - start) / 1e6;
}

static Call *
next_random (gpointer data,
             guint    i)
{
  Fuzz *f = data;

  return random_call (f->seed, i, f->only);
}

static Call *
next_ordinary (gpointer data,
               guint    i)
{
  return ordinary_call (i);
}

static void
on_name_owner_changed_cb (GDBusConnection *bus,
                          const char      *sender,
                          const char      *path,
                          const char      *iface,
                          const char      *signal,
                          GVariant        *parameters,
                          gpointer         user_data)
{
  Fuzz *f = user_data;
  const char *name, *old_owner, *new_owner;

  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  f->owner_changes++;
  fail (f, NULL, "%s changed hands: “%s” → “%s”", name, old_owner, new_owner);
}

/* -- Policyd's process ------------------------------------------------------ */

static char *
bus_get_owner (GDBusConnection  *bus,
               GError          **error)
{
  g_autoptr(GVariant) reply =
    g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus", "GetNameOwner",
                                 g_variant_new ("(s)", SR_BUS_NAME), G_VARIANT_TYPE ("(s)"),
                                 G_DBUS_CALL_FLAGS_NONE, 5000, NULL, error);
  char *owner = NULL;

  if (reply != NULL)
    g_variant_get (reply, "(s)", &owner);
  return owner;
}

static guint32
bus_get_pid (GDBusConnection  *bus,
             const char       *name,
             GError          **error)
{
  g_autoptr(GVariant) reply =
    g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                 g_variant_new ("(s)", name), G_VARIANT_TYPE ("(u)"),
                                 G_DBUS_CALL_FLAGS_NONE, 5000, NULL, error);
  guint32 pid = 0;

  if (reply != NULL)
    g_variant_get (reply, "(u)", &pid);
  return pid;
}

typedef struct {
  double rss_mib, hwm_mib;
  guint fds, threads;
} Usage;

static double
status_field_mib (const char *status,
                  const char *field)
{
  const char *line = strstr (status, field);

  return line ? g_ascii_strtod (line + strlen (field), NULL) / 1024.0 : -1;
}

static Usage
process_usage (guint32 pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%u/status", pid);
  g_autofree char *fd_path = g_strdup_printf ("/proc/%u/fd", pid);
  g_autofree char *status = NULL;
  g_autoptr(GDir) dir = NULL;
  Usage usage = { -1, -1, 0, 0 };
  const char *line;

  if (g_file_get_contents (path, &status, NULL, NULL))
    {
      usage.rss_mib = status_field_mib (status, "\nVmRSS:");
      usage.hwm_mib = status_field_mib (status, "\nVmHWM:");
      if ((line = strstr (status, "\nThreads:")) != NULL)
        usage.threads = (guint) g_ascii_strtoull (line + strlen ("\nThreads:"), NULL, 10);
    }
  dir = g_dir_open (fd_path, 0, NULL);
  while (dir != NULL && g_dir_read_name (dir) != NULL)
    usage.fds++;
  return usage;
}

/* Until policyd has used no CPU for 3 s (at most a minute): its storage
 * worker has finished what the calls queued, and whatever it does once
 * idle (trimming its heap, say) has been done. */
static void
wait_until_idle (guint32 pid)
{
  sr_proc_wait_until_idle ((GPid) pid, 3000, 60000);
}

/* -- Memory ----------------------------------------------------------------- */

typedef struct {
  double factor, slack_mib;
  gint64 settle_s;
  gboolean judge;
} Criterion;

/* "Its memory returns to its baseline": policyd's RSS, measured after a
 * warm-up of ordinary calls (the baseline) and again after the fuzzing,
 * once it has been idle for settle_s and has then answered ordinary calls
 * again, is at most baseline × factor + slack + the largest message sent.
 * GDBus keeps its read buffer as big as the largest message it received,
 * for the life of the connection: that much is no leak. The slack is for
 * what GSlice (GLib before 2.76) keeps cached for reuse until later frees
 * of the same size push it out, 3 to 5 MiB after 100,000 calls, and for
 * heap pages that a few live allocations keep. glibc does not give freed
 * memory back by itself: a service that does not trim its heap once idle
 * fails this by far (27 to 69 MiB against some 15). Not judged under ASan,
 * whose allocator keeps freed memory in quarantine. File descriptors must
 * be back to the baseline's exactly. */
static void
check_memory (Fuzz            *f,
              const Criterion *c,
              const Usage      usage[4])
{
  static const char *const when[] = {
    "after start", "baseline (warm-up)", "after fuzzing, idle", "after ordinary calls",
  };
  const Usage *baseline = &usage[1], *final = &usage[3];
  double limit = baseline->rss_mib * c->factor + c->slack_mib +
                 f->largest_message / (double) MIB;
  gboolean pass = final->rss_mib >= 0 && final->rss_mib <= limit;

  g_print ("policyd memory (MiB)      RSS    peak  fds threads\n");
  for (guint i = 0; i < 4; i++)
    g_print ("  %-20s %6.1f  %6.1f  %3u  %3u\n", when[i], usage[i].rss_mib, usage[i].hwm_mib,
             usage[i].fds, usage[i].threads);
  g_print ("memory criterion: RSS %u s after fuzzing and %u ordinary calls ≤ baseline × %.2f "
           "+ %.1f MiB + the largest message (%.1f MiB) = %.1f MiB: %s%s\n",
           (guint) c->settle_s, ORDINARY_CALLS, c->factor, c->slack_mib,
           f->largest_message / (double) MIB, limit, pass ? "PASS" : "FAIL",
           c->judge ? "" : " (not judged)");

  if (final->rss_mib < 0)
    fail (f, NULL, "policyd (pid %u) is gone", f->pid);
  else if (c->judge && !pass)
    fail (f, NULL, "policyd's memory did not come back: %.1f MiB, baseline %.1f MiB",
          final->rss_mib, baseline->rss_mib);
  if (final->fds > baseline->fds)
    fail (f, NULL, "policyd holds %u fds, %u before", final->fds, baseline->fds);
}

/* -- Stored state to clear -------------------------------------------------- */

/* GTK state files (one window each) for a few pool apps, so that Clear,
 * the opt-outs and ListStoredState have files to work on. Only ever in the
 * private session's state directory. */
static void
plant_state_files (guint round)
{
  g_autoptr(GVariant) state =
    g_variant_ref_sink (g_variant_new_parsed ("(@a{sv} {}, @a{sv} {}, [(@a{sv} {}, @a{sv} {})])"));

  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("org.fuzz.App%02u@fuzz%u.state",
                                               (round * 4 + i) % POOL_SIZE, round);
      g_autofree char *path = g_build_filename (g_get_user_state_dir (), name, NULL);

      g_file_set_contents (path, g_variant_get_data (state), g_variant_get_size (state), NULL);
    }
}

/* -- Main ------------------------------------------------------------------- */

static int
compare_counts (gconstpointer a,
                gconstpointer b,
                gpointer      table)
{
  guint x = GPOINTER_TO_UINT (g_hash_table_lookup (table, *(const char * const *) a));
  guint y = GPOINTER_TO_UINT (g_hash_table_lookup (table, *(const char * const *) b));

  return (y > x) - (y < x);
}

static void
print_replies (Fuzz *f)
{
  g_autofree const char **names =
    (const char **) g_hash_table_get_keys_as_array (f->replies, NULL);
  guint n = g_hash_table_size (f->replies);

  g_qsort_with_data (names, n, sizeof (char *), compare_counts, f->replies);
  g_print ("replies by name:\n");
  for (guint i = 0; i < n; i++)
    g_print ("  %8u  %s\n", GPOINTER_TO_UINT (g_hash_table_lookup (f->replies, names[i])),
             names[i]);
  g_print ("calls by kind:   mean ms   max ms\n");
  for (guint i = 0; i < N_KINDS; i++)
    if (f->kind_counts[i] > 0)
      g_print ("  %8u  %8.2f %8.0f  %s\n", f->kind_counts[i],
               f->kind_us[i] / 1000.0 / f->kind_counts[i], f->kind_max_us[i] / 1000.0,
               kind_name (i));
}

/* A warm-up of ordinary calls, so that what policyd sets up on first use
 * is part of the baseline; the counters start afresh after it. */
static void
warm_up (Fuzz *f)
{
  run_calls (f, next_ordinary, f, 0, ORDINARY_CALLS);
  g_hash_table_remove_all (f->replies);
  memset (f->kind_counts, 0, sizeof f->kind_counts);
  memset (f->kind_us, 0, sizeof f->kind_us);
  memset (f->kind_max_us, 0, sizeof f->kind_max_us);
}

static void
fuzz (Fuzz    *f,
      guint64  calls)
{
  guint not_sent;
  double elapsed = 0;

  g_print ("sending %" G_GUINT64_FORMAT " random calls, %u in flight\n", calls, f->window);
  for (guint64 done = 0; done < calls && f->owner_changes == 0; )
    {
      guint batch = (guint) MIN (calls - done, 5000);

      plant_state_files ((guint) (done / 5000) + 1);
      elapsed += run_calls (f, next_random, f, (guint) done, batch);
      done += batch;
      if (f->verbose || done % 10000 == 0)
        g_print ("  %" G_GUINT64_FORMAT " calls, %.0f/s, policyd RSS %.1f MiB\n", done,
                 done / elapsed, process_usage (f->pid).rss_mib);
    }

  print_replies (f);
  for (guint i = 0; i < f->unreadable->len; i++)
    g_print ("not sent, GDBus cannot read it back: %s\n", (const char *) f->unreadable->pdata[i]);
  not_sent = GPOINTER_TO_UINT (g_hash_table_lookup (f->replies, NOT_SENT));
  g_print ("%" G_GUINT64_FORMAT " calls, %" G_GUINT64_FORMAT " sent, in %.1f s: %.0f calls/s; "
           "slowest reply %.0f ms (call #%u); %u from fresh clients; %u bodies ≥ 512 KiB\n",
           calls, calls - not_sent, elapsed, (calls - not_sent) / elapsed,
           f->slowest_us / 1000.0, f->slowest_index, f->fresh_clients, f->n_big_bodies);
  g_print ("in them: %u strings ≥ 64 KiB, %u of 1 MiB; %u arrays ≥ 10,000 items, "
           "%u of 100,000\n", gen_stats.strings_64k, gen_stats.strings_1m,
           gen_stats.arrays_10k, gen_stats.arrays_100k);
}

/* -- Messages GDBus misreads ------------------------------------------------ */

/* The smallest known: (a(g)s) ([('yyyy',), ('',)], 'x'), see
 * tests/integration/test_bus_drop.py. */
static GDBusMessage *
known_unreadable (void)
{
  GDBusMessage *message = g_dbus_message_new_method_call (SR_BUS_NAME, SR_OBJECT_PATH,
                                                          SR_INTERFACE_NAME, "CheckSave");

  g_dbus_message_set_body (message, g_variant_new_parsed ("([(@g 'yyyy',), (@g '',)], 'x')"));
  return message;
}

static GDBusMessage *
call_message (Call *call)
{
  GDBusMessage *message = g_dbus_message_new_method_call (SR_BUS_NAME, call->path, call->iface,
                                                          call->member);

  if (call->body != NULL)
    g_dbus_message_set_body (message, call->body);
  return message;
}

static char *
wait_for_owner (Fuzz     *f,
                gboolean  present,
                guint     seconds)
{
  gint64 deadline = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  for (;;)
    {
      g_autofree char *owner = bus_get_owner (f->bus, NULL);

      if ((owner != NULL) == present || g_get_monotonic_time () > deadline)
        return g_steal_pointer (&owner);
      g_usleep (20000);
    }
}

/* Sends @message from a connection of its own. policyd's GDBus drops its
 * connection on it; policyd must then exit, and come back, by D-Bus
 * activation, on the next call, answering it right. Returns whether it
 * did (FALSE also when policyd read the message: then GLib is fixed). */
static gboolean
send_unreadable (Fuzz         *f,
                 GDBusMessage *message,
                 const char   *what)
{
  g_autoptr(GDBusConnection) sender = NULL;
  g_autoptr(GDBusMessage) copy = g_dbus_message_copy (message, NULL);
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *gone = NULL;
  g_autofree char *back = NULL;
  const char *why = NULL;

  sender = connect_bus (&error);
  if (sender == NULL)
    g_error ("Could not connect: %s", error->message);
  g_dbus_message_set_flags (copy, G_DBUS_MESSAGE_FLAGS_NO_AUTO_START |
                                  G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED);
  if (!g_dbus_connection_send_message (sender, copy, G_DBUS_SEND_MESSAGE_FLAGS_NONE, NULL, &error) ||
      !g_dbus_connection_flush_sync (sender, NULL, &error))
    g_error ("Could not send %s: %s", what, error->message);

  gone = wait_for_owner (f, FALSE, 10);
  if (gone != NULL)
    {
      fail (f, NULL, "%s: policyd stayed on the bus (has GLib learned to read it?)", what);
      return FALSE;
    }

  /* The next call starts it again. */
  reply = g_dbus_connection_call_sync (f->bus, SR_BUS_NAME, SR_OBJECT_PATH, SR_INTERFACE_NAME,
                                       "CheckSave", g_variant_new ("(s)", "org.example.Back"),
                                       G_VARIANT_TYPE ("(us)"), G_DBUS_CALL_FLAGS_NONE,
                                       (int) f->timeout_ms, NULL, &error);
  back = bus_get_owner (f->bus, NULL);
  if (reply == NULL)
    why = error->message;
  else
    {
      guint32 verdict;
      const char *answer;

      g_variant_get (reply, "(u&s)", &verdict, &answer);
      if (verdict != 1 || g_strcmp0 (answer, "allowed") != 0)
        why = "it answered wrong";
    }
  if (why != NULL || back == NULL || g_strcmp0 (back, f->owner) == 0)
    {
      fail (f, NULL, "%s: policyd did not come back right: %s", what, why ? why : "no new owner");
      return FALSE;
    }
  g_print ("  %-60s policyd left the bus, came back as %s, answered right\n", what, back);
  g_free (f->owner);
  f->owner = g_steal_pointer (&back);
  return TRUE;
}

static void
run_unreadable (Fuzz  *f,
                guint  count)
{
  g_autoptr(GDBusMessage) known = known_unreadable ();
  guint sent = 0, recovered = 0, found = 0;

  g_print ("messages GDBus misreads, each sent once policyd is back:\n");
  sent++;
  recovered += send_unreadable (f, known, "(a(g)s) ([('yyyy',), ('',)], 'x')");
  for (guint i = 0; found < count && i < 1000000; i++)
    {
      Call *call = random_call (f->seed, i, f->only);
      g_autoptr(GDBusMessage) message = call_message (call);

      if (!gdbus_reads_back (message))
        {
          g_autofree char *described = g_strdup_printf ("random call %u", i);

          found++;
          sent++;
          recovered += send_unreadable (f, message, described);
        }
      call_free (call);
    }
  g_print ("unreadable: %u sent, policyd came back right after %u\n", sent, recovered);
}

/* Same name owner, same process as at the start. */
static void
check_owner (Fuzz *f)
{
  g_autofree char *owner = bus_get_owner (f->bus, NULL);
  guint32 pid = owner ? bus_get_pid (f->bus, owner, NULL) : 0;

  if (g_strcmp0 (owner, f->owner) != 0 || pid != f->pid)
    fail (f, NULL, "policyd is no longer %s pid %u but %s pid %u", f->owner, f->pid,
          owner ? owner : "(nobody)", pid);
}

static int
report (Fuzz *f)
{
  for (guint i = 0; i < f->failures->len; i++)
    g_print ("FAIL: %s\n", (const char *) f->failures->pdata[i]);
  if (f->n_failures > f->failures->len)
    g_print ("FAIL: … and %u more\n", f->n_failures - f->failures->len);
  g_print ("%s (seed %u)\n", f->n_failures == 0 ? "PASS" : "FAIL", f->seed);
  return f->n_failures == 0 ? 0 : 1;
}

int
main (int    argc,
      char **argv)
{
  gint64 calls = 100000, replay = -1, seed = -1;
  gint64 window = 64, timeout_ms = 30000;
  Criterion criterion = { 1.10, 6.0, 20, TRUE };
  gboolean verbose = FALSE, no_memory_check = FALSE, no_raw = FALSE, send_unreadable = FALSE;
  gint64 unreadable_only = -1;
  g_autofree char *only = NULL;
  const GOptionEntry entries[] = {
    { "calls", 'n', 0, G_OPTION_ARG_INT64, &calls, "Random calls to send (100000)", "N" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "Seed (default: random; printed)", "S" },
    { "call", 0, 0, G_OPTION_ARG_INT64, &replay,
      "Send only call N of the seed, verbosely", "N" },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only,
      "Only calls whose kind has this in its name", "KIND" },
    { "window", 'w', 0, G_OPTION_ARG_INT64, &window, "Calls in flight (64)", "W" },
    { "timeout", 0, 0, G_OPTION_ARG_INT64, &timeout_ms, "Reply timeout, ms (30000)", "MS" },
    { "rss-factor", 0, 0, G_OPTION_ARG_DOUBLE, &criterion.factor,
      "Memory criterion: factor (1.10)", "F" },
    { "rss-slack", 0, 0, G_OPTION_ARG_DOUBLE, &criterion.slack_mib,
      "Memory criterion: MiB added (6)", "MIB" },
    { "settle", 0, 0, G_OPTION_ARG_INT64, &criterion.settle_s,
      "Seconds idle before the last ordinary calls (20)", "S" },
    { "no-memory-check", 0, 0, G_OPTION_ARG_NONE, &no_memory_check,
      "Report memory, do not judge it", NULL },
    { "no-raw", 0, 0, G_OPTION_ARG_NONE, &no_raw,
      "Skip the hand-written corrupt messages", NULL },
    { "send-unreadable", 0, 0, G_OPTION_ARG_NONE, &send_unreadable,
      "Send messages GDBus misreads too (see gdbus_reads_back())", NULL },
    { "unreadable", 0, 0, G_OPTION_ARG_INT64, &unreadable_only,
      "Only send a known message GDBus misreads and the first N of the run, each once "
      "policyd is back (it must be D-Bus activatable)", "N" },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Print every call and its reply", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) options = g_option_context_new ("- random D-Bus calls against policyd");
  g_autoptr(GError) error = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GHashTable) replies = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) failures = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) unreadable = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDBusConnection) bus = NULL;
  char *owner = NULL;
  Fuzz fuzz_state = { 0 };
  Fuzz *f = &fuzz_state;
  Usage usage[4];
  guint subscription;
  int status;

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (options, entries, NULL);
  if (g_getenv ("SR_DBUS_FUZZ_CALLS"))
    calls = g_ascii_strtoll (g_getenv ("SR_DBUS_FUZZ_CALLS"), NULL, 10);
  if (g_getenv ("SR_DBUS_FUZZ_SEED"))
    seed = g_ascii_strtoll (g_getenv ("SR_DBUS_FUZZ_SEED"), NULL, 10);
  if (g_getenv ("SR_DBUS_FUZZ_TIMEOUT"))
    timeout_ms = g_ascii_strtoll (g_getenv ("SR_DBUS_FUZZ_TIMEOUT"), NULL, 10);
  if (!g_option_context_parse (options, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }

  /* Clear removes files and SetSetting writes dconf: never on a desktop. */
  if (g_strcmp0 (g_getenv ("SR_DBUS_FUZZ_PRIVATE_SESSION"), "1") != 0)
    {
      g_printerr ("Run me through test_dbus_fuzz.py: I clear stored state and change "
                  "settings, so I only run in a private session.\n");
      return 2;
    }

  bus = connect_bus (&error);
  if (bus == NULL)
    g_error ("Could not connect to the session bus: %s", error->message);
  owner = bus_get_owner (bus, &error);
  if (owner == NULL)
    g_error ("%s has no owner: %s", SR_BUS_NAME, error->message);

  criterion.judge = !no_memory_check;
  *f = (Fuzz) {
    .bus = bus,
    .owner = owner,
    .pid = bus_get_pid (bus, owner, &error),
    .seed = seed >= 0 ? (guint32) seed : g_random_int (),
    .dev_null = open ("/dev/null", O_RDONLY | O_CLOEXEC),
    .timeout_ms = (guint) timeout_ms,
    .window = replay >= 0 ? 1 : (guint) CLAMP (window, 1, 120),
    .verbose = verbose || replay >= 0,
    .loop = loop,
    .replies = replies,
    .failures = failures,
    .send_unreadable = send_unreadable,
    .only = only,
    .unreadable = unreadable,
  };
  if (f->pid == 0)
    g_error ("No pid for %s: %s", owner, error->message);
  g_assert (f->dev_null >= 0);

  if (unreadable_only >= 0)
    {
      run_unreadable (f, (guint) unreadable_only);
      status = report (f);
      close (f->dev_null);
      g_free (f->owner);
      return status;
    }
  subscription =
    g_dbus_connection_signal_subscribe (bus, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                        "NameOwnerChanged", "/org/freedesktop/DBus",
                                        SR_BUS_NAME, G_DBUS_SIGNAL_FLAGS_NONE,
                                        on_name_owner_changed_cb, f, NULL);

  g_print ("seed %u (replay with --seed %u), policyd %s pid %u\n", f->seed, f->seed,
           owner, f->pid);

  if (replay >= 0)
    {
      run_calls (f, next_random, f, (guint) replay, 1);
      print_replies (f);
    }
  else
    {
      usage[0] = process_usage (f->pid);
      plant_state_files (0);
      warm_up (f);
      wait_until_idle (f->pid);
      usage[1] = process_usage (f->pid);

      if (!no_raw)
        for (guint n = sr_fuzz_send_corrupt_messages (owner); n > 0; n--)
          fail (f, NULL, "a corrupt message got through (see the table)");

      fuzz (f, (guint64) MAX (calls, 0));
      wait_until_idle (f->pid);
      usage[2] = process_usage (f->pid);

      /* Idle, then ordinary traffic again, as a desktop would: GSlice
       * (GLib before 2.76) hands back what it cached only on later frees,
       * 15 s on; a service that trims its heap when idle has had the
       * chance to. */
      if (criterion.settle_s > 0)
        g_usleep (criterion.settle_s * G_USEC_PER_SEC);
      run_calls (f, next_ordinary, f, 0, ORDINARY_CALLS);
      wait_until_idle (f->pid);
      usage[3] = process_usage (f->pid);

      check_owner (f);
      check_memory (f, &criterion, usage);
    }

  g_dbus_connection_signal_unsubscribe (bus, subscription);
  status = report (f);
  close (f->dev_null);
  g_free (f->owner);
  return status;
}
