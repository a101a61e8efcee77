/* sr-consumers.c: which programs consult policyd
 *
 * The settings only mean something where a session manager, a compositor
 * or a portal backend asks before it saves or restores. The panel says
 * which do, from this table: a program's name and when it last asked. A
 * program is remembered for KEEP_DAYS after its last question, across
 * restarts of policyd (the panel may be what starts it, long after the
 * session manager asked).
 *
 * Names: a host program by its executable's file name, which has no "/"
 * (one that does, a command name read instead, has it replaced); a
 * sandboxed caller as what it is, "flatpak/APP_ID" or "snap/APP_ID": never
 * under a host program's name, whatever its app id.
 *
 * The table is bounded (MAX_PROGRAMS): a caller can make up host program
 * names at will (copies of one executable), and those must not push the
 * real consumers out. So a new program beyond the bound evicts, among the
 * programs that are not the most frequent half, the one that asked least
 * recently: the most frequent (by the number of days on which each asked;
 * of equals, the one known longest) and the most recent stay. A daily
 * compositor outranks any burst of made-up names, and on its first day
 * it came before them.
 *
 * A connection's latest question is kept in its SrCaller (written on any
 * thread, without a lock); the table learns it on the main thread: at the
 * connection's calls that reach it (its first, NoteExit), when it leaves
 * the bus, when the list is read, every LEARN_INTERVAL_SECS and when
 * policyd exits. The file is written SAVE_DELAY_SECS after a change that
 * matters (a new program, a new day, a time SAVE_STEP or more later than
 * the file has), so that a kill loses little: never on a check, at most
 * once per SAVE_DELAY_SECS, and at exit. It is read when the table is
 * first needed, which is after the first answer (sr-daemon.c notes a
 * check's caller once it has answered): no check needs it.
 *
 * Main thread only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-consumers"

#include "config.h"

#include "sr-caller-cache.h"
#include "sr-consumers.h"
#include "sr-state-file.h"

#define KEEP_DAYS 30
#define USEC_PER_DAY (G_USEC_PER_SEC * (gint64) 86400)
/* Programs kept; the most frequent half of them cannot be evicted. */
#define MAX_PROGRAMS SR_CONSUMERS_MAX_PROGRAMS
/* (last, first seen, days), µs since the epoch. Files of before issue 22
 * hold a{sx}, the last time only. */
#define STATE_TYPE G_VARIANT_TYPE ("a{s(xxu)}")
#define OLD_STATE_TYPE G_VARIANT_TYPE ("a{sx}")
#define SAVE_DELAY_SECS 2
#define SAVE_STEP (G_USEC_PER_SEC * (gint64) 3600)
#define LEARN_INTERVAL_SECS 3600

typedef struct {
  gint64 last;           /* its latest question */
  gint64 first;          /* its first, as far as the table knows */
  guint days;            /* on how many days (UTC) it asked */
  gint64 saved_last;     /* last, as the file has it */
} Program;

struct _SrConsumers {
  char *path;                /* (owned) */
  GHashTable *programs;      /* (owned) name → (owned) Program */
  gboolean loaded;           /* the file has been read */
  gboolean dirty;            /* the file is behind in a way that matters */
  guint save_id;
  guint learn_id;
  SrCallerCache *callers;    /* (owned) (nullable): once watched */
  gulong caller_left_id;
};

static gint64
day_of (gint64 when)
{
  return when / USEC_PER_DAY;
}

/* The name a caller is listed under (see above). */
static char *
name_of (const SrCaller *caller)
{
  g_autofree char *program = NULL;

  switch (caller->kind)
    {
    case SR_CALLER_FLATPAK:
      return g_strconcat ("flatpak/", caller->app_id, NULL);
    case SR_CALLER_SNAP:
      return g_strconcat ("snap/", caller->app_id, NULL);
    case SR_CALLER_HOST:
    default:
      program = g_utf8_make_valid (caller->program, -1);
      return g_strdelimit (g_steal_pointer (&program), "/", '_');
    }
}

static void
schedule_save (SrConsumers *self);

/* @program asked at @when. */
static void
learn (SrConsumers *self,
       Program     *program,
       gint64       when)
{
  if (when <= program->last)
    return;
  if (day_of (when) > day_of (program->last))
    {
      program->days++;
      self->dirty = TRUE;
    }
  program->last = when;
  if (when - program->saved_last >= SAVE_STEP)
    self->dirty = TRUE;
  schedule_save (self);
}

typedef struct {
  const char *name;
  const Program *program;
} Ranked;

/* Most frequent first; of equals, the one known longest. */
static int
compare_frequent_first (gconstpointer a,
                        gconstpointer b)
{
  const Program *pa = ((const Ranked *) a)->program, *pb = ((const Ranked *) b)->program;

  if (pa->days != pb->days)
    return pa->days > pb->days ? -1 : 1;
  return pa->first < pb->first ? -1 : pa->first > pb->first ? 1 : 0;
}

/* Makes room for a new program (see above). */
static void
evict_one (SrConsumers *self)
{
  g_autoptr(GArray) ranked = g_array_sized_new (FALSE, FALSE, sizeof (Ranked), MAX_PROGRAMS);
  const Ranked *victim = NULL;
  GHashTableIter iter;
  gpointer name, program;

  g_hash_table_iter_init (&iter, self->programs);
  while (g_hash_table_iter_next (&iter, &name, &program))
    g_array_append_val (ranked, ((Ranked) { name, program }));
  g_array_sort (ranked, compare_frequent_first);
  for (guint i = MAX_PROGRAMS / 2; i < ranked->len; i++)
    {
      const Ranked *candidate = &g_array_index (ranked, Ranked, i);

      if (victim == NULL || candidate->program->last < victim->program->last)
        victim = candidate;
    }
  if (victim != NULL)
    g_hash_table_remove (self->programs, victim->name);
}

static void
learn_live (SrConsumers *self);

static Program *
add (SrConsumers *self,
     const char  *name,
     gint64       last,
     gint64       first,
     guint        days)
{
  Program *program = g_new0 (Program, 1);

  /* Evicted by when each really asked last, checks answered on the worker
   * thread included. */
  if (g_hash_table_size (self->programs) >= MAX_PROGRAMS)
    {
      learn_live (self);
      evict_one (self);
    }
  program->last = last;
  program->first = MIN (first, last);
  program->days = MAX (days, 1);
  g_hash_table_replace (self->programs, g_strdup (name), program);
  return program;
}

/* Before any use of the table: the first reads the file. */
static void
load (SrConsumers *self)
{
  const GVariantType *types[] = { STATE_TYPE, OLD_STATE_TYPE, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) state = NULL;
  gint64 since = g_get_real_time () - KEEP_DAYS * USEC_PER_DAY;
  gboolean old;
  GVariantIter iter;
  const char *name;
  gint64 last, first;
  guint days;

  if (self->loaded)
    return;
  self->loaded = TRUE;
  state = sr_state_file_load_any (self->path, types, &error);
  old = state != NULL && g_variant_is_of_type (state, OLD_STATE_TYPE);
  if (error != NULL)
    g_warning ("Consumers: %s", error->message);
  if (state == NULL)
    return;

  /* A file over the bound (written by hand) is cut down by the same rule. */
  g_variant_iter_init (&iter, state);
  while (old ? g_variant_iter_next (&iter, "{&sx}", &name, &last)
             : g_variant_iter_next (&iter, "{&s(xxu)}", &name, &last, &first, &days))
    {
      Program *program;

      if (last < since || !g_utf8_validate (name, -1, NULL))
        continue;
      program = add (self, name, last, old ? last : first, old ? 1 : days);
      program->saved_last = last;
    }
}

SrConsumers *
sr_consumers_new (const char *path)
{
  SrConsumers *self = g_new0 (SrConsumers, 1);

  self->path = g_strdup (path);
  self->programs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return self;
}

static void
save (SrConsumers *self)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (STATE_TYPE);
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  gpointer name, value;

  if (!self->dirty)
    return;
  g_hash_table_iter_init (&iter, self->programs);
  while (g_hash_table_iter_next (&iter, &name, &value))
    {
      const Program *program = value;
      g_variant_builder_add (&builder, "{s(xxu)}", (const char *) name,
                             program->last, program->first, program->days);
    }
  if (!sr_state_file_save (self->path, g_variant_builder_end (&builder), &error))
    {
      g_warning ("Could not save the list of consumers: %s", error->message);
      return;
    }
  self->dirty = FALSE;
  g_hash_table_iter_init (&iter, self->programs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    ((Program *) value)->saved_last = ((Program *) value)->last;
}

static gboolean
on_save_cb (gpointer user_data)
{
  SrConsumers *self = user_data;

  self->save_id = 0;
  save (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_save (SrConsumers *self)
{
  if (self->dirty && self->save_id == 0)
    self->save_id = g_timeout_add_seconds_full (G_PRIORITY_LOW, SAVE_DELAY_SECS,
                                                on_save_cb, self, NULL);
}

/* What @caller asked last, if its program is in the table: a program
 * evicted (or never let in) does not come back by being on the bus. */
static void
learn_caller (SrConsumers    *self,
              const SrCaller *caller)
{
  gint64 last = __atomic_load_n (&caller->last_call, __ATOMIC_RELAXED);
  g_autofree char *name = NULL;
  Program *program;

  if (last == 0)
    return;
  load (self);
  name = name_of (caller);
  program = g_hash_table_lookup (self->programs, name);
  if (program != NULL)
    learn (self, program, last);
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
    learn_caller (self, live->pdata[i]);
}

static gboolean
on_learn_cb (gpointer user_data)
{
  learn_live (user_data);
  return G_SOURCE_CONTINUE;
}

void
sr_consumers_free (SrConsumers *self)
{
  learn_live (self);
  save (self);
  g_clear_handle_id (&self->save_id, g_source_remove);
  g_clear_handle_id (&self->learn_id, g_source_remove);
  if (self->callers != NULL)
    g_clear_signal_handler (&self->caller_left_id, self->callers);
  g_clear_object (&self->callers);
  g_hash_table_unref (self->programs);
  g_free (self->path);
  g_free (self);
}

/* A check or exit report from @caller, on the main thread. Returns
 * whether its program is new to the list. */
gboolean
sr_consumers_note (SrConsumers *self,
                   SrCaller    *caller,
                   gint64       when)
{
  g_autofree char *name = name_of (caller);
  Program *program;

  load (self);
  program = g_hash_table_lookup (self->programs, name);
  __atomic_store_n (&caller->last_call, when, __ATOMIC_RELAXED);
  if (program != NULL)
    {
      learn (self, program, when);
      return FALSE;
    }
  add (self, name, when, when, 1);
  self->dirty = TRUE;
  schedule_save (self);
  return TRUE;
}

static void
on_caller_left_cb (SrCallerCache *callers,
                   SrCaller      *caller,
                   SrConsumers   *self)
{
  learn_caller (self, caller);
}

void
sr_consumers_watch (SrConsumers   *self,
                    SrCallerCache *callers)
{
  self->callers = g_object_ref (callers);
  self->caller_left_id = g_signal_connect (callers, "caller-left",
                                           G_CALLBACK (on_caller_left_cb), self);
  self->learn_id = g_timeout_add_seconds_full (G_PRIORITY_LOW, LEARN_INTERVAL_SECS,
                                               on_learn_cb, self, NULL);
}

/* The Consumers property, a(sx), in the order that ranks programs for
 * eviction; floating. */
GVariant *
sr_consumers_list (SrConsumers *self,
                   gint64       now)
{
  g_auto(GVariantBuilder) builder = G_VARIANT_BUILDER_INIT (G_VARIANT_TYPE ("a(sx)"));
  g_autoptr(GArray) ranked = g_array_new (FALSE, FALSE, sizeof (Ranked));
  gint64 since = now - KEEP_DAYS * USEC_PER_DAY;
  GHashTableIter iter;
  gpointer name, program;

  load (self);
  learn_live (self);
  g_hash_table_iter_init (&iter, self->programs);
  while (g_hash_table_iter_next (&iter, &name, &program))
    if (((Program *) program)->last >= since)
      g_array_append_val (ranked, ((Ranked) { name, program }));
  g_array_sort (ranked, compare_frequent_first);

  for (guint i = 0; i < ranked->len; i++)
    {
      const Ranked *r = &g_array_index (ranked, Ranked, i);
      g_variant_builder_add (&builder, "(sx)", r->name, r->program->last);
    }
  return g_variant_builder_end (&builder);
}
