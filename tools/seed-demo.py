#!/usr/bin/python3
"""Sample saved sessions for tools/run's private world.

Run by tools/run, once, in the demo's world (its session bus and XDG
directories). The consumer simulator of the tests (tests/lib/simulator.py,
on PYTHONPATH) plays GTK, gnome-session and the compositor of sessions that
are past: their state is written in the real formats at the real paths,
with the ages below, as those components left it then. It asks the demo's
policyd nothing: the one that asks it in the demo is the portal backend
(tools/demo-apps.py has the sample apps register through it), so that the
panel's "Used by" names it and not this script's Python. It also writes a
.desktop file per app, naming an icon of adwaita-icon-theme, so that the
panel shows names and icons.
"""
import os
import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio  # noqa: E402

from simulator import Simulator  # noqa: E402
from srtest import ALLOW, USEC_PER_DAY, now_us  # noqa: E402

MINUTE = 60 * 1000000
HOUR = 60 * MINUTE
DAY = USEC_PER_DAY

# app id, name, icon, flatpak, [(instance, age, payload bytes)]. The apps
# open at logout are named in the session manager's file; the others only
# left their GTK state when they were closed.
OPEN_AT_LOGOUT = [
    ('org.gnome.TextEditor', 'Text Editor', 'accessories-text-editor', False,
     [('1', 10 * MINUTE, 18000), ('2', 2 * DAY, 6500), ('3', 45 * DAY, 3200)]),
    ('org.gnome.Nautilus', 'Files', 'system-file-manager', False,
     [('1', 1 * HOUR, 2400), ('2', 3 * DAY, 2100)]),
    ('org.gnome.Console', 'Console', 'utilities-terminal', False,
     [('1', 5 * MINUTE, 41000)]),
    ('org.mozilla.firefox', 'Firefox', 'web-browser', True,
     [('1', 20 * MINUTE, 250000), ('2', 20 * MINUTE, 120000)]),
]
CLOSED_BEFORE = [
    ('org.gnome.Calculator', 'Calculator', 'accessories-calculator', False,
     [('1', 6 * DAY, 900)]),
    ('org.gnome.Totem', 'Videos', 'multimedia-player', False,
     [('1', 12 * DAY, 15000)]),
]
LOGOUT_AGO = 5 * MINUTE
CRASHED = 'org.gnome.Console'


class DemoSession:
    """What the simulator needs of a test Session, for the demo's world."""

    def __init__(self):
        self.home = os.environ['HOME']
        self.state_home = os.environ['XDG_STATE_HOME']
        self.data_home = os.environ['XDG_DATA_HOME']
        self.bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)

    def check_save(self, app_id):
        # A past session's save, which its desktop made then.
        return ALLOW, 'allowed'


def age_text(usec):
    if usec < HOUR:
        return f'{usec // MINUTE} min'
    if usec < DAY:
        return f'{usec // HOUR} h'
    return f'{usec // DAY} days'


def main():
    session = DemoSession()
    settings = Gio.Settings.new('org.gnome.SessionRestore')
    retention = settings.get_int('max-age-days')
    applications = os.path.join(session.data_home, 'applications')
    os.makedirs(applications, exist_ok=True)
    now = now_us()

    print('Sample data (tools/seed-demo.py, the consumer simulator of the tests), as past sessions left it:')
    # Each simulator writes the session manager's file from what it holds:
    # the one of the apps open at logout writes last.
    for apps in (CLOSED_BEFORE, OPEN_AT_LOGOUT):
        sim = Simulator(session, listening=False)
        for app, name, icon, flatpak, windows in apps:
            with open(os.path.join(applications, f'{app}.desktop'), 'w') as f:
                f.write(f'[Desktop Entry]\nType=Application\nName={name}\nIcon={icon}\n'
                        'Exec=true\nComment=Sample app of the Session Restore demo\n')
            for instance, age, size in windows:
                why = sim.save(app, instance, flatpak=flatpak, payload=b'\0' * size, when=now - age)
                if why != 'allowed':
                    print(f'  {app}: not saved: policyd says {why!r}', file=sys.stderr)
            ages = ', '.join(age_text(age) for _, age, _ in windows)
            old = [age for _, age, _ in windows if 0 <= retention and age > retention * DAY]
            note = (f'; the oldest is past the {retention}-day retention: policyd does not restore '
                    'it, and purges it at its next start' if old else '')
            where = ', Flatpak' if flatpak else ''
            count = f'{len(windows)} GTK window' + ('s' if len(windows) > 1 else '')
            print(f'  {name} ({app}{where}): {count} saved {ages} ago{note}')
    logout = (now - LOGOUT_AGO) / 1e6
    os.utime(sim.session_path, (logout, logout))
    print(f'  {os.path.basename(sim.session_path)}: open at logout {age_text(LOGOUT_AGO)} ago: '
          f'{", ".join(app for app, *_ in OPEN_AT_LOGOUT)}')
    sim.write_compositor()
    os.utime(sim.compositor_path, (logout, logout))
    print('  mutter/session.gvdb: the compositor\'s window positions')


if __name__ == '__main__':
    main()
