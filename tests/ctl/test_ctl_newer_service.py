"""What a newer policyd tells, from a stand-in service (python-dbusmock) on
the private bus: per-app "state", "at-login" and "crash-loop" in
ListStoredState and the "Consumers" property, which the tool shows when
they are there; and what monitor prints for locks and for the service
coming and going. Also colour on a terminal, and JSON escaping."""
import json
import os
import pty
import subprocess
import time

from ctltest import CTL, FAILED, OK, CtlTestCase, Lines
from srtest import BUS_NAME, IFACE, OBJECT_PATH, PYTHON, Gio, GLib

A, B, C = 'org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'
NOW = int(time.time() * 1000000)

LIST_CODE = f'''ret = [
    ("{A}", {{"bytes": dbus.UInt64(100, variant_level=1), "entries": dbus.UInt32(1, variant_level=1),
              "last-saved": dbus.Int64({NOW}, variant_level=1),
              "stores": dbus.Array(["gtk", 'we"ird\\\\name\\n'], signature="s", variant_level=1),
              "state": dbus.String("expired", variant_level=1),
              "at-login": dbus.Boolean(True, variant_level=1),
              "crash-loop": dbus.Boolean(False, variant_level=1)}}),
    ("{B}", {{"bytes": dbus.UInt64(200, variant_level=1), "entries": dbus.UInt32(2, variant_level=1),
              "last-saved": dbus.Int64({NOW}, variant_level=1),
              "stores": dbus.Array(["gnome-session"], signature="s", variant_level=1),
              "state": dbus.String("valid", variant_level=1),
              "at-login": dbus.Boolean(False, variant_level=1),
              "crash-loop": dbus.Boolean(True, variant_level=1),
              "future-key": dbus.String("ignored", variant_level=1)}}),
]'''


class StandInTest(CtlTestCase):
    start = False

    def setUp(self):
        super().setUp()
        self.mock = subprocess.Popen([PYTHON, '-m', 'dbusmock', BUS_NAME, OBJECT_PATH, IFACE],
                                     env=self.s.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(self.stop_mock)
        self.s.wait_for_name(self.s.bus, BUS_NAME)
        self.mock_call('AddProperties', '(sa{sv})', IFACE, {
            'Version': GLib.Variant('u', 2),
            'Enabled': GLib.Variant('b', True),
            'LoginRestore': GLib.Variant('s', 'always'),
            'RestoreAfterCrash': GLib.Variant('b', True),
            'RestoreOnLaunch': GLib.Variant('b', True),
            'ExcludedApps': GLib.Variant('as', []),
            'AdminExcludedApps': GLib.Variant('as', []),
            'MaxAgeDays': GLib.Variant('i', 30),
            'CrashLoopThreshold': GLib.Variant('u', 3),
            'CrashLoopWindow': GLib.Variant('u', 600),
            'LockedSettings': GLib.Variant('as', []),
            'Consumers': GLib.Variant('a(sx)', [('gnome-session', NOW - 120 * 1000000),
                                                ('mutter', NOW),
                                                ('flatpak/org.example.App', NOW)]),
        })
        self.mock_call('AddMethod', '(sssss)', IFACE, 'ListStoredState', '', 'a(sa{sv})', LIST_CODE)

    def stop_mock(self):
        if self.mock.poll() is None:
            self.mock.terminate()
            self.mock.wait(10)

    def mock_call(self, method, signature, *args):
        self.s.bus.call_sync(BUS_NAME, OBJECT_PATH, 'org.freedesktop.DBus.Mock', method,
                             GLib.Variant(signature, args), None, Gio.DBusCallFlags.NONE, 5000, None)

    def test_status_names_the_consumers(self):
        out = self.assertCtl(OK, 'status').stdout
        self.assertIn('Used by:          gnome-session (2 min ago), mutter (just now), '
                      'org.example.App (flatpak app, just now)\n', out)
        self.assertIn('interface version 2', out)
        self.assertIn('Saved sessions:   2 (300 bytes)', out)

    def test_reset_needs_version_3(self):
        # Older than ResetSetting: said in words, nothing sent.
        result = self.assertCtl(FAILED, 'reset', 'max-age-days')
        self.assertIn('The running service (interface version 2) cannot reset a setting',
                      result.stderr)

    def test_list_shows_the_new_fields(self):
        doc = json.loads(self.assertCtl(OK, 'list', '--json').stdout)
        alpha, beta = doc['apps']
        self.assertEqual((alpha['state'], alpha['at_login'], alpha['crash_loop']), ('expired', True, False))
        self.assertEqual((beta['state'], beta['at_login'], beta['crash_loop']), ('valid', False, True))
        # Any string survives the JSON.
        self.assertEqual(alpha['stores'], ['gtk', 'we"ird\\name\n'])
        self.assertNotIn('future-key', beta)
        out = self.assertCtl(OK, 'list').stdout
        rows = {line.split()[0]: line for line in out.splitlines()[1:-1]}
        self.assertTrue(rows[A].endswith('too old to be restored, reopens at login'), rows[A])
        self.assertTrue(rows[B].endswith('held back: crash loop'), rows[B])

    def test_colour_only_on_a_terminal(self):
        def on_terminal(env):
            master, slave = pty.openpty()
            process = subprocess.Popen([CTL, 'list'], env={**self.s.env, **env}, stdout=slave,
                                       stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
            os.close(slave)
            output = b''
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                output += chunk
            os.close(master)
            self.assertEqual(process.wait(10), OK)
            return output.decode()
        self.assertIn('\033[1mAPP', on_terminal({}))
        self.assertIn('\033[33mheld back: crash loop\033[0m', on_terminal({}))
        self.assertNotIn('\033', on_terminal({'NO_COLOR': '1'}))
        self.assertNotIn('\033', self.ctl('list').stdout)

    def test_monitor_prints_locks_and_the_service(self):
        monitor = subprocess.Popen([CTL, 'monitor'], env=self.s.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        self.addCleanup(lambda: monitor.poll() is None and monitor.kill())
        out, err = Lines(monitor.stdout), Lines(monitor.stderr)
        self.assertIn('Watching', err.next())

        self.mock_call('UpdateProperties', '(sa{sv})', IFACE,
                       {'LockedSettings': GLib.Variant('as', ['enabled', 'max-age-days'])})
        self.assertEqual([out.next(), out.next()], ['locked: enabled', 'locked: max-age-days'])
        self.mock_call('UpdateProperties', '(sa{sv})', IFACE,
                       {'LockedSettings': GLib.Variant('as', ['max-age-days']),
                        'Consumers': GLib.Variant('a(sx)', [])})
        self.assertEqual(out.next(), 'unlocked: enabled')
        self.stop_mock()
        self.assertEqual(out.next(), 'service: stopped')
        monitor.send_signal(2)
        self.assertEqual(monitor.wait(10), OK)
