"""session-restore-ctl when things go wrong around it: a listing that could
not read everything, policyd restarting under `monitor`, and polkit not
answering in time."""
import json
import os
import subprocess
import unittest

from ctltest import CTL, FAILED, UNAVAILABLE, CtlTestCase, Lines
from simulator import Simulator
from srtest import GLib

A, B = 'org.example.Alpha', 'org.example.Beta'
# policyd without the capabilities that let root read any file: a mode of
# 000 stops it as it stops a user's policyd (test_swallowed_errors).
NO_DAC = ['setpriv', '--inh-caps=-dac_override,-dac_read_search',
          '--bounding-set=-dac_override,-dac_read_search']


@unittest.skipUnless(os.geteuid() == 0, 'needs root to drop capabilities')
class ListErrorsTest(CtlTestCase):
    start = False

    def setUp(self):
        super().setUp()
        self.s.start_policyd(prefix=NO_DAC)
        sim = Simulator(self.s)
        sim.save(A)
        sim.save(B, flatpak=True)
        self.unreadable = os.path.dirname(sim.gtk_path(B, '1', flatpak=True))
        os.chmod(self.unreadable, 0)
        self.addCleanup(os.chmod, self.unreadable, 0o755)

    def test_list_names_what_it_could_not_read(self):
        result = self.ctl('list')
        self.assertEqual(result.status, FAILED, result)
        self.assertEqual([line.split()[0] for line in result.stdout.splitlines()[1:-1]], [A, B])
        self.assertEqual(result.stderr,
                         'session-restore-ctl: not listed (store gtk-flatpak): '
                         f'{self.unreadable}: Permission denied\n')

    def test_json_has_the_errors(self):
        result = self.ctl('list', '--json')
        self.assertEqual(result.status, FAILED, result)
        listing = json.loads(result.stdout)
        self.assertEqual([app['app_id'] for app in listing['apps']], [A, B])
        self.assertEqual(listing['total']['apps'], 2)
        self.assertEqual(listing['errors'],
                         {'gtk-flatpak': [f'{self.unreadable}: Permission denied']})
        # Whole again: an empty object, and success.
        os.chmod(self.unreadable, 0o755)
        result = self.ctl('list', '--json')
        self.assertEqual(result.status, 0, result)
        self.assertEqual(json.loads(result.stdout)['errors'], {})

    def test_status_and_completion_count_apps_only(self):
        status = self.ctl('status')
        self.assertIn('Saved sessions:   2 (', status.stdout)
        self.assertIn('(some could not be read: see “list”)', status.stdout)
        self.assertEqual(self.ctl('_complete', 'apps').stdout.split('\n'), [A, B, ''])


class LatePolkitTest(CtlTestCase):
    def test_set_fails_in_words_and_a_late_yes_changes_nothing(self):
        # The case: "set" exited 7, and the value was 5 afterwards.
        # The tool waits longer than policyd waits for polkit, so the
        # answer is policyd's, and polkit's late "yes" is not acted on.
        self.s.mock_polkit('SimulateHang', 'b', True)
        result = self.ctl('set', 'max-age-days', '5')
        self.assertEqual(result.status, UNAVAILABLE, result)
        self.assertEqual(result.stderr, 'session-restore-ctl: polkit did not answer in time about '
                         'org.gnome.SessionRestore.configure; nothing was changed\n')
        self.s.mock_polkit('SimulateHang', 'b', False)
        self.s.mock_polkit('ReleaseHangingCalls')
        # Acted on after the late answer, which polkit sent first.
        self.s.set_setting('crash-loop-threshold', GLib.Variant('u', 4))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)


class MonitorRestartTest(CtlTestCase):
    def start_monitor(self):
        monitor = subprocess.Popen([CTL, 'monitor'], env=self.s.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        self.addCleanup(lambda: monitor.poll() is None and monitor.kill())
        self.assertIn('Watching', Lines(monitor.stderr).next())
        return monitor, Lines(monitor.stdout)

    def lines_until_sentinel(self, out):
        """The lines printed up to a change made now, which is the last."""
        self.s.gsettings('set', 'crash-loop-window', '601')
        lines = []
        while not lines or lines[-1] != 'crash-loop-window: 601':
            lines.append(out.next())
        return lines[:-1]

    def restart(self, while_stopped=None):
        self.s.stop_policyd()
        if while_stopped:
            while_stopped()
        self.s.start_policyd()

    def test_restart_with_nothing_changed_prints_no_setting(self):
        monitor, out = self.start_monitor()
        self.restart()
        self.assertEqual(sorted(self.lines_until_sentinel(out)),
                         ['service: running', 'service: stopped'])
        monitor.terminate()
        self.assertEqual(monitor.wait(10), 0)

    def test_restart_prints_what_changed_meanwhile(self):
        monitor, out = self.start_monitor()
        self.restart(lambda: self.s.gsettings('set', 'login-restore', 'never'))
        self.assertEqual(sorted(self.lines_until_sentinel(out)),
                         ['login-restore: never', 'service: running', 'service: stopped'])
        # And a change back is a change again.
        self.s.gsettings('set', 'login-restore', 'always')
        self.assertEqual(out.next(), 'login-restore: always')
        monitor.terminate()
