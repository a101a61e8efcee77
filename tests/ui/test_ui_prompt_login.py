"""A logout and the next login in "Ask every time", end to end with the
real components: policyd, session-restore-portal behind the stand-in
frontend (tests/lib/portalfrontend.py), apps that register as GTK does
(tests/lib/portalapp.py), and the panel's login prompt, D-Bus-activated by
policyd and answered here through AT-SPI.

In the session that ends, Text Editor, Files and Mail are open, Mail is
opted out, and Terminal crashed earlier: the one prompt of the next login
asks about Text Editor and Files only, and the backend relaunches what
the user kept (reason RESTORE when it registers), nothing else.

Each case is a logout and a login of its own: a policyd per session, as
an answer holds for a policyd's life."""
import json
import os
import signal
import subprocess

import promptcase as base

from portalapp import PortalApp
from uitest import Atspi
from srtest import BUILD_DIR, LAUNCH, PYTHON, RESTORE, SOURCE_DIR, GLib, Gio

BACKEND = os.path.join(BUILD_DIR, 'portal', 'session-restore-portal')
BACKEND_NAME = 'org.freedesktop.impl.portal.SessionRestore'
PORTAL_NAME = 'org.freedesktop.portal.Desktop'
CONTROL = ('/org/gnome/SessionRestore/Portal', 'org.gnome.SessionRestore.Portal')
CTL = os.path.join(BUILD_DIR, 'ctl', 'session-restore-ctl')
FRONTEND = os.path.join(SOURCE_DIR, 'tests', 'lib', 'portalfrontend.py')
APP = os.path.join(SOURCE_DIR, 'tests', 'lib', 'portalapp.py')

# Open at the session's end, and asked about at the next login.
OPEN = {'org.example.TextEditor': 'Text Editor', 'org.example.Files': 'Files'}
OPTED_OUT = 'org.example.Mail'
CRASHED = 'org.example.Terminal'
NAMES = {**OPEN, OPTED_OUT: 'Mail', CRASHED: 'Terminal'}


class LoginPromptTest(base.PromptCase):
    @classmethod
    def prepare(cls):
        # What the backend relaunches at login: the app simulator, which
        # logs its registration.
        cls.launch_log = os.path.join(cls.s.root, 'launched.log')
        applications = os.path.join(cls.s.data_home, 'applications')
        for app_id, name in NAMES.items():
            with open(os.path.join(applications, f'{app_id}.desktop'), 'w') as f:
                f.write(f'[Desktop Entry]\nType=Application\nName={name}\n'
                        f'Icon=application-x-executable\n'
                        f'Exec={PYTHON} {APP} {app_id} {cls.launch_log}\n')
        cls.s.env['XDG_CURRENT_DESKTOP'] = 'sway'
        # One frontend for every case, started before anything else: with
        # the name free, the prompt (a GTK app asking the portal for its
        # settings) would activate the real xdg-desktop-portal in its place.
        cls.frontend = subprocess.Popen([PYTHON, FRONTEND, BACKEND_NAME], env=cls.s.env)
        cls.s.wait_for_name(cls.s.bus, PORTAL_NAME)
        owner = cls.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                    'org.freedesktop.DBus', 'GetConnectionUnixProcessID',
                                    GLib.Variant('(s)', (PORTAL_NAME,)), None,
                                    Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        if owner != cls.frontend.pid:
            raise AssertionError(f'{PORTAL_NAME} is not the stand-in frontend\'s')

    @classmethod
    def tearDownClass(cls):
        cls.frontend.terminate()
        cls.frontend.wait(30)
        super().tearDownClass()

    def setUp(self):
        # A first session: nothing recorded, nothing opted out.
        for name in os.listdir(self.s.state_home):
            if name.startswith('org.example.') or name.startswith('session-restore-portal@'):
                os.unlink(os.path.join(self.s.state_home, name))
        open(self.launch_log, 'w').close()
        self.s.gsettings('reset', 'excluded-apps')
        self.s.gsettings('set', 'login-restore', 'always')
        self.addCleanup(self.s.stop_policyd)
        self.s.start_policyd()

    def stop(self, process):
        if process.poll() is None:
            process.terminate()
            process.wait(30)

    def start_backend(self):
        log = open(os.path.join(self.s.root, 'backend.log'), 'a')
        self.addCleanup(log.close)
        backend = subprocess.Popen([BACKEND], env=self.s.env, stdout=log, stderr=subprocess.STDOUT)
        self.addCleanup(self.stop, backend)
        self.s.wait_for_name(self.s.bus, BACKEND_NAME)
        return backend

    def open_app(self, app_id, token='t'):
        app = PortalApp(self.s.session_bus.address, self.s.state_home, app_id, token)
        # Gone before the next case's backend starts.
        self.addCleanup(lambda: app.conn.is_closed() or app.crash())
        return app

    def sync_backend(self):
        """A round trip through the frontend and the backend's main loop:
        what they were sent before has been handled."""
        self.s.bus.call_sync(PORTAL_NAME, '/org/freedesktop/portal/desktop',
                             'org.freedesktop.DBus.Properties', 'Get',
                             GLib.Variant('(ss)', ('org.freedesktop.portal.SaveRestore', 'version')),
                             None, Gio.DBusCallFlags.NONE, 30000, None)
        self.s.bus.call_sync(BACKEND_NAME, *CONTROL, 'Sync', None, None, Gio.DBusCallFlags.NONE,
                             30000, None)

    def launched(self):
        """What the login relaunched, as each registered: app id → reason."""
        with open(self.launch_log) as f:
            return {e['app']: e['registration']['restore-reason'] for e in map(json.loads, f)}

    def relaunched(self, pids=False):
        """The app ids (or pids) of the processes the login started (their
        command names the log)."""
        apps = []
        for pid in filter(str.isdigit, os.listdir('/proc')):
            try:
                with open(f'/proc/{pid}/cmdline', 'rb') as f:
                    argv = f.read().split(b'\0')
            except OSError:
                continue
            if self.launch_log.encode() in argv:
                apps.append(int(pid) if pids else
                            argv[argv.index(self.launch_log.encode()) - 1].decode())
        return sorted(apps)

    def stop_relaunched(self):
        for pid in self.relaunched(pids=True):
            os.kill(pid, signal.SIGTERM)

    def logout(self):
        """The session ends with Text Editor, Files and Mail open, Mail
        opted out, Terminal crashed earlier; its apps go, the backend and
        policyd stop with it. Returns the open apps."""
        backend = self.start_backend()
        crashed = self.open_app(CRASHED)
        crashed.crash()
        apps = {app_id: self.open_app(app_id) for app_id in [*OPEN, OPTED_OUT]}
        for a in apps.values():
            a.save()
        self.s.call('SetAppExcluded', 'sb', OPTED_OUT, True)
        self.s.round_trip()
        self.sync_backend()
        end = subprocess.Popen([CTL, 'session', 'end'], env=self.s.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        # The apps answer SaveHint from this loop: the command waits for them.
        self.s.wait_until(lambda: end.poll() is not None, timeout=30, what='the session end')
        self.assertEqual((end.returncode, end.stdout.read()),
                         (0, 'Ended: the open apps are recorded for the next login.\n'))
        for app_id in OPEN:
            self.assertEqual(apps[app_id].save_hints, 1, app_id)
        for a in apps.values():
            a.crash()
        self.sync_backend()
        backend.send_signal(signal.SIGTERM)
        self.s.wait_until(lambda: backend.poll() is not None, timeout=30, what='the backend to exit')
        self.assertEqual(backend.returncode, 0)
        self.s.stop_policyd()
        return apps

    def login(self):
        """The next login, in "Ask every time": session-restore-portal
        --login, as the autostart file runs it, running until the prompt
        is answered. Returns it once the prompt shows: one window, asking
        about the apps open at the end but for the opted-out one."""
        self.s.gsettings('set', 'login-restore', 'ask')
        self.s.start_policyd()
        self.s.wait_until(lambda: self.s.prop('LoginRestore') == 'ask', what='ask mode')
        self.start_backend()
        # What it relaunches goes before the backend does.
        self.addCleanup(self.stop_relaunched)
        login = subprocess.Popen([BACKEND, '--login'], env=self.s.env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        self.addCleanup(self.stop, login)
        self.wait_for_prompt()
        self.assertIsNone(login.poll())
        self.assertEqual(self.prompt_windows(), 1)
        self.assertEqual(self.asked_about(), sorted(OPEN.values()))
        return login

    def prompt_windows(self):
        """The prompt windows showing, those of every program on the
        accessibility bus."""
        desktop = Atspi.get_desktop(0)
        return sum(len(self.find_all('label', base.HEADING, root=desktop.get_child_at_index(i)))
                   for i in range(desktop.get_child_count()))

    def asked_about(self):
        """The names of the apps the prompt lists. GTK 4.8 names a check
        box by its label and its accessible label both ("Files Files")."""
        boxes = [node.get_name() for node in self.find_all('check box')
                 if 'Remember my choice' not in node.get_name()]
        named = sorted(name for name in NAMES.values() if any(name in box for box in boxes))
        self.assertEqual(len(named), len(boxes), boxes)
        return named

    def answered(self, login):
        """Once the login has answered: it returns when it has spawned
        what it reopens, so nothing more starts after."""
        self.s.wait_until(lambda: login.poll() is not None, timeout=60, what='the login to finish')
        self.assertEqual(login.returncode, 0, login.stdout.read())
        self.gone('label', base.HEADING, timeout=20)
        self.prompt_went_cleanly()

    def assertNotReopened(self, apps, app_id):
        """Not reopened at this login only: the state stays for the app's
        next launch."""
        later = self.open_app(app_id, token='later')
        self.assertEqual((later.reason, later.instance_id), (LAUNCH, apps[app_id].instance_id))

    def test_1_restore_what_the_user_kept(self):
        apps = self.logout()
        login = self.login()
        self.tick('Files')
        self.assertTrue(self.checked('Text Editor'))
        self.assertFalse(self.checked('Files'))
        self.screenshot('prompt-login')
        self.assertEqual(self.prompt_windows(), 1)
        self.click_button('Restore')
        self.answered(login)
        self.assertEqual(self.relaunched(), ['org.example.TextEditor'])
        self.s.wait_until(lambda: self.launched(), timeout=30, what='the relaunched app to register')
        self.assertEqual(self.launched(), {'org.example.TextEditor': RESTORE})
        self.assertNotReopened(apps, 'org.example.Files')

    def test_2_dont_restore_relaunches_nothing(self):
        apps = self.logout()
        login = self.login()
        self.click_button('Don’t Restore')
        self.answered(login)
        self.assertEqual(self.relaunched(), [])
        self.assertEqual(self.launched(), {})
        for app_id in OPEN:
            self.assertNotReopened(apps, app_id)
