"""session-restore-ctl when things go wrong around it: a listing that could
not read everything, policyd restarting under `monitor`, and polkit not
answering in time."""
import json
import os
import unittest

from ctltest import FAILED, UNAVAILABLE, CtlTestCase
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
        self.assertIn('Saved sessions:   2 apps, ', status.stdout)
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
