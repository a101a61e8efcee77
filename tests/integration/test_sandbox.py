"""Sandboxed callers: a process whose root holds a .flatpak-info (made with
bubblewrap, as Flatpak does) may ask about, and report on, its own app id
and nothing else."""
import os
import subprocess
import time

from srtest import BUS_NAME, OBJECT_PATH, IFACE, PolicydTestCase

APP = 'org.example.Sandboxed'


class SandboxTest(PolicydTestCase):
    def sandboxed(self, info, *gdbus_args, command=None, timeout=None):
        """Runs gdbus call (or @command) inside a sandbox with @info as its
        .flatpak-info (or the bwrap arguments in @info)."""
        info_path = os.path.join(self.s.root, 'flatpak-info')
        if isinstance(info, str):
            with open(info_path, 'w') as f:
                f.write(info)
            bind = ['--ro-bind', info_path, '/.flatpak-info']
        else:
            bind = info
        command = ['bwrap', '--ro-bind', '/usr', '/usr',
                   '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
                   '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin',
                   '--ro-bind', '/etc', '/etc', '--proc', '/proc', '--dev', '/dev',
                   '--ro-bind', os.path.dirname(self.s.session_bus.socket),
                   os.path.dirname(self.s.session_bus.socket),
                   *bind,
                   *(command or ['gdbus', 'call', '--session', '--dest', BUS_NAME,
                                 '--object-path', OBJECT_PATH,
                                 '--method', f'{IFACE}.{gdbus_args[0]}', *gdbus_args[1:]])]
        result = subprocess.run(command, env=self.s.env, capture_output=True, text=True,
                                timeout=timeout)
        return result.stdout.strip(), result.stderr.strip()

    def flatpak(self, *args):
        return self.sandboxed(f'[Application]\nname={APP}\n', *args)

    def assertNotAllowed(self, result):
        out, err = result
        self.assertEqual(out, '')
        self.assertIn('org.gnome.SessionRestore.Error.NotAllowed', err)

    def test_may_ask_about_itself(self):
        self.assertEqual(self.flatpak('CheckSave', APP), ("(uint32 1, 'allowed')", ''))
        self.assertEqual(self.flatpak('CheckRestore', APP, '2', '{}'), ("(uint32 1, 'allowed')", ''))
        self.assertEqual(self.flatpak('NoteExit', APP, 'false'), ('()', ''))

    def test_sees_its_own_exclusion(self):
        self.s.call('SetAppExcluded', 'sb', APP, True)
        self.assertEqual(self.flatpak('CheckSave', APP), ("(uint32 0, 'excluded')", ''))

    def test_rule_holds_for_later_calls_of_a_connection(self):
        # A connection's first call identifies the caller on the main
        # thread; later checks are answered on GDBus's worker thread (the
        # fast path). The sandbox rule must hold on both.
        script = f"""
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
def call(method, signature, *args):
    try:
        reply = bus.call_sync({BUS_NAME!r}, {OBJECT_PATH!r}, {IFACE!r}, method,
                              GLib.Variant(signature, args), None, 0, 20000, None)
        return repr(reply.unpack())
    except GLib.Error as e:
        return Gio.DBusError.get_remote_error(e)
for app in ({APP!r}, {APP!r}, 'org.example.Other', {APP!r}, 'org.example.Other'):
    print(call('CheckSave', '(s)', app))
    print(call('CheckRestore', '(sua{{sv}})', app, 2, {{}}))
"""
        out, err = self.sandboxed(f'[Application]\nname={APP}\n',
                                  command=['/usr/bin/python3', '-c', script])
        allowed = "(1, 'allowed')"
        refused = 'org.gnome.SessionRestore.Error.NotAllowed'
        self.assertEqual(out.splitlines(), [allowed] * 4 + [refused] * 2 + [allowed] * 2 +
                         [refused] * 2, err)

    def test_may_not_ask_about_others(self):
        self.assertNotAllowed(self.flatpak('CheckSave', 'org.example.Other'))
        self.assertNotAllowed(self.flatpak('CheckRestore', 'org.example.Other', '3', '{}'))
        self.assertNotAllowed(self.flatpak('NoteExit', 'org.example.Other', 'false'))

    def test_reports_about_others_change_nothing(self):
        for _ in range(3):
            self.assertNotAllowed(self.flatpak('NoteExit', 'org.example.Victim', 'false'))
        self.assertEqual(self.s.check_restore('org.example.Victim', 2), (1, 'allowed'))

    def test_may_not_change_settings(self):
        # polkit (the mock) allows everything: the sandbox rule alone refuses.
        self.assertNotAllowed(self.flatpak('SetSetting', 'enabled', '<false>'))
        self.assertNotAllowed(self.flatpak('SetAppExcluded', APP, 'true'))
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])

    def test_unparsable_flatpak_info_fails_closed(self):
        self.assertNotAllowed(self.sandboxed('not a key file \x00', 'CheckSave', APP))
        self.assertNotAllowed(self.sandboxed('[Application]\nname=bad/id\n', 'CheckSave', 'bad.id'))
        self.assertNotAllowed(self.sandboxed('[Runtime]\nruntime=x\n', 'CheckSave', APP))

    def test_unreadable_flatpak_info_fails_closed(self):
        # A directory where the file should be: it exists but cannot be read.
        directory = os.path.join(self.s.root, 'info-dir')
        os.makedirs(directory, exist_ok=True)
        self.assertNotAllowed(self.sandboxed(['--ro-bind', directory, '/.flatpak-info'],
                                             'CheckSave', APP))

    def test_host_callers_are_unaffected(self):
        self.flatpak('CheckSave', APP)
        self.assertEqual(self.s.check_save('org.example.Other'), (1, 'allowed'))
        self.s.call('SetAppExcluded', 'sb', 'org.example.Other', True)

    def test_fifo_flatpak_info_fails_closed_promptly(self):
        # Issue 13, A: a FIFO at the caller's /.flatpak-info blocked
        # policyd's main thread in open() for good. It must be refused at
        # once (fail closed), and policyd must go on answering others.
        fifo = os.path.join(self.s.root, 'info-fifo')
        os.mkfifo(fifo)
        start = time.monotonic()
        try:
            result = self.sandboxed(['--bind', fifo, '/.flatpak-info'], 'CheckSave', APP,
                                    timeout=20)
        except subprocess.TimeoutExpired:
            self.fail('a FIFO .flatpak-info hung the call')
        self.assertNotAllowed(result)
        self.assertLess(time.monotonic() - start, 10)
        self.assertAlive()
        self.assertEqual(self.s.check_save('org.example.Other'), (1, 'allowed'))
