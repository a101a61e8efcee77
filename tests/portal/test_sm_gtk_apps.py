"""Real GTK 3 and GTK 4 apps that do not save, on a test session (its
own bus, real dconf, real policyd) under Xvfb: once with no one owning
org.gnome.SessionManager, and once with session-restore-portal started
and owning it. With the backend, the apps, and the accessibility bus
services the first of them starts, must warn no more than without it.

What each does with the name (GTK 3.24.52 and GTK 4.24.1, as shipped):
GTK 3 makes a proxy for it at start-up when it has an owner, and then
sends it gtk_application_inhibit() (Inhibit), gtk_application_is_inhibited()
(IsInhibited) and gtk_application_uninhibit() (Uninhibit), and with
GtkApplication:register-session, RegisterClient; without an owner those
go to the Inhibit portal, or nowhere, silently. GTK 4.24 calls only
RegisterRestore, UnregisterRestore and DeletedInstanceIds, and only with
save and restore switched on, which nothing in 4.24 can do: its apps
make no call to the name at all. (TestGtk4Restore switches it on in
GTK's private data, lib/gtk4restore.py, for what works of it in 4.24:
registering, and cleaning up the ids it is given.) at-spi-bus-launcher calls RegisterClient
and at-spi2-registryd reads the properties and calls IsSessionRunning,
where the name has an owner.

The apps: gtk3-widget-factory; lib/gtk3app.py (GTK 3's library through
ctypes: no shipped GTK 3 example inhibits or registers) holding an
inhibitor for logout, suspend and idle, and another registered with the
session; gtk4-widget-factory; gtk4-demo-application (register-session
set); gnome-text-editor. All run side by side, and each quits through
its app action "quit" (org.gtk.Actions), as a clean quit does.
"""
import os
import re
import subprocess
import time

from portaltest import BACKEND_NAME, CTL, PortalTestCase
from srtest import PYTHON, SOURCE_DIR, GLib, Gio, Session

SM = 'org.gnome.SessionManager'
GTK3APP = os.path.join(SOURCE_DIR, 'tests', 'lib', 'gtk3app.py')

# (what it is, its application id, its command)
APPS = [
    ('gtk3-widget-factory', 'org.gtk.WidgetFactory', ['gtk3-widget-factory']),
    # Inhibits logout, suspend and idle (1 | 4 | 8), asks whether they
    # are inhibited, and lets go.
    ('a GTK 3 app that inhibits', 'org.example.Gtk3Inhibits',
     [PYTHON, GTK3APP, 'org.example.Gtk3Inhibits', '--inhibit', '13']),
    ('a GTK 3 app registered with the session', 'org.example.Gtk3Registers',
     [PYTHON, GTK3APP, 'org.example.Gtk3Registers', '--register-session']),
    ('gtk4-widget-factory', 'org.gtk.WidgetFactory4', ['gtk4-widget-factory']),
    ('gtk4-demo-application', 'org.gtk.Demo4.App', ['gtk4-demo-application']),
    ('gnome-text-editor', 'org.gnome.TextEditor', ['gnome-text-editor', '--standalone']),
]
A11Y = 'the accessibility bus (at-spi-bus-launcher, at-spi2-registryd)'

# A GLib warning or critical: "(prog:123): Gtk-WARNING **: 12:00:00.000: …"
# or, without a log domain, "** (prog:123): WARNING **: …".
WARNING = re.compile(r'(WARNING|CRITICAL) \*\*')


def object_path(app_id):
    return '/' + app_id.replace('.', '/').replace('-', '_')


class TestGtkApps(PortalTestCase):
    def setUp(self):
        # The worlds are the test's own: one without the backend, then one
        # with it, each as PortalTestCase makes it.
        pass

    def world(self, backend):
        self.s = Session()
        self.addCleanup(self.s.close)
        self.s.env['XDG_CURRENT_DESKTOP'] = 'sway'
        self.s.start_policyd()
        self.a11y_log = self.log_a11y_services()
        self.calls = self.monitor_door()
        if backend:
            self.start_backend()
        return self.s

    def log_a11y_services(self):
        """The accessibility bus, which the apps have the session bus
        start, as installed but with its output (and its registry's) in
        a file, not the bus's: its own service file, ahead of the
        system's."""
        log = os.path.join(self.s.root, 'a11y.log')
        launcher = os.path.join(self.s.root, 'a11y-bus-launcher')
        with open(launcher, 'w') as f:
            f.write(f'#!/bin/sh\nexec /usr/libexec/at-spi-bus-launcher "$@" 2>>{log}\n')
        os.chmod(launcher, 0o755)
        self.s.activatable(launcher, 'org.a11y.Bus')
        return log

    def monitor_door(self):
        """Every call to org.gnome.SessionManager's objects, the clients' as
        well, as (sender, member) once stop_monitor() has read them:
        dbus-monitor's. (GTK 3 calls its proxy's name owner, by its
        unique name.)"""
        log = os.path.join(self.s.root, 'door-calls.log')
        out = open(log, 'w')
        self.addCleanup(out.close)
        self.monitor = subprocess.Popen(
            ['dbus-monitor', '--address', self.s.session_bus.address,
             "type='method_call',path_namespace='/org/gnome/SessionManager'"],
            stdout=out, stderr=subprocess.STDOUT)
        self.addCleanup(self.stop, self.monitor)
        # Monitoring once its name is gone (NameLost) from its log.
        deadline = time.monotonic() + 10
        while 'NameLost' not in open(log).read():
            self.assertLess(time.monotonic(), deadline, 'dbus-monitor did not start')
            time.sleep(0.02)
        return log

    def door_calls(self):
        self.stop(self.monitor)
        with open(self.calls) as f:
            return re.findall(r'^method call .* sender=(\S+) -> .* member=(\S+)$', f.read(), re.M)

    def owner(self, name):
        try:
            return self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                        'org.freedesktop.DBus', 'GetNameOwner',
                                        GLib.Variant('(s)', (name,)), None,
                                        Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        except GLib.Error:
            return None

    def connections_of(self, pid):
        """The unique names of process @pid's connections."""
        bus = 'org.freedesktop.DBus'
        names = self.s.bus.call_sync(bus, '/org/freedesktop/DBus', bus, 'ListNames', None, None,
                                     Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        found = []
        for name in names:
            if not name.startswith(':'):
                continue
            try:
                if self.s.bus.call_sync(bus, '/org/freedesktop/DBus', bus, 'GetConnectionUnixProcessID',
                                        GLib.Variant('(s)', (name,)), None, Gio.DBusCallFlags.NONE,
                                        5000, None).unpack()[0] == pid:
                    found.append(name)
            except GLib.Error:
                pass   # gone meanwhile
        return found

    def actions_of(self, process, app_id, timeout=30):
        """The unique name of the connection on which @process's
        GtkApplication serves its actions, once it does: its main loop
        runs, start-up and activation are done. Some of these apps do
        not own their id's name (G_APPLICATION_NON_UNIQUE)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.assertIsNone(process.poll(), f'{app_id} exited before it was ready')
            for name in self.connections_of(process.pid):
                try:
                    self.s.bus.call_sync(name, object_path(app_id), 'org.gtk.Actions', 'List', None,
                                         None, Gio.DBusCallFlags.NO_AUTO_START, 1000, None)
                    return name
                except GLib.Error:
                    pass   # not that one (at-spi's), or not yet
            time.sleep(0.1)
        raise AssertionError(f'{app_id} did not serve its actions within {timeout} s')

    def run_apps(self, label):
        """Starts every app, waits until each is up, quits each through its
        "quit" action, and returns {what: set of warnings}, the
        accessibility services' among them, and {what: its connections}."""
        env = dict(self.s.env, GSK_RENDERER='cairo')
        # A critical is to be seen and compared, not to abort the app.
        env.pop('G_DEBUG', None)
        running = []
        for what, app_id, command in APPS:
            out = open(os.path.join(self.s.root, f'{label}-{app_id}.log'), 'w')
            self.addCleanup(out.close)
            process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT,
                                       cwd=self.s.home)
            self.addCleanup(self.stop, process)
            running.append((what, app_id, process, out.name))
        connections = {}
        for what, app_id, process, _ in running:
            connections[what] = (self.actions_of(process, app_id), self.connections_of(process.pid))
        # What the apps and the accessibility services do from idle
        # callbacks after start-up.
        time.sleep(1)
        for what, app_id, process, _ in running:
            self.s.bus.call_sync(connections[what][0], object_path(app_id), 'org.gtk.Actions',
                                 'Activate', GLib.Variant('(sava{sv})', ('quit', [], {})), None,
                                 Gio.DBusCallFlags.NO_AUTO_START, 10000, None)
        warnings = {}
        for what, app_id, process, log in running:
            try:
                status = process.wait(20)
            except subprocess.TimeoutExpired:
                status = 'still running'
            with open(log) as f:
                text = f.read()
            self.assertEqual(status, 0, f'{what} did not quit cleanly; it said:\n{text}')
            warnings[what] = self.warnings(text)
            if app_id == 'org.example.Gtk3Inhibits':
                self.assertRegex(text, r'inhibit: \d+ inhibited: [01]')
        with open(self.a11y_log) if os.path.exists(self.a11y_log) else open(os.devnull) as f:
            warnings[A11Y] = self.warnings(f.read())
        return warnings, {what: names for what, (_, names) in connections.items()}

    def warnings(self, text):
        """The warnings and criticals in @text, without what differs from
        one run to the next: process ids, times, the world's directory,
        unique names, addresses."""
        found = set()
        for line in text.splitlines():
            if not WARNING.search(line):
                continue
            line = line.replace(self.s.root, 'WORLD')
            line = re.sub(r'\((\S+?):\d+\)', r'(\1)', line)
            line = re.sub(r'\b\d\d:\d\d:\d\d\.\d+\b', 'TIME', line)
            line = re.sub(r':\d+\.\d+\b', ':N.N', line)
            line = re.sub(r'0x[0-9a-f]+', '0xADDR', line)
            found.add(line.strip())
        return found

    def test_the_backend_adds_no_warning(self):
        self.world(backend=False)
        self.assertIsNone(self.owner(SM))
        without, connections = self.run_apps('without')
        # No app asked anything of a name without an owner (at-spi2-registryd
        # does: IsSessionRunning).
        apps = {name for names in connections.values() for name in names}
        self.assertEqual([call for call in self.door_calls() if call[0] in apps], [])

        self.world(backend=True)
        self.assertIsNotNone(self.owner(SM))
        self.assertEqual(self.owner(SM), self.owner(BACKEND_NAME),
                         'session-restore-portal does not own org.gnome.SessionManager')
        with_backend, connections = self.run_apps('with')

        # The apps did ask the backend what they ask a session manager:
        # the test covers the door.
        calls = self.door_calls()
        asked = {what: {member for sender, member in calls if sender in names}
                 for what, names in connections.items()}
        self.assertLessEqual({'Inhibit', 'IsInhibited'}, asked['a GTK 3 app that inhibits'])
        self.assertIn('RegisterClient', asked['a GTK 3 app registered with the session'])
        for what in ('gtk4-widget-factory', 'gtk4-demo-application', 'gnome-text-editor'):
            self.assertEqual(asked[what], set(), f'GTK 4.24 asked {asked[what]} of {what}')

        added = {what: sorted(with_backend[what] - without.get(what, set()))
                 for what in with_backend}
        added = {what: lines for what, lines in added.items() if lines}
        if added:
            self.fail('warnings only with session-restore-portal owning org.gnome.SessionManager:\n' +
                      '\n'.join(f'{what}:\n  ' + '\n  '.join(lines) for what, lines in added.items()))


class TestGtk4Restore(PortalTestCase):
    """GTK 4.24's own save and restore client (lib/gtk4restore.py: its
    dormant machinery switched on) registering with the backend. Only its
    registration works in 4.24: saving (at a quit) and restoring a state
    file abort in GTK, so each run ends killed, a crash to the backend,
    and none finds a file of its own id."""
    APP = 'org.example.Gtk4Restore'

    def setUp(self):
        super().setUp()
        self.s.wait_for_name(self.s.bus, SM)
        self.runs = 0

    def start(self):
        """Starts the app; returns GTK's (reason, instance id, log) once it
        runs."""
        self.runs += 1
        log = os.path.join(self.s.root, f'gtk4restore-{self.runs}.log')
        env = dict(self.s.env, GSK_RENDERER='cairo', GTK_DEBUG='session-mgmt')
        env.pop('G_DEBUG', None)
        with open(log, 'w') as out:
            self.process = subprocess.Popen(
                [PYTHON, os.path.join(SOURCE_DIR, 'tests', 'lib', 'gtk4restore.py'), self.APP],
                env=env, stdout=out, stderr=subprocess.STDOUT, cwd=self.s.home)
        self.addCleanup(self.stop, self.process)
        deadline = time.monotonic() + 30
        while 'ready' not in open(log).read().split():
            self.assertIsNone(self.process.poll(), open(log).read())
            self.assertLess(time.monotonic(), deadline, open(log).read())
            time.sleep(0.05)
        text = open(log).read()
        registered = re.search(r'^Registered restore, reason (\w+) instance-id (\S+)$', text, re.M)
        self.assertIsNotNone(registered, f'GTK did not register with the backend:\n{text}')
        return registered.group(1), registered.group(2), text

    def crash(self):
        self.process.kill()
        self.process.wait(10)
        self.sync_backend()

    def state_file(self, instance_id):
        return os.path.join(self.s.state_home, f'{self.APP}@{instance_id}.state')

    def test_gtk_registers_recovers_and_cleans_up(self):
        reason, first, text = self.start()
        self.assertEqual(reason, 'launch')
        self.assertRegex(first, r'^[0-9a-f]{12}$')
        self.assertNotIn('fallback', text)
        # 4.24 cannot save (see above), nor restore a file: it would abort
        # in restore_file_state().
        self.crash()

        reason, instance_id, text = self.start()
        self.assertEqual((reason, instance_id), ('recover', first))
        self.assertIn('No saved state, not restoring', text)
        self.assertNotIn('Cleaning up', text)
        self.crash()

        subprocess.run([CTL, 'exclude', self.APP], env=self.s.env, check=True,
                       stdout=subprocess.DEVNULL)
        # Saved again by an instance running on after the clear.
        with open(self.state_file(first), 'wb') as f:
            f.write(b'state')
        reason, instance_id, text = self.start()
        self.assertEqual(reason, 'pristine')
        self.assertNotEqual(instance_id, first)
        # GTK deleted it and said so (DeletedInstanceIds), without a warning.
        self.assertIn(f'Cleaning up instance id: {first}', text)
        self.assertFalse(os.path.exists(self.state_file(first)))
        self.assertFalse(WARNING.search(text), text)
        self.crash()

        # The opted-out instance saved nothing before it crashed: there is
        # nothing of it to clean up, and GTK warns about any id it is asked
        # to clean up whose file is not there ("Failed to remove discarded
        # state file"), which the backend can see.
        reason, instance_id, text = self.start()
        self.assertEqual(reason, 'pristine')
        self.assertNotIn(f'Cleaning up instance id: {first}', text)
        self.assertFalse(WARNING.search(text), f'GTK warned with the backend:\n{text}')
        self.crash()
