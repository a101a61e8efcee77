/* sr-portal.h: session-restore-portal's state, shared by its parts
 *
 * One SrPortal per process: the record of instances (sr-portal-record.c),
 * the sessions the frontend opened (sr-portal-session.c), Register and the
 * confirmations (sr-portal-register.c), the end of the desktop session and
 * the next login (sr-portal-end.c, sr-portal-login.c), and policyd, asked
 * only through SrPolicyClient (sr-portal-policy.c).
 *
 * Two threads use it. Register, the apps' confirmations and Close are
 * answered on GDBus's worker thread, as the messages come in, so that an
 * app's Register costs no hand-over to the main loop and back (twice:
 * policyd is asked on the way); everything else runs in the main loop.
 * SrPortal.lock makes them take turns: the main thread holds it at all
 * times but while it waits in poll() (main.c), and the worker thread takes
 * it in each of its handlers. So every field, and the SrPolicyClient, whose
 * own state changes only in the main loop, is touched by one thread at a
 * time, and the code of the main loop needs no locking of its own. The
 * main thread must never wait for the worker thread while it holds the
 * lock (no *_sync D-Bus call, no flush): the worker may be waiting for it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "sr-impl-portal.h"
#include "sr-portal-policy.h"
#include "sr-portal-writer.h"

G_BEGIN_DECLS

#define SR_PORTAL_BUS_NAME "org.freedesktop.impl.portal.SessionRestore"
#define SR_PORTAL_OBJECT_PATH "/org/freedesktop/portal/desktop"
#define SR_PORTAL_SESSION_PREFIX "/org/freedesktop/portal/desktop/session/"
#define SR_PORTAL_CONTROL_PATH "/org/gnome/SessionRestore/Portal"
/* The version of org.freedesktop.impl.portal.SaveRestore served. */
#define SR_PORTAL_SAVE_RESTORE_VERSION 1
/* How long apps have to answer SaveHint at the session's end (the
 * interface's "within 3 seconds"). */
#define SR_PORTAL_SAVE_HINT_TIMEOUT_MS 3000
/* The most sessions one app id may hold at once (open, or closed and
 * waiting for Register's answer); the apps the frontend could not
 * identify count as one, "". A sandboxed app makes one with each Register
 * it sends with a new token, and nothing else bounds them: it could grow
 * the backend until the machine runs out of memory. A real app holds one
 * per instance running, and past MAX_INSTANCES (64, sr-portal-record.c)
 * its instances start afresh with no id; 16 times that is far above any
 * real use, and keeps one app's sessions near a MiB of the backend's
 * memory (measured: 0.8 KiB a session, 1.2 KiB with a sender and subtree
 * of its own). A Register past it is refused (LimitsExceeded), and the
 * app's other sessions are left as they were. */
#define SR_PORTAL_MAX_APP_SESSIONS 1024
/* The most sessions of all apps together. Each app's bound above leaves
 * room for any number of apps: a host process names what app id it likes
 * (the frontend takes it from its systemd scope), so without this one a
 * run of Registers under ever new ids grows the backend without end
 * (48,000 made it 230 MiB). A desktop runs tens of apps; 8,192 sessions
 * are some 10 MiB of the backend. */
#define SR_PORTAL_MAX_SESSIONS 8192
/* The frontend's name, whose owner alone may call the impl interface
 * (sr-portal-frontend.c). */
#define SR_PORTAL_FRONTEND_NAME "org.freedesktop.portal.Desktop"

typedef struct _SrPortalSession SrPortalSession;

/* The two doors apps come in by: the portal's impl interface, through
 * the frontend (sr-portal-session.c, sr-portal-register.c), and GTK's own
 * calls to org.gnome.SessionManager where no session manager owns that
 * name (sr-portal-sm.c). */
typedef enum {
  SR_DOOR_PORTAL,
  SR_DOOR_SESSION_MANAGER,
} SrDoor;

/* The name, path and interface of the SessionManager door. */
#define SR_SM_BUS_NAME "org.gnome.SessionManager"
#define SR_SM_OBJECT_PATH "/org/gnome/SessionManager"

/* How a session closed: Close2's "voluntary", or the old Close, which
 * does not say (no crash is counted for it). */
typedef enum {
  SR_CLOSE_INVOLUNTARY,
  SR_CLOSE_VOLUNTARY,
  SR_CLOSE_UNKNOWN,
} SrCloseKind;

/* One instance of an app, as the record keeps it. */
typedef struct {
  char *id;                  /* (owned) */
  gboolean crashed;          /* its session closed without a voluntary close */
  gboolean at_session_end;   /* open when the desktop session ended */
  gboolean reopened;         /* launched by the login: RESTORE at Register */
  gboolean kept;             /* not restored when last asked, and kept: it
                              * comes after a cleanly closed instance of the
                              * app (pick_instance()); in memory only */
  int closed_ending;         /* how its session closed while the desktop
                              * session was ending: SrCloseKind + 1, 0 for
                              * none; taken back if the ending is called off
                              * (sr-portal-end.c); in memory only */
  gint64 saved_at;           /* µs since the epoch, when its state was last
                              * known to be saved; 0: not known */
  SrPortalSession *live;     /* (unowned) (nullable) the session using it */
} SrInstance;

/* Where an app registered from (sr-portal-origin.c). */
typedef enum {
  SR_APP_ORIGIN_UNKNOWN,
  SR_APP_ORIGIN_HOST,
  SR_APP_ORIGIN_FLATPAK,
} SrAppOrigin;

typedef struct {
  char *app_id;              /* (owned) */
  SrAppOrigin origin;        /* the login reopens a Flatpak app only from
                              * the desktop file Flatpak exports for it */
  gboolean origin_asked;     /* looked at this run, or being looked at */
  GPtrArray *instances;      /* (owned) (element-type SrInstance) */
  char *next_id;             /* (owned) (nullable) the id of the last instance
                              * closed voluntarily, for the next launch */
  gint64 next_saved_at;      /* when that instance closed */
  GPtrArray *discard;        /* (owned) (element-type utf8) ids the app must delete */
  GPtrArray *cleared_ids;    /* (owned) (element-type utf8) ids of state policyd
                              * cleared, which the app may have written again
                              * since: to delete too; in memory only, so that
                              * the record does not bring a cleared app back */
} SrApp;

struct _SrPortalSession {
  char *handle;              /* (owned) the portal's session handle, or for the
                              * SessionManager door "sm:<sender>:<serial>" */
  SrDoor door;
  char *frontend;            /* (owned) unique name that called Register: the
                              * frontend, or for the SessionManager door the app
                              * itself, whose leaving is its crash */
  char *app_id;              /* (owned) "" for an unidentified app */
  char *instance_id;         /* (owned) (nullable) */
  GHashTable *asked_discard; /* (owned) ids this handle was asked to discard */
  gboolean answered;         /* Register has been answered */
  gboolean closed;
  gboolean save_hint_sent;   /* a SaveHint is waiting for its response */
  gboolean cleared;          /* policyd cleared its app meanwhile: its close
                              * must not bring the app back into the record */
};

typedef struct {
  GRecMutex lock;                /* see above; never cleared: a late reply on
                                  * the worker thread may take it at exit */
  gboolean closing;              /* the backend is exiting: the worker thread's
                                  * handlers do nothing more */
  GDBusConnection *bus;          /* (owned) */
  GDBusConnection *system_bus;   /* (owned) (nullable) for logind */
  GCancellable *logind_cancellable; /* (owned) (nullable) connecting to it */
  guint logind_timeout_id;       /* connects to the system bus at the latest */
  guint logind_idle_id;          /* … or once the first Register is answered */
  guint save_restore_id;         /* the SaveRestore object's registration, made
                                  * from the worker thread by the filter
                                  * (sr-portal-session.c), or 0 (subtree_lock) */
  gboolean serving;              /* the filter registers objects (subtree_lock) */
  SrPortalPolicy *policy;        /* (owned) */
  char *desktop;                 /* (owned) the desktop session type */
  char *record_path;             /* (owned) */
  SrRecordWriter *writer;        /* (owned) writes the record off the main thread */
  char *discards_path;           /* (owned) the ids to discard (sr-portal-discards.c) */
  SrRecordWriter *discards_writer; /* (owned) writes them */
  GBytes *discards_written;      /* (owned) (nullable) what they were last written as */
  gsize record_too_large;        /* the size of the last snapshot when it was
                                  * not written, too large; otherwise 0 */
  gboolean apps_bound_said;      /* the record's bound on apps was reached, logged */
  guint save_id;                 /* a snapshot of the record is due */
  GHashTable *apps;              /* (owned) app id → SrApp */
  GHashTable *sessions;          /* (owned) handle → SrPortalSession */
  GHashTable *app_sessions;      /* (owned) app id → how many of sessions are
                                  * its (none: absent) */
  GHashTable *apps_at_bound;     /* (owned) app ids a Register was refused for
                                  * SR_PORTAL_MAX_APP_SESSIONS, said in the log;
                                  * each goes with the app's last session */
  GHashTable *sender_sessions;   /* (owned) sender path → how many of sessions
                                  * are below it (none: absent), so that a
                                  * session's removal knows at once whether its
                                  * sender's subtree goes with it */
  GHashTable *tombstones;        /* (owned) handles closed before Register →
                                  * their order, tombstone_order when added */
  gsize tombstone_order;
  gboolean ending;               /* the desktop session is ending */
  guint ending_timeout_id;       /* calls the ending off if no login comes */
  guint reopened_timeout_id;     /* drops the login's marks no app claimed */
  gboolean sessions_at_bound;    /* SR_PORTAL_MAX_SESSIONS was reached, said in
                                  * the log; said again once below half of it */
  /* The frontend (sr-portal-frontend.c); the filter reads these on
   * GDBus's worker thread, under frontend_lock. */
  GMutex frontend_lock;
  char *frontend_owner;          /* (owned) (nullable) who owns its name, as last heard */
  gboolean frontend_owner_known; /* … heard at all */
  gboolean frontend_owner_changed; /* NameOwnerChanged heard since GetNameOwner was asked */
  char *frontend;                /* (owned) (nullable) that owner, verified */
  char *frontend_refused;        /* (owned) (nullable) that owner, found not to be trusted */
  char *frontend_checking;       /* (owned) (nullable) the owner being verified */
  GPtrArray *frontend_held;      /* (owned) (element-type GDBusMessage) calls held
                                  * until the owner is verified */
  gboolean frontend_drain_due;   /* an idle drains frontend_held */
  guint frontend_subscription;
  GCancellable *frontend_cancellable; /* (owned) */
  GHashTable *control_callers;   /* (owned) unique names verified as host
                                  * processes of the user, for the control
                                  * interface */
  /* The SessionManager door (sr-portal-sm.c), in the main loop only. */
  guint sm_owner_id;             /* owning org.gnome.SessionManager, or 0 */
  guint sm_object_id;            /* its object's registration, or 0 */
  guint sm_subscription;         /* NameOwnerChanged, for the apps leaving */
  gboolean sm_owned;             /* the name is ours now */
  GHashTable *sm_callers;        /* (owned) unique name → SmCaller: who called it */
  guint64 sm_serial;             /* numbers its sessions' handles, and clients */
  GMainLoop *loop;               /* (unowned) */
  GMutex subtree_lock;           /* guards subtrees and save_restore_id (the filter
                                  * runs without SrPortal.lock) */
  GHashTable *subtrees;          /* (owned) sender path → registration id */
  guint filter_id;
  GPtrArray *end_waiters;        /* (owned) (nullable) GTasks of session ends
                                  * waiting for the apps' SaveHintResponse */
  GPtrArray *ended_waiters;      /* (owned) (nullable) GTasks of session ends
                                  * waiting for the record to reach the disk */
  guint end_timeout_id;
  GPtrArray *round_waiters;      /* (owned) (nullable) GTasks of SaveHint rounds
                                  * before suspend */
  guint round_timeout_id;
  int inhibitor_fd;              /* logind's delay inhibitor, or -1 */
  gboolean inhibiting;           /* an Inhibit call is under way */
} SrPortal;

/* sr-portal-frontend.c */
typedef enum {
  SR_FRONTEND_ADMIT,
  SR_FRONTEND_HOLD,     /* taken: answered once its sender is verified */
  SR_FRONTEND_REFUSE,   /* answered: AccessDenied */
} SrFrontendVerdict;

void       sr_portal_frontend_watch    (SrPortal   *self);
void       sr_portal_frontend_unwatch  (SrPortal   *self);
void       sr_portal_frontend_hear     (SrPortal   *self,
                                        GDBusMessage *message);
SrFrontendVerdict sr_portal_frontend_admit (SrPortal *self,
                                            GDBusConnection *connection,
                                            GDBusMessage *message,
                                            gboolean    holdable);

/* sr-portal-discards.c */
void       sr_portal_discards_init     (SrPortal   *self);
void       sr_portal_discards_free     (SrPortal   *self);
void       sr_portal_discards_load     (SrPortal   *self);
void       sr_portal_discards_save     (SrPortal   *self,
                                        GList      *sorted);

/* sr-portal-sm.c */
void       sr_portal_sm_start          (SrPortal   *self);
void       sr_portal_sm_stop           (SrPortal   *self);
void       sr_portal_sm_cleanup_ids    (SrPortal   *self,
                                        SrApp      *app,
                                        SrPortalSession *session,
                                        GPtrArray  *ids);
void       sr_portal_sm_note_origin    (SrPortal   *self,
                                        SrPortalSession *session,
                                        SrApp      *app);

/* sr-portal-register.c (also) */
void       sr_portal_register_restore  (SrPortal   *self,
                                        GDBusMethodInvocation *invocation,
                                        const char *handle,
                                        const char *sender,
                                        const char *app_id);

/* sr-portal-origin.c */
void       sr_portal_origin_note       (SrPortal   *self,
                                        const char *handle,
                                        const char *app_id);

/* sr-portal-ids.c */
char      *sr_portal_new_instance_id   (const char *desktop,
                                        SrApp      *app);
char      *sr_portal_desktop_identity  (void);

/* sr-portal-record.c */
void       sr_portal_record_load       (SrPortal   *self);
void       sr_portal_record_save       (SrPortal   *self);
void       sr_portal_record_save_now   (SrPortal   *self);
void       sr_portal_record_flush_async (SrPortal  *self,
                                         GAsyncReadyCallback callback,
                                         gpointer   user_data);
void       sr_portal_record_flush_sync (SrPortal   *self);
gboolean   sr_portal_record_check_written (SrPortal  *self,
                                           GError   **error);
SrApp     *sr_portal_record_app        (SrPortal   *self,
                                        const char *app_id);
SrInstance *sr_portal_app_find_instance (SrApp     *app,
                                         const char *id);
SrInstance *sr_portal_app_add_instance (SrApp      *app,
                                        char       *id);
void       sr_portal_app_remove_instance (SrApp    *app,
                                          SrInstance *instance);
void       sr_portal_app_discard       (SrApp      *app,
                                        const char *id);
void       sr_portal_app_add_cleared   (SrApp      *app,
                                        const char *id);
gboolean   sr_portal_app_deleted       (SrApp      *app,
                                        const char *id);
gboolean   sr_portal_app_make_room     (SrApp      *app);
void       sr_portal_record_forget     (SrPortal   *self,
                                        const char * const *app_ids);
void       sr_app_free                 (SrApp      *app);

/* sr-portal-session.c */
gboolean   sr_portal_sessions_export   (SrPortal   *self,
                                        GError    **error);
void       sr_portal_sessions_unexport (SrPortal   *self);
SrPortalSession *sr_portal_session_new (SrPortal   *self,
                                        const char *handle,
                                        const char *frontend,
                                        const char *app_id);
void       sr_portal_session_free      (SrPortalSession *session);
guint      sr_portal_app_sessions      (SrPortal   *self,
                                        const char *app_id);
char      *sr_portal_session_bound_key (const char *handle,
                                        const char *app_id);
void       sr_portal_session_refused   (SrPortal   *self,
                                        const char *handle);
void       sr_portal_session_remove    (SrPortal   *self,
                                        SrPortalSession *session);
void       sr_portal_session_close     (SrPortal   *self,
                                        SrPortalSession *session,
                                        SrCloseKind kind);
void       sr_portal_instance_closed   (SrApp      *app,
                                        SrInstance *instance,
                                        SrCloseKind kind);
void       sr_portal_sessions_of_frontend_close (SrPortal *self,
                                                 const char *frontend);
gboolean   sr_portal_session_take_close (SrPortal  *self,
                                         GDBusConnection *connection,
                                         GDBusMessage *message);
void       sr_portal_send_to_session   (SrPortal   *self,
                                        SrPortalSession *session,
                                        const char *signal);

/* sr-portal-register.c: the SaveRestore object's calls, SrPortal the
 * user data; Register itself is taken by the filter */
extern const GDBusInterfaceVTable sr_portal_register_vtable;
gboolean   sr_portal_register_is_call  (GDBusMessage *message);
void       sr_portal_register_take     (SrPortal   *self,
                                        GDBusConnection *connection,
                                        GDBusMessage *message);

/* main.c */
void       sr_portal_unlocked_begin    (SrPortal   *self);
void       sr_portal_unlocked_end      (SrPortal   *self);

/* sr-portal-end.c */
void       sr_portal_end_session_async (SrPortal   *self,
                                        GAsyncReadyCallback callback,
                                        gpointer    user_data);
gboolean   sr_portal_end_session_finish (SrPortal  *self,
                                         GAsyncResult *result,
                                         GError   **error);
void       sr_portal_save_hint_round_async (SrPortal *self,
                                            GAsyncReadyCallback callback,
                                            gpointer    user_data);
void       sr_portal_save_hint_response (SrPortal  *self,
                                         SrPortalSession *session);
void       sr_portal_end_called_off    (SrPortal   *self,
                                        const char *why);

/* sr-portal-logind.c */
void       sr_portal_watch_logind      (SrPortal   *self);
void       sr_portal_watch_logind_now  (SrPortal   *self);
void       sr_portal_unwatch_logind    (SrPortal   *self);

/* sr-portal-login.c */
void       sr_portal_login_async       (SrPortal   *self,
                                        GAsyncReadyCallback callback,
                                        gpointer    user_data);
gboolean   sr_portal_login_finish      (SrPortal   *self,
                                        GAsyncResult *result,
                                        GError   **error);
void       sr_portal_login_forget_marks (SrPortal  *self);

G_END_DECLS
