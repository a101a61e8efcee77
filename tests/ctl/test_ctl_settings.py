"""get, set, reset, exclude and include against a real policyd and real dconf, and
the words the shell's completion asks the tool for (test_ctl_docs runs the
completion itself); the other commands are test_ctl_commands'."""
import json
import os

from ctltest import INVALID, LOCKED, NOT_ALLOWED, OK, UNAVAILABLE, CtlTestCase
from simulator import Simulator
from srtest import DESKTOP_SCHEMA, now_us

A, B, C = 'org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'


class SettingsTest(CtlTestCase):
    def test_get_and_set_every_kind_of_value(self):
        # key, what "set" is given, the value, what "get" prints, and
        # "get --gvariant" (gsettings' form, which "set" reads back).
        for key, text, value, plain, gvariant in (
                ('enabled', 'false', False, 'false', 'false'),
                ('login-restore', 'ask', 'ask', 'ask', "'ask'"),
                ('login-restore', "'never'", 'never', 'never', "'never'"),
                ('max-age-days', '-1', -1, '-1', '-1'),
                ('max-age-days', '12', 12, '12', '12'),
                ('crash-loop-threshold', '0', 0, '0', '0'),
                ('crash-loop-window', '300', 300, '300', '300'),
                ('excluded-apps', f"['{A}', '{B}']", [A, B], f'{A}\n{B}', f"['{A}', '{B}']"),
                ('excluded-apps', '[]', [], None, '[]')):
            self.assertCtl(OK, 'set', key, text)
            self.assertEqual(self.s.gsettings_value(key), value, key)
            # An empty list is no line at all.
            self.assertEqual(self.assertCtl(OK, 'get', key).stdout,
                             plain + '\n' if plain is not None else '')
            self.assertEqual(self.assertCtl(OK, 'get', '--gvariant', key).stdout, gvariant + '\n')
            self.assertEqual(json.loads(self.assertCtl(OK, 'get', '--json', key).stdout),
                             {'key': key, 'value': value, 'locked': False})
            # The old form goes back in as it came out.
            self.assertCtl(OK, 'set', key, gvariant)
            self.assertEqual(self.s.gsettings_value(key), value, key)

    def test_get_escapes_what_gsettings_wrote(self):
        # Not an app id, so not through the service: gsettings takes
        # anything, and one item must stay one line.
        self.s.gsettings('set', 'excluded-apps', "['two\\nlines', 'org.example.Alpha']")
        self.s.wait_until(lambda: len(self.s.prop('ExcludedApps')) == 2, what='the list')
        self.assertEqual(self.assertCtl(OK, 'get', 'excluded-apps').stdout,
                         'two\\nlines\norg.example.Alpha\n')
        self.assertIn('--json and --gvariant', self.assertCtl(
            INVALID, 'get', '--json', '--gvariant', 'enabled').stderr)

    def test_set_and_reset_json(self):
        self.assertEqual(json.loads(self.assertCtl(OK, 'set', '--json', 'max-age-days', '-1').stdout),
                         {'command': 'set', 'key': 'max-age-days', 'value': -1})
        self.assertEqual(self.s.gsettings_value('max-age-days'), -1)
        # After the key and value too; after "--", a value.
        self.assertEqual(json.loads(self.assertCtl(OK, 'set', 'excluded-apps', f"['{A}']",
                                                   '--json').stdout),
                         {'command': 'set', 'key': 'excluded-apps', 'value': [A]})
        self.assertCtl(INVALID, 'set', '--', 'login-restore', '--json')
        self.assertEqual(json.loads(self.assertCtl(OK, 'reset', '--json', 'max-age-days').stdout),
                         {'command': 'reset', 'key': 'max-age-days'})
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)

    def test_reset(self):
        self.assertCtl(OK, 'set', 'max-age-days', '12')
        self.assertCtl(OK, 'set', 'enabled', 'false')
        self.assertEqual(self.assertCtl(OK, 'reset', 'max-age-days').stdout, '')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        self.assertEqual(self.assertCtl(OK, 'get', 'max-age-days').stdout, '30\n')
        # The switch resets with GNOME's, which "set" wrote with it.
        self.assertCtl(OK, 'reset', 'enabled')
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertEqual(self.s.gsettings_value('save-restore', DESKTOP_SCHEMA), True)
        self.assertIn('There is no setting “nope”', self.assertCtl(INVALID, 'reset', 'nope').stderr)
        self.assertIn('set by the administrator',
                      self.assertCtl(INVALID, 'reset', 'admin-excluded-apps').stderr)
        self.assertIn('takes one setting key', self.assertCtl(INVALID, 'reset').stderr)
        # Unlike "gsettings reset", polkit applies.
        self.assertCtl(OK, 'set', 'crash-loop-window', '60')
        self.s.set_allowed([])
        self.assertIn("Not allowed", self.assertCtl(NOT_ALLOWED, 'reset', 'crash-loop-window').stderr)
        self.assertEqual(self.s.gsettings_value('crash-loop-window'), 60)

    def test_bad_values_change_nothing(self):
        for args, message in (
                (('set', 'max-age-days', '4000'), 'from -1 to 3650'),
                (('set', 'max-age-days', 'seven'), 'a whole number from -1 to 3650'),
                (('set', 'crash-loop-window', '0'), 'from 1 to 604800'),
                (('set', 'login-restore', 'sometimes'), 'one of always, ask, never'),
                (('set', 'enabled', 'yes'), 'true or false'),
                (('set', 'excluded-apps', "['not valid']"), 'not a valid application id'),
                (('set', 'excluded-apps', '5'), "like “['org.example.App']”"),
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


class ExcludeTest(CtlTestCase):
    # The state A's owner writes without asking, once A is excluded, is
    # what the start-up purge removes: the test begins once it has run
    # (C, excluded by the administrator, is its sign), or it may run in
    # the middle (under valgrind, after any second without a call, or 30 s
    # on), and the last exclude finds nothing to speak of.
    site = {'admin-excluded-apps': [C]}
    start = False

    def setUp(self):
        super().setUp()
        Simulator(self.s).start_policyd_after_purge(C)

    def test_exclude_and_include(self):
        sim = Simulator(self.s)
        sim.save(A)
        sim.save(B)
        out = self.assertCtl(OK, 'exclude', A).stdout
        self.assertEqual(out, f'{A}: excluded; its saved sessions were cleared\n')
        self.assertFalse(os.path.exists(sim.gtk_path(A, '1')))
        self.assertTrue(os.path.exists(sim.gtk_path(B, '1')))
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [A])
        self.assertEqual(self.s.check_save(A), (0, 'excluded'))
        self.assertEqual(self.assertCtl(OK, 'include', A).stdout, f'{A}: included\n')
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        # Excluded already, nothing stored: it says so, in words.
        self.assertCtl(OK, 'exclude', A)
        self.assertEqual(self.assertCtl(OK, 'exclude', A).stdout,
                         f'{A}: already excluded; it has no saved sessions\n')
        # Saved sessions an owner wrote without asking are not cleared
        # by a second exclude: it says what to do.
        sim.memory[A] = {'1': {'saved_at': now_us(), 'flatpak': False, 'payload': b''}}
        sim.write_back()
        out = self.assertCtl(OK, 'exclude', A).stdout
        self.assertRegex(out, rf'^{A}: already excluded, but it has saved sessions \(\d+ bytes\) '
                         rf'that it wrote without asking; “session-restore-ctl clear {A}” clears them\n$')
        self.assertCtl(OK, 'include', A)
        # A bad id among good ones: nothing is done.
        result = self.assertCtl(INVALID, 'exclude', B, 'org.example/../etc')
        self.assertIn('The app id contains “/” or “..”', result.stderr)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        self.assertTrue(os.path.exists(sim.gtk_path(B, '1')))


    def test_warns_of_an_app_neither_installed_nor_saved(self):
        typo, other, saved = 'org.example.Alpah', 'org.example.Other', 'org.example.Delta'
        entry = '[Desktop Entry]\nType=Application\nName=App\nExec=true\n'
        # A is installed, B is a Flatpak's export, saved has saved sessions.
        for folder, app in ((('applications',), A),
                            (('flatpak', 'exports', 'share', 'applications'), B)):
            path = os.path.join(self.s.data_home, *folder)
            os.makedirs(path, exist_ok=True)
            with open(os.path.join(path, f'{app}.desktop'), 'w', encoding='utf-8') as f:
                f.write(entry)
        Simulator(self.s).save(saved)

        def warning(app):
            return (f'session-restore-ctl: warning: no app “{app}” is installed, and it has no '
                    'saved sessions; is the app id right?\n')

        result = self.assertCtl(OK, 'exclude', typo, A, B, saved)
        self.assertEqual(result.stderr, warning(typo))
        self.assertEqual(result.stdout.splitlines()[0], f'{typo}: excluded; its saved sessions were cleared')
        # Done all the same.
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [typo, A, B, saved])
        # An app that was not excluded is not said to be included.
        result = self.assertCtl(OK, 'include', typo, other, A)
        self.assertEqual(result.stdout, f'{typo}: included\n{other} was not excluded\n{A}: included\n')
        self.assertEqual(result.stderr, warning(typo) + warning(other))
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [B, saved])
        doc = json.loads(self.assertCtl(OK, 'exclude', '--json', typo, A).stdout)
        self.assertEqual(doc, {'command': 'exclude', 'apps': [
            {'app_id': typo, 'result': 'excluded', 'installed': False, 'unknown': True},
            {'app_id': A, 'result': 'excluded', 'installed': True, 'unknown': False}]})
        doc = json.loads(self.assertCtl(OK, 'include', '--json', typo, other).stdout)
        self.assertEqual([(app['app_id'], app['result']) for app in doc['apps']], [
            (typo, 'included'), (other, 'not-excluded')])
        self.assertEqual(json.loads(self.assertCtl(OK, 'exclude', '--json', A, C).stdout)['apps'], [
            {'app_id': A, 'result': 'already-excluded', 'installed': True, 'unknown': False},
            {'app_id': C, 'result': 'already-excluded-by-administrator', 'installed': False,
             'unknown': True}])
        # Without the right to list, nothing is claimed.
        self.s.set_allowed(['org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear'])
        self.assertEqual(self.assertCtl(OK, 'exclude', other).stderr, '')


class ResetLockedTest(CtlTestCase):
    site = {'login-restore': 'never'}
    locks = ('login-restore',)

    def test_completion_leaves_locked_keys_out(self):
        settable = self.assertCtl(OK, '_complete', 'settable').stdout.split()
        self.assertNotIn('login-restore', settable)
        self.assertNotIn('admin-excluded-apps', settable)
        self.assertIn('max-age-days', settable)
        self.assertIn('login-restore', self.assertCtl(OK, '_complete', 'keys').stdout.split())

    def test_locked(self):
        stderr = self.assertCtl(LOCKED, 'reset', 'login-restore').stderr
        self.assertIn('locked by the administrator', stderr)
        self.assertNotIn('GDBus.Error', stderr)
        self.assertNotIn('org.gnome.SessionRestore.Error', stderr)
        # The D-Bus error only with --verbose, before or after the command.
        for args in (('--verbose', 'reset', 'login-restore'), ('reset', 'login-restore', '--verbose')):
            stderr = self.assertCtl(LOCKED, *args).stderr
            self.assertTrue(stderr.startswith('session-restore-ctl: GDBus.Error:'
                                              'org.gnome.SessionRestore.Error.Locked: '), stderr)
            self.assertIn('locked by the administrator', stderr)
        self.assertEqual(self.assertCtl(OK, 'get', 'login-restore').stdout, 'never\n')
        self.assertEqual(json.loads(self.assertCtl(OK, 'get', '--json', 'login-restore').stdout),
                         {'key': 'login-restore', 'value': 'never', 'locked': True})


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
        # What set and reset take: not the administrator's list.
        self.assertEqual(self.assertCtl(OK, '_complete', 'settable').stdout.split(), [
            'enabled', 'login-restore', 'restore-after-crash', 'restore-on-launch',
            'excluded-apps', 'max-age-days', 'crash-loop-threshold', 'crash-loop-window'])
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
