/* sr-fuzz-calls.h: the calls sr-dbus-fuzz makes
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-bus.h"

G_BEGIN_DECLS

#define SR_IFACE SR_INTERFACE_NAME
#define PROPERTIES_IFACE "org.freedesktop.DBus.Properties"
#define INTROSPECTABLE_IFACE "org.freedesktop.DBus.Introspectable"
#define PEER_IFACE "org.freedesktop.DBus.Peer"

typedef enum {
  KIND_CHECK_SAVE,
  KIND_CHECK_RESTORE,
  KIND_NOTE_EXIT,
  KIND_SET_SETTING,
  KIND_SET_APP_EXCLUDED,
  KIND_LIST,
  KIND_CLEAR,
  KIND_WRONG_SIGNATURE,
  KIND_UNKNOWN_MEMBER,
  KIND_UNKNOWN_INTERFACE,
  KIND_NO_INTERFACE,
  KIND_PROPERTIES,
  KIND_INTROSPECT,
  KIND_PEER,
  KIND_OTHER_PATH,
  KIND_RANDOM,
  KIND_ORDINARY,       /* the warm-up's: see ordinary_call() */
  N_KINDS
} Kind;

typedef struct {
  guint index;
  Kind kind;
  char *path;          /* (owned) */
  char *iface;         /* (owned) (nullable) */
  char *member;        /* (owned) */
  GVariant *body;      /* (owned) (nullable) */
  guint n_fds;
  gboolean interactive;
} Call;

/* @only: (nullable) only kinds with this in their name (for triage). */
Call       *random_call          (guint32     seed,
                                  guint       index,
                                  const char *only);
Call       *ordinary_call        (guint       index);
void        call_free            (Call       *call);
char       *call_describe        (const Call *call);
const char *call_expected_return (const Call *call);
const char *kind_name            (Kind        kind);

G_END_DECLS
