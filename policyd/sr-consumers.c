/* sr-consumers.c: which programs consult policyd
 *
 * The settings only mean something where a session manager, a compositor
 * or a portal backend asks before it saves or restores. The panel says
 * which do, from this table: a program's name (its executable, or a
 * sandboxed app's id) and when it last asked. A program is remembered for
 * KEEP_DAYS after its last question, across restarts of policyd (the
 * panel may be what starts it, long after the session manager asked).
 *
 * A connection's latest question is kept in its SrCaller (written on any
 * thread, without a lock); the table learns it when the connection leaves
 * the bus, when the list is read and when policyd exits. The file is
 * written a minute after a program is first seen, and at exit: never on a
 * check.
 *
 * Main thread only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-consumers"

#include "config.h"

#include "sr-caller.h"
#include "sr-consumers.h"
#include "sr-state-file.h"

#define KEEP_DAYS 30
#define USEC_PER_DAY (G_USEC_PER_SEC * (gint64) 86400)
/* Beyond this many programs, something is making up names. */
#define MAX_PROGRAMS 256
#define STATE_TYPE G_VARIANT_TYPE ("a{sx}")
/* A new program is written to disk this long after it first asked. */
#define SAVE_DELAY_SECS 60

struct _SrConsumers {
  char *path;                /* (owned) */
  GHashTable *last;          /* (owned) program → gint64 * (µs since the epoch) */
  gboolean dirty;
  guint save_id;
  SrCallerCache *callers;    /* (owned) (nullable): once watched */
  gulong caller_left_id;
};

static void
set_last (SrConsumers *self,
          const char  *program,
          gint64       when)
{
  gint64 *last = g_hash_table_lookup (self->last, program);

  if (last != NULL)
    {
      if (when > *last)
        {
          *last = when;
          self->dirty = TRUE;
        }
      return;
    }
  g_hash_table_insert (self->last, g_strdup (program), g_memdup2 (&when, sizeof when));
  self->dirty = TRUE;
}

SrConsumers *
sr_consumers_new (const char *path)
{
  SrConsumers *self = g_new0 (SrConsumers, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) state = NULL;

  self->path = g_strdup (path);
  self->last = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  state = sr_state_file_load (path, STATE_TYPE, &error);
  if (error != NULL)
    g_warning ("Consumers: %s", error->message);
  if (state != NULL)
    {
      gint64 since = g_get_real_time () - KEEP_DAYS * USEC_PER_DAY;
      GVariantIter iter;
      const char *program;
      gint64 when;

      g_variant_iter_init (&iter, state);
      while (g_variant_iter_next (&iter, "{&sx}", &program, &when) &&
             g_hash_table_size (self->last) < MAX_PROGRAMS)
        if (when >= since && g_utf8_validate (program, -1, NULL))
          set_last (self, program, when);
    }
  self->dirty = FALSE;
  return self;
}

static void
save (SrConsumers *self)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (STATE_TYPE);
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  gpointer program, last;

  if (!self->dirty)
    return;
  g_hash_table_iter_init (&iter, self->last);
  while (g_hash_table_iter_next (&iter, &program, &last))
    g_variant_builder_add (&builder, "{sx}", (const char *) program, *(gint64 *) last);
  if (!sr_state_file_save (self->path, g_variant_builder_end (&builder), &error))
    g_warning ("Could not save the list of consumers: %s", error->message);
  else
    self->dirty = FALSE;
}

/* The latest question of each caller still on the bus. */
static void
learn_live (SrConsumers *self)
{
  g_autoptr(GPtrArray) live = NULL;

  if (self->callers == NULL)
    return;
  live = sr_caller_cache_dup_all (self->callers);
  for (guint i = 0; i < live->len; i++)
    {
      SrCaller *caller = live->pdata[i];
      gint64 last = __atomic_load_n (&caller->last_call, __ATOMIC_RELAXED);

      if (last != 0 && g_hash_table_contains (self->last, caller->program))
        set_last (self, caller->program, last);
    }
}

void
sr_consumers_free (SrConsumers *self)
{
  learn_live (self);
  save (self);
  g_clear_handle_id (&self->save_id, g_source_remove);
  if (self->callers != NULL)
    g_clear_signal_handler (&self->caller_left_id, self->callers);
  g_clear_object (&self->callers);
  g_hash_table_unref (self->last);
  g_free (self->path);
  g_free (self);
}

static gboolean
on_save_cb (gpointer user_data)
{
  SrConsumers *self = user_data;

  self->save_id = 0;
  save (self);
  return G_SOURCE_REMOVE;
}

/* A check or exit report from @caller, on the main thread. Returns
 * whether its program is new to the list. */
gboolean
sr_consumers_note (SrConsumers *self,
                   SrCaller    *caller,
                   gint64       when)
{
  gboolean known = g_hash_table_contains (self->last, caller->program);

  __atomic_store_n (&caller->last_call, when, __ATOMIC_RELAXED);
  if (known || g_hash_table_size (self->last) >= MAX_PROGRAMS)
    return FALSE;
  set_last (self, caller->program, when);
  if (self->save_id == 0)
    self->save_id = g_timeout_add_seconds_full (G_PRIORITY_LOW, SAVE_DELAY_SECS,
                                                on_save_cb, self, NULL);
  return TRUE;
}

static void
on_caller_left_cb (SrCallerCache *callers,
                   SrCaller      *caller,
                   SrConsumers   *self)
{
  gint64 last = __atomic_load_n (&caller->last_call, __ATOMIC_RELAXED);

  if (last != 0 && g_hash_table_contains (self->last, caller->program))
    set_last (self, caller->program, last);
}

void
sr_consumers_watch (SrConsumers   *self,
                    SrCallerCache *callers)
{
  self->callers = g_object_ref (callers);
  self->caller_left_id = g_signal_connect (callers, "caller-left",
                                           G_CALLBACK (on_caller_left_cb), self);
}

static int
compare_latest_first (gconstpointer a,
                      gconstpointer b)
{
  gint64 la = *(gint64 *) ((gpointer *) a)[1];
  gint64 lb = *(gint64 *) ((gpointer *) b)[1];

  return la < lb ? 1 : la > lb ? -1 : 0;
}

/* The Consumers property, a(sx), latest first; floating. */
GVariant *
sr_consumers_list (SrConsumers *self,
                   gint64       now)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sx)"));
  g_autoptr(GArray) pairs = g_array_new (FALSE, FALSE, 2 * sizeof (gpointer));
  gint64 since = now - KEEP_DAYS * USEC_PER_DAY;
  GHashTableIter iter;
  gpointer pair[2];

  learn_live (self);
  g_hash_table_iter_init (&iter, self->last);
  while (g_hash_table_iter_next (&iter, &pair[0], &pair[1]))
    if (*(gint64 *) pair[1] >= since)
      g_array_append_val (pairs, pair);
  g_array_sort (pairs, compare_latest_first);

  for (guint i = 0; i < pairs->len; i++)
    {
      gpointer *p = &g_array_index (pairs, gpointer, 2 * i);
      g_variant_builder_add (&builder, "(sx)", (const char *) p[0], *(gint64 *) p[1]);
    }
  return g_variant_builder_end (&builder);
}
