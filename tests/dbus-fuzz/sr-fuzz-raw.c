/* sr-fuzz-raw.c: messages GDBus will not send, written by hand
 *
 * GDBus refuses to build a message with an invalid object path, interface
 * or member name, and its serializer only writes valid UTF-8 and booleans.
 * So these messages are built valid, serialized, patched byte by byte, and
 * written onto a connection to the bus spoken by hand (SASL EXTERNAL, then
 * Hello), one connection per message. The bus must hang up on the sender
 * without passing the message on: policyd relies on that, because GDBus's
 * parser, which it reads messages with, does not check everything (it
 * takes a string with a NUL up to the NUL, and does not check member and
 * interface names or booleans), which the table shows too.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-fuzz-raw"

#include "config.h"
#include "sr-bus.h"

#include <unistd.h>

#include "sr-fuzz-raw.h"

static gboolean
write_all (GIOStream     *stream,
           const void    *data,
           gsize          size,
           GError       **error)
{
  return g_output_stream_write_all (g_io_stream_get_output_stream (stream), data, size,
                                    NULL, NULL, error);
}

static GIOStream *
raw_connect (GError **error)
{
  g_autoptr(GIOStream) stream =
    g_dbus_address_get_stream_sync (g_getenv ("DBUS_SESSION_BUS_ADDRESS"), NULL, NULL, error);
  g_autofree char *uid = g_strdup_printf ("%u", (guint) getuid ());
  g_autoptr(GString) auth = g_string_new ("AUTH EXTERNAL ");
  char line[256];
  gsize got = 0;

  if (stream == NULL)
    return NULL;
  for (const char *p = uid; *p != '\0'; p++)
    g_string_append_printf (auth, "%02x", (guchar) *p);
  g_string_append (auth, "\r\n");
  /* The credentials byte, then the command. */
  if (!write_all (stream, "", 1, error) || !write_all (stream, auth->str, auth->len, error))
    return NULL;

  while (got < sizeof line - 1 && (got == 0 || line[got - 1] != '\n'))
    {
      gssize n = g_input_stream_read (g_io_stream_get_input_stream (stream), line + got, 1,
                                      NULL, error);
      if (n < 0)
        return NULL;
      if (n == 0)
        break;
      got += n;
    }
  line[got] = '\0';
  if (!g_str_has_prefix (line, "OK "))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "authentication: “%s”", line);
      return NULL;
    }
  if (!write_all (stream, "BEGIN\r\n", 7, error))
    return NULL;
  return g_steal_pointer (&stream);
}

static guchar *
serialize (GDBusMessage  *message,
           guint32        serial,
           gsize         *out_size,
           GError       **error)
{
  g_dbus_message_set_serial (message, serial);
  return g_dbus_message_to_blob (message, out_size, G_DBUS_CAPABILITY_FLAGS_NONE, error);
}

typedef enum { HUNG_UP, DELIVERED, NO_ANSWER } Outcome;

/* Reads what the bus sends until it hangs up or a reply to @serial comes. */
static Outcome
read_until_hangup (GIOStream *stream,
                   guint32    serial)
{
  GInputStream *in = g_io_stream_get_input_stream (stream);

  g_socket_set_timeout (g_socket_connection_get_socket (G_SOCKET_CONNECTION (stream)), 10);
  for (;;)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GDBusMessage) message = NULL;
      g_autofree guchar *blob = NULL;
      guchar header[16];
      gsize got = 0;
      gssize needed;

      if (!g_input_stream_read_all (in, header, sizeof header, &got, NULL, &error))
        return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT) ? NO_ANSWER : HUNG_UP;
      if (got < sizeof header)
        return HUNG_UP;
      needed = g_dbus_message_bytes_needed (header, sizeof header, NULL);
      if (needed < (gssize) sizeof header)
        return NO_ANSWER;
      blob = g_malloc (needed);
      memcpy (blob, header, sizeof header);
      if (!g_input_stream_read_all (in, blob + sizeof header, needed - sizeof header, &got,
                                    NULL, NULL) ||
          got < needed - sizeof header)
        return HUNG_UP;
      message = g_dbus_message_new_from_blob (blob, needed, G_DBUS_CAPABILITY_FLAGS_NONE, NULL);
      if (message != NULL && g_dbus_message_get_reply_serial (message) == serial)
        return DELIVERED;
    }
}

typedef enum {
  BODY_APP_ID,         /* (s): "org.fuzz.AppXX" */
  BODY_EXIT,           /* (sb): the boolean is the last 4 bytes */
  BODY_DEEP_ARRAYS,
  BODY_DEEP_STRUCTS,
  BODY_DEEP_VARIANTS,
} Body;

typedef struct {
  const char *what;
  const char *member;
  Body body;
  const char *find;      /* (nullable): patch the first occurrence … */
  const char *replace;   /* … with this, as many bytes */
  gsize len;
} Corruption;

static const Corruption corruptions[] = {
  { "object path ending in '/'", "CheckSave", BODY_APP_ID,
    SR_OBJECT_PATH, "/org/gnome/SessionRestore/Polic/", 32 },
  { "object path with an empty element", "CheckSave", BODY_APP_ID,
    SR_OBJECT_PATH, "/org//nome/SessionRestore/Policy", 32 },
  { "object path with '-'", "CheckSave", BODY_APP_ID,
    SR_OBJECT_PATH, "/org/gno-e/SessionRestore/Policy", 32 },
  { "object path without the leading '/'", "CheckSave", BODY_APP_ID,
    SR_OBJECT_PATH, "org/gnome/SessionRestore/Policyx", 32 },
  { "object path with '..'", "CheckSave", BODY_APP_ID,
    SR_OBJECT_PATH, "/org/gnome/SessionRestore/../icy", 32 },
  { "object path with the byte 0xff", "CheckSave", BODY_APP_ID,
    SR_OBJECT_PATH, "/org/gnome/SessionRestore/Polic\xff", 32 },
  { "object path with a NUL", "CheckSave", BODY_APP_ID,
    SR_OBJECT_PATH, "/org/gnome/SessionRestore/Po\0icy", 32 },
  { "interface name with '..'", "CheckSave", BODY_APP_ID,
    SR_BUS_NAME, "org..nome.SessionRestore.Policy", 31 },
  { "member name with '-'", "CheckSave", BODY_APP_ID,
    "CheckSave", "Check-ave", 9 },
  { "member name starting with a digit", "CheckSave", BODY_APP_ID,
    "CheckSave", "1heckSave", 9 },
  { "string with invalid UTF-8", "CheckSave", BODY_APP_ID,
    "org.fuzz.AppXX", "org.fuzz.App\xc3\x28", 14 },
  { "string with a NUL", "CheckSave", BODY_APP_ID,
    "org.fuzz.AppXX", "org.fuzz.App\0X", 14 },
  { "boolean of 2", "NoteExit", BODY_EXIT,
    NULL, NULL, 0 },
  { "33 nested arrays", "CheckSave", BODY_DEEP_ARRAYS,
    NULL, NULL, 0 },
  { "33 nested structs", "CheckSave", BODY_DEEP_STRUCTS,
    NULL, NULL, 0 },
  { "65 nested variants", "CheckSave", BODY_DEEP_VARIANTS,
    NULL, NULL, 0 },
};

static GVariant *
corruption_body (Body body)
{
  GVariant *v = g_variant_new_byte (1);

  switch (body)
    {
    case BODY_APP_ID:
      return g_variant_new ("(s)", "org.fuzz.AppXX");
    case BODY_EXIT:
      return g_variant_new ("(sb)", "org.fuzz.App00", TRUE);
    case BODY_DEEP_ARRAYS:
      for (guint i = 0; i < 33; i++)
        v = g_variant_new_array (NULL, &v, 1);
      break;
    case BODY_DEEP_STRUCTS:
      for (guint i = 0; i < 33; i++)
        v = g_variant_new_tuple (&v, 1);
      break;
    case BODY_DEEP_VARIANTS:
    default:
      for (guint i = 0; i < 65; i++)
        v = g_variant_new_variant (v);
      break;
    }
  return g_variant_new_tuple (&v, 1);
}

static void
patch (guchar           *blob,
       gsize             size,
       const Corruption *c)
{
  if (c->body == BODY_EXIT)
    {
      blob[size - 4] = 2;
      return;
    }
  if (c->find == NULL)
    return;
  for (gsize i = 0; i + c->len <= size; i++)
    if (memcmp (blob + i, c->find, c->len) == 0)
      {
        memcpy (blob + i, c->replace, c->len);
        return;
      }
  g_error ("%s: nothing to patch", c->what);
}

guint
sr_fuzz_send_corrupt_messages (const char *destination)
{
  guint passed = 0;

  g_print ("messages GDBus cannot send, written by hand, each on its own connection:\n"
           "  %-38s %-16s %s\n", "", "GDBus parser", "bus");
  for (guint i = 0; i < G_N_ELEMENTS (corruptions); i++)
    {
      const Corruption *c = &corruptions[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(GIOStream) stream = raw_connect (&error);
      g_autoptr(GDBusMessage) hello =
        g_dbus_message_new_method_call ("org.freedesktop.DBus", "/org/freedesktop/DBus",
                                        "org.freedesktop.DBus", "Hello");
      g_autoptr(GDBusMessage) message =
        g_dbus_message_new_method_call (destination, SR_OBJECT_PATH, SR_BUS_NAME, c->member);
      g_autoptr(GDBusMessage) parsed = NULL;
      g_autofree guchar *hello_blob = NULL;
      g_autofree guchar *blob = NULL;
      gsize hello_size, size;
      Outcome outcome;

      g_dbus_message_set_body (message, corruption_body (c->body));
      if (stream == NULL ||
          (hello_blob = serialize (hello, 1, &hello_size, &error)) == NULL ||
          (blob = serialize (message, 2, &size, &error)) == NULL)
        g_error ("%s: %s", c->what, error->message);
      patch (blob, size, c);

      parsed = g_dbus_message_new_from_blob (blob, size, G_DBUS_CAPABILITY_FLAGS_NONE, NULL);
      if (!write_all (stream, hello_blob, hello_size, &error) ||
          !write_all (stream, blob, size, &error))
        outcome = HUNG_UP;
      else
        outcome = read_until_hangup (stream, 2);

      g_print ("  %-38s %-16s %s\n", c->what, parsed == NULL ? "refuses" : "accepts",
               outcome == HUNG_UP ? "hangs up, not delivered" :
               outcome == DELIVERED ? "DELIVERED" : "NO ANSWER");
      if (outcome != HUNG_UP)
        passed++;
    }
  return passed;
}
