/* fuzz.h: what every fuzz target shares
 *
 * Each fuzz-<name>.c defines LLVMFuzzerTestOneInput(). Built with
 * -fsanitize=fuzzer (meson -Dfuzzing=true, tools/fuzz) libFuzzer drives it;
 * in every other build standalone-main.c feeds it the checked-in corpus,
 * so that what fuzzing once found stays fixed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

/* A critical or a warning from GLib on the way is a bug found. GLib's own
 * fatal path (G_DEBUG=fatal-criticals) raises SIGTRAP, which libFuzzer does
 * not catch; abort() makes it save the input. */
static inline void
fuzz_log_handler (const char     *log_domain,
                  GLogLevelFlags  log_level,
                  const char     *message,
                  gpointer        user_data)
{
  g_log_default_handler (log_domain, log_level, message, user_data);
  if (log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort ();
}

/* Call first in every input; does its work once. */
static inline void
fuzz_set_up (void)
{
  static gboolean done;

  if (done)
    return;
  done = TRUE;

  /* Fixed directories, so that an input behaves the same everywhere. Set
   * before GLib reads and caches them. */
  g_setenv ("HOME", "/home/fuzz", TRUE);
  g_setenv ("XDG_STATE_HOME", "/home/fuzz/.local/state", TRUE);
  g_setenv ("XDG_DATA_HOME", "/home/fuzz/.local/share", TRUE);
  g_setenv ("XDG_CONFIG_HOME", "/home/fuzz/.config", TRUE);
  g_setenv ("XDG_CACHE_HOME", "/home/fuzz/.cache", TRUE);

  g_log_set_default_handler (fuzz_log_handler, NULL);
}

/* Reads every value of @value the way a consumer of the data would. The
 * parsing itself happens inside GLib, which is built without coverage
 * instrumentation: the branches taken here are what tells libFuzzer that
 * an input has a new shape. Strings must come out as UTF-8, since policyd
 * passes what it reads on over D-Bus. */
static inline void
fuzz_walk_variant (GVariant *value)
{
  switch (g_variant_classify (value))
    {
    case G_VARIANT_CLASS_STRING:
    case G_VARIANT_CLASS_OBJECT_PATH:
    case G_VARIANT_CLASS_SIGNATURE:
      g_assert_true (g_utf8_validate (g_variant_get_string (value, NULL), -1, NULL));
      break;
    case G_VARIANT_CLASS_VARIANT:
    case G_VARIANT_CLASS_MAYBE:
    case G_VARIANT_CLASS_ARRAY:
    case G_VARIANT_CLASS_TUPLE:
    case G_VARIANT_CLASS_DICT_ENTRY:
      for (gsize i = 0, n = g_variant_n_children (value); i < n; i++)
        {
          g_autoptr(GVariant) child = g_variant_get_child_value (value, i);

          fuzz_walk_variant (child);
        }
      break;
    case G_VARIANT_CLASS_BOOLEAN:
    case G_VARIANT_CLASS_BYTE:
    case G_VARIANT_CLASS_INT16:
    case G_VARIANT_CLASS_UINT16:
    case G_VARIANT_CLASS_INT32:
    case G_VARIANT_CLASS_UINT32:
    case G_VARIANT_CLASS_INT64:
    case G_VARIANT_CLASS_UINT64:
    case G_VARIANT_CLASS_HANDLE:
    case G_VARIANT_CLASS_DOUBLE:
    default:
      break;
    }
}
