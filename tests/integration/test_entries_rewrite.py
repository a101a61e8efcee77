"""A session manager's file (per-app entries in one file) rewritten by
Clear while its owner keeps saving it: the owner's saves are never replaced
by policyd's older copy, and a clear that could not get in says so. And the
hidden temporary copies a kill during such a rewrite leaves behind: removed
at the next start and by Clear([])."""
import os
import signal
import subprocess

from simulator import Simulator
from srtest import PYTHON, SOURCE_DIR, GLib, PolicydTestCase

A, B, C = 'org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'
OWNER = os.path.join(SOURCE_DIR, 'tests', 'lib', 'session_owner.py')


def session_apps(path):
    with open(path, 'rb') as f:
        data = f.read()
    state = GLib.Variant.new_from_bytes(GLib.VariantType('a{sv}'), GLib.Bytes(data), False)
    return state.unpack()


class OwnerTestCase(PolicydTestCase):
    start = False

    def setUp(self):
        super().setUp()
        # --verbose: the log says when a rewrite started over.
        self.s.start_policyd('--verbose')

    def start_owner(self, period_ms, apps=(A, B, C)):
        path = os.path.join(self.s.state_home, 'gnome-session@race.state')
        owner = subprocess.Popen([PYTHON, OWNER, path, str(period_ms), *apps],
                                 env=self.s.env, stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: owner.poll() is not None or owner.kill())
        self.s.wait_until(lambda: os.path.exists(path), what='the owner\'s first save')
        return owner, path

    def stop_owner(self, owner):
        owner.send_signal(signal.SIGTERM)
        out, _ = owner.communicate(timeout=30)
        serial, rollbacks = (int(n) for n in out.split())
        return serial, rollbacks

    def assertOwnersLastSave(self, path, serial, rollbacks):
        """No save of the owner was replaced by an older copy, and its last
        one is what is on disk (without A, when the last removal came
        after it)."""
        self.assertEqual(rollbacks, 0)
        on_disk = session_apps(path)
        self.assertEqual(on_disk['serial'], serial)
        for app in (B, C):
            self.assertEqual(on_disk['instances'][app][1][0]['instance-id'], f'{app}-{serial}')


class OwnerSavesDuringClearTest(OwnerTestCase):
    CLEARS = 30

    def clear_while_saving(self, period_ms):
        """CLEARS clears of A while the owner saves every period_ms;
        returns (removed, gave up)."""
        owner, path = self.start_owner(period_ms)
        removed = gave_up = 0
        for i in range(self.CLEARS):
            # The owner puts A back with its next save: wait for it, so
            # that each clear has A to remove.
            self.s.wait_until(lambda: A in session_apps(path).get('instances', {}),
                              what='the owner to save A again')
            report = self.s.clear([A])
            errors = '\n'.join(report['errors'])
            if A in report['apps']:
                removed += 1
                self.assertEqual(report['stores']['gnome-session']['entries'], 1, report)
            else:
                # Not removed: never a silent success.
                self.assertIn('gnome-session@race.state: its owner saved it again', errors,
                              f'clear {i}: {report}')
                gave_up += 1
        serial, rollbacks = self.stop_owner(owner)
        restarts = self.s.log().count('gnome-session@race.state: its owner saved it meanwhile')
        print(f'# owner every {period_ms} ms: {serial} saves, {removed} clears removed A, '
              f'{gave_up} gave up, {restarts} rewrites started over, {rollbacks} rollbacks')
        self.assertOwnersLastSave(path, serial, rollbacks)
        return removed, restarts

    def test_owner_saving_every_2_ms_loses_nothing(self):
        removed, restarts = self.clear_while_saving(2)
        # The owner's saves did land in the middle of rewrites, which
        # started over from its new file, and got in in the end.
        self.assertGreater(restarts, 0)
        self.assertGreater(removed, 0)
        self.assertAlive()


class OwnerSavesDuringRetentionTest(OwnerTestCase):
    """Retention takes A, saved 40 days ago, from the file its owner keeps
    rewriting for B and C: by the same rewrite as Clear, which never puts
    back an older copy over a save."""
    PURGES = 30

    def test_owner_saving_every_2_ms_loses_nothing(self):
        owner, path = self.start_owner(2, (f'{A}@40', B, C))
        for i in range(self.PURGES):
            self.s.wait_until(lambda: A in session_apps(path).get('instances', {}),
                              what='the owner to save A again')
            # Each change of max-age-days purges at once; the listing is
            # queued behind the purge on the store worker.
            self.s.signals.clear()
            self.s.set_setting('max-age-days', GLib.Variant('i', 31 + i % 2))
            self.s.wait_until(lambda: any(name == 'PropertiesChanged' and 'MaxAgeDays' in args[1]
                                          for name, args in self.s.signals),
                              what='policyd to see max-age-days change')
            self.s.list_state()
        serial, rollbacks = self.stop_owner(owner)
        log = self.s.log()
        removed = log.count('Retention: removed')
        gave_up = sum('Removing stored state:' in line and 'its owner saved it again' in line
                      for line in log.splitlines())
        print(f'# owner every 2 ms: {serial} saves, {removed} purges removed A, {gave_up} gave up, '
              f'{log.count("its owner saved it meanwhile")} rewrites started over, '
              f'{rollbacks} rollbacks')
        self.assertGreater(removed, 0)
        # Each purge removed A or said why not; the start-up purge, which
        # may come while the owner saves, is one more.
        self.assertIn(removed + gave_up, (self.PURGES, self.PURGES + 1))
        self.assertOwnersLastSave(path, serial, rollbacks)
        self.assertAlive()


class LeftoverTest(PolicydTestCase):
    start = False
    site = {'admin-excluded-apps': ['org.example.Excluded']}

    def write(self, name, data=b'a full copy of the other apps\' entries'):
        path = os.path.join(self.s.state_home, name)
        with open(path, 'wb') as f:
            f.write(data)
        return path

    def write_files(self):
        # What a kill between creating the temporary copy and renaming it
        # over gnome-session@x.state leaves, named as policyd names it.
        self.leftovers = [self.write('.gnome-session@x.state.0a1b2c3d'),
                          self.write('.gnome-session@other.state.ffffffff')]
        # Other names are not policyd's, and stay.
        self.others = [self.write(name) for name in (
            '.gnome-session@x.state.0A1B2C3D',      # upper case: not %08x
            '.gnome-session@x.state.0a1b2c3',       # seven digits
            '.gnome-session@x.state.0a1b2c3d4',     # nine
            'gnome-session@x.state.0a1b2c3d',       # no leading dot
            '.gnome-session@x.state.XyZ123',        # g_file_set_contents()'s
            '.gnome-session@x.stat.0a1b2c3d',       # not the store's pattern
            '.org.example.Alpha@1.state.0a1b2c3d',  # another store's file
        )]
        os.makedirs(os.path.join(self.s.state_home, '.gnome-session@dir.state.01234567'),
                    exist_ok=True)

    def assertLeftoversGone(self):
        for path in self.leftovers:
            self.assertFalse(os.path.exists(path), path)
        for path in self.others:
            self.assertTrue(os.path.exists(path), path)
        self.assertTrue(os.path.isdir(os.path.join(self.s.state_home,
                                                   '.gnome-session@dir.state.01234567')))

    def test_removed_at_start_up(self):
        self.write_files()
        # Once the start-up purge has run: it tidies first.
        Simulator(self.s).start_policyd_after_purge('org.example.Excluded')
        self.assertLeftoversGone()
        self.assertIn('left by an interrupted rewrite', self.s.log())

    def test_removed_by_clear_all(self):
        Simulator(self.s).start_policyd_after_purge('org.example.Excluded')
        # After start-up's tidy: only the Clear can remove these.
        self.write_files()
        report = self.s.clear([])
        self.assertEqual(report['errors'], [])
        self.assertLeftoversGone()
        self.assertEqual(report['stores']['gnome-session']['bytes'],
                         2 * len(b'a full copy of the other apps\' entries'))
