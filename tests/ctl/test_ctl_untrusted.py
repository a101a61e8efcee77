"""session-restore-ctl believes only a service it trusts: while policyd is
not running, a sandboxed app (or another user's program) may own its name
and answer as it would (tests/lib/fakepolicyd.py: everything allowed,
every change a success). The tool says in a sentence that it does not
trust it, exits 6 (unavailable), and nothing reaches it but the reading
of its properties."""
import os
import signal
import subprocess

import fakepolicyd
from ctltest import CTL, OK, UNAVAILABLE, CtlTestCase, Lines
from srtest import NOBODY, SOURCE_DIR

A = 'org.example.Alpha'


class UntrustedBase(CtlTestCase):
    start = False

    def setUp(self):
        super().setUp()
        # Where the stand-in, whoever it runs as, writes what it was asked.
        self.log_dir = os.path.join(self.s.root, 'fake')
        os.makedirs(self.log_dir)
        os.chmod(self.log_dir, 0o777)
        self.log = os.path.join(self.log_dir, 'calls')

    def start_fake(self, wrap):
        """The stand-in, run inside @wrap (a command prefix); once it owns
        the name."""
        fake = subprocess.Popen([*wrap, *fakepolicyd.command(self.log)],
                                env=self.s.env, stdout=subprocess.PIPE, text=True)
        self.addCleanup(fake.wait, 10)
        self.addCleanup(fake.terminate)
        self.assertEqual(fake.stdout.readline().strip(), 'owned')
        return fake

    def assertRefused(self, why):
        for args in (('check', A), ('clear', '--yes'), ('set', 'enabled', 'false'),
                     ('exclude', A), ('status',), ('list',)):
            result = self.assertCtl(UNAVAILABLE, *args)
            self.assertIn('is not one this tool trusts: ' + why, result.stderr, args)
            if args == ('status',):
                # The settings, from GSettings: nothing the stand-in says.
                self.assertTrue(result.stdout.startswith(
                    'Service:          not trusted\n'
                    'Settings:         read from the settings; the service is not trusted\n'),
                    result.stdout)
            else:
                self.assertEqual(result.stdout, '', args)
        self.assertEqual(fakepolicyd.calls(self.log), [])

    def sandbox(self):
        source = os.path.realpath(SOURCE_DIR)
        return self.s.sandboxed_command(
            'org.example.Evil', binds=['--ro-bind', source, source,
                                       '--bind', self.log_dir, self.log_dir])


class SandboxedOwnerTest(UntrustedBase):
    def test_refused(self):
        self.start_fake(self.sandbox())
        self.assertRefused('it runs in a sandbox, as the app org.example.Evil')


class AnotherUserTest(UntrustedBase):
    def test_refused(self):
        self.start_fake(NOBODY)
        self.assertRefused('it runs as another user (uid 65534)')


class MonitorTest(UntrustedBase):
    def test_monitor_stops_at_an_untrusted_owner(self):
        # policyd goes; a sandboxed app takes the name: the monitor says
        # the service stopped, prints nothing the stand-in says, and ends.
        self.s.start_policyd()
        monitor = subprocess.Popen([CTL, 'monitor'], env=self.s.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        self.addCleanup(lambda: monitor.poll() is None and monitor.kill())
        out, err = Lines(monitor.stdout), Lines(monitor.stderr)
        self.assertIn('Watching org.gnome.SessionRestore.Policy', err.next())
        self.assertEqual(self.s.stop_policyd(signal.SIGTERM), OK)
        self.assertEqual(out.next(), 'service: stopped')
        self.start_fake(self.sandbox())
        self.assertIn('is not one this tool trusts: it runs in a sandbox', err.next())
        self.assertEqual(monitor.wait(20), UNAVAILABLE)
        self.assertEqual(monitor.stdout.read(), b'')
