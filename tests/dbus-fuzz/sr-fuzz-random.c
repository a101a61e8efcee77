/* sr-fuzz-random.c: random strings, names, types and values for D-Bus
 *
 * Everything D-Bus allows, and only that: GDBus would serialize more (empty
 * structs, dict entries outside arrays, nesting beyond the limits), but the
 * bus would hang up on the fuzzer. What D-Bus forbids is sent by hand, see
 * sr-fuzz-raw.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-fuzz-random"

#include "config.h"
#include "sr-bus.h"

#include <float.h>
#include <math.h>

#include "sr-fuzz-random.h"

GenStats gen_stats;

GVariant *
gen_end_array (GVariantBuilder *builder)
{
  GVariant *array = g_variant_builder_end (builder);
  gsize n = g_variant_n_children (array);

  gen_stats.arrays_10k += n >= 10000;
  gen_stats.arrays_100k += n >= MAX_ARRAY;
  return array;
}

void
gen_init (Gen     *g,
          guint32  seed,
          guint    index)
{
  /* GRand's seeding costs more than most messages; splitmix64 is cheap,
   * and good enough to pick from. */
  g->state = ((guint64) seed << 32 | index) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  g->big = pick (g, BIG_ONE_IN) == 0;
  g->bytes = g->big ? BIG_BYTES : SMALL_BYTES;
  g->items = g->big ? BIG_ITEMS : SMALL_ITEMS;
  g->n_fds = 0;
  /* Now and then, as deep as D-Bus allows (32), less the body's tuple. */
  g->max_depth = pick (g, 20) == 0 ? 31 : 12;
}

/* An item of a list of app ids: in a big message, up to MAX_ARRAY of them
 * whatever the items left, as long as the bytes last. */
gboolean
spend_list_item (Gen *g)
{
  return g->big ? spend (g, 24, 0) : spend (g, 24, 1);
}

guint32
random_u32 (Gen *g)
{
  guint64 z = (g->state += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return (guint32) ((z ^ (z >> 31)) >> 32);
}

guint32
pick (Gen     *g,
      guint32  n)
{
  /* Lemire's multiply-shift: a bias of at most n / 2^32, which is nothing
   * here. */
  return (guint32) (((guint64) random_u32 (g) * n) >> 32);
}

gboolean
chance (Gen     *g,
        guint32  per_thousand)
{
  return pick (g, 1000) < per_thousand;
}

static const char *const odd_strings[] = {
  "", " ", "saved-at", "Saved-At", "saved-at ", "enabled", "Enabled", "excluded-apps",
  "save-restore", "%s%s%s%n", "%x%x%x", "\\", "'", "\"", "../../../../etc/passwd",
  "/", ".", "..", "org.gnome.SessionRestore", "org.gnome.SessionRestore.Policy",
  "org.gnome.SessionRestore.Error.Failed", "always", "ask", "never", "Always",
  "true", "-1", "4294967296", "\u00e9", "\u202e", "\ufeff", "\ufffd", "\U0001f600",
  "\u200b", "\x7f", "\x01", "\n", "\t", "\r\n", "*", "?", "[", "{app}", "#",
};

static const char *const invalid_app_ids[] = {
  "", "a", "org", ".org.example", "org.example.", "org..example", "org/example.App",
  "../org.example.App", "org.example/../../etc", "1org.example", "org.1example",
  "org.ex ample", "org.example.App\x01", "org.ex\u00e4mple.App", "org.example.App\x7f",
  "org.example.App\t", "org.example.App\n", "org.example.App#1", "org.example.App*",
  "org.example.App/", "/org.example.App", "org.example..", "..", ".", "org.example.App.",
  "org.example.\u0660pp", "org.example.App\u200b", "snap.", "org.example.{app}",
};

static char
random_char_from (Gen        *g,
                  const char *set)
{
  return set[pick (g, strlen (set))];
}

#define IDENT_START "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
#define IDENT_REST IDENT_START "0123456789"

static void
append_identifier (Gen     *g,
                   GString *out,
                   guint    max_len,
                   gboolean hyphens)
{
  guint len = 1 + pick (g, max_len);

  g_string_append_c (out, random_char_from (g, IDENT_START));
  for (guint i = 1; i < len; i++)
    g_string_append_c (out, random_char_from (g, hyphens ? IDENT_REST "-" : IDENT_REST));
}

static gunichar
random_unichar (Gen *g)
{
  static const gunichar specials[] = {
    0x7f, 0x80, 0x85, 0xa0, 0xad, 0x200b, 0x200e, 0x202e, 0x2028, 0xfeff, 0xfffd,
    0xfffe, 0xffff, 0x1fffe, 0x10ffff, 0xe000, 0xf8ff, 0xd7ff,
  };

  for (;;)
    {
      gunichar c;

      switch (pick (g, 6))
        {
        case 0: c = 1 + pick (g, 0x7f); break;
        case 1: c = 0x80 + pick (g, 0x780); break;
        case 2: c = 0x800 + pick (g, 0xf800); break;
        case 3: c = 0x10000 + pick (g, 0x100000); break;
        case 4: c = PICK (g, specials); break;
        default: c = 0x20 + pick (g, 0x5f); break;
        }
      if (c != 0 && (c < 0xd800 || c > 0xdfff))
        return c;
    }
}

static void
append_unicode (Gen     *g,
                GString *out,
                guint    n_chars)
{
  for (guint i = 0; i < n_chars; i++)
    g_string_append_unichar (out, random_unichar (g));
}

/* Fills @len bytes of printable ASCII or, sometimes, UTF-8: a random chunk
 * repeated, which is as good as all-random for policyd and much faster. */
static char *
huge_string (Gen   *g,
             gsize  len)
{
  g_autoptr(GString) chunk = g_string_new (NULL);
  char *s = g_malloc (len + 1);
  gsize at = 0;

  gen_stats.strings_64k += len >= 65536;
  gen_stats.strings_1m += len >= MAX_STRING - 1;

  if (chance (g, 300))
    append_unicode (g, chunk, 1 + pick (g, 512));
  else
    for (guint i = 1 + pick (g, 4096); i > 0; i--)
      g_string_append_c (chunk, (char) (0x20 + pick (g, 0x5f)));

  while (at < len)
    {
      gsize n = MIN (chunk->len, len - at);

      memcpy (s + at, chunk->str, n);
      at += n;
    }
  s[len] = '\0';
  /* A cut through a UTF-8 sequence at the end: drop the partial one. */
  while (!g_utf8_validate (s, -1, NULL))
    s[strlen (s) - 1] = '\0';
  return s;
}

gboolean
spend (Gen   *g,
       gsize  bytes,
       gsize  items)
{
  if (bytes > g->bytes || items > g->items)
    return FALSE;
  g->bytes -= bytes;
  g->items -= items;
  return TRUE;
}

char *
random_string (Gen *g)
{
  g_autoptr(GString) s = g_string_new (NULL);
  guint32 r = pick (g, 100000);

  /* In a big message, one string in 3 is huge. */
  if (g->big && r < 33000)
    {
      static const gsize sizes[] = { 65536, 262144, MAX_STRING - 1, MAX_STRING };
      gsize len = PICK (g, sizes);

      if (spend (g, len, 0))
        return huge_string (g, len);
      r = 33000 + pick (g, 67000);
    }

  if (r < 25000)
    append_identifier (g, s, 16, TRUE);
  else if (r < 45000)
    for (guint i = pick (g, 65); i > 0; i--)
      g_string_append_c (s, (char) (0x20 + pick (g, 0x5f)));
  else if (r < 65000)
    append_unicode (g, s, pick (g, 33));
  else if (r < 85000)
    g_string_append (s, PICK (g, odd_strings));
  else
    {
      gsize len = 65 + pick (g, r < 99900 ? 1024 : 16384);
      if (spend (g, len, 0))
        return huge_string (g, len);
    }
  spend (g, s->len, 0);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
pool_app_id (Gen *g)
{
  return g_strdup_printf ("org.fuzz.App%02u", pick (g, POOL_SIZE));
}

/* @novel: valid ids outside the pool may come out. Methods that keep
 * state about an app get FALSE. */
char *
random_app_id (Gen      *g,
               gboolean  novel)
{
  guint32 r = pick (g, 100);

  if (r < 35 || (r < 55 && !novel))
    return pool_app_id (g);
  if (r < 55)
    {
      g_autoptr(GString) s = g_string_new (NULL);
      for (guint i = 2 + pick (g, 4); i > 0; i--)
        {
          if (s->len > 0)
            g_string_append_c (s, '.');
          append_identifier (g, s, 20, TRUE);
        }
      return g_string_free (g_steal_pointer (&s), FALSE);
    }
  if (r < 65)
    {
      /* Right at the length limit, or one byte over. */
      char *s = g_strnfill (novel ? 255 + pick (g, 2) : 256, 'a');
      memcpy (s, "org.example.", 12);
      return s;
    }
  if (r < 85)
    return g_strdup (PICK (g, invalid_app_ids));
  return random_string (g);
}

char *
random_object_path (Gen *g)
{
  static const char *const paths[] = {
    SR_OBJECT_PATH, SR_OBJECT_PATH, SR_OBJECT_PATH, "/", "/org", "/org/gnome",
    "/org/gnome/SessionRestore", SR_OBJECT_PATH "/Child", SR_OBJECT_PATH "/a/b/c",
    "/org/gnome/SessionRestore/policy", "/org/gnome/SessionRestore/Policy_",
    "/org/freedesktop/DBus", "/org/gnome/SessionRestore/Policy/0",
  };
  g_autoptr(GString) s = NULL;
  guint n;

  if (chance (g, 600))
    return g_strdup (PICK (g, paths));

  s = g_string_new (NULL);
  n = chance (g, 10) ? 200 + pick (g, 800) : 1 + pick (g, 8);
  for (guint i = 0; i < n; i++)
    {
      g_string_append_c (s, '/');
      for (guint j = 1 + pick (g, 16); j > 0; j--)
        g_string_append_c (s, random_char_from (g, IDENT_REST));
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
random_member (Gen *g)
{
  static const char *const near[] = {
    "checksave", "CHECKSAVE", "CheckSave2", "CheckSav", "Check_Save", "CheckRestore_",
    "Clear2", "clear", "Get", "GetAll", "Set", "Ping", "Introspect", "GetMachineId",
    "PropertiesChanged", "StoredStateCleared", "Hello", "Version", "Enabled",
    "SetSettings", "ListStoredStates", "NoteExits", "Quit", "Exit", "Release",
  };
  g_autoptr(GString) s = g_string_new (NULL);

  if (chance (g, 500))
    return g_strdup (PICK (g, near));
  if (chance (g, 20))
    {
      /* The longest name D-Bus allows. */
      append_identifier (g, s, 1, FALSE);
      while (s->len < 255)
        g_string_append_c (s, random_char_from (g, IDENT_REST));
      return g_string_free (g_steal_pointer (&s), FALSE);
    }
  append_identifier (g, s, 32, FALSE);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

char *
random_interface (Gen *g)
{
  static const char *const known[] = {
    "org.gnome.SessionRestore.Policy2", "org.gnome.SessionRestore",
    "org.gnome.SessionRestore.policy", "org.gnome.SessionRestore.Error",
    "org.freedesktop.DBus", "org.freedesktop.DBus.ObjectManager",
    "org.freedesktop.DBus.Monitoring", "org.freedesktop.DBus.Debug.Stats",
    "org.freedesktop.portal.SaveRestore", "org.gtk.Actions", "a.b",
  };
  g_autoptr(GString) s = g_string_new (NULL);

  if (chance (g, 400))
    return g_strdup (PICK (g, known));
  for (guint i = 2 + pick (g, 5); i > 0; i--)
    {
      if (s->len > 0)
        g_string_append_c (s, '.');
      append_identifier (g, s, 24, FALSE);
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* -- Random types ----------------------------------------------------------- */

static const char basic_types[] = "ybnqiuxtdsog";

static char
random_basic_type (Gen *g)
{
  if (g->n_fds > 0 && chance (g, 100))
    return 'h';
  return random_char_from (g, basic_types);
}

/* Appends one complete D-Bus type. Dict entries only inside arrays, no
 * empty structs, no maybes: what D-Bus, not just GVariant, allows. */
static void
append_random_type (Gen     *g,
                    GString *sig,
                    guint    depth)
{
  guint32 r = pick (g, 100);

  if (depth >= g->max_depth || sig->len > 160 || r < 55)
    {
      g_string_append_c (sig, random_basic_type (g));
      return;
    }
  if (r < 72)
    {
      g_string_append_c (sig, 'a');
      append_random_type (g, sig, depth + 1);
    }
  else if (r < 82)
    {
      g_string_append (sig, "a{");
      g_string_append_c (sig, random_basic_type (g));
      append_random_type (g, sig, depth + 2);
      g_string_append_c (sig, '}');
    }
  else if (r < 93)
    {
      g_string_append_c (sig, '(');
      for (guint n = 1 + pick (g, 4); n > 0; n--)
        append_random_type (g, sig, depth + 1);
      g_string_append_c (sig, ')');
    }
  else
    g_string_append_c (sig, 'v');
}

/* The deep end of what D-Bus allows: 32 nested arrays, 32 nested structs. */
static void
append_deep_type (Gen     *g,
                  GString *sig)
{
  guint n = 16 + pick (g, 17);
  char inner = random_basic_type (g);

  if (chance (g, 500))
    {
      for (guint i = 0; i < n; i++)
        g_string_append_c (sig, 'a');
      g_string_append_c (sig, inner);
    }
  else
    {
      for (guint i = 0; i < n; i++)
        g_string_append_c (sig, '(');
      g_string_append_c (sig, inner);
      for (guint i = 0; i < n; i++)
        g_string_append_c (sig, ')');
    }
}

/* One complete type that fits a signature (255 bytes at most). */
char *
random_type (Gen   *g,
             guint  depth)
{
  g_autoptr(GString) sig = g_string_new (NULL);

  for (guint tries = 0; tries < 10; tries++)
    {
      g_string_truncate (sig, 0);
      append_random_type (g, sig, depth);
      if (sig->len <= MAX_SIGNATURE)
        return g_string_free (g_steal_pointer (&sig), FALSE);
    }
  return g_strdup ("s");
}

/* A signature of 0 to 6 complete types, as a message body or a 'g' value. */
char *
random_signature (Gen *g)
{
  g_autoptr(GString) sig = g_string_new (NULL);

  if (chance (g, 20))
    append_deep_type (g, sig);
  else
    for (guint n = pick (g, 7); n > 0; n--)
      {
        g_autofree char *one = random_type (g, 0);
        if (sig->len + strlen (one) > MAX_SIGNATURE)
          break;
        g_string_append (sig, one);
      }
  g_assert (g_variant_is_signature (sig->str));
  return g_string_free (g_steal_pointer (&sig), FALSE);
}

/* -- Random values of a type ------------------------------------------------ */

guint64
random_integer (Gen *g)
{
  static const guint64 edges[] = {
    0, 1, 2, 3, 4, 7, 8, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 255, 256,
    1000, 1001, 3650, 3651, 604800, 604801, 0x7fffffff, 0x80000000, 0xffffffff,
    G_GUINT64_CONSTANT (0x100000000), G_MAXINT64, (guint64) G_MININT64, G_MAXUINT64,
    (guint64) -2, (guint64) -30, (guint64) -86400000000,
  };

  if (chance (g, 500))
    return PICK (g, edges);
  return ((guint64) random_u32 (g) << 32) | random_u32 (g);
}

static double
random_double (Gen *g)
{
  static const double edges[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 1e308, -1e308, DBL_MIN, 5e-324 };

  switch (pick (g, 6))
    {
    case 0: return NAN;
    case 1: return pick (g, 2) ? INFINITY : -INFINITY;
    case 2: return PICK (g, edges);
    case 3: return (double) (gint64) random_integer (g);
    default: return (random_u32 (g) / 4294967296.0 - 0.5) * 2e9;
    }
}

/* Mostly small; now and then at and beyond the limits policyd and D-Bus set. */
guint
random_count (Gen *g)
{
  static const guint large[] = { 256, 1000, 9999, 10000, 10001, 65535, 65536,
                                  MAX_ARRAY, MAX_ARRAY, MAX_ARRAY };
  guint32 r = pick (g, 1000);

  if (g->big && r < 150)
    return PICK (g, large);
  if (r < 940)
    return pick (g, 5);
  return 5 + pick (g, 60);
}

/* Paths and signatures count against the message's bytes too; without
 * them, a short one. */
static GVariant *
take_object_path (Gen  *g,
                  char *path)
{
  GVariant *value = g_variant_new_object_path (spend (g, strlen (path), 0) ? path : "/");

  g_free (path);
  return value;
}

static GVariant *
take_signature (Gen  *g,
                char *signature)
{
  GVariant *value = g_variant_new_signature (spend (g, strlen (signature), 0) ? signature : "");

  g_free (signature);
  return value;
}

static GVariant *
random_basic_value (Gen                *g,
                    const GVariantType *type)
{
  guint64 n = random_integer (g);

  switch (g_variant_type_peek_string (type)[0])
    {
    case 'y': return g_variant_new_byte ((guchar) n);
    case 'b': return g_variant_new_boolean (n & 1);
    case 'n': return g_variant_new_int16 ((gint16) n);
    case 'q': return g_variant_new_uint16 ((guint16) n);
    case 'i': return g_variant_new_int32 ((gint32) n);
    case 'u': return g_variant_new_uint32 ((guint32) n);
    case 'x': return g_variant_new_int64 ((gint64) n);
    case 't': return g_variant_new_uint64 (n);
    case 'h': return g_variant_new_handle ((gint32) pick (g, g->n_fds));
    case 'd': return g_variant_new_double (random_double (g));
    case 's': return g_variant_new_take_string (random_string (g));
    case 'o': return take_object_path (g, random_object_path (g));
    case 'g': return take_signature (g, random_signature (g));
    default: g_assert_not_reached ();
    }
}

/* A big array of a fixed-size type, filled in one go: 100,000 items one by
 * one would make the fuzzer, not policyd, the bottleneck. */
static GVariant *
random_fixed_array (Gen                *g,
                    const GVariantType *element,
                    guint               count)
{
  gsize size;
  char code = g_variant_type_peek_string (element)[0];
  g_autofree guint8 *data = NULL;

  switch (code)
    {
    case 'y': case 'b': size = 1; break;
    case 'n': case 'q': size = 2; break;
    case 'i': case 'u': case 'h': size = 4; break;
    case 'x': case 't': case 'd': size = 8; break;
    default: return NULL;
    }
  count = MIN (count, g->bytes / size);
  /* GDBus reads these in one go, too: cheap per item. */
  count = MIN (count, g->items * 16);
  spend (g, count * size, count / 16);
  data = g_malloc0 (count * size + 1);
  for (gsize i = 0; i < count * size; i += 4)
    {
      guint32 r = random_u32 (g);
      memcpy (data + i, &r, MIN (4, count * size - i));
    }
  /* Booleans must be 0 or 1 and handles must name an attached fd. */
  if (code == 'b')
    for (guint i = 0; i < count; i++)
      data[i] &= 1;
  if (code == 'h')
    for (guint i = 0; i < count; i++)
      {
        gint32 h = (gint32) pick (g, g->n_fds);
        memcpy (data + i * 4, &h, 4);
      }
  gen_stats.arrays_10k += count >= 10000;
  gen_stats.arrays_100k += count >= MAX_ARRAY;
  return g_variant_new_fixed_array (element, data, count, size);
}

GVariant *
random_value (Gen                *g,
              const GVariantType *type,
              guint               depth)
{
  if (g_variant_type_is_basic (type))
    return random_basic_value (g, type);

  if (g_variant_type_is_variant (type))
    {
      g_autofree char *sig = random_type (g, depth + 1);
      g_autoptr(GVariantType) inner = g_variant_type_new (sig);

      return g_variant_new_variant (random_value (g, inner, depth + 1));
    }

  if (g_variant_type_is_array (type))
    {
      const GVariantType *element = g_variant_type_element (type);
      guint count = random_count (g);
      GVariantBuilder builder;

      if (count > 64 && g_variant_type_is_basic (element))
        {
          GVariant *fixed = random_fixed_array (g, element, count);
          if (fixed != NULL)
            return fixed;
        }
      g_variant_builder_init (&builder, type);
      for (guint i = 0; i < count && spend (g, 8, 1); i++)
        g_variant_builder_add_value (&builder, random_value (g, element, depth + 1));
      return gen_end_array (&builder);
    }

  if (g_variant_type_is_tuple (type) || g_variant_type_is_dict_entry (type))
    {
      GVariantBuilder builder;

      g_variant_builder_init (&builder, type);
      for (const GVariantType *t = g_variant_type_first (type); t != NULL;
           t = g_variant_type_next (t))
        g_variant_builder_add_value (&builder, random_value (g, t, depth + 1));
      return g_variant_builder_end (&builder);
    }

  g_assert_not_reached ();
}

/* A message body of a random signature. */
GVariant *
random_body (Gen *g)
{
  g_autofree char *sig = random_signature (g);
  g_autofree char *tuple = g_strdup_printf ("(%s)", sig);
  g_autoptr(GVariantType) type = g_variant_type_new (tuple);

  return random_value (g, type, 0);
}
