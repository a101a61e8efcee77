/* sr-store-file.h: one file in a store, read and replaced safely
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <sys/stat.h>

#include <glib.h>

#include "sr-store-dropin.h"

G_BEGIN_DECLS

typedef enum {
  SR_STORE_FILE_REPLACED,   /* the new contents are in place */
  SR_STORE_FILE_CHANGED,    /* its owner saved it meanwhile: nothing was done */
  SR_STORE_FILE_FAILED,     /* an error is set: nothing was done */
} SrStoreFileResult;

GBytes            *sr_store_file_read             (int                 dir_fd,
                                                   const char         *name,
                                                   gsize               max_size,
                                                   struct stat        *st,
                                                   int                *out_fd,
                                                   GError            **error);
GBytes            *sr_store_file_read_path        (const char         *path,
                                                   gsize               max_size,
                                                   GError            **error);
SrStoreFileResult  sr_store_file_replace          (int                 dir_fd,
                                                   const char         *name,
                                                   int                 read_fd,
                                                   const struct stat  *read,
                                                   GVariant           *contents,
                                                   GError            **error);
gboolean           sr_store_file_is_leftover      (const SrStore      *store,
                                                   const char         *name);

G_END_DECLS
