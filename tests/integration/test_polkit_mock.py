"""polkit through python-dbusmock's polkitd template: what the real polkitd
cannot easily be made to do (go away, hang, authorize one action but not
another) and what only a mock sees (the flags policyd passes, whether it
calls at all). Which caller may call what for each answer of polkit is
test_authz_matrix's, against the real polkitd."""
import os
import subprocess
import threading

from srtest import GLib, Gio, SLOW, PolicydTestCase

CONFIGURE = 'org.gnome.SessionRestore.configure'
# The action of PolkitMonitor's own call, which marks the end of a watch.
SENTINEL = 'org.example.Sentinel'


class MockPolkitTest(PolicydTestCase):
    def test_other_actions_do_not_authorize_configure(self):
        self.s.set_allowed(['org.gnome.SessionRestore.clear', 'org.gnome.SessionRestore.list'])
        message = self.assertDBusError('NotAllowed', self.s.set_setting, 'max-age-days',
                                       GLib.Variant('i', 7))
        # The refusal names the action that was refused.
        self.assertIn(CONFIGURE, message)

    def test_decision_follows_polkit_live(self):
        self.s.set_allowed([])
        self.assertDBusError('NotAllowed', self.s.set_setting, 'max-age-days', GLib.Variant('i', 7))
        self.s.set_allowed([CONFIGURE])
        self.s.set_setting('max-age-days', GLib.Variant('i', 7))
        self.assertEqual(self.s.prop('MaxAgeDays'), 7)

    def test_polkit_gone_fails_closed(self):
        # A fault, not a refusal: Unavailable, and nothing changes.
        self.s.polkit.terminate()
        self.s.polkit.wait(10)
        self.assertDBusError('Unavailable', self.s.set_setting, 'max-age-days', GLib.Variant('i', 7))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        self.assertAlive()

    def test_interactive_flag_is_passed_only_when_allowed(self):
        monitor = PolkitMonitor(self.s)
        self.s.set_setting('max-age-days', GLib.Variant('i', 7))
        self.s.set_setting('max-age-days', GLib.Variant('i', 8),
                           flags=Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION)
        flags = monitor.stop_and_flags()
        self.assertEqual(flags, [0, 1])

    def test_checks_never_call_polkit(self):
        monitor = PolkitMonitor(self.s)
        for i in range(50):
            self.s.check_save(f'org.example.App{i}')
            self.s.check_restore(f'org.example.App{i}', 1 + i % 3, {'saved-at': GLib.Variant('x', 1)})
            self.s.call('NoteExit', 'sb', f'org.example.App{i}', i % 2 == 0)
        self.assertEqual(monitor.stop_and_flags(), [])
        # The monitor does see polkit calls when they happen.
        monitor = PolkitMonitor(self.s)
        self.s.set_setting('max-age-days', GLib.Variant('i', 7))
        self.assertEqual(len(monitor.stop_and_flags()), 1)

    def test_checks_answer_while_polkit_hangs(self):
        self.s.system.call_sync('org.freedesktop.PolicyKit1', '/org/freedesktop/PolicyKit1/Authority',
                                'org.freedesktop.DBus.Mock', 'SimulateHang',
                                GLib.Variant('(b)', (True,)), None, Gio.DBusCallFlags.NONE, 5000, None)
        pending = []
        self.s.bus.call(
            'org.gnome.SessionRestore.Policy', '/org/gnome/SessionRestore/Policy',
            'org.gnome.SessionRestore.Policy', 'SetSetting',
            GLib.Variant('(sv)', ('max-age-days', GLib.Variant('i', 7))), None,
            Gio.DBusCallFlags.NONE, 20000 * SLOW, None,
            lambda conn, res: pending.append(conn.call_finish(res)))
        self.s.wait_until(self.polkit_hangs, what='SetSetting to reach polkit')
        self.assertEqual(self.s.check_save('org.example.App'), (1, 'allowed'))
        self.assertEqual(self.s.check_restore('org.example.App', 3), (1, 'allowed'))
        self.assertEqual(pending, [])
        self.s.system.call_sync('org.freedesktop.PolicyKit1', '/org/freedesktop/PolicyKit1/Authority',
                                'org.freedesktop.DBus.Mock', 'ReleaseHangingCalls',
                                None, None, Gio.DBusCallFlags.NONE, 5000, None)
        self.s.wait_until(lambda: pending, what='SetSetting to finish')
        self.assertEqual(self.s.prop('MaxAgeDays'), 7)

    def polkit_hangs(self):
        return self.s.system.call_sync(
            'org.freedesktop.PolicyKit1', '/org/freedesktop/PolicyKit1/Authority',
            'org.freedesktop.DBus.Mock', 'HaveHangingCalls', None, None,
            Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]


class PolkitMonitor:
    """Watches the system bus for CheckAuthorization calls."""

    def __init__(self, session):
        self.s = session
        self.process = subprocess.Popen(
            ['dbus-monitor', '--address', session.system_bus.address,
             "type='method_call',interface='org.freedesktop.PolicyKit1.Authority',"
             "member='CheckAuthorization'"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        # dbus-monitor prints only once it monitors: first its own
        # NameAcquired signal.
        self.process.stdout.readline()

    def stop_and_flags(self):
        """The flags of every CheckAuthorization so far. A call of our own
        is sent after them: once the monitor has printed it, it has
        printed theirs."""
        subject = ('unix-process', {'pid': GLib.Variant('u', os.getpid()),
                                    'start-time': GLib.Variant('t', 0)})
        self.s.system.call_sync('org.freedesktop.PolicyKit1', '/org/freedesktop/PolicyKit1/Authority',
                                'org.freedesktop.PolicyKit1.Authority', 'CheckAuthorization',
                                GLib.Variant('((sa{sv})sa{ss}us)', (subject, SENTINEL, {}, 0, '')),
                                None, Gio.DBusCallFlags.NONE, 5000, None)
        watchdog = threading.Timer(20 * SLOW, self.process.kill)
        watchdog.start()
        out = ''
        while SENTINEL not in out:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError(f'dbus-monitor never showed the sentinel call:\n{out}')
            out += line
        watchdog.cancel()
        self.process.terminate()
        self.process.communicate(timeout=10)
        flags = []
        calls = [call for call in out.split('method call')[1:] if SENTINEL not in call]
        for call in calls:
            # Arguments: subject struct, action id, details, flags (uint32), cancellation id.
            uints = [line.split()[1] for line in call.splitlines()
                     if line.strip().startswith('uint32')]
            flags.append(int(uints[-1]))
        return flags
