#!/usr/bin/python3
"""An app using org.gnome.SessionManager's save/restore calls as GTK 4.24
does, whoever owns that name on the bus it is given: gnome-session 51, or
session-restore-portal's SessionManager door.

At start-up, on a bus connection of its own, it calls
RegisterRestore(app_id, '') (the sender counts) and waits for the answer;
deletes $XDG_STATE_HOME/<app-id>@<id>.state for each cleanup id and
reports with DeletedInstanceIds the ids whose file it really deleted (a
file already gone is not reported, and nothing is sent when none was);
writes its own <app-id>@<instance-id>.state (GTK's format, temporary file
and rename). With no owner of the name it runs as GTK does, as instance
"fallback", reason PRISTINE; an error from RegisterRestore is logged and
the app runs on without an id.

It appends one JSON line per event to a log file:
  {"event": "registered", "app", "pid", "name" (its unique name),
   "reason", "instance_id", "cleanup_ids", "deleted", "error"}
  {"event": "quit", "app", "pid", "instance_id", "error"}
then runs until a signal:
  SIGTERM  clean quit: UnregisterRestore(app_id, instance_id), then exit 0;
  SIGUSR1  an unclean exit: exit 1 at once, nothing said to anyone;
  SIGKILL  (from the test) a crash.

Usage: restoreclient.py APP_ID LOG [BUS_ADDRESS]; without BUS_ADDRESS,
DBUS_SESSION_BUS_ADDRESS (what a session manager's relaunch gives it).
A desktop file's Exec runs it so, which makes relaunches at login seen in
the log.
"""
import json
import os
import signal
import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

SM_NAME = 'org.gnome.SessionManager'
SM_PATH = '/org/gnome/SessionManager'
SM_IFACE = 'org.gnome.SessionManager'
GTK_STATE_TYPE = '(a{sv}a{sv}a(a{sv}a{sv}))'
PRISTINE = 0
FALLBACK_ID = 'fallback'


def state_home():
    return os.environ.get('XDG_STATE_HOME') or os.path.join(os.path.expanduser('~'), '.local', 'state')


def state_path(app_id, instance_id, home=None):
    """GTK 4.24's state file of an instance."""
    return os.path.join(home or state_home(), f'{app_id}@{instance_id}.state')


def write_state(path, app_id, instance_id):
    """A GTK state file: (a{sv}a{sv}a(a{sv}a{sv})), raw, temp + rename."""
    value = GLib.Variant(GTK_STATE_TYPE, ({'app-id': GLib.Variant('s', app_id)},
                                          {'instance-id': GLib.Variant('s', instance_id)},
                                          [({'id': GLib.Variant('s', 'main')}, {})]))
    tmp = f'{path}.{os.getpid()}.tmp'
    with open(tmp, 'wb') as f:
        f.write(value.get_data_as_bytes().get_data())
    os.rename(tmp, path)


def remote_error(error):
    return Gio.DBusError.get_remote_error(error) or error.message


class Client:
    def __init__(self, app_id, log, address):
        self.app_id = app_id
        self.log_path = log
        self.conn = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        self.instance_id = None

    def call(self, method, signature, *args):
        reply = self.conn.call_sync(SM_NAME, SM_PATH, SM_IFACE, method,
                                    GLib.Variant(f'({signature})', args), None,
                                    Gio.DBusCallFlags.NO_AUTO_START, 30000, None)
        return reply.unpack()

    def log(self, event, **fields):
        line = json.dumps({'event': event, 'app': self.app_id, 'pid': os.getpid(), **fields})
        fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + '\n').encode())
        finally:
            os.close(fd)

    def register(self):
        reason, cleanup, deleted, error = PRISTINE, [], [], None
        try:
            reason, self.instance_id, cleanup = self.call('RegisterRestore', 'ss', self.app_id, '')
        except GLib.Error as e:
            error = remote_error(e)
            if error == 'org.freedesktop.DBus.Error.ServiceUnknown':
                self.instance_id = FALLBACK_ID        # no session manager: as GTK
        for instance_id in cleanup:
            try:
                os.unlink(state_path(self.app_id, instance_id))
                deleted.append(instance_id)
            except FileNotFoundError:
                pass
        if deleted:
            self.call('DeletedInstanceIds', 'sas', self.app_id, deleted)
        if self.instance_id:
            write_state(state_path(self.app_id, self.instance_id), self.app_id, self.instance_id)
        self.log('registered', name=self.conn.get_unique_name(), reason=reason,
                 instance_id=self.instance_id, cleanup_ids=list(cleanup), deleted=deleted,
                 error=error)

    def quit(self):
        error = None
        if self.instance_id and self.instance_id != FALLBACK_ID:
            try:
                self.call('UnregisterRestore', 'ss', self.app_id, self.instance_id)
            except GLib.Error as e:
                error = remote_error(e)
        self.log('quit', instance_id=self.instance_id, error=error)
        self.conn.flush_sync(None)
        sys.exit(0)


def on_signal(signum, handler):
    """@handler on @signum, from the main loop (GLibUnix where PyGObject
    has it: GLib.unix_signal_add is deprecated there)."""
    try:
        gi.require_version('GLibUnix', '2.0')
        from gi.repository import GLibUnix
        GLibUnix.signal_add(GLib.PRIORITY_HIGH, signum, handler)
    except (ImportError, ValueError):
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, signum, handler)


def main():
    app_id, log = sys.argv[1], sys.argv[2]
    address = sys.argv[3] if len(sys.argv) > 3 else os.environ['DBUS_SESSION_BUS_ADDRESS']
    client = Client(app_id, log, address)
    loop = GLib.MainLoop()
    on_signal(signal.SIGTERM, client.quit)
    on_signal(signal.SIGUSR1, lambda: os._exit(1))
    client.register()
    loop.run()


if __name__ == '__main__':
    main()
