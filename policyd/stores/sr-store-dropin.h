/* sr-store-dropin.h: where apps' state is stored, from *.store drop-ins
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

#include "sr-pattern.h"

G_BEGIN_DECLS

typedef enum {
  SR_STORE_FILES,        /* one or more files per app */
  SR_STORE_ENTRIES,      /* per-app entries inside one file */
  SR_STORE_WHOLE_FILE,   /* files with no app in them: cleared only by "all" */
} SrStoreKind;

typedef enum {
  SR_STORE_FORMAT_NONE,          /* files not looked into */
  SR_STORE_FORMAT_GTK,           /* files: GTK app state (sr-format-gtk.c) */
  SR_STORE_FORMAT_GNOME_SESSION, /* entries: sr-format-gnome-session.c */
} SrStoreFormat;

/* Where a drop-in was read from: what it may name (sr-store-confine.c). */
typedef enum {
  SR_STORE_ORIGIN_SYSTEM, /* $datadir or /etc: written by the distribution or
                           * the administrator */
  SR_STORE_ORIGIN_USER,   /* $XDG_CONFIG_HOME: anything running as the user
                           * can write it, so its stores are confined to the
                           * user's state directories and to the formats
                           * policyd reads */
} SrStoreOrigin;

typedef struct {
  char *name;            /* (owned) the drop-in's name without ".store" */
  char *description;     /* (owned) */
  SrStoreOrigin origin;
  SrStoreKind kind;
  SrStoreFormat format;
  char *base;            /* (owned) the directory the root is reached from,
                          * following links (sr-store-confine.c); below it
                          * no link is followed */
  char *root;            /* (owned) absolute directory, before any {app};
                          * canonical, and base or below it */
  char *app_subdir;      /* (owned) (nullable) relative path after the {app}
                          * directory, "" when {app} is the last component */
  char *pattern;         /* (owned) file name pattern */
  SrPattern *matcher;    /* (owned) the pattern, compiled */
} SrStore;

SrStore   *sr_store_load_file     (const char          *path,
                                   SrStoreOrigin        origin,
                                   GError             **error);
SrStore   *sr_store_load_key_file (GKeyFile            *file,
                                   const char          *name,
                                   SrStoreOrigin        origin,
                                   GError             **error);
void       sr_store_free          (SrStore             *store);
GPtrArray *sr_store_load_dirs     (const char * const  *dirs,
                                   guint                first_user_dir);
char     **sr_store_default_dirs  (guint               *out_first_user_dir);
gboolean   sr_store_match         (const SrStore       *store,
                                   const char          *file_name,
                                   char               **out_app_id);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SrStore, sr_store_free)

G_END_DECLS
