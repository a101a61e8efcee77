"""get, set, exclude and include against a real policyd and real dconf, and
the words the shell's completion asks the tool for (test_ctl_docs runs the
completion itself); the other commands are test_ctl_commands'."""
import os

from ctltest import INVALID, OK, UNAVAILABLE, CtlTestCase
from simulator import Simulator

A, B, C = 'org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'


class SettingsTest(CtlTestCase):
    def test_get_and_set_every_kind_of_value(self):
        for key, text, value, shown in (
                ('enabled', 'false', False, 'false'),
                ('login-restore', 'ask', 'ask', "'ask'"),
                ('login-restore', "'never'", 'never', "'never'"),
                ('max-age-days', '-1', -1, '-1'),
                ('max-age-days', '12', 12, '12'),
                ('crash-loop-threshold', '0', 0, '0'),
                ('crash-loop-window', '300', 300, '300'),
                ('excluded-apps', f"['{A}', '{B}']", [A, B], f"['{A}', '{B}']")):
            self.assertCtl(OK, 'set', key, text)
            self.assertEqual(self.s.gsettings_value(key), value, key)
            self.assertEqual(self.assertCtl(OK, 'get', key).stdout, shown + '\n')

    def test_bad_values_change_nothing(self):
        for args, message in (
                (('set', 'max-age-days', '4000'), 'from -1 to 3650'),
                (('set', 'max-age-days', 'seven'), 'a whole number from -1 to 3650'),
                (('set', 'crash-loop-window', '0'), 'from 1 to 604800'),
                (('set', 'login-restore', 'sometimes'), 'one of always, ask, never'),
                (('set', 'enabled', 'yes'), 'true or false'),
                (('set', 'excluded-apps', "['not valid']"), 'not a valid application id'),
                (('set', 'admin-excluded-apps', '[]'), 'set by the administrator'),
                (('set', 'no-such-key', '1'), 'There is no setting “no-such-key”'),
                (('get', 'no-such-key'), 'the settings are enabled, login-restore'),
                (('set', 'max-age-days'), 'takes a setting key and a value')):
            result = self.assertCtl(INVALID, *args)
            self.assertIn(message, result.stderr, args)
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        self.assertEqual(self.s.gsettings_value('crash-loop-window'), 600)
        self.assertEqual(self.s.gsettings_value('login-restore'), 'always')
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])

    def test_exclude_and_include(self):
        sim = Simulator(self.s)
        sim.save(A)
        sim.save(B)
        out = self.assertCtl(OK, 'exclude', A).stdout
        self.assertEqual(out, f'{A}: excluded; its saved state was forgotten\n')
        self.assertFalse(os.path.exists(sim.gtk_path(A, '1')))
        self.assertTrue(os.path.exists(sim.gtk_path(B, '1')))
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [A])
        self.assertEqual(self.s.check_save(A), (0, 'excluded'))
        self.assertEqual(self.assertCtl(OK, 'include', A).stdout, f'{A}: included\n')
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        # A bad id among good ones: nothing is done.
        result = self.assertCtl(INVALID, 'exclude', B, 'org.example/../etc')
        self.assertIn('The app id contains “/” or “..”', result.stderr)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        self.assertTrue(os.path.exists(sim.gtk_path(B, '1')))


class CompleteTest(CtlTestCase):
    """The words the bash completion asks for (test_ctl_docs runs the
    completion itself), one a line."""

    def test_words_for_the_shell(self):
        self.assertEqual(self.assertCtl(OK, '_complete', 'keys').stdout.split(), [
            'enabled', 'login-restore', 'restore-after-crash', 'restore-on-launch',
            'excluded-apps', 'admin-excluded-apps', 'max-age-days', 'crash-loop-threshold',
            'crash-loop-window'])
        self.assertEqual(self.assertCtl(OK, '_complete', 'values', 'login-restore').stdout,
                         'always\nask\nnever\n')
        self.assertEqual(self.assertCtl(OK, '_complete', 'values', 'enabled').stdout, 'true\nfalse\n')
        self.assertEqual(self.assertCtl(OK, '_complete', 'values', 'max-age-days').stdout, '')
        self.assertEqual(self.assertCtl(OK, '_complete', 'apps').stdout, '')
        sim = Simulator(self.s)
        sim.save(A)
        sim.save(B, flatpak=True)
        self.s.call('SetAppExcluded', 'sb', C, True)
        # The excluded apps, then those with stored state.
        self.assertEqual(self.assertCtl(OK, '_complete', 'excluded').stdout, f'{C}\n')
        self.assertEqual(self.assertCtl(OK, '_complete', 'apps').stdout, f'{C}\n{A}\n{B}\n')
        # Without the service: the values still; no apps, and not a word
        # on the terminal the user is typing on.
        self.s.stop_policyd()
        self.assertEqual(self.assertCtl(OK, '_complete', 'values', 'login-restore').stdout,
                         'always\nask\nnever\n')
        self.assertEqual(self.ctl('_complete', 'apps'), (UNAVAILABLE, '', ''))
