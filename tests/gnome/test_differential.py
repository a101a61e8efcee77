#!/usr/bin/python3
"""Our backend's SessionManager door against the real gnome-session 51.

One scenario of GTK's calls (tests/lib/restoreclient.py apps: several
apps, two instances of one at once, kill -9, clean quits, cleanup ids
deleted and confirmed with DeletedInstanceIds, an unclean exit, a logout
with apps open and the next login's relaunch, an app with no desktop
file) is run on a fresh private session bus twice: once with the real
gnome-session-service answering (tests/lib/gnomesession.py), once with
session-restore-portal, started where no one owns org.gnome.SessionManager,
answering through that door (policyd running, every setting at its
default, which allows everything). Each step's observation is compared:
the reason, the error, and the shape of the ids: instance ids are named
per app in the order they first appear (Editor#1, Editor#2, ...), so that
"the same id again" and "the ids offered for cleanup" compare, and the
ids themselves need not.

The logout is, for gnome-session, Logout(1) (its record sealed) and the
session's end killing its apps, then a new gnome-session-service whose
Initialized() relaunches what was open; for the backend, its control
interface's EndSession, the apps killed, the backend stopped as its unit
is (SIGTERM), a new backend and its Login."""
import os
import signal
import subprocess
import unittest

from gnomesession import (LAUNCH, PRISTINE, RECOVER, RESTORE, SM_NAME, Apps, GnomeSession,
                          owner_pid, wait_until)
from portaltest import BACKEND, BACKEND_NAME, CONTROL
from srtest import SLOW, Session, GLib, Gio

REASONS = {PRISTINE: 'PRISTINE', LAUNCH: 'LAUNCH', RECOVER: 'RECOVER', RESTORE: 'RESTORE'}
EDITOR, TERMINAL, NOTES = 'org.example.Editor', 'org.example.Terminal', 'org.example.Notes'
UNINSTALLED = 'org.example.Uninstalled'
INVALID_ARGS = 'org.freedesktop.DBus.Error.InvalidArgs'


class GnomeSessionDriver:
    """gnome-session-service as the session manager of a fresh Session."""
    what = 'gnome-session 51'

    def __init__(self):
        self.s = Session(polkit=None)
        self.gs = GnomeSession(self.s)
        self.apps = Apps(self.s)

    def login(self):
        self.gs.start()

    def logout(self):
        self.gs.logout()
        self.apps.end_session()

    def close(self):
        try:
            self.apps.close()
            self.gs.stop()
        finally:
            self.s.close()


class BackendDriver:
    """session-restore-portal, with policyd, as the only owner of
    org.gnome.SessionManager on a fresh Session."""
    what = 'session-restore-portal'

    def __init__(self):
        self.s = Session()
        self.s.env['XDG_CURRENT_DESKTOP'] = 'sway'
        self.s.start_policyd()
        self.apps = Apps(self.s)
        self.backend = None
        self.log_path = os.path.join(self.s.root, 'backend.log')
        self.logins = 0

    def login(self):
        with open(self.log_path, 'a') as log:
            self.backend = subprocess.Popen([BACKEND], env=self.s.env, stdout=log,
                                            stderr=subprocess.STDOUT)
        self.s.wait_for_name(self.s.bus, BACKEND_NAME)
        wait_until(lambda: self.backend.poll() is not None or
                   owner_pid(self.s.bus, SM_NAME) == self.backend.pid,
                   f'session-restore-portal to own {SM_NAME}; its log:\n{self.log()}')
        if self.backend.poll() is not None:
            raise AssertionError(f'session-restore-portal exited:\n{self.log()}')
        if self.logins:
            self.control('Login')
        self.logins += 1

    def control(self, method):
        self.s.bus.call_sync(BACKEND_NAME, *CONTROL, method, None, None, Gio.DBusCallFlags.NONE,
                             60000 * SLOW, None)

    def logout(self):
        self.control('EndSession')
        self.apps.end_session()
        self.stop_backend()

    def stop_backend(self):
        if self.backend is not None and self.backend.poll() is None:
            self.backend.send_signal(signal.SIGTERM)
            self.backend.wait(30 * SLOW)
        wait_until(lambda: owner_pid(self.s.bus, SM_NAME) is None, f'{SM_NAME} released')

    def log(self):
        with open(self.log_path, errors='replace') as f:
            return f.read()

    def close(self):
        try:
            self.apps.close()
            if self.backend is not None and self.backend.poll() is None:
                self.backend.kill()
                self.backend.wait(30)
        finally:
            self.s.close()


class Observer:
    """Names each app's instance ids in the order they first appear."""

    def __init__(self):
        self.labels = {}
        self.steps = []

    def label(self, app_id, instance_id):
        if not instance_id:
            return instance_id
        per_app = self.labels.setdefault(app_id, {})
        if instance_id not in per_app:
            per_app[instance_id] = f'{app_id.rpartition(".")[2]}#{len(per_app) + 1}'
        return per_app[instance_id]

    def seen(self, app):
        return (app.app_id.rpartition('.')[2], REASONS.get(app.reason, app.reason),
                self.label(app.app_id, app.instance_id),
                tuple(self.label(app.app_id, i) for i in app.cleanup_ids),
                tuple(self.label(app.app_id, i) for i in app.deleted), app.error)

    def step(self, what, observation):
        self.steps.append((what, observation))


def run_scenario(driver):
    """The scenario, against @driver; [(step, observation)]."""
    apps, o = driver.apps, Observer()
    for app_id in (EDITOR, TERMINAL, NOTES):
        apps.install(app_id)

    def start(what, app_id):
        app = apps.start(app_id)
        o.step(what, o.seen(app))
        return app

    driver.login()
    editor1 = start('Editor starts', EDITOR)
    editor2 = start('a second Editor starts beside it', EDITOR)
    terminal = start('Terminal starts', TERMINAL)
    notes = start('Notes starts', NOTES)
    terminal.crash()
    terminal = start('Terminal, killed with SIGKILL, starts again', TERMINAL)
    o.step('the first Editor quits', editor1.quit())
    o.step('the second Editor quits', editor2.quit())
    editor = start('Editor starts after both quit', EDITOR)
    o.step('Notes quits', notes.quit())
    notes = start('Notes starts after its quit', NOTES)
    notes.exit_uncleanly()
    editor_too = start('a second Editor starts beside it', EDITOR)
    uninstalled = start('an app without a desktop file starts', UNINSTALLED)
    uninstalled.crash()
    driver.logout()
    driver.login()
    relaunched = apps.relaunched()
    o.step('the login relaunches the apps open at the logout (Notes had exited uncleanly)',
           sorted(o.seen(a) for a in relaunched))
    start('Notes starts after the login', NOTES)
    by_app = {}
    for app in relaunched:
        by_app.setdefault(app.app_id, []).append(app)
    for n, app in enumerate(sorted(by_app[EDITOR], key=lambda a: o.label(a.app_id, a.instance_id))):
        o.step(f'the relaunched Editor with the {("older", "newer")[n]} id quits', app.quit())
    start('Editor starts after the relaunched ones quit', EDITOR)
    # Nothing is left over after a run: every app gone before the next.
    assert editor is not None and editor_too is not None and terminal is not None
    return o.steps


# What gnome-session 51 answers in the scenario: the reference the backend
# is held to, itself checked here.
GNOME_SESSION_51 = [
    ('Editor starts', ('Editor', 'LAUNCH', 'Editor#1', (), (), None)),
    ('a second Editor starts beside it', ('Editor', 'LAUNCH', 'Editor#2', (), (), None)),
    ('Terminal starts', ('Terminal', 'LAUNCH', 'Terminal#1', (), (), None)),
    ('Notes starts', ('Notes', 'LAUNCH', 'Notes#1', (), (), None)),
    ('Terminal, killed with SIGKILL, starts again', ('Terminal', 'RECOVER', 'Terminal#1', (), (), None)),
    ('the first Editor quits', None),
    ('the second Editor quits', None),
    ('Editor starts after both quit', ('Editor', 'LAUNCH', 'Editor#2', ('Editor#1',), ('Editor#1',), None)),
    ('Notes quits', None),
    ('Notes starts after its quit', ('Notes', 'LAUNCH', 'Notes#1', (), (), None)),
    ('a second Editor starts beside it', ('Editor', 'LAUNCH', 'Editor#3', (), (), None)),
    ('an app without a desktop file starts', ('Uninstalled', 'PRISTINE', None, (), (), INVALID_ARGS)),
    ('the login relaunches the apps open at the logout (Notes had exited uncleanly)',
     [('Editor', 'RESTORE', 'Editor#2', (), (), None), ('Editor', 'RESTORE', 'Editor#3', (), (), None),
      ('Terminal', 'RESTORE', 'Terminal#1', (), (), None)]),
    ('Notes starts after the login', ('Notes', 'RECOVER', 'Notes#1', (), (), None)),
    ('the relaunched Editor with the older id quits', None),
    ('the relaunched Editor with the newer id quits', None),
    ('Editor starts after the relaunched ones quit',
     ('Editor', 'LAUNCH', 'Editor#3', ('Editor#2',), ('Editor#2',), None)),
]

_reference = []


def gnome_session_steps():
    """The scenario against gnome-session, run once for the file."""
    if not _reference:
        driver = GnomeSessionDriver()
        try:
            _reference.append(run_scenario(driver))
        except BaseException:
            print(driver.gs.log()[-4000:])
            raise
        finally:
            driver.close()
    return _reference[0]


# Where the backend departs from gnome-session 51 on purpose, and so
# what is compared: every step's app, reason and error, and for RECOVER
# and RESTORE whether the instance id is one the app had before. Not
# compared: (1) the ids of LAUNCH and the ids offered for cleanup: when two
# instances of an app quit cleanly, gnome-session keeps the last one's id
# for the next launch and has the app delete the earlier one's state; the
# backend keeps that state too, for a second launch beside the first (two
# windows closed, two reopened), until its bound on instances; (2) an app
# with no desktop file: gnome-session refuses it (InvalidArgs), the backend
# registers it (LAUNCH): it cannot be reopened at login, but recovers after
# a crash and keeps its light state.
NO_DESKTOP_FILE = 'an app without a desktop file starts'


def compared(steps):
    seen = set()
    out = []

    def one(observation):
        app, reason, label, _cleanup, _deleted, error = observation
        earlier = label in seen
        if label:
            seen.add(label)
        if reason in ('RECOVER', 'RESTORE'):
            return (app, reason, 'an earlier id' if earlier else 'a new id', error)
        return (app, reason, error)

    for what, observation in steps:
        if what == NO_DESKTOP_FILE:
            continue
        if isinstance(observation, list):
            out.append((what, sorted(one(o) for o in observation)))
        elif observation is None:
            out.append((what, None))
        else:
            out.append((what, one(observation)))
    return out


def differences(expected, got):
    lines = []
    for i in range(max(len(expected), len(got))):
        e = expected[i] if i < len(expected) else ('(no step)', None)
        g = got[i] if i < len(got) else ('(no step)', None)
        if e != g:
            lines.append(f'step {i + 1}, {e[0]}:\n  gnome-session 51: {e[1]}\n  ours:             {g[1]}')
    return '\n'.join(lines)


class DifferentialTest(unittest.TestCase):
    def test_gnome_session_answers_as_recorded(self):
        self.assertEqual(gnome_session_steps(), GNOME_SESSION_51)

    def test_our_session_manager_door_answers_as_gnome_session(self):
        reference = gnome_session_steps()
        driver = BackendDriver()
        self.addCleanup(driver.close)
        try:
            got = run_scenario(driver)
        except (AssertionError, GLib.Error) as e:
            raise AssertionError(f'{e}\nthe backend\'s log:\n{driver.log()[-6000:]}') from e
        mismatches = differences(compared(reference), compared(got))
        no_desktop_file = dict(got)[NO_DESKTOP_FILE]
        self.assertEqual(no_desktop_file[1], 'LAUNCH', no_desktop_file)
        if mismatches:
            self.fail(f'our backend answered otherwise than gnome-session 51:\n{mismatches}\n'
                      f'the backend\'s log:\n{driver.log()[-4000:]}')


if __name__ == '__main__':
    unittest.main()
