"""Who session-restore-portal believes, and what no fault makes it do.

The impl interface serves the frontend alone (the verified owner of
org.freedesktop.portal.Desktop), the control interface host processes of
the user alone; a frontend that leaves has its sessions closed; a session
end that no logout follows is called off; a login's mark that no app
claims is dropped; a policyd that cannot be believed makes nothing
discarded. Each case performs the attack or the fault against the real
backend, a real policyd and the stand-in frontend (tests/lib/portalfrontend.py)."""
import json
import os
import subprocess

import fakepolicyd
from portaltest import (APP, BACKEND_NAME, CONTROL, CTL, FRONTEND, FRONTEND_NAME, IMPL_SESSION,
                        PortalTestCase)
from srtest import LAUNCH, NOBODY, PRISTINE, PYTHON, RECOVER, GLib, Gio, remote_error

IMPL = 'org.freedesktop.impl.portal.SaveRestore'
FAKE_SYSTEMD = os.path.join(os.path.dirname(APP), 'fakesystemd.py')
DESKTOP_PATH = '/org/freedesktop/portal/desktop'
ACCESS_DENIED = 'org.freedesktop.DBus.Error.AccessDenied'

# Run in a sandbox or as another user: makes the calls named in argv[1]
# (JSON: [[what, handle, app id], …]) to the backend and prints, as JSON,
# "ok" or the D-Bus error's name for each.
CALLER = r'''
import json, sys
import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
backend = 'org.freedesktop.impl.portal.SessionRestore'
control = ('/org/gnome/SessionRestore/Portal', 'org.gnome.SessionRestore.Portal')
out = []
for what, handle, app_id in json.loads(sys.argv[1]):
    if what == 'register':
        call = ('/org/freedesktop/portal/desktop', 'org.freedesktop.impl.portal.SaveRestore',
                'Register', GLib.Variant('(osa{sv})', (handle, app_id, {})))
    elif what == 'close2':
        call = (handle, 'org.freedesktop.impl.portal.Session', 'Close2',
                GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', False)},)))
    else:
        call = (*control, what, None)
    try:
        bus.call_sync(backend, *call, None, Gio.DBusCallFlags.NONE, 20000, None)
        out.append('ok')
    except GLib.Error as e:
        out.append(Gio.DBusError.get_remote_error(e) or e.message)
print(json.dumps(out))
'''


class TrustTestCase(PortalTestCase):
    def run_caller(self, prefix, calls):
        result = subprocess.run([*prefix, PYTHON, '-c', CALLER, json.dumps(calls)], env=self.s.env,
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)

    def sandboxed(self, calls):
        return self.run_caller(self.s.sandboxed_command('org.example.Evil.Sandboxed'), calls)

    def log(self):
        self.backend_log.flush()
        with open(os.path.join(self.s.root, 'backend.log'), encoding='utf-8') as f:
            return f.read()

    def launcher(self, app_id):
        """A desktop file for @app_id whose Exec notes that it ran, and
        does nothing else (it never registers)."""
        self.launch_log = os.path.join(self.s.root, 'launched.log')
        applications = os.path.join(self.s.data_home, 'applications')
        os.makedirs(applications, exist_ok=True)
        with open(os.path.join(applications, f'{app_id}.desktop'), 'w') as f:
            f.write(f'[Desktop Entry]\nType=Application\nName={app_id}\n'
                    f'Exec=/bin/sh -c "echo {app_id} >> {self.launch_log}"\n')

    def launched(self):
        try:
            with open(self.launch_log) as f:
                return f.read().split()
        except FileNotFoundError:
            return []

    def login(self):
        self.backend_call(*CONTROL, 'Login', timeout=60000)

    def end_session(self):
        """session-restore-ctl session end, while the apps of this process
        answer their SaveHint."""
        ctl = subprocess.Popen([CTL, 'session', 'end'], env=self.s.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        self.s.wait_until(lambda: ctl.poll() is not None, timeout=30, what='session end')
        self.assertEqual(ctl.returncode, 0, ctl.stdout.read())


class TestImplForTheFrontendAlone(TrustTestCase):
    def test_a_sandbox_cannot_choose_what_the_next_login_runs(self):
        # A sandbox with a direct bus registered as an installed host app
        # and ended the session: the next login ran that app's Exec on the
        # host, unsandboxed.
        self.launcher('org.example.Host')
        handle = f'{DESKTOP_PATH}/session/1_999/evil'
        self.assertEqual(self.sandboxed([['register', handle, 'org.example.Host'],
                                         ['EndSession', '', ''], ['Sync', '', '']]),
                         [ACCESS_DENIED] * 3)
        self.sync_backend()
        self.assertFalse(os.path.exists(self.record) and 'org.example.Host' in self.record_apps())
        self.login()
        self.sync_backend()
        self.assertEqual(self.launched(), [])

    def test_a_host_process_that_is_not_the_frontend_is_refused(self):
        # Any host process could register as another app and take its
        # instance, or close a running app's session as a crash (three
        # put it into the crash-loop guard's hold) or as a clean exit.
        a = self.app('org.example.Editor')
        a.save()
        forged = (f'{DESKTOP_PATH}/session/1_998/forged', 'org.example.Editor', {})
        self.assertEqual(remote_error(self.assertRaisesGLib(
            self.backend_call, DESKTOP_PATH, IMPL, 'Register', GLib.Variant('(osa{sv})', forged),
            direct=True)), ACCESS_DENIED)
        for _ in range(4):
            self.assertEqual(remote_error(self.assertRaisesGLib(
                self.backend_call, a.handle, IMPL_SESSION, 'Close2',
                GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', False)},)), direct=True)),
                ACCESS_DENIED)
        self.assertEqual(remote_error(self.assertRaisesGLib(
            self.backend_call, a.handle, IMPL_SESSION, 'Close', direct=True)), ACCESS_DENIED)
        for method, args in (('DiscardedInstanceIds', GLib.Variant('(oas)', (a.handle, ['x']))),
                             ('SaveHintResponse', GLib.Variant('(o)', (a.handle,)))):
            self.assertEqual(remote_error(self.assertRaisesGLib(
                self.backend_call, DESKTOP_PATH, IMPL, method, args, direct=True)), ACCESS_DENIED)
        # The app was never taken for crashed, nor held: it quits, and
        # its next launch has its state.
        self.assertFalse(self.s.call('CheckRestore', 'sua{sv}', 'org.example.Editor', RECOVER, {})[1]
                         == 'crash-loop')
        a.quit()
        self.sync_frontend()
        b = self.app('org.example.Editor', token='b')
        self.assertEqual((b.reason, b.instance_id), (LAUNCH, a.instance_id))

    def test_a_frontend_of_another_user_is_not_answered(self):
        self.stop(self.frontend)
        self.s.wait_until(lambda: not self.s.bus.call_sync(
            'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameHasOwner',
            GLib.Variant('(s)', (FRONTEND_NAME,)), None, Gio.DBusCallFlags.NONE, 5000,
            None).unpack()[0], what='the frontend gone')
        other = subprocess.Popen([*NOBODY, PYTHON, FRONTEND, BACKEND_NAME], env=self.s.env)
        self.addCleanup(self.stop, other)
        self.s.wait_for_name(self.s.bus, FRONTEND_NAME)
        message = self.assertDBusError(ACCESS_DENIED, self.app, 'org.example.Editor')
        self.assertIn('Only the portal frontend', message)
        self.s.wait_until(lambda: 'it runs as another user' in self.log(),
                          what='the frontend refused in the log')
        self.assertFalse(os.path.exists(self.record) and 'org.example.Editor' in self.record_apps())

    def test_save_hint_goes_to_the_frontend_alone(self):
        # SaveHint names an app's session: it went to everyone on the bus.
        a = self.app('org.example.Editor')
        bystander = Gio.DBusConnection.new_for_address_sync(
            self.s.session_bus.address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        heard = []
        bystander.signal_subscribe(BACKEND_NAME, IMPL, None, DESKTOP_PATH, None,
                                   Gio.DBusSignalFlags.NONE, lambda *args: heard.append(args[4]))
        bystander.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                            'GetId', None, None, Gio.DBusCallFlags.NONE, 5000, None)
        self.end_session()
        self.assertEqual(a.save_hints, 1)
        # The bus has passed on what the backend sent before its reply.
        bystander.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                            'GetId', None, None, Gio.DBusCallFlags.NONE, 5000, None)
        ctx = GLib.MainContext.default()
        while ctx.iteration(False):
            pass
        self.assertEqual(heard, [])

    def assertRaisesGLib(self, function, *args, **kwargs):
        with self.assertRaises(GLib.Error) as caught:
            function(*args, **kwargs)
        return caught.exception


class TestControlForHostProcesses(TrustTestCase):
    def test_a_sandbox_or_another_user_cannot_end_the_session(self):
        # A sandbox's EndSession turned crash accounting off for the rest
        # of the session; its Login reopened apps.
        a = self.app('org.example.Editor')
        self.assertEqual(self.sandboxed([['EndSession', '', ''], ['Login', '', ''], ['Sync', '', '']]),
                         [ACCESS_DENIED] * 3)
        self.assertEqual(self.run_caller(NOBODY, [['EndSession', '', '']]), [ACCESS_DENIED])
        self.assertIn('it runs in a sandbox, as the app org.example.Evil.Sandboxed', self.log())
        self.assertEqual(a.save_hints, 0)
        # The session still runs: a crash is a crash.
        a.crash()
        self.sync_frontend()
        b = self.app('org.example.Editor', token='b')
        self.assertEqual((b.reason, b.instance_id), (RECOVER, a.instance_id))
        # The user's own programs still may.
        self.end_session()
        self.assertEqual(b.save_hints, 1)


class TestFrontendRestart(TrustTestCase):
    def test_the_sessions_of_a_frontend_that_left_are_closed(self):
        # Nothing watched the frontend: its sessions stayed open for good,
        # so the app's next launch got a fresh id, and a session end
        # waited its full 3 s for a SaveHintResponse that could not come.
        a = self.app('org.example.Editor')
        a.save()
        self.stop(self.frontend)
        self.frontend = subprocess.Popen([PYTHON, FRONTEND, BACKEND_NAME], env=self.s.env)
        self.addCleanup(self.stop, self.frontend)
        self.s.wait_until(lambda: 'Closed the 1 sessions of the portal frontend that left' in self.log(),
                          what='the old frontend\'s sessions closed')
        self.s.wait_for_name(self.s.bus, FRONTEND_NAME)
        ctl = subprocess.run([CTL, 'session', 'end'], env=self.s.env, capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(ctl.returncode, 0, ctl.stderr)
        self.assertNotIn('Not every app answered SaveHint', self.log())
        self.backend_call(*CONTROL, 'Login', timeout=60000)
        b = self.app('org.example.Editor', token='b')
        self.assertEqual((b.reason, b.instance_id), (LAUNCH, a.instance_id))


class TestEndingCalledOff(TrustTestCase):
    def setUp(self):
        super().setUp()
        self.stop(self.backend)
        self.start_backend(SR_PORTAL_ENDING_TIMEOUT_MS='1500', SR_PORTAL_REOPEN_CLAIM_MS='500')

    def test_a_session_end_no_logout_follows_is_called_off(self):
        # After `session-restore-ctl session end` without a logout, the
        # session never stopped ending: crashes were not counted and got
        # LAUNCH, and apps the user closed reopened at the next login.
        self.launcher('org.example.Mail')
        editor = self.app('org.example.Editor')
        mail = self.app('org.example.Mail')
        self.end_session()
        mail.quit()          # the user closes it: the session went on
        self.sync_frontend()
        self.s.wait_until(lambda: "The session's end was called off" in self.log(), timeout=30,
                          what='the ending called off')
        self.assertIn('1 apps run on, 1 closed meanwhile', self.log())
        editor.crash()
        self.sync_frontend()
        again = self.app('org.example.Editor', token='again')
        self.assertEqual((again.reason, again.instance_id), (RECOVER, editor.instance_id))
        # The closed app is not reopened at the next login.
        self.backend_call(*CONTROL, 'EndSession')
        self.login()
        self.sync_backend()
        self.assertEqual(self.launched(), [])

    def test_an_app_the_login_reopened_that_never_came_is_launched_afresh(self):
        # The login's mark stayed: the app never registered, and a launch
        # by hand hours later got RESTORE (and a prompt under "ask").
        self.launcher('org.example.Editor')
        a = self.app('org.example.Editor')
        a.save()
        self.end_session()
        a.crash()            # the session's end closes it
        self.sync_frontend()
        self.login()
        self.s.wait_until(lambda: self.launched() == ['org.example.Editor'], what='the reopening')
        self.s.wait_until(lambda: 'apps reopened at login never registered' in self.log(),
                          timeout=30, what='the mark dropped')
        b = self.app('org.example.Editor', token='b')
        self.assertEqual((b.reason, b.instance_id), (LAUNCH, a.instance_id))


class TestLoginScopes(TrustTestCase):
    def test_an_app_reopened_at_login_gets_a_scope_of_its_own(self):
        # The login started apps in the backend's own cgroup: the frontend
        # identifies a host app by its systemd scope, so an app it knew
        # last time by its scope was passed '' and got PRISTINE.
        units = os.path.join(self.s.root, 'units.log')
        fake = subprocess.Popen([PYTHON, FAKE_SYSTEMD, units], env=self.s.env,
                                stdout=subprocess.PIPE, text=True)
        self.addCleanup(self.stop, fake)
        self.assertEqual(fake.stdout.readline(), 'owned\n')
        launch_log = os.path.join(self.s.root, 'launched.json')
        applications = os.path.join(self.s.data_home, 'applications')
        os.makedirs(applications, exist_ok=True)
        with open(os.path.join(applications, 'org.example.Editor.desktop'), 'w') as f:
            f.write('[Desktop Entry]\nType=Application\nName=Editor\n'
                    f'Exec={PYTHON} {APP} org.example.Editor {launch_log}\n')
        a = self.app('org.example.Editor')
        a.save()
        self.end_session()
        a.crash()
        self.sync_frontend()
        self.login()
        self.s.wait_until(lambda: os.path.exists(launch_log) and os.path.exists(units),
                          what='the app reopened, in its scope')
        with open(launch_log) as f:
            launched = json.loads(f.readline())
        self.addCleanup(lambda: os.kill(launched['pid'], 15))
        with open(units) as f:
            unit = json.loads(f.readline())
        self.assertEqual(unit['unit'], f'app-sessionrestore-org.example.Editor-{launched["pid"]}.scope')
        self.assertEqual(unit['mode'], 'fail')
        self.assertEqual(unit['properties']['PIDs'], [launched['pid']])


class TestLoginDesktopFiles(TrustTestCase):
    """A Flatpak app is reopened through the desktop file Flatpak exports
    for it, a host app never through a Flatpak's."""

    def setUp(self):
        super().setUp()
        self.launch_log = os.path.join(self.s.root, 'launched.log')
        self.exports = os.path.join(self.s.root, 'flatpak', 'exports', 'share')
        self.stop(self.backend)
        self.start_backend(XDG_DATA_DIRS=f'{self.exports}:{self.s.env["XDG_DATA_DIRS"]}')

    def desktop_file(self, directory, app_id, word, flatpak=False):
        os.makedirs(os.path.join(directory, 'applications'), exist_ok=True)
        with open(os.path.join(directory, 'applications', f'{app_id}.desktop'), 'w') as f:
            f.write(f'[Desktop Entry]\nType=Application\nName={app_id}\n'
                    f'Exec=/bin/sh -c "echo {word} >> {self.launch_log}"\n' +
                    (f'X-Flatpak={app_id}\n' if flatpak else ''))

    def origin(self, app_id):
        self.sync_backend()
        return self.record_apps().get(app_id, ({},))[0].get('origin')

    def test_a_flatpak_app_is_reopened_through_flatpak_s_export(self):
        # A host desktop file of the same name comes first in the data
        # directories; it ran the host's program for the sandboxed app.
        self.desktop_file(self.s.data_home, 'org.example.Flat', 'host')
        self.desktop_file(self.exports, 'org.example.Flat', 'export', flatpak=True)
        registered = os.path.join(self.s.root, 'registered.json')
        app = subprocess.Popen(self.s.sandboxed_command(
            'org.example.Flat', PYTHON, APP, 'org.example.Flat', registered,
            binds=('--bind', self.s.root, self.s.root, '--ro-bind', os.path.dirname(APP),
                   os.path.dirname(APP))), env=self.s.env)
        self.addCleanup(self.stop, app)
        self.s.wait_until(lambda: os.path.exists(registered), what='the sandboxed app registered')
        self.s.wait_until(lambda: self.origin('org.example.Flat') == 'flatpak',
                          what='the app known as a Flatpak')
        self.end_session()
        with open(registered) as f:
            pid = json.loads(f.readline())['pid']
        self.stop(app)
        self.s.wait_until(lambda: not os.path.exists(f'/proc/{pid}'), what='the app gone')
        self.sync_frontend()
        self.login()
        self.s.wait_until(lambda: self.launched() != [], what='the reopening')
        self.sync_backend()
        self.assertEqual(self.launched(), ['export'])

    def test_a_host_app_is_not_reopened_through_a_flatpak_s_desktop_file(self):
        self.desktop_file(self.s.data_home, 'org.example.Editor', 'flatpak', flatpak=True)
        a = self.app('org.example.Editor')
        self.s.wait_until(lambda: self.origin('org.example.Editor') == 'host', what='the app known')
        self.end_session()
        a.crash()
        self.sync_frontend()
        self.login()
        self.sync_backend()
        self.assertEqual(self.launched(), [])
        self.assertIn("is a Flatpak app's, and org.example.Editor did not register from a sandbox",
                      self.log())


class TestAllSessionsBounded(TrustTestCase):
    BOUND = 40

    def setUp(self):
        super().setUp()
        self.stop(self.backend)
        self.start_backend(SR_PORTAL_MAX_SESSIONS=str(self.BOUND))

    def test_registers_under_ever_new_app_ids_are_bounded(self):
        # 48,000 Registers with distinct app ids grew the backend by
        # over 200 MiB; each app's own bound did not hold them.
        answers = []
        for i in range(self.BOUND + 5):
            self.relay_async(DESKTOP_PATH, IMPL, 'Register', GLib.Variant('(osa{sv})', (
                f'{DESKTOP_PATH}/session/1_{500 + i}/t', f'org.example.App{i}', {})), answers.append)
            self.s.wait_until(lambda: len(answers) == i + 1, what='the Register answered')
        refused = [a for a in answers if isinstance(a, GLib.Error)]
        self.assertEqual(len(refused), 5)
        self.assertEqual({remote_error(e) for e in refused}, {'org.freedesktop.DBus.Error.LimitsExceeded'})
        self.assertEqual(self.log().count('the most all apps together may have'), 1)


class TestFaultsKeepState(TrustTestCase):
    def test_a_policyd_not_to_be_trusted_makes_nothing_discarded(self):
        # Another user's program holds policyd's name: the backend cannot
        # ask, and told each app to delete its state, and the record kept
        # telling it to after policyd was back.
        a = self.app('org.example.Editor')
        path = a.save()
        a.quit()
        self.sync_frontend()
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.policyd = None
        log_dir = os.path.join(self.s.root, 'fake')
        os.makedirs(log_dir)
        os.chmod(log_dir, 0o777)
        fake = subprocess.Popen([*NOBODY, *fakepolicyd.command(os.path.join(log_dir, 'calls'))],
                                env=self.s.env, stdout=subprocess.PIPE, text=True)
        self.addCleanup(self.stop, fake)
        self.assertEqual(fake.stdout.readline(), 'owned\n')
        b = self.app('org.example.Editor', token='b')
        self.assertEqual(b.reason, PRISTINE)
        self.assertEqual(b.registration['discard-instance-ids'], [])
        self.assertNotEqual(b.instance_id, a.instance_id)
        self.assertTrue(os.path.exists(path))
        b.quit()
        self.sync_frontend()
        self.stop(fake)
        self.s.start_policyd()
        # The newest clean exit's state comes first; the older one is
        # still kept, for a second instance.
        c = self.app('org.example.Editor', token='c')
        self.assertEqual((c.reason, c.instance_id), (LAUNCH, b.instance_id))
        self.assertEqual(c.registration['discard-instance-ids'], [])
        d = self.app('org.example.Editor', token='d')
        self.assertEqual((d.reason, d.instance_id), (LAUNCH, a.instance_id))
        self.assertTrue(os.path.exists(path))
