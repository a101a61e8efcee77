#!/usr/bin/python3
"""The sample apps of tools/run start, through the save/restore portal.

Run by tools/run at every start (but --fresh), in the demo's world, once
session-restore-portal and the stand-in of xdg-desktop-portal's frontend
(tests/lib/portalfrontend.py) are up. Each sample app registers as GTK
would (tests/lib/portalapp.py) and quits; the backend asks policyd about
each, so the panel says it is "Used by Session Restore portal". Console
crashes three times instead: the backend reports the exits, and the
crash-loop guard holds its state back.
"""
import os

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio  # noqa: E402

from portalapp import PortalApp  # noqa: E402

APPS = ['org.gnome.TextEditor', 'org.gnome.Nautilus', 'org.mozilla.firefox',
        'org.gnome.Calculator', 'org.gnome.Totem']
CRASHED = 'org.gnome.Console'
REASONS = {0: 'pristine', 1: 'launch', 2: 'recover', 3: 'restore'}


def main():
    address = os.environ['DBUS_SESSION_BUS_ADDRESS']
    state_home = os.environ['XDG_STATE_HOME']
    reasons = []
    for app_id in APPS:
        app = PortalApp(address, state_home, app_id, token='demo')
        reasons.append(f'{app_id} {REASONS.get(app.reason, app.reason)}')
        app.quit()
    for _ in range(3):
        app = PortalApp(address, state_home, CRASHED, token='demo')
        app.crash()
    # The frontend has passed the last crash on (a round trip through it),
    # and the backend has handled it (Sync).
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    bus.call_sync('org.freedesktop.portal.Desktop', '/org/freedesktop/portal/desktop',
                  'org.freedesktop.DBus.Peer', 'Ping', None, None, Gio.DBusCallFlags.NONE, 30000, None)
    bus.call_sync('org.freedesktop.impl.portal.SessionRestore', '/org/gnome/SessionRestore/Portal',
                  'org.gnome.SessionRestore.Portal', 'Sync', None, None,
                  Gio.DBusCallFlags.NONE, 30000, None)
    settings = Gio.Settings.new('org.gnome.SessionRestore')
    print(f'The sample apps registered through session-restore-portal: {", ".join(reasons)}')
    print(f'  {CRASHED} crashed 3 times: the crash-loop guard holds its state back after a crash '
          f'(for the next {settings.get_uint("crash-loop-window")} s: crash-loop-window)')


if __name__ == '__main__':
    main()
