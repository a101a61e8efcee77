/* sr-prompt.h: the login prompt, asked once for every interactive check
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-caller-cache.h"
#include "sr-decide.h"
#include "sr-store-worker.h"

G_BEGIN_DECLS

#define SR_PROMPT_BUS_NAME "org.gnome.SessionRestore"
#define SR_PROMPT_OBJECT_PATH "/org/gnome/SessionRestore/Prompt"
#define SR_PROMPT_INTERFACE "org.gnome.SessionRestore.Prompt"
/* How long the prompt waits for the user, in seconds, unless
 * SR_PROMPT_TIMEOUT (an environment variable, for tests) says otherwise. */
#define SR_PROMPT_DEFAULT_TIMEOUT 120

typedef struct _SrPrompt SrPrompt;

/* @decision_context(@owner): the rules that answer the waiting checks
 * and choose the apps to show (sr-decide.c); @callers identifies the
 * prompt. */
SrPrompt *sr_prompt_new        (GDBusConnection       *bus,
                                SrStoreWorker         *stores,
                                SrCallerCache         *callers,
                                SrDecisionContextFunc  decision_context,
                                gpointer               owner);
/* A host caller's CheckRestore that the rules answered SR_WHY_INTERACTIVE:
 * answered now if the user has answered, else once they have. */
void      sr_prompt_hold       (SrPrompt              *self,
                                GVariant              *params,
                                GDBusMethodInvocation *invocation);
/* The settings changed: waiting checks the rules now answer otherwise
 * are answered at once. */
void      sr_prompt_reconsider (SrPrompt              *self);
void      sr_prompt_free       (SrPrompt              *self);

G_END_DECLS
