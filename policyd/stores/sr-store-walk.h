/* sr-store-walk.h: listing and removing what a store holds
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

#include "sr-store-dropin.h"

G_BEGIN_DECLS

typedef struct {
  guint64 bytes;
  guint entries;
  gint64 last_saved;        /* µs since the epoch, the app's own newest save; 0: not known */
  gint64 last_written;      /* µs, the newest of the files that hold it, a shared file too */
  guint windows;            /* in the GTK state files that were read */
  guint gtk_files;          /* GTK state files, read or not */
  guint gtk_files_not_counted;
  guint gtk_files_read;     /* this listing's budget for the app, spent */
  guint64 gtk_bytes_read;
  gboolean at_login;        /* the session manager reopens it at login */
  GPtrArray *stores;        /* (owned) store names, (unowned) strings */
} SrAppUsage;

typedef struct {
  guint entries;
  guint64 bytes;
  GPtrArray *errors;        /* (owned) messages */
  GHashTable *apps;         /* (owned) (element-type utf8) apps that lost something */
} SrStoreReport;

void sr_app_usage_free      (SrAppUsage        *usage);
void sr_store_report_init   (SrStoreReport     *report);
void sr_store_report_clear  (SrStoreReport     *report);

/* @usage: app id → SrAppUsage, added to. */
void sr_store_walk_list   (const SrStore  *store,
                      GHashTable     *usage,
                      GPtrArray      *errors);
/* @apps: set of app ids, NULL for everything. @older_than: µs since the
 * epoch; only what was saved before it goes (a file by its time, an app's
 * entry in a shared file by its own "saved-at" where it has one); 0 for
 * no limit. */
void sr_store_walk_remove (const SrStore  *store,
                      GHashTable     *apps,
                      gint64          older_than,
                      SrStoreReport  *report);
void sr_store_walk_remove_leftovers (const SrStore *store,
                                     SrStoreReport *report);

/* Session prepare's rewrite of a store of entries (sr-store-prepare.c):
 * for each session file, @rewrite is asked for its new contents (from
 * @state, read from the file, whose modification time is @file_time, µs),
 * NULL to leave it as it is; asked again from the owner's newer file when
 * the owner saved it meanwhile; @rewritten is told of each file replaced.
 * A file that cannot be read, or is a link or no regular file, is an
 * error in @errors, and left alone. */
typedef struct {
  GVariant *(*rewrite)   (const char *path,
                          GVariant   *state,
                          gint64      file_time,
                          GPtrArray  *errors,
                          gpointer    user_data);
  void      (*rewritten) (const char *path,
                          gpointer    user_data);
  gpointer user_data;
} SrStoreRewrite;

void   sr_store_walk_rewrite          (const SrStore        *store,
                                       const SrStoreRewrite *rewrite,
                                       GPtrArray            *errors);
/* One instance's file in a store of files: the pattern's "*" is the
 * instance id. */
gint64 sr_store_walk_instance_time    (const SrStore        *store,
                                       const char           *app_id,
                                       const char           *instance_id,
                                       GPtrArray            *errors);
void   sr_store_walk_remove_instance  (const SrStore        *store,
                                       const char           *app_id,
                                       const char           *instance_id,
                                       SrStoreReport        *report);

G_END_DECLS
