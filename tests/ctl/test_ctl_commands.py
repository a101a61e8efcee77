"""Every command of session-restore-ctl against a real policyd, real dconf
and the consumer simulator's real GTK and gnome-session state; get, set,
exclude, include and the completion's words are test_ctl_settings'."""
import json
import os
import pty
import subprocess
import sys
import time

from ctltest import ASK, CTL, DENIED, INVALID, LOCKED, NOT_ALLOWED, OK, CtlTestCase, Lines
from sessionfile import write_session_file
from simulator import Simulator
from srtest import RECOVER, RESTORE, USEC_PER_DAY, GLib, files_under, now_us

A, B, C = 'org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'


class StatusTest(CtlTestCase):
    site = {'max-age-days': 5}
    locks = ('max-age-days',)

    def test_status_shows_settings_locks_state_and_service(self):
        sim = Simulator(self.s)
        sim.save(A, '1')
        sim.save(B, '1')
        self.s.call('SetAppExcluded', 'sb', C, True)
        self.s.call('SetAppExcluded', 'sb', 'org.example.Delta', True)
        out = self.assertCtl(OK, 'status').stdout
        self.assertRegex(out, rf'Service: +running \(:\d+\.\d+, pid {self.s.policyd.pid}, interface version 5\)')
        self.assertRegex(out, r'Saved sessions: +2 \(\d+')
        lines = {line.split()[0]: line for line in out.splitlines() if line}
        self.assertRegex(lines['max-age-days'], r'^max-age-days +5 +locked by the administrator$')
        self.assertRegex(lines['enabled'], r'^enabled +true$')
        # Plain values, as "get" prints them: no GVariant quotes or brackets.
        self.assertRegex(lines['login-restore'], r'^login-restore +always$')
        self.assertRegex(lines['excluded-apps'], rf'^excluded-apps +{C}, org\.example\.Delta$')
        self.assertRegex(lines['admin-excluded-apps'], r'^admin-excluded-apps +\(none\)$')
        self.assertNotIn("'", out)
        self.assertNotIn('[', out)
        for key in ('restore-after-crash', 'restore-on-launch', 'excluded-apps',
                    'admin-excluded-apps', 'crash-loop-threshold', 'crash-loop-window'):
            self.assertIn(key, lines)
            self.assertNotIn('locked', lines[key])
        # Plain output when not on a terminal.
        self.assertNotIn('\033', out)
        # Locked it is: a change is refused, and nothing changes.
        self.assertCtl(LOCKED, 'set', 'max-age-days', '7')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 5)

    def test_no_command_is_status(self):
        Simulator(self.s).save(A, '1')
        # As systemctl and powerprofilesctl: the overview, not a usage error.
        self.assertEqual(self.assertCtl(OK).stdout, self.assertCtl(OK, 'status').stdout)

    def test_status_json(self):
        sim = Simulator(self.s)
        sim.save(A, '1')
        sim.save(B, '1', payload=b'x' * 100)
        listing = self.s.list_state()
        doc = json.loads(self.assertCtl(OK, 'status', '--json').stdout)
        self.assertEqual(doc['service'], {'state': 'running', 'bus_name': self.s.bus.call_sync(
            'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'GetNameOwner',
            GLib.Variant('(s)', ('org.gnome.SessionRestore.Policy',)), None, 0, 5000, None).unpack()[0],
            'pid': self.s.policyd.pid, 'version': 5})
        self.assertEqual(doc['saved_sessions'], {
            'apps': 2, 'bytes': sum(i['bytes'] for i in listing.values()), 'expired': 0,
            'cleared': 0, 'complete': True, 'not_shown': None})
        # The simulator asked before saving: a consumer, named, with its time.
        self.assertEqual(len(doc['consumers']), 1)
        consumer = doc['consumers'][0]
        self.assertEqual(consumer['sandbox'], None)
        self.assertEqual(consumer['program'], os.path.basename(os.path.realpath(sys.executable)))
        self.assertLess(abs(consumer['last_asked_usec'] - now_us()), 600 * 1000000)
        self.assertEqual(consumer['last_asked'], time.strftime(
            '%Y-%m-%dT%H:%M:%SZ', time.gmtime(consumer['last_asked_usec'] // 1000000)))
        # Every setting, its value in force as JSON, and its lock.
        self.assertEqual(doc['settings']['max-age-days'], {'value': 5, 'locked': True})
        self.assertEqual(doc['settings']['login-restore'], {'value': 'always', 'locked': False})
        self.assertEqual(doc['settings']['excluded-apps'], {'value': [], 'locked': False})
        self.assertEqual(len(doc['settings']), 9)

    def test_status_without_the_right_to_list(self):
        self.s.set_allowed([])
        out = self.assertCtl(OK, 'status').stdout
        self.assertIn("Saved sessions:   not shown (Not allowed by the system's polkit rules", out)
        shown = json.loads(self.assertCtl(OK, 'status', '--json').stdout)['saved_sessions']
        self.assertEqual((shown['apps'], shown['bytes'], shown['expired'], shown['cleared'],
                          shown['complete']), (None, None, None, None, None))
        self.assertIn("Not allowed by the system's polkit rules", shown['not_shown'])


class ListTest(CtlTestCase):
    site = {'admin-excluded-apps': [C]}
    locks = ('admin-excluded-apps',)
    # B's and C's state (fill) is what the start-up purge removes: the
    # tests begin once it has run, or it may run in the middle of one.
    start = False

    def setUp(self):
        super().setUp()
        Simulator(self.s).start_policyd_after_purge(C)

    def fill(self):
        sim = Simulator(self.s)
        sim.save(A, '1')
        sim.save(A, '2', payload=b'x' * 500)
        sim.save(B, '1', flatpak=True)
        sim.write_compositor()
        # C is excluded by the administrator: its state was written by an
        # owner that did not ask.
        sim.memory[C] = {'1': {'saved_at': now_us(), 'flatpak': False, 'payload': b''}}
        sim.write_back()
        self.s.call('SetAppExcluded', 'sb', B, True)
        sim.save(B, '1', flatpak=True)      # refused: B is excluded now
        sim.memory[B] = {'1': {'saved_at': now_us(), 'flatpak': True, 'payload': b''}}
        sim.write_back()
        return sim

    def test_json_matches_the_service(self):
        self.fill()
        listing = self.s.list_state()
        doc = json.loads(self.assertCtl(OK, 'list', '--json').stdout)
        self.assertEqual([app['app_id'] for app in doc['apps']], sorted(listing))
        for app in doc['apps']:
            info = listing[app['app_id']]
            self.assertIs(app['stored'], True)
            self.assertEqual(app['bytes'], info['bytes'])
            self.assertEqual(app['entries'], info['entries'])
            self.assertEqual(app['windows'], info.get('windows'))
            self.assertEqual(app['stores'], info['stores'])
            self.assertEqual(app['last_saved_usec'], info['last-saved'])
            self.assertEqual(app['last_saved'], time.strftime(
                '%Y-%m-%dT%H:%M:%SZ', time.gmtime(info['last-saved'] // 1000000)))
            # Fields the service may not give yet are null, never guessed.
            for key, dbus_key in (('state', 'state'), ('at_login', 'at-login'),
                                  ('crash_loop', 'crash-loop')):
                self.assertEqual(app[key], info.get(dbus_key))
        by_id = {app['app_id']: app for app in doc['apps']}
        self.assertEqual(by_id[A]['windows'], 2)
        self.assertEqual((by_id[A]['excluded'], by_id[A]['admin_excluded']), (False, False))
        self.assertEqual((by_id[B]['excluded'], by_id[B]['admin_excluded']), (True, False))
        self.assertEqual((by_id[C]['excluded'], by_id[C]['admin_excluded']), (True, True))
        self.assertEqual(doc['total'], {'apps': 3, 'bytes': sum(i['bytes'] for i in listing.values()),
                                        'entries': sum(i['entries'] for i in listing.values()),
                                        'expired': 0, 'cleared': 0})

    def test_named_apps(self):
        self.fill()
        doc = json.loads(self.assertCtl(OK, 'list', '--json', B, 'org.example.Nothing').stdout)
        self.assertEqual([a['app_id'] for a in doc['apps']], [B, 'org.example.Nothing'])
        nothing = doc['apps'][1]
        self.assertEqual((nothing['stored'], nothing['bytes'], nothing['entries'], nothing['stores'],
                          nothing['last_saved'], nothing['windows']),
                         (False, 0, 0, [], None, None))
        self.assertEqual(doc['total']['apps'], 1)

    def test_table(self):
        self.fill()
        out = self.assertCtl(OK, 'list').stdout
        lines = out.splitlines()
        self.assertEqual(lines[0].split(), ['APP', 'SIZE', 'WINDOWS', 'LAST', 'SAVED', 'STORES', 'NOTES'])
        rows = {line.split()[0]: line for line in lines[1:-1]}
        self.assertEqual(sorted(rows), [A, B, C])
        self.assertIn('gnome-session,gtk', rows[A])
        self.assertRegex(rows[A], rf'^{A} +\d+ bytes +2 +\d{{4}}-\d\d-\d\d \d\d:\d\d +gnome-session,gtk +reopens at login$')
        self.assertRegex(rows[B], r'  excluded(,|$)')
        self.assertIn('  excluded by the administrator', rows[C])
        self.assertRegex(lines[-1], r'^3 saved sessions \(\d')
        self.assertNotIn('\033', out)

    def test_empty(self):
        self.assertEqual(self.assertCtl(OK, 'list').stdout, 'No saved sessions.\n')
        self.assertEqual(json.loads(self.assertCtl(OK, 'list', '--json').stdout),
                         {'apps': [], 'total': {'apps': 0, 'bytes': 0, 'entries': 0, 'expired': 0,
                                                    'cleared': 0},
                          'errors': {}})


class OwnTimeTest(CtlTestCase):
    """Issue 24: each app's line tells its own last save, not the time of a
    session file many apps share, and the totals count what will come back
    in the words of the notes, as the panel does."""
    HOUR = 3600 * 1000000
    # B's entry, too old in a fresh shared file, is what the start-up purge
    # removes: the tests begin once it has run (an excluded app's state
    # going is its sign), as an owner writes back between two purges.
    start = False

    def setUp(self):
        super().setUp()
        sentinel = 'org.example.Sentinel'
        self.s.gsettings('set', 'excluded-apps', f"['{sentinel}']")
        Simulator(self.s).start_policyd_after_purge(sentinel)
        self.s.gsettings('reset', 'excluded-apps')
        self.s.wait_until(lambda: self.s.prop('ExcludedApps') == [], what='no app excluded')
        now = self.now = now_us()
        state = self.s.state_home
        write_session_file(os.path.join(state, 'session-restore-portal@test.state'),
                           {A: [now - 3 * self.HOUR], B: [now - 40 * USEC_PER_DAY]}, now)
        write_session_file(os.path.join(state, 'gnome-session@gnome.state'),
                           {C: [None], 'org.example.Bare': [None]}, now)
        sim = Simulator(self.s, listening=False)
        with open(sim.gtk_path(C, '1'), 'wb') as f:
            f.write(sim.gtk_state(C, '1', b'').get_data_as_bytes().get_data())
        self.gtk_time = (now - 5 * USEC_PER_DAY) // 1000000 * 1000000
        os.utime(sim.gtk_path(C, '1'), (self.gtk_time / 1e6, self.gtk_time / 1e6))

    def test_json(self):
        doc = json.loads(self.assertCtl(OK, 'list', '--json').stdout)
        apps = {app['app_id']: app for app in doc['apps']}
        self.assertEqual(apps[A]['last_saved_usec'], self.now - 3 * self.HOUR)
        self.assertEqual(apps[B]['last_saved_usec'], self.now - 40 * USEC_PER_DAY)
        self.assertEqual(apps[B]['state'], 'expired')
        self.assertEqual(apps[C]['last_saved_usec'], self.gtk_time)
        self.assertEqual(apps[C]['last_saved'], time.strftime(
            '%Y-%m-%dT%H:%M:%SZ', time.gmtime(self.gtk_time // 1000000)))
        self.assertEqual((apps['org.example.Bare']['last_saved'],
                          apps['org.example.Bare']['last_saved_usec']), (None, None))
        self.assertEqual((doc['total']['apps'], doc['total']['expired'], doc['total']['cleared']),
                         (4, 1, 0))
        status = json.loads(self.assertCtl(OK, 'status', '--json').stdout)['saved_sessions']
        self.assertEqual((status['apps'], status['expired'], status['cleared']), (4, 1, 0))

    def test_table_and_status(self):
        lines = self.assertCtl(OK, 'list').stdout.splitlines()
        rows = {line.split()[0]: line for line in lines[1:-1]}
        self.assertRegex(rows['org.example.Bare'], r'^org\.example\.Bare +\d+ bytes +- +- +gnome-session ')
        self.assertIn(time.strftime('%Y-%m-%d', time.localtime(self.gtk_time // 1000000)), rows[C])
        self.assertIn('too old to be restored', rows[B])
        self.assertRegex(lines[-1], r'^4 saved sessions \(\d[\d.]* \w+\), 1 too old to be restored$')
        status = self.assertCtl(OK, 'status').stdout
        self.assertRegex(status, r'Saved sessions: +4 \(\d[\d.]* \w+\), 1 too old to be restored\n')


class ClearTest(CtlTestCase):
    def test_clear_some_removes_real_gtk_and_session_state(self):
        sim = Simulator(self.s)
        for app in (A, B, C):
            sim.save(app, '1')
        sim.save(A, '2', flatpak=True)
        sim.write_compositor()
        before = files_under(self.s.home)
        # Before the clear: under valgrind the tool takes seconds to exit.
        saved_before = now_us() - 1000000

        result = self.assertCtl(OK, 'clear', A, B)
        self.assertRegex(result.stdout, r'(?m)^gnome-session +3 entries +\d+ bytes$')
        self.assertRegex(result.stdout, r'(?m)^gtk +2 entries +\d+ bytes$')
        self.assertRegex(result.stdout, r'(?m)^gtk-flatpak +1 entry +\d+ bytes$')
        self.assertRegex(result.stdout, r'(?m)^Removed 6 entries \(\d+ bytes\) of 2 apps\.$')
        self.assertNotIn('mutter', result.stdout)
        for app, instance, flatpak in ((A, '1', False), (A, '2', True), (B, '1', False)):
            self.assertFalse(os.path.exists(sim.gtk_path(app, instance, flatpak)))
        self.assertEqual(sorted(sim.session_file_apps()['instances']), [C])
        after = files_under(self.s.home)
        for path, data in before.items():
            if A not in path and B not in path and 'gnome-session@' not in path:
                self.assertEqual(after.get(path), data, path)
        # The clear holds: old state written back is not restored.
        old = GLib.Variant('x', saved_before)
        self.assertEqual(self.s.check_restore(A, RESTORE, {'saved-at': old}), (0, 'cleared'))

    def test_clear_all(self):
        sim = Simulator(self.s)
        sim.save(A)
        sim.save(B, flatpak=True)
        sim.write_compositor()
        result = self.assertCtl(OK, 'clear')
        self.assertRegex(result.stdout, r'(?m)^mutter +1 entry +\d+ bytes$')
        self.assertEqual(self.s.list_state(), {})
        self.assertFalse(os.path.exists(sim.compositor_path))
        self.assertEqual(sim.session_file_apps()['instances'], {})
        self.assertEqual(self.assertCtl(OK, 'clear').stdout, 'There were no saved sessions.\n')

    def test_clear_json(self):
        sim = Simulator(self.s)
        sim.save(A, '1')
        sim.save(A, '2', flatpak=True)
        sim.save(B, '1')
        doc = json.loads(self.assertCtl(OK, 'clear', '--json', A).stdout)
        self.assertEqual(list(doc), ['command', 'all', 'apps', 'entries', 'bytes', 'stores', 'errors'])
        self.assertEqual((doc['command'], doc['all'], doc['apps'], doc['errors']),
                         ('clear', False, [A], []))
        self.assertEqual(doc['stores']['gtk']['entries'], 1)
        self.assertEqual(doc['stores']['gtk-flatpak']['entries'], 1)
        self.assertGreaterEqual(doc['stores']['gnome-session']['entries'], 1)
        self.assertEqual(doc['entries'], sum(store['entries'] for store in doc['stores'].values()))
        self.assertEqual(doc['bytes'], sum(store['bytes'] for store in doc['stores'].values()))
        self.assertFalse(os.path.exists(sim.gtk_path(A, '1')))
        self.assertTrue(os.path.exists(sim.gtk_path(B, '1')))
        doc = json.loads(self.assertCtl(OK, 'clear', '--json').stdout)
        self.assertEqual((doc['all'], doc['apps']), (True, [B]))
        self.assertEqual(doc['stores']['gtk']['entries'], 1)
        self.assertEqual(self.s.list_state(), {})

    def run_on_terminal(self, answer, *args):
        """stdin is a terminal: the tool asks, and gets answer."""
        master, slave = pty.openpty()
        try:
            process = subprocess.Popen([CTL, *args], env=self.s.env, stdin=slave,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            os.write(master, answer.encode() + b'\n')
            stdout, stderr = process.communicate(timeout=60)
            return process.returncode, stdout, stderr
        finally:
            os.close(master)
            os.close(slave)

    def test_asks_on_a_terminal(self):
        sim = Simulator(self.s)
        sim.save(A)
        sim.save(B)
        status, out, err = self.run_on_terminal('n', 'clear', A)
        self.assertEqual(status, OK, err)
        self.assertIn(f'Clear the saved sessions of {A} (1 app, ', err)
        self.assertIn('Nothing was cleared.', err)
        self.assertEqual(out, '')
        self.assertTrue(os.path.exists(sim.gtk_path(A, '1')))

        status, out, err = self.run_on_terminal('y', 'clear', A)
        self.assertEqual(status, OK, err)
        self.assertIn('Removed', out)
        self.assertFalse(os.path.exists(sim.gtk_path(A, '1')))

        # --yes: no question even on a terminal.
        status, out, err = self.run_on_terminal('n', 'clear', '--yes', B)
        self.assertEqual(status, OK, err)
        self.assertNotIn('Forget', err)
        self.assertFalse(os.path.exists(sim.gtk_path(B, '1')))


class CheckTest(CtlTestCase):
    def test_verdicts_are_exit_statuses(self):
        self.assertEqual(self.assertCtl(OK, 'check', A).stdout, 'allow (allowed)\nNo setting stops it.\n')
        self.assertCtl(OK, 'check', A, '--reason', 'restore')
        self.s.gsettings('set', 'login-restore', 'ask')
        self.s.wait_until(lambda: self.s.prop('LoginRestore') == 'ask', what='ask')
        out = self.assertCtl(ASK, 'check', A, '--reason', 'restore').stdout
        self.assertEqual(out, 'ask (ask)\nThe session manager asks the user first (“login-restore” is ask).\n')
        self.assertCtl(OK, 'check', A, '--reason', 'launch')
        self.s.gsettings('set', 'restore-on-launch', 'false')
        self.s.wait_until(lambda: self.s.prop('RestoreOnLaunch') is False, what='launch off')
        out = self.assertCtl(DENIED, 'check', A, '--reason', 'launch').stdout
        self.assertIn('deny (launch-off)', out)
        self.assertIn('“restore-on-launch” is false', out)
        self.s.call('SetAppExcluded', 'sb', A, True)
        self.assertIn(f'{A} is excluded (“excluded-apps”)', self.assertCtl(DENIED, 'check', A).stdout)

    def test_saved_at(self):
        old = (now_us() - 40 * USEC_PER_DAY) // 1000000
        out = self.assertCtl(DENIED, 'check', A, '--reason', 'recover', '--saved-at', f'@{old}').stdout
        self.assertIn('deny (expired)', out)
        self.assertIn('older than 30 days', out)
        self.assertCtl(DENIED, 'check', A, '--reason', 'recover', '--saved-at', '31d')
        self.assertCtl(OK, 'check', A, '--reason', 'recover', '--saved-at', '29d')
        self.assertCtl(OK, 'check', A, '--reason', 'recover', '--saved-at',
                       time.strftime('%Y-%m-%dT%H:%M:%S', time.localtime(time.time() - 60)))
        # A date alone is its midnight, local time.
        day = 86400
        self.assertIn('deny (expired)', self.assertCtl(
            DENIED, 'check', A, '--reason', 'restore', '--saved-at',
            time.strftime('%Y-%m-%d', time.localtime(time.time() - 40 * day))).stdout)
        self.assertCtl(OK, 'check', A, '--reason', 'restore', '--saved-at',
                       time.strftime('%Y-%m-%d', time.localtime(time.time() - 20 * day)))
        self.s.clear([A])
        out = self.assertCtl(DENIED, 'check', A, '--reason', 'restore', '--saved-at', '1m').stdout
        self.assertIn('deny (cleared)', out)

    def test_json(self):
        doc = json.loads(self.assertCtl(OK, 'check', '--json', A).stdout)
        self.assertEqual(doc, {'app_id': A, 'reason': 'save', 'saved_at_usec': None,
                               'verdict': 'allow', 'why': 'allowed',
                               'explanation': 'No setting stops it.'})
        self.s.call('SetAppExcluded', 'sb', A, True)
        result = self.assertCtl(DENIED, 'check', '--json', A, '--reason', 'recover',
                                '--saved-at', '@1800000000')
        self.assertEqual(json.loads(result.stdout), {
            'app_id': A, 'reason': 'recover', 'saved_at_usec': 1800000000 * 1000000,
            'verdict': 'deny', 'why': 'excluded',
            'explanation': f'{A} is excluded (“excluded-apps”).'})
        self.s.gsettings('set', 'login-restore', 'ask')
        self.s.wait_until(lambda: self.s.prop('LoginRestore') == 'ask', what='ask')
        doc = json.loads(self.assertCtl(ASK, 'check', '--json', B, '--reason', 'restore').stdout)
        self.assertEqual((doc['verdict'], doc['why']), ('ask', 'ask'))

    def test_bad_input(self):
        for args, message in (
                (('check', A, '--reason', 'reboot'), '“reboot” is not a reason'),
                (('check', A, '--reason', 'restore', '--saved-at', 'yesterday'), 'is not a time'),
                (('check', A, '--saved-at', '1d'), '--saved-at needs a restore --reason'),
                (('check', 'App!'), '“App!” is not a valid application id'),
                (('check',), 'takes one app id')):
            self.assertIn(message, self.assertCtl(INVALID, *args).stderr, args)


class ResetCrashGuardTest(CtlTestCase):
    """What the panel's Allow Recovery button does."""

    def crash(self, app, times=3):
        for _ in range(times):
            self.s.call('NoteExit', 'sb', app, False)
        self.assertEqual(self.s.check_restore(app, RECOVER), (0, 'crash-loop'))

    def test_releases_an_app_held_back(self):
        self.crash(A)
        self.crash(B)
        self.assertIn('deny (crash-loop)', self.assertCtl(DENIED, 'check', A, '--reason', 'recover').stdout)
        out = self.assertCtl(OK, 'reset-crash-guard', A).stdout
        self.assertEqual(out, f'{A}: its crashes are no longer counted; its saved sessions may be '
                              'restored after a crash again\n')
        self.assertEqual(self.s.check_restore(A, RECOVER), (1, 'allowed'))
        self.assertEqual(self.s.check_restore(B, RECOVER), (0, 'crash-loop'))
        # The other name.
        self.assertCtl(OK, 'allow-recovery', B)
        self.assertEqual(self.s.check_restore(B, RECOVER), (1, 'allowed'))

    def test_says_when_nothing_was_held_back(self):
        self.crash(A)
        # One crash is counted, and holds nothing back.
        self.s.call('NoteExit', 'sb', B, False)
        self.assertEqual(self.s.check_restore(B, RECOVER), (1, 'allowed'))
        result = self.assertCtl(OK, 'allow-recovery', A, B)
        self.assertEqual(result.stdout, f'{A}: its crashes are no longer counted; its saved '
                         'sessions may be restored after a crash again\n'
                         f'{B} was not held back; its crashes are no longer counted\n')
        # Neither is installed, nor has anything saved: a mistyped id, maybe.
        self.assertIn(f'warning: no app “{A}” is installed', result.stderr)
        self.assertEqual(self.s.check_restore(A, RECOVER), (1, 'allowed'))
        self.assertEqual(self.assertCtl(OK, 'allow-recovery', A).stdout,
                         f'{A} was not held back; its crashes are no longer counted\n')
        # B's crash was forgotten: two more do not make three.
        for _ in range(2):
            self.s.call('NoteExit', 'sb', B, False)
        self.assertEqual(self.s.check_restore(B, RECOVER), (1, 'allowed'))

    def test_json(self):
        self.crash(A)
        self.s.call('NoteExit', 'sb', B, False)
        doc = json.loads(self.assertCtl(OK, 'allow-recovery', '--json', A, B).stdout)
        self.assertEqual(doc, {'command': 'allow-recovery', 'apps': [
            {'app_id': A, 'result': 'released', 'installed': False, 'unknown': True},
            {'app_id': B, 'result': 'not-held', 'installed': False, 'unknown': True}]})
        self.assertEqual(self.s.check_restore(A, RECOVER), (1, 'allowed'))

    def test_check_says_what_releases_it(self):
        # check told administrators the guard held an app "until it exits
        # normally", which released nothing. What it says now happens.
        self.crash(A)
        doc = json.loads(self.assertCtl(DENIED, 'check', '--json', A, '--reason', 'recover').stdout)
        self.assertEqual(doc['why'], 'crash-loop')
        self.assertEqual(doc['explanation'],
                         f'{A} exited unexpectedly 3 times or more within 600 seconds, so the '
                         'crash-loop guard holds its saved sessions back: it starts without them. '
                         'It is released once it exits normally after such a start (as the portal '
                         'or session manager that started it reports), once those crashes are more '
                         'than 600 seconds old, or by “session-restore-ctl allow-recovery '
                         f'{A}”.')
        # The consumer told DENY (crash() asked as one) reports a clean exit.
        self.s.call('NoteExit', 'sb', A, True)
        self.assertCtl(OK, 'check', A, '--reason', 'recover')

    def test_refusals(self):
        self.crash(A)
        self.assertIn('takes one or more app ids', self.assertCtl(INVALID, 'allow-recovery').stderr)
        self.assertIn('not a valid application id',
                      self.assertCtl(INVALID, 'reset-crash-guard', 'App!').stderr)
        self.s.set_allowed([])
        self.assertCtl(NOT_ALLOWED, 'reset-crash-guard', A)
        self.assertEqual(self.s.check_restore(A, RECOVER), (0, 'crash-loop'))


class MonitorTest(CtlTestCase):
    def test_sees_changes_from_outside(self):
        monitor = subprocess.Popen([CTL, 'monitor'], env=self.s.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        self.addCleanup(lambda: monitor.poll() is None and monitor.kill())
        out, err = Lines(monitor.stdout), Lines(monitor.stderr)
        # It says when it is listening.
        self.assertIn('Watching org.gnome.SessionRestore.Policy', err.next())

        self.s.gsettings('set', 'max-age-days', '7')
        self.assertEqual(out.next(), 'max-age-days: 7')
        self.s.gsettings('set', 'login-restore', 'never')
        self.assertEqual(out.next(), 'login-restore: never')
        # A list on one line; an empty one as nothing. The clear that
        # excluding brings may come before or after.
        self.s.gsettings('set', 'excluded-apps', f"['{A}', '{B}']")
        self.assertIn(f'excluded-apps: {A}, {B}', [out.next(), out.next()])
        self.s.gsettings('set', 'excluded-apps', '[]')
        self.assertEqual(out.next(), 'excluded-apps:')
        self.s.clear([A])
        self.assertEqual(out.next(), f'cleared: {A}')
        self.s.clear()
        self.assertEqual(out.next(), 'cleared: all')
        monitor.terminate()
        self.assertEqual(monitor.wait(10), OK)


    def test_json_one_object_a_line(self):
        monitor = subprocess.Popen([CTL, 'monitor', '--json'], env=self.s.env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.addCleanup(lambda: monitor.poll() is None and monitor.kill())
        out, err = Lines(monitor.stdout), Lines(monitor.stderr)
        self.assertIn('Watching org.gnome.SessionRestore.Policy', err.next())
        self.s.gsettings('set', 'max-age-days', '7')
        line = out.next()
        self.assertEqual(line, '{"event": "setting", "key": "max-age-days", "value": 7}')
        self.s.gsettings('set', 'login-restore', 'never')
        self.assertEqual(json.loads(out.next()),
                         {'event': 'setting', 'key': 'login-restore', 'value': 'never'})
        self.s.clear([A, B])
        self.assertEqual(json.loads(out.next()), {'event': 'cleared', 'apps': [A, B]})
        self.s.clear()
        self.assertEqual(json.loads(out.next()), {'event': 'cleared', 'apps': None})
        self.s.stop_policyd()
        self.assertEqual(json.loads(out.next()), {'event': 'service', 'state': 'stopped'})
        monitor.terminate()
        self.assertEqual(monitor.wait(10), OK)


class HelpTest(CtlTestCase):
    start = False

    def test_version_and_help_per_command(self):
        self.assertRegex(self.assertCtl(OK, '--version').stdout, r'^session-restore-ctl \d+\.\d+\.\d+\n$')
        overview = self.assertCtl(OK, '--help').stdout
        for command in ('status', 'list', 'clear', 'exclude', 'include', 'allow-recovery',
                        'get', 'set', 'reset', 'check', 'monitor'):
            self.assertIn(f'  {command} ', overview)
            help_text = self.assertCtl(OK, command, '--help').stdout
            self.assertIn(f'session-restore-ctl {command} [OPTION…]', help_text)
            self.assertEqual(self.assertCtl(OK, 'help', command).stdout, help_text)
        self.assertIn('--json', self.assertCtl(OK, 'list', '--help').stdout)
        self.assertIn('--reason', self.assertCtl(OK, 'check', '--help').stdout)
        for command in ('status', 'get', 'check'):
            self.assertIn('--json', self.assertCtl(OK, command, '--help').stdout)
        self.assertIn('--gvariant', self.assertCtl(OK, 'get', '--help').stdout)
        # One command per action: allow-recovery's old name works, unlisted.
        self.assertNotIn('reset-crash-guard', overview)
        self.assertIn('session-restore-ctl reset-crash-guard [OPTION…]',
                      self.assertCtl(OK, 'reset-crash-guard', '--help').stdout)
        self.assertIn('There is no command “frobnicate”', self.assertCtl(INVALID, 'frobnicate').stderr)
        # One kind of quotes, GLib's words or the tool's.
        self.assertIn('Unknown option “--frob”', self.assertCtl(INVALID, 'list', '--frob').stderr)
        self.assertIn('Unknown option “--frob”', self.assertCtl(INVALID, '--frob').stderr)
