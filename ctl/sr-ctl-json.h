/* sr-ctl-json.h: a small JSON writer for the --json output
 *
 * JSON is written, never read, so a writer of a few functions replaces a
 * library dependency. Output is indented by two spaces, keys in the order
 * written.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SR_JSON_MAX_DEPTH 16

typedef struct {
  GString *out;                          /* (not owned) */
  guint depth;
  gboolean has_items[SR_JSON_MAX_DEPTH]; /* per open container: a comma is due */
  gboolean after_key;                    /* a value follows its key on the same line */
  gboolean compact;                      /* all on one line (monitor --json) */
} SrJson;

void sr_json_init         (SrJson *json, GString *out);
void sr_json_init_compact (SrJson *json, GString *out);
void sr_json_begin_object (SrJson *json);
void sr_json_end_object   (SrJson *json);
void sr_json_begin_array  (SrJson *json);
void sr_json_end_array    (SrJson *json);
void sr_json_key          (SrJson *json, const char *key);
void sr_json_string       (SrJson *json, const char *value);
void sr_json_int          (SrJson *json, gint64 value);
void sr_json_uint         (SrJson *json, guint64 value);
void sr_json_bool         (SrJson *json, gboolean value);
void sr_json_null         (SrJson *json);
void sr_json_variant      (SrJson *json, GVariant *value);

G_END_DECLS
