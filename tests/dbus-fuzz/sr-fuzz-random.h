/* sr-fuzz-random.h: random strings, names, types and values for D-Bus
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define MIB (1024 * 1024)
#define MAX_STRING MIB
#define MAX_ARRAY 100000
/* What one message may hold. Most are small; one in BIG_ONE_IN may hold
 * strings of MAX_STRING and arrays of MAX_ARRAY items: of fixed-size
 * types, which GDBus reads in one go, and lists of app ids (see
 * spend_list_item()). Not arrays of 100,000 containers, nor the product of
 * nested arrays: the run would spend its time, on both sides, building and
 * parsing millions of GVariants. */
#define BIG_ONE_IN 250
#define SMALL_BYTES (32 * 1024)
#define SMALL_ITEMS 1024
#define BIG_BYTES (2 * MIB + 64 * 1024)
#define BIG_ITEMS 20000
#define MAX_SIGNATURE 255
/* App ids that methods which keep state (crash counters, clear points,
 * exclusions) are called about: a fixed set, so that memory held for them
 * is bounded and a growing RSS means a leak, not state. */
#define POOL_SIZE 32

/* The generator of one message. */
typedef struct {
  guint64 state;     /* splitmix64 */
  gboolean big;      /* may hold huge strings and arrays */
  gsize bytes;       /* bytes of values this message may still get */
  gsize items;       /* values, likewise */
  guint n_fds;       /* fds attached to the message; handles index them */
  guint max_depth;   /* containers, variants included, a value may nest */
} Gen;

/* What the generators made, over all messages. */
typedef struct {
  guint strings_64k, strings_1m;   /* of at least 64 KiB, of 1 MiB (less one byte or not) */
  guint arrays_10k, arrays_100k;   /* of at least 10,000 and of 100,000 items */
} GenStats;

extern GenStats gen_stats;

void      gen_init           (Gen *g, guint32 seed, guint index);
GVariant *gen_end_array      (GVariantBuilder *builder);

guint32   random_u32         (Gen *g);
guint32   pick               (Gen *g, guint32 n);
gboolean  chance             (Gen *g, guint32 per_thousand);
#define PICK(g, array) ((array)[pick ((g), G_N_ELEMENTS (array))])
gboolean  spend              (Gen *g, gsize bytes, gsize items);
gboolean  spend_list_item    (Gen *g);

guint64   random_integer     (Gen *g);
guint     random_count       (Gen *g);
char     *random_string      (Gen *g);
char     *pool_app_id        (Gen *g);
char     *random_app_id      (Gen *g, gboolean novel);
char     *random_object_path (Gen *g);
char     *random_member      (Gen *g);
char     *random_interface   (Gen *g);

char     *random_type        (Gen *g, guint depth);
char     *random_signature   (Gen *g);
GVariant *random_value       (Gen *g, const GVariantType *type, guint depth);
GVariant *random_body        (Gen *g);

G_END_DECLS
