/* sr-policy-client.h: a client of session-restore-policyd
 *
 * The one client every consumer links: the panel, session-restore-ctl,
 * session-restore-portal, and outside compositors, session managers and
 * extensions (through GObject-Introspection as SessionRestore-1.0).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(SR_INSIDE_LIBSESSIONRESTORE) && !defined(__SESSION_RESTORE_H_INSIDE__)
#include <session-restore.h>
#endif

#include <gio/gio.h>

#include "sr-enums.h"

G_BEGIN_DECLS

#define SR_TYPE_POLICY_CLIENT (sr_policy_client_get_type ())
SR_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SrPolicyClient, sr_policy_client, SR, POLICY_CLIENT, GObject)

/**
 * SrPolicyClientFlags:
 * @SR_POLICY_CLIENT_FLAGS_NONE: start the service by D-Bus activation when
 *   it is not running: as the client is made, and again for a call that
 *   finds it gone (it crashed, or was stopped)
 * @SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START: do not start it; the client
 *   is #SR_SERVICE_STATE_MISSING until it appears, and calls fail
 *   meanwhile
 * @SR_POLICY_CLIENT_FLAGS_PIPELINE: calls may be made before the client
 *   is initialized (sr_policy_client_new()). Asynchronous calls whose
 *   arguments name no app (a listing, a clear of everything, a setting
 *   other than the excluded apps), made while the owner of the service's
 *   name is not identified yet (#SR_SERVICE_STATE_UNKNOWN, as before the
 *   client's initialization finished), are sent at once to whoever owns
 *   the name, so that their round trips overlap the identification; their
 *   answers are held until the owner is verified, and taken only if that
 *   owner sent them. Calls that name an app (the checks,
 *   sr_policy_client_note_exit_async(), an exclusion, a clear of some
 *   apps) are never sent before the owner is verified: they wait for it,
 *   as every call of a client without the flag does once it is being
 *   initialized. If the owner turns out not to be trusted, or the service
 *   goes, the calls sent early that it has not answered fail at once
 *   (%SR_ERROR_NOT_ALLOWED, %SR_ERROR_UNAVAILABLE), interactive ones too,
 *   rather than when they would time out
 */
typedef enum /*< flags >*/ {
  SR_POLICY_CLIENT_FLAGS_NONE = 0,
  SR_POLICY_CLIENT_FLAGS_DO_NOT_AUTO_START = 1 << 0,
  SR_POLICY_CLIENT_FLAGS_PIPELINE = 1 << 1,
} SrPolicyClientFlags;

/**
 * SrCallFlags:
 * @SR_CALL_FLAGS_NONE: no interaction
 * @SR_CALL_FLAGS_ALLOW_INTERACTION: polkit may ask the user to
 *   authenticate (changes and clears); for check_restore(), in "ask" mode at
 *   login, policyd may show its prompt and the reply waits for the user
 */
typedef enum /*< flags >*/ {
  SR_CALL_FLAGS_NONE = 0,
  SR_CALL_FLAGS_ALLOW_INTERACTION = 1 << 0,
} SrCallFlags;

SR_AVAILABLE_IN_ALL
SrPolicyClient  *sr_policy_client_new                 (GDBusConnection     *connection,
                                                        SrPolicyClientFlags  flags);
SR_AVAILABLE_IN_ALL
void             sr_policy_client_new_for_bus_async   (GDBusConnection     *connection,
                                                        SrPolicyClientFlags  flags,
                                                        GCancellable        *cancellable,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
SR_AVAILABLE_IN_ALL
SrPolicyClient  *sr_policy_client_new_for_bus_finish  (GAsyncResult        *result,
                                                        GError             **error);
SR_AVAILABLE_IN_ALL
SrPolicyClient  *sr_policy_client_new_for_bus_sync    (GDBusConnection     *connection,
                                                        SrPolicyClientFlags  flags,
                                                        GCancellable        *cancellable,
                                                        GError             **error);

SR_AVAILABLE_IN_ALL
GDBusConnection *sr_policy_client_get_connection      (SrPolicyClient      *self);
SR_AVAILABLE_IN_ALL
SrServiceState   sr_policy_client_get_service_state   (SrPolicyClient      *self);

/* The settings, as the service last announced them (read-only properties
 * of the same names, with notify). */
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_get_enabled              (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
SrLoginRestore   sr_policy_client_get_login_restore        (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_get_restore_after_crash  (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_get_restore_on_launch    (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
const char * const *sr_policy_client_get_excluded_apps     (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
const char * const *sr_policy_client_get_admin_excluded_apps (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
int              sr_policy_client_get_max_age_days         (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
guint            sr_policy_client_get_crash_loop_threshold (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
guint            sr_policy_client_get_crash_loop_window    (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
const char * const *sr_policy_client_get_locked_settings   (SrPolicyClient *self);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_is_locked                (SrPolicyClient *self,
                                                            const char     *key);

/* The hot path of consumers. */
SR_AVAILABLE_IN_ALL
void             sr_policy_client_check_save_async     (SrPolicyClient      *self,
                                                         const char          *app_id,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
SR_AVAILABLE_IN_ALL
SrVerdict        sr_policy_client_check_save_finish    (SrPolicyClient      *self,
                                                         GAsyncResult        *result,
                                                         SrWhy               *out_why,
                                                         GError             **error);
SR_AVAILABLE_IN_ALL
SrVerdict        sr_policy_client_check_save_sync      (SrPolicyClient      *self,
                                                         const char          *app_id,
                                                         SrWhy               *out_why,
                                                         GCancellable        *cancellable,
                                                         GError             **error);

/* @saved_at: µs since the epoch, when the state to restore was saved; 0
 * when not known. SR_CALL_FLAGS_ALLOW_INTERACTION sends "interactive". */
SR_AVAILABLE_IN_ALL
void             sr_policy_client_check_restore_async  (SrPolicyClient      *self,
                                                         const char          *app_id,
                                                         SrRestoreReason      reason,
                                                         gint64               saved_at,
                                                         SrCallFlags          flags,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
SR_AVAILABLE_IN_ALL
SrVerdict        sr_policy_client_check_restore_finish (SrPolicyClient      *self,
                                                         GAsyncResult        *result,
                                                         SrWhy               *out_why,
                                                         GError             **error);
SR_AVAILABLE_IN_ALL
SrVerdict        sr_policy_client_check_restore_sync   (SrPolicyClient      *self,
                                                         const char          *app_id,
                                                         SrRestoreReason      reason,
                                                         gint64               saved_at,
                                                         SrCallFlags          flags,
                                                         SrWhy               *out_why,
                                                         GCancellable        *cancellable,
                                                         GError             **error);

SR_AVAILABLE_IN_ALL
void             sr_policy_client_note_exit_async      (SrPolicyClient      *self,
                                                         const char          *app_id,
                                                         gboolean             voluntary,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_note_exit_finish     (SrPolicyClient      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);

/* For tools: what is stored (the a(sa{sv}) of ListStoredState, documented
 * in org.gnome.SessionRestore.Policy.xml) and clearing it (@app_ids empty
 * or NULL: everything; the a{sv} report of Clear). */
SR_AVAILABLE_IN_ALL
void             sr_policy_client_list_stored_state_async  (SrPolicyClient      *self,
                                                             SrCallFlags          flags,
                                                             GCancellable        *cancellable,
                                                             GAsyncReadyCallback  callback,
                                                             gpointer             user_data);
SR_AVAILABLE_IN_ALL
GVariant        *sr_policy_client_list_stored_state_finish (SrPolicyClient      *self,
                                                             GAsyncResult        *result,
                                                             GError             **error);
SR_AVAILABLE_IN_ALL
void             sr_policy_client_clear_async          (SrPolicyClient      *self,
                                                         const char * const  *app_ids,
                                                         SrCallFlags          flags,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
SR_AVAILABLE_IN_ALL
GVariant        *sr_policy_client_clear_finish         (SrPolicyClient      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);

/* Added beyond the first header: what the panel and session-restore-ctl
 * need. */
SR_AVAILABLE_IN_ALL
const char      *sr_policy_client_get_service_owner   (SrPolicyClient      *self);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_check_service       (SrPolicyClient      *self,
                                                        GError             **error);
SR_AVAILABLE_IN_ALL
const char      *sr_policy_client_get_distrust        (SrPolicyClient      *self);
SR_AVAILABLE_IN_ALL
guint            sr_policy_client_get_version         (SrPolicyClient      *self);
SR_AVAILABLE_IN_ALL
GVariant        *sr_policy_client_get_consumers       (SrPolicyClient      *self);
SR_AVAILABLE_IN_ALL
GVariant        *sr_policy_client_dup_value           (SrPolicyClient      *self,
                                                        const char          *property_name);

SR_AVAILABLE_IN_ALL
GVariant        *sr_policy_client_list_stored_state_sync (SrPolicyClient   *self,
                                                           SrCallFlags       flags,
                                                           GCancellable     *cancellable,
                                                           GError          **error);
SR_AVAILABLE_IN_ALL
GVariant        *sr_policy_client_clear_sync          (SrPolicyClient      *self,
                                                        const char * const  *app_ids,
                                                        SrCallFlags          flags,
                                                        GCancellable        *cancellable,
                                                        GError             **error);

/* For the time between logout and the next login: the settings applied
 * to the session manager's record (the a{sv} report of PrepareSession). */
SR_AVAILABLE_IN_ALL
void             sr_policy_client_prepare_session_async  (SrPolicyClient      *self,
                                                           GCancellable        *cancellable,
                                                           GAsyncReadyCallback  callback,
                                                           gpointer             user_data);
SR_AVAILABLE_IN_ALL
GVariant        *sr_policy_client_prepare_session_finish (SrPolicyClient      *self,
                                                           GAsyncResult        *result,
                                                           GError             **error);
SR_AVAILABLE_IN_ALL
GVariant        *sr_policy_client_prepare_session_sync   (SrPolicyClient      *self,
                                                           GCancellable        *cancellable,
                                                           GError             **error);

SR_AVAILABLE_IN_ALL
void             sr_policy_client_set_setting_async    (SrPolicyClient      *self,
                                                         const char          *key,
                                                         GVariant            *value,
                                                         SrCallFlags          flags,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_set_setting_finish   (SrPolicyClient      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_set_setting_sync     (SrPolicyClient      *self,
                                                         const char          *key,
                                                         GVariant            *value,
                                                         SrCallFlags          flags,
                                                         GCancellable        *cancellable,
                                                         GError             **error);
SR_AVAILABLE_IN_ALL
void             sr_policy_client_set_app_excluded_async  (SrPolicyClient      *self,
                                                            const char          *app_id,
                                                            gboolean             excluded,
                                                            SrCallFlags          flags,
                                                            GCancellable        *cancellable,
                                                            GAsyncReadyCallback  callback,
                                                            gpointer             user_data);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_set_app_excluded_finish (SrPolicyClient      *self,
                                                            GAsyncResult        *result,
                                                            GError             **error);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_set_app_excluded_sync   (SrPolicyClient      *self,
                                                            const char          *app_id,
                                                            gboolean             excluded,
                                                            SrCallFlags          flags,
                                                            GCancellable        *cancellable,
                                                            GError             **error);
SR_AVAILABLE_IN_ALL
void             sr_policy_client_reset_crash_guard_async  (SrPolicyClient      *self,
                                                             const char          *app_id,
                                                             SrCallFlags          flags,
                                                             GCancellable        *cancellable,
                                                             GAsyncReadyCallback  callback,
                                                             gpointer             user_data);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_reset_crash_guard_finish (SrPolicyClient      *self,
                                                             GAsyncResult        *result,
                                                             GError             **error);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_reset_crash_guard_sync   (SrPolicyClient      *self,
                                                             const char          *app_id,
                                                             SrCallFlags          flags,
                                                             GCancellable        *cancellable,
                                                             GError             **error);
SR_AVAILABLE_IN_ALL
void             sr_policy_client_reset_setting_async  (SrPolicyClient      *self,
                                                         const char          *key,
                                                         SrCallFlags          flags,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_reset_setting_finish (SrPolicyClient      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
SR_AVAILABLE_IN_ALL
gboolean         sr_policy_client_reset_setting_sync   (SrPolicyClient      *self,
                                                         const char          *key,
                                                         SrCallFlags          flags,
                                                         GCancellable        *cancellable,
                                                         GError             **error);

G_END_DECLS
