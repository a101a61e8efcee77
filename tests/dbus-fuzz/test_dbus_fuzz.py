#!/usr/bin/python3
"""D-Bus fuzzing: 100,000 random calls to policyd from sr-dbus-fuzz (C)
(30,000 in a normal build: tests/dbus-fuzz/meson.build),
in a private session whose mock polkit allows everything, so that changes
get past the gate and run. One run per test module; its cases check that
every call was answered with a reply or a named error while policyd kept
its name and process, that its settings and state files are intact and it
still decides right afterwards, and (not in sanitizer builds, whose
allocator keeps freed memory on purpose) that its memory came back.

SR_DBUS_FUZZ_CALLS and SR_DBUS_FUZZ_SEED pass through: to make a run
shorter, or to replay one (the seed is printed)."""
import os
import re
import subprocess
import unittest

from srtest import ALLOW, BUILD_DIR, LAUNCH, GLib, Session

FUZZ = os.environ.get('SR_DBUS_FUZZ', os.path.join(BUILD_DIR, 'tests', 'dbus-fuzz', 'sr-dbus-fuzz'))
SANITIZED = os.environ.get('SR_DBUS_FUZZ_SANITIZED') == '1'
KEYS = ('enabled', 'login-restore', 'restore-after-crash', 'restore-on-launch', 'excluded-apps',
        'admin-excluded-apps', 'max-age-days', 'crash-loop-threshold', 'crash-loop-window')
PROPERTIES = {'enabled': 'Enabled', 'login-restore': 'LoginRestore',
              'restore-after-crash': 'RestoreAfterCrash', 'restore-on-launch': 'RestoreOnLaunch',
              'excluded-apps': 'ExcludedApps', 'admin-excluded-apps': 'AdminExcludedApps',
              'max-age-days': 'MaxAgeDays', 'crash-loop-threshold': 'CrashLoopThreshold',
              'crash-loop-window': 'CrashLoopWindow'}
# policyd's own state files and their GVariant types.
STATE_FILES = {'clear-points': '(xa{sx})', 'crash-counters': 'a{sax}'}


def diag(text):
    """Lines TAP shows as comments."""
    for line in text.rstrip().splitlines():
        print(f'# {line}', flush=True)


class DBusFuzzTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = Session()
        try:
            cls.s.start_policyd()
            env = dict(cls.s.env, SR_DBUS_FUZZ_PRIVATE_SESSION='1')
            for name in ('SR_DBUS_FUZZ_CALLS', 'SR_DBUS_FUZZ_SEED', 'SR_DBUS_FUZZ_TIMEOUT'):
                if name in os.environ:
                    env[name] = os.environ[name]
            # Memory is judged below, by its own case. No settling time
            # (sr-dbus-fuzz's 20 s are for GSlice's cache, which policyd
            # never uses: main.c runs it with G_SLICE=always-malloc): the
            # fuzzer waits until policyd has been idle for 3 s, past the
            # heap trim policyd makes 2 s after its last call.
            args = ['--no-memory-check', '--settle', '0']
            # A backstop: a call not answered fails the run after 30 s.
            # Alone on two cores the run takes 70 s, 110 s with the
            # sanitizers; beside tools/test's other lane, well over 150.
            cls.result = subprocess.run([FUZZ, *args], env=env, capture_output=True, text=True,
                                        timeout=420)
        except BaseException:
            cls.s.close()
            raise
        diag(cls.result.stdout)

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def fuzzer_output(self):
        return (f'{self.result.stdout[-6000:]}\n{self.result.stderr[-4000:]}'
                f'\npolicyd log:\n{self.s.log()[-4000:]}')

    def test_every_call_answered(self):
        """No timeout, no unnamed error, no lost name, no restart."""
        self.assertEqual(self.result.returncode, 0, self.fuzzer_output())

    def test_policyd_intact(self):
        """Still running, same process; settings and state files read."""
        self.assertIsNone(self.s.policyd.poll(), f'policyd exited; log:\n{self.s.log()[-4000:]}')
        self.assertEqual(self.s.owner_pid(), self.s.policyd.pid)

        listing = self.s.gsettings('list-recursively')
        lines = listing.split('\n')
        self.assertTrue(all(line.startswith('org.gnome.SessionRestore ') for line in lines), listing)
        self.assertEqual(sorted(line.split(' ', 2)[1] for line in lines), sorted(KEYS), listing)
        dump = subprocess.run(['dconf', 'dump', '/org/gnome/session-restore/'], env=self.s.env,
                              capture_output=True, text=True)
        self.assertEqual(dump.returncode, 0, dump.stderr)

        for name, signature in STATE_FILES.items():
            path = os.path.join(self.s.state_home, 'session-restore', name)
            if os.path.exists(path):
                with open(path, 'rb') as f:
                    value = GLib.Variant.new_from_bytes(GLib.VariantType(signature),
                                                        GLib.Bytes(f.read()), False)
                self.assertTrue(value.is_normal_form(), f'{name} does not parse')

        # What policyd says is what dconf holds.
        props = self.s.all_props()
        for key, prop in PROPERTIES.items():
            self.assertEqual(props[prop], self.s.gsettings_value(key), key)

    def test_still_decides_right(self):
        self.s.set_setting('enabled', GLib.Variant('b', True))
        self.s.set_setting('restore-on-launch', GLib.Variant('b', True))
        self.assertEqual(self.s.check_save('org.example.Alive'), (ALLOW, 'allowed'))
        self.assertEqual(self.s.check_restore('org.example.Alive', LAUNCH), (ALLOW, 'allowed'))

    if not SANITIZED:
        def test_memory_returns_to_baseline(self):
            """The criterion is sr-dbus-fuzz's; see check_memory() there."""
            line = re.search(r'^memory criterion: .*: (PASS|FAIL)', self.result.stdout, re.M)
            self.assertIsNotNone(line, self.fuzzer_output())
            table = re.search(r'^policyd memory.*?(?=^memory criterion)', self.result.stdout,
                              re.M | re.S)
            self.assertEqual(line.group(1), 'PASS',
                             f'{table.group(0) if table else ""}{line.group(0)}')


class UnreadableTest(unittest.TestCase):
    """The messages GDBus misreads, which the run above does not send (see
    gdbus_reads_back() in sr-dbus-fuzz.c): a known one and the first three
    of a random run, each sent once policyd is back. Each makes policyd
    leave the bus; each time, the next call starts it again by D-Bus
    activation and it answers right (tests/integration/test_bus_drop.py
    says why)."""

    def test_policyd_comes_back_after_each(self):
        s = Session()
        self.addCleanup(s.close)
        s.activatable()
        s.start_policyd()
        env = dict(s.env, SR_DBUS_FUZZ_PRIVATE_SESSION='1')
        result = subprocess.run([FUZZ, '--unreadable', '3'], env=env, capture_output=True,
                                text=True, timeout=120)
        diag(result.stdout)
        self.assertEqual(result.returncode, 0, f'{result.stdout}\n{result.stderr}')
        self.assertRegex(result.stdout, r'(?m)^unreadable: 4 sent, policyd came back right after 4$')
        s.policyd = None      # the one started above has exited; the bus runs the last one


if __name__ == '__main__':
    unittest.main()
