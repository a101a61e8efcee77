/* sr-ctl-output.h: text for people: escapes, colour, sizes, times, tables
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SR_CTL_STYLE_BOLD,
  SR_CTL_STYLE_GOOD,
  SR_CTL_STYLE_BAD,
  SR_CTL_STYLE_WARN,
  SR_CTL_STYLE_DIM,
} SrCtlStyle;

char *sr_ctl_escape      (const char  *text);
char *sr_ctl_styled      (gboolean     color,
                          SrCtlStyle   style,
                          const char  *text);
char *sr_ctl_format_time (gint64       usec);
char *sr_ctl_format_ago  (gint64       usec);
void  sr_ctl_print       (GString     *text);

typedef struct _SrCtlTable SrCtlTable;

SrCtlTable *sr_ctl_table_new      (guint        n_columns,
                                   const char  *const *headers);
void        sr_ctl_table_add      (SrCtlTable  *table,
                                   char       **cells);
void        sr_ctl_table_print    (SrCtlTable  *table,
                                   gboolean     color,
                                   GString     *out);
void        sr_ctl_table_free     (SrCtlTable  *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrCtlTable, sr_ctl_table_free)

G_END_DECLS
