"""Start, replace, terminate, lose the name; the introspected interface."""
import os
import signal
import subprocess
import xml.etree.ElementTree as ET

from srtest import (BUS_NAME, DENY, OBJECT_PATH, IFACE, POLICYD, PYTHON, RECOVER, RESTORE,
                    SOURCE_DIR, SLOW, Gio, GLib, PolicydTestCase, now_us)

# A program that owns a name (argv[1]) until it is terminated.
HOLD_NAME = '''
import sys
from gi.repository import Gio, GLib
loop = GLib.MainLoop()
Gio.bus_own_name(Gio.BusType.SESSION, sys.argv[1], Gio.BusNameOwnerFlags.NONE, None,
                 lambda *a: print('owned', flush=True), lambda *a: loop.quit())
loop.run()
'''


class LifecycleTest(PolicydTestCase):
    def test_sigterm_exits_cleanly(self):
        self.assertEqual(self.s.stop_policyd(signal.SIGTERM), 0)
        self.assertIsNone(self.s.owner_pid())

    def test_second_instance_without_replace_exits(self):
        first = self.s.policyd
        second = self.s.start_policyd(wait=False)
        # 3: the name is taken; the unit does not restart on it.
        self.assertEqual(second.wait(20 * SLOW), 3)
        self.assertIn('--replace', self.s.log())
        self.assertEqual(self.s.owner_pid(), first.pid)
        self.assertAlive()

    def test_replace_takes_over_and_old_one_exits(self):
        # The old instance is asked to go (SIGTERM) and exits cleanly.
        first = self.s.policyd
        second = self.s.start_policyd('--replace', wait=False)
        self.s.wait_for_owner(second.pid)
        self.assertEqual(first.wait(20 * SLOW), 0)
        self.s.policyd = second
        self.assertAlive()
        self.assertIn('Asked process', self.s.log())

    def test_name_cannot_be_replaced(self):
        # Whoever asks the bus for the name with REPLACE_EXISTING (flag 2)
        # is only queued: policyd keeps it and keeps answering.
        self.s.call('SetAppExcluded', 'sb', 'org.example.Excluded', True)
        other = self.s.session_bus.connect()
        reply = other.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                'org.freedesktop.DBus', 'RequestName',
                                GLib.Variant('(su)', (BUS_NAME, 2)), None,
                                Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        self.assertEqual(reply, 2)      # DBUS_REQUEST_NAME_REPLY_IN_QUEUE
        self.assertEqual(self.s.owner_pid(), self.s.policyd.pid)
        self.assertEqual(self.s.check_save('org.example.Excluded'), (DENY, 'excluded'))
        self.assertAlive()
        other.close_sync(None)

    def test_replace_leaves_another_program_alone(self):
        # --replace takes over from policyd only: a program of another
        # name holding the name is not signalled, and --replace fails.
        self.assertEqual(self.s.stop_policyd(), 0)
        holder = subprocess.Popen(
            [PYTHON, '-c', HOLD_NAME, BUS_NAME], env=self.s.env, stdout=subprocess.PIPE, text=True)
        self.addCleanup(holder.wait, 10)
        self.addCleanup(holder.terminate)
        self.assertEqual(holder.stdout.readline().strip(), 'owned')
        replacing = self.s.start_policyd('--replace', wait=False)
        self.assertEqual(replacing.wait(20 * SLOW), 3)
        self.assertIn('not replacing it', self.s.log())
        self.assertIsNone(holder.poll())

    def test_exits_when_bus_goes_away(self):
        # A failure, so that systemd's Restart=on-failure brings it back.
        self.s.session_bus.stop()
        self.assertEqual(self.s.policyd.wait(20 * SLOW), 1)
        self.s.policyd = None

    def test_introspection_matches_contract(self):
        out = subprocess.run(['gdbus', 'introspect', '--session', '--dest', BUS_NAME,
                              '--object-path', OBJECT_PATH, '--xml'],
                             env=self.s.env, capture_output=True, text=True, check=True).stdout
        live = ET.fromstring(out).find(f"interface[@name='{IFACE}']")
        contract = ET.parse(os.path.join(SOURCE_DIR, 'data', 'org.gnome.SessionRestore.Policy.xml'))
        documented = contract.getroot().find(f"interface[@name='{IFACE}']")

        def members(node):
            return sorted((child.tag, child.get('name'),
                           tuple((a.get('type'), a.get('direction')) for a in child.findall('arg')),
                           child.get('type'))
                          for child in node if child.tag in ('method', 'property', 'signal'))
        self.assertEqual(members(live), members(documented))
        for method in ('CheckSave', 'CheckRestore', 'NoteExit', 'SetSetting', 'SetAppExcluded'):
            self.assertIn(method, out)

    def test_version_option(self):
        out = subprocess.run([POLICYD, '--version'],
                             capture_output=True, text=True, check=True).stdout
        self.assertRegex(out, r'^session-restore-policyd \d+\.\d+')

    def test_start_writes_nothing(self):
        # Starting (and answering checks) must not write settings or files.
        self.s.check_save('org.example.App')
        self.s.check_restore('org.example.App', 1)
        self.assertFalse(os.path.exists(os.path.join(self.s.config_home, 'dconf', 'user')))
        self.assertFalse(os.path.exists(os.path.join(self.s.state_home, 'session-restore')))

    def test_gio_modules_not_in_their_cache(self):
        # A GIO module giomodule.cache does not name (installed without
        # gio-querymodules, or changed after it ran) is loaded as soon as
        # GIO looks for one, and GLib keeps it for good. policyd still
        # reads and writes its settings through dconf's module, and exits
        # cleanly; under valgrind, without tests/lib/valgrind.supp, every
        # policyd in such a world would report the module as lost.
        modules = os.path.join(self.s.root, 'gio-modules')
        os.makedirs(modules)
        system = subprocess.run(['pkg-config', '--variable=giomoduledir', 'gio-2.0'],
                                capture_output=True, text=True, check=True).stdout.strip()
        for name in os.listdir(system):
            if name.endswith('.so'):
                os.symlink(os.path.join(system, name), os.path.join(modules, name))
        self.assertTrue(os.path.exists(os.path.join(modules, 'libdconfsettings.so')))
        self.assertEqual(self.s.stop_policyd(signal.SIGTERM), 0)
        self.s.env['GIO_MODULE_DIR'] = modules
        self.s.start_policyd()
        self.s.gsettings('set', 'enabled', 'false')
        self.s.wait_until(lambda: self.s.check_save('org.example.App')[0] == DENY, what='policyd to see it')
        self.assertEqual(self.s.stop_policyd(signal.SIGTERM), 0)


class FirstCallAfterStartTest(PolicydTestCase):
    """What policyd does after its first answer (sr-consumers.c, the
    start-up purge) must not include what a check needs: the settings,
    crash counters and clear points are read before the main loop handles
    a call (the name is asked for first, and may be granted before). The
    checks here are sent before policyd runs, and D-Bus activation starts
    it: the bus hands them over the moment policyd owns the name, ahead of
    anything policyd itself has queued by then."""

    def test_first_checks_see_settings_crash_loops_and_clear_points(self):
        looping, cleared, excluded = 'org.example.Looping', 'org.example.Cleared', 'org.example.Out'
        for _ in range(3):
            self.s.call('NoteExit', 'sb', looping, False)
        saved_at = now_us()
        self.s.clear([cleared])
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.policyd = None
        self.s.gsettings('set', 'excluded-apps', f"['{excluded}']")
        self.s.activatable()

        checks = [(looping, RECOVER, {}),
                  (cleared, RESTORE, {'saved-at': GLib.Variant('x', saved_at)}),
                  (excluded, RESTORE, {'saved-at': GLib.Variant('x', saved_at)}),
                  ('org.example.Other', RESTORE, {'saved-at': GLib.Variant('x', saved_at)})]
        replies = [None] * len(checks)
        connections = [self.s.session_bus.connect() for _ in checks]

        def on_reply(conn, result, i):
            replies[i] = conn.call_finish(result).unpack()
        for i, (conn, args) in enumerate(zip(connections, checks)):
            conn.call(BUS_NAME, OBJECT_PATH, IFACE, 'CheckRestore', GLib.Variant('(sua{sv})', args),
                      None, Gio.DBusCallFlags.NONE, 20000 * SLOW, None, on_reply, i)
        self.s.wait_until(lambda: None not in replies, timeout=30, what='the answers')
        self.assertEqual(replies, [(DENY, 'crash-loop'), (DENY, 'cleared'), (DENY, 'excluded'),
                                   (1, 'allowed')])


class CLocaleTest(PolicydTestCase):
    """policyd's help and log messages (English, with typographic quotes)
    are readable in any locale: UTF-8 where the locale has it, ASCII
    look-alikes under LANG=C, never "?" or bytes the terminal cannot show."""
    start = False

    def run_policyd(self, lang, *args):
        env = dict(self.s.env, LANG=lang)
        return subprocess.run([POLICYD, *args], env=env, capture_output=True, timeout=20 * SLOW)

    def test_help(self):
        out = self.run_policyd('C', '--help').stdout
        self.assertIn(b'session-restore-policyd [OPTION...]', out)
        self.assertNotIn(b'?', out)
        out.decode('ascii')
        self.assertIn('[OPTION…]', self.run_policyd('C.UTF-8', '--help').stdout.decode())

    def test_log_message(self):
        self.s.gsettings('set', 'excluded-apps', "['bad/entry', 'org.example.Ok']")
        self.s.env['LANG'] = 'C'
        self.s.start_policyd()
        self.s.stop_policyd()
        with open(os.path.join(self.s.root, 'policyd.log'), 'rb') as f:
            log = f.read()
        self.assertIn(b'Ignoring "bad/entry" in "excluded-apps"', log)
        self.assertNotIn(b'?', log)
        log.decode('ascii')

    def test_log_message_in_utf8(self):
        self.s.gsettings('set', 'excluded-apps', "['bad/entry']")
        self.s.start_policyd()    # LANG=C.UTF-8
        self.s.stop_policyd()
        self.assertIn('Ignoring “bad/entry” in “excluded-apps”', self.s.log())
