"""session-restore-portal's SessionManager door: GTK's own calls
(RegisterRestore, UnregisterRestore, DeletedInstanceIds) on
org.gnome.SessionManager, which the backend takes where no one owns it,
answered from its record and policyd's decisions (real policyd, real
dconf, real bus). Each "app" is a connection of its own: closing it
without UnregisterRestore is its crash, as a process killed is."""
import os
import subprocess

from portaltest import BACKEND, BACKEND_NAME, CONTROL, CTL, PortalTestCase
from srtest import LAUNCH, PRISTINE, PYTHON, RECOVER, RESTORE, GLib, Gio, remote_error

SM = 'org.gnome.SessionManager'
SM_PATH = '/org/gnome/SessionManager'


class SmApp:
    """An app as GTK 4.24 registers: its own connection, RegisterRestore
    at start, its state file under its instance id."""

    def __init__(self, test, app_id, register=True):
        self.test = test
        self.app_id = app_id
        self.conn = Gio.DBusConnection.new_for_address_sync(
            test.s.session_bus.address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
        test.addCleanup(self.crash)
        if register:
            self.register()

    def call(self, method, signature, *args):
        reply = self.conn.call_sync(SM, SM_PATH, SM, method,
                                    GLib.Variant(signature, args) if signature else None,
                                    None, Gio.DBusCallFlags.NO_AUTO_START, 30000, None)
        return reply.unpack()

    def register(self, dbus_name=''):
        self.reason, self.instance_id, self.cleanup = self.call(
            'RegisterRestore', '(ss)', self.app_id, dbus_name)
        return self.reason

    def state_path(self, instance_id=None):
        return os.path.join(self.test.s.state_home,
                            f'{self.app_id}@{instance_id or self.instance_id}.state')

    def save(self):
        os.makedirs(self.test.s.state_home, exist_ok=True)
        with open(self.state_path(), 'wb') as f:
            f.write(b'state')

    def clean_up(self):
        """As GTK does: deletes the files asked for, reports those it deleted."""
        deleted = []
        for instance_id in self.cleanup:
            try:
                os.unlink(self.state_path(instance_id))
                deleted.append(instance_id)
            except FileNotFoundError:
                pass
        if deleted:
            self.call('DeletedInstanceIds', '(sas)', self.app_id, deleted)
        return deleted

    def quit(self):
        self.call('UnregisterRestore', '(ss)', self.app_id, self.instance_id)
        self.crash()

    def crash(self):
        if not self.conn.is_closed():
            self.conn.close_sync(None)


class SmTestCase(PortalTestCase):
    def setUp(self):
        super().setUp()
        self.s.wait_for_name(self.s.bus, SM)

    def app(self, app_id, register=True):
        return SmApp(self, app_id, register)

    def sm_owner(self):
        try:
            return self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                        'org.freedesktop.DBus', 'GetNameOwner',
                                        GLib.Variant('(s)', (SM,)), None,
                                        Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        except GLib.Error:
            return None

    def backend_owner(self):
        return self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                    'org.freedesktop.DBus', 'GetNameOwner',
                                    GLib.Variant('(s)', (BACKEND_NAME,)), None,
                                    Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]

    def backend_log_text(self):
        self.backend_log.flush()
        with open(os.path.join(self.s.root, 'backend.log')) as f:
            return f.read()


class TestReasons(SmTestCase):
    def test_the_backend_owns_the_name_and_says_restore_is_supported(self):
        self.assertEqual(self.sm_owner(), self.backend_owner())
        reply = self.s.bus.call_sync(SM, SM_PATH, 'org.freedesktop.DBus.Properties', 'Get',
                                     GLib.Variant('(ss)', (SM, 'RestoreSupported')), None,
                                     Gio.DBusCallFlags.NONE, 5000, None)
        self.assertIs(reply.unpack()[0], True)

    def test_launch_recover_after_a_crash_launch_after_a_quit(self):
        a = self.app('org.example.Editor')
        self.assertEqual((a.reason, a.cleanup), (LAUNCH, []))
        first = a.instance_id
        self.assertRegex(first, r'^[0-9a-f]{12}$')
        a.crash()
        self.sync_backend()
        b = self.app('org.example.Editor')
        self.assertEqual((b.reason, b.instance_id), (RECOVER, first))
        b.quit()
        self.sync_backend()
        c = self.app('org.example.Editor')
        self.assertEqual((c.reason, c.instance_id), (LAUNCH, first))

    def test_two_instances_get_two_ids(self):
        a = self.app('org.example.Editor')
        b = self.app('org.example.Editor')
        self.assertNotEqual(a.instance_id, b.instance_id)
        self.assertEqual((a.reason, b.reason), (LAUNCH, LAUNCH))

    def test_a_crash_is_noted_with_policyd(self):
        self.s.set_setting('crash-loop-threshold', GLib.Variant('u', 2))
        for _ in range(2):
            a = self.app('org.example.Crashy')
            a.crash()
            self.sync_backend()
        b = self.app('org.example.Crashy')
        # Held by the crash-loop guard: started afresh, the state kept.
        self.assertEqual((b.reason, b.cleanup), (PRISTINE, []))
        self.assertNotEqual(b.instance_id, a.instance_id)
        listing = dict(self.s.list_state())
        self.assertTrue(listing['org.example.Crashy'].get('crash-loop'), listing)

    def test_a_clean_quit_is_not_a_crash(self):
        self.s.set_setting('crash-loop-threshold', GLib.Variant('u', 2))
        for _ in range(3):
            a = self.app('org.example.Calm')
            a.quit()
            self.sync_backend()
        b = self.app('org.example.Calm')
        self.assertEqual(b.reason, LAUNCH)

    def test_unregister_of_an_instance_not_its_own_is_refused(self):
        a = self.app('org.example.Editor')
        other = self.app('org.example.Editor', register=False)
        with self.assertRaises(GLib.Error) as ctx:
            other.call('UnregisterRestore', '(ss)', 'org.example.Editor', a.instance_id)
        self.assertEqual(remote_error(ctx.exception), 'org.gnome.SessionManager.NotRegistered')
        # Still registered: its crash is a crash.
        a.crash()
        self.sync_backend()
        self.assertEqual(self.app('org.example.Editor').reason, RECOVER)

    def test_bad_arguments_are_refused(self):
        a = self.app('org.example.Editor', register=False)
        for app_id, name in (('', ''), ('not an id', ''), ('org.example.Editor', ':1.99999')):
            with self.assertRaises(GLib.Error) as ctx:
                a.call('RegisterRestore', '(ss)', app_id, name)
            self.assertEqual(remote_error(ctx.exception),
                             'org.freedesktop.DBus.Error.InvalidArgs', (app_id, name))
        self.assertEqual(a.register(a.conn.get_unique_name()), LAUNCH)


class TestPolicy(SmTestCase):
    def test_an_excluded_app_starts_afresh_and_cleans_up_until_it_reports(self):
        a = self.app('org.example.Editor')
        a.save()
        subprocess.run([CTL, 'exclude', 'org.example.Editor'], env=self.s.env, check=True,
                       stdout=subprocess.DEVNULL)
        # The clear deleted its file; running on, it saves again, and crashes.
        a.save()
        a.crash()
        self.sync_backend()
        b = self.app('org.example.Editor')
        self.assertEqual(b.reason, PRISTINE)
        self.assertNotEqual(b.instance_id, a.instance_id)
        self.assertIn(a.instance_id, b.cleanup)
        b.crash()
        self.sync_backend()
        # Asked again until reported…
        c = self.app('org.example.Editor')
        self.assertIn(a.instance_id, c.cleanup)
        self.assertEqual(c.clean_up(), [a.instance_id])
        self.assertFalse(os.path.exists(a.state_path()))
        c.crash()
        self.sync_backend()
        # … and no more once reported.
        d = self.app('org.example.Editor')
        self.assertNotIn(a.instance_id, d.cleanup)

    def test_the_ids_to_clean_up_outlast_the_clear_and_a_restart(self):
        a = self.app('org.example.Editor')
        a.save()
        subprocess.run([CTL, 'exclude', 'org.example.Editor'], env=self.s.env, check=True,
                       stdout=subprocess.DEVNULL)
        a.save()       # written again after the clear
        a.crash()
        self.sync_backend()
        # The clear took the app out of the record…
        self.assertNotIn('org.example.Editor', self.record_apps())
        self.stop(self.backend)
        self.start_backend()
        self.s.wait_for_name(self.s.bus, SM)
        # … and its id is asked for still.
        b = self.app('org.example.Editor')
        self.assertEqual(b.reason, PRISTINE)
        self.assertIn(a.instance_id, b.cleanup)

    def test_an_id_whose_file_is_gone_is_not_asked_for(self):
        a = self.app('org.example.Editor')
        a.crash()   # saved nothing
        self.sync_backend()
        subprocess.run([CTL, 'exclude', 'org.example.Editor'], env=self.s.env, check=True,
                       stdout=subprocess.DEVNULL)
        seen = []
        for _ in range(3):
            b = self.app('org.example.Editor')
            seen.append(a.instance_id in b.cleanup)
            self.assertEqual(b.clean_up(), [])    # nothing to delete, nothing reported
            b.crash()
            self.sync_backend()
        # GTK would warn that it cannot delete it, at every launch.
        self.assertEqual(seen, [False, False, False])

    def test_saving_off_gives_pristine_and_cleans_up(self):
        a = self.app('org.example.Editor')
        a.save()
        a.quit()
        self.sync_backend()
        self.s.set_setting('enabled', GLib.Variant('b', False))
        a.save()     # written again, by a GTK that does not ask
        b = self.app('org.example.Editor')
        self.assertEqual(b.reason, PRISTINE)
        self.assertIn(a.instance_id, b.cleanup)

    def test_recover_off_keeps_the_state_for_later(self):
        a = self.app('org.example.Editor')
        a.save()
        a.crash()
        self.sync_backend()
        self.s.set_setting('restore-after-crash', GLib.Variant('b', False))
        b = self.app('org.example.Editor')
        self.assertEqual((b.reason, b.cleanup), (PRISTINE, []))
        self.assertNotEqual(b.instance_id, a.instance_id)
        self.assertTrue(os.path.exists(a.state_path()))

    def test_policyd_gone_keeps_the_state(self):
        a = self.app('org.example.Editor')
        a.save()
        a.crash()
        self.sync_backend()
        self.s.stop_policyd()
        # Its bus activation is not there: no one answers for it.
        b = self.app('org.example.Editor')
        self.assertEqual((b.reason, b.cleanup), (PRISTINE, []))
        self.assertTrue(os.path.exists(a.state_path()))


class TestLogin(SmTestCase):
    def test_apps_open_at_the_end_come_back_with_restore(self):
        apps_dir = os.path.join(self.s.data_home, 'applications')
        os.makedirs(apps_dir, exist_ok=True)
        marker = os.path.join(self.s.root, 'launched')
        with open(os.path.join(apps_dir, 'org.example.Editor.desktop'), 'w') as f:
            f.write('[Desktop Entry]\nType=Application\nName=Editor\n'
                    f'Exec=sh -c "echo launched >> {marker}"\n')
        a = self.app('org.example.Editor')
        self.backend_call(*CONTROL, 'EndSession')
        a.crash()    # the desktop's end kills it
        self.sync_backend()
        self.backend_call(*CONTROL, 'Login')
        self.s.wait_until(lambda: os.path.exists(marker), what='the app relaunched')
        b = self.app('org.example.Editor')
        self.assertEqual((b.reason, b.instance_id), (RESTORE, a.instance_id))


class TestName(PortalTestCase):
    """Who owns org.gnome.SessionManager."""

    def test_not_taken_from_an_owner_nor_queued_for(self):
        self.stop(self.backend)
        holder = self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                      'org.freedesktop.DBus', 'RequestName',
                                      GLib.Variant('(su)', (SM, 4)), None,
                                      Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        self.assertEqual(holder, 1)
        self.start_backend()
        self.s.wait_until(lambda: 'has an owner' in self.backend_log_text(),
                          what='the backend saw the owner')
        self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                             'org.freedesktop.DBus', 'ReleaseName', GLib.Variant('(s)', (SM,)),
                             None, Gio.DBusCallFlags.NONE, 5000, None)
        self.sync_backend()
        self.assertIsNone(SmTestCase.sm_owner(self))

    def test_a_session_manager_may_replace_it(self):
        self.s.wait_for_name(self.s.bus, SM)
        a = SmApp(self, 'org.example.Editor')
        self.assertEqual(a.reason, LAUNCH)
        taken = self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                     'org.freedesktop.DBus', 'RequestName',
                                     GLib.Variant('(su)', (SM, 2 | 4)), None,
                                     Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        self.assertEqual(taken, 1)
        self.s.wait_until(lambda: 'taken over' in self.backend_log_text(),
                          what='the backend let it go')
        # The backend runs on, for the portal.
        self.sync_backend()
        self.assertIsNone(self.backend.poll())

    def run_backend(self, *args):
        return subprocess.run([BACKEND, *args], env=self.s.env, capture_output=True, text=True,
                              timeout=60)

    def test_the_units_condition_and_the_login_leave_another_session_manager_be(self):
        self.s.wait_for_name(self.s.bus, SM)
        # The backend owning it: the unit starts.
        self.assertEqual(self.run_backend('--if-no-session-manager').returncode, 0)
        self.stop(self.backend)
        self.assertEqual(self.run_backend('--if-no-session-manager').returncode, 0)
        self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                             'org.freedesktop.DBus', 'RequestName', GLib.Variant('(su)', (SM, 4)),
                             None, Gio.DBusCallFlags.NONE, 5000, None)
        # gnome-session running: the unit is skipped, and the login
        # autostart starts nothing.
        self.assertEqual(self.run_backend('--if-no-session-manager').returncode, 1)
        login = self.run_backend('--login')
        self.assertEqual(login.returncode, 0, login.stderr)
        self.assertIn('reopens apps itself', login.stdout)
        names = self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                     'org.freedesktop.DBus', 'ListNames', None, None,
                                     Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        self.assertNotIn(BACKEND_NAME, names)

    backend_log_text = SmTestCase.backend_log_text


class TestSandbox(SmTestCase):
    def client(self, app_id, register_as):
        script = ('import sys\nfrom gi.repository import Gio, GLib\n'
                  'bus = Gio.bus_get_sync(Gio.BusType.SESSION)\n'
                  'try:\n'
                  '    r = bus.call_sync("org.gnome.SessionManager", "/org/gnome/SessionManager",'
                  ' "org.gnome.SessionManager", "RegisterRestore",'
                  f' GLib.Variant("(ss)", ("{register_as}", "")), None, 0, 10000, None)\n'
                  '    print("ok", r.unpack()[0])\n'
                  'except GLib.Error as e:\n'
                  '    print("error", Gio.DBusError.get_remote_error(e))\n')
        command = self.s.sandboxed_command(app_id, PYTHON, '-c', script)
        return subprocess.run(command, env=self.s.env, capture_output=True, text=True,
                              timeout=60).stdout.strip()

    def test_a_sandboxed_app_registers_only_as_itself(self):
        self.assertEqual(self.client('org.example.Sandboxed', 'org.example.Other'),
                         'error org.freedesktop.DBus.Error.AccessDenied')
        self.assertEqual(self.client('org.example.Sandboxed', 'org.example.Sandboxed'),
                         f'ok {LAUNCH}')
