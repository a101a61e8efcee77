/* sr-permissions.c: what polkit will allow the panel, asked up front
 *
 * A GPermission (PolkitPermission) per polkit action of policyd's, for
 * this process, so that the pages can show what polkit will refuse before
 * anyone tries. Without polkit, or before it answers, nothing is assumed
 * refused: policyd decides, and a refusal is reported then.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "sr-panel"

#include "config.h"

#include <unistd.h>

#include <polkit/polkit.h>

#include "sr-bus.h"
#include "sr-permissions.h"

struct _SrPermissions {
  GObject parent_instance;

  GHashTable *permissions;       /* (owned) action id → GPermission (owned) */
  GCancellable *cancellable;     /* (owned) */
};

G_DEFINE_FINAL_TYPE (SrPermissions, sr_permissions, G_TYPE_OBJECT)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

typedef struct {
  GWeakRef self;
  char *action;     /* (owned) */
} Request;

static void
request_free (Request *request)
{
  g_weak_ref_clear (&request->self);
  g_free (request->action);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Request, request_free)

static void
on_permission_changed_cb (SrPermissions *self)
{
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
on_permission_ready_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPermission) permission = polkit_permission_new_finish (result, &error);
  g_autoptr(SrPermissions) self = g_weak_ref_get (&request->self);

  if (permission == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_message ("Cannot ask polkit about %s: %s", request->action, error->message);
      return;
    }
  if (self == NULL)
    return;
  g_signal_connect_object (permission, "notify::allowed", G_CALLBACK (on_permission_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (permission, "notify::can-acquire", G_CALLBACK (on_permission_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_hash_table_insert (self->permissions, g_steal_pointer (&request->action),
                       g_steal_pointer (&permission));
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
sr_permissions_dispose (GObject *object)
{
  SrPermissions *self = SR_PERMISSIONS (object);

  g_cancellable_cancel (self->cancellable);
  g_hash_table_remove_all (self->permissions);
  G_OBJECT_CLASS (sr_permissions_parent_class)->dispose (object);
}

static void
sr_permissions_finalize (GObject *object)
{
  SrPermissions *self = SR_PERMISSIONS (object);

  g_clear_pointer (&self->permissions, g_hash_table_unref);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (sr_permissions_parent_class)->finalize (object);
}

static void
sr_permissions_class_init (SrPermissionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sr_permissions_dispose;
  object_class->finalize = sr_permissions_finalize;

  /* A permission came in, or changed. */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sr_permissions_init (SrPermissions *self)
{
  const char *actions[] = { SR_ACTION_CONFIGURE, SR_ACTION_CLEAR, SR_ACTION_LIST };

  self->cancellable = g_cancellable_new ();
  self->permissions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      g_autoptr(PolkitSubject) subject = polkit_unix_process_new_for_owner (getpid (), 0, getuid ());
      Request *request = g_new0 (Request, 1);

      g_weak_ref_init (&request->self, self);
      request->action = g_strdup (actions[i]);
      polkit_permission_new (actions[i], subject, self->cancellable, on_permission_ready_cb, request);
    }
}

SrPermissions *
sr_permissions_new (void)
{
  return g_object_new (SR_TYPE_PERMISSIONS, NULL);
}

/* Whether polkit will refuse @action outright: not allowed, and no way
 * to authenticate for it. */
gboolean
sr_permissions_is_refused (SrPermissions *self,
                           const char    *action)
{
  GPermission *permission = g_hash_table_lookup (self->permissions, action);

  return permission != NULL && !g_permission_get_allowed (permission) &&
         !g_permission_get_can_acquire (permission);
}
