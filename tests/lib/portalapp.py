#!/usr/bin/python3
"""An app using the save/restore portal as GTK does, for
session-restore-portal's tests: it tells the stand-in frontend its app id
(host Registry), registers, deletes the state of every id it is told to
discard ($XDG_STATE_HOME/<app>@<id>.state) and confirms, saves its state
under its instance id, and saves again on a SaveHint for its own handle.

In a test: PortalApp(session, app_id) on a connection of its own; quit()
closes the session (voluntary), crash() drops the connection. Run as a
program (what the backend launches at login): argv[1] the app id, argv[2]
a file to append its registration to (one JSON line); it runs until
SIGTERM."""
import json
import os
import signal
import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

PORTAL = 'org.freedesktop.portal.Desktop'
PATH = '/org/freedesktop/portal/desktop'
IFACE = 'org.freedesktop.portal.SaveRestore'
GTK_TYPE = '(a{sv}a{sv}a(a{sv}a{sv}))'


def state_path(state_home, app_id, instance_id):
    return os.path.join(state_home, f'{app_id}@{instance_id}.state')


class PortalApp:
    def __init__(self, address, state_home, app_id, token='t', register=True):
        self.state_home = state_home
        self.app_id = app_id
        self.token = token
        self.conn = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.save_hints = 0
        self.handle = None
        self.registration = None
        self.conn.signal_subscribe(PORTAL, IFACE, 'SaveHint', PATH, None,
                                   Gio.DBusSignalFlags.NONE, self._on_save_hint)
        if app_id:
            self.call('org.freedesktop.host.portal.Registry', 'Register', '(sa{sv})', (app_id, {}))
        if register:
            self.register()

    def call(self, iface, method, signature=None, args=None, path=PATH, timeout=30000):
        params = GLib.Variant(signature, args) if signature else None
        reply = self.conn.call_sync(PORTAL, path, iface, method, params, None,
                                    Gio.DBusCallFlags.NONE, timeout, None)
        return reply.unpack() if reply is not None else None

    def register(self, obey=True):
        """obey=False: an app that does not delete what it is told to."""
        self.handle, self.registration = self.call(
            IFACE, 'Register', '(a{sv})', ({'session_handle_token': GLib.Variant('s', self.token)},))
        discard = self.registration.get('discard-instance-ids', []) if obey else []
        for instance_id in discard:
            try:
                os.unlink(state_path(self.state_home, self.app_id, instance_id))
            except FileNotFoundError:
                pass
        if discard:
            self.call(IFACE, 'DiscardedInstanceIds', '(oas)', (self.handle, discard))
        return self.registration

    @property
    def reason(self):
        return self.registration['restore-reason']

    @property
    def instance_id(self):
        return self.registration.get('instance-id')

    def save(self):
        """Writes this instance's GTK state (as GTK's autosave does)."""
        if not self.instance_id:
            return None
        path = state_path(self.state_home, self.app_id, self.instance_id)
        state = GLib.Variant(GTK_TYPE, ({'app-id': GLib.Variant('s', self.app_id)},
                                        {'instance-id': GLib.Variant('s', self.instance_id)}, []))
        os.makedirs(self.state_home, exist_ok=True)
        with open(path, 'wb') as f:
            f.write(state.get_data_as_bytes().get_data())
        return path

    def _on_save_hint(self, conn, sender, path, iface, name, params):
        # Broadcast to everyone: only our own handle counts.
        if params.unpack()[0] != self.handle:
            return
        self.save_hints += 1
        self.save()
        self.call(IFACE, 'SaveHintResponse', '(o)', (self.handle,))

    def quit(self):
        """A clean exit: the app closes its session, then leaves."""
        self.call('org.freedesktop.portal.Session', 'Close', path=self.handle)
        self.conn.close_sync(None)

    def crash(self):
        self.conn.close_sync(None)


if __name__ == '__main__':
    app = PortalApp(os.environ['DBUS_SESSION_BUS_ADDRESS'],
                    os.environ.get('XDG_STATE_HOME', os.path.expanduser('~/.local/state')),
                    sys.argv[1])
    app.save()
    with open(sys.argv[2], 'a') as f:
        f.write(json.dumps({'app': sys.argv[1], 'pid': os.getpid(),
                            'registration': app.registration}) + '\n')
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    loop.run()
