"""Listing, clearing and expiring stored state in the real formats, end to
end with a simulated portal backend, GTK and compositor."""
import os
import signal
import time

from sessionfile import write_session_file
from simulator import Simulator
from srtest import (ALLOW, DENY, LAUNCH, RECOVER, RESTORE, USEC_PER_DAY, GLib, PolicydTestCase,
                    files_under, now_us)

A, B, C = 'org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'


class ListTest(PolicydTestCase):
    def test_lists_every_store(self):
        sim = Simulator(self.s)
        sim.save(A, '1')
        sim.save(A, '2')
        sim.save(B, '1', flatpak=True, payload=b'x' * 1000)
        sim.write_compositor()
        listing = self.s.list_state()
        self.assertEqual(sorted(listing), [A, B])
        self.assertEqual(sorted(listing[A]['stores']), ['gnome-session', 'gtk'])
        self.assertEqual(sorted(listing[B]['stores']), ['gnome-session', 'gtk-flatpak'])
        # Two GTK files and two gnome-session instances.
        self.assertEqual(listing[A]['entries'], 4)
        gtk_bytes = sum(os.path.getsize(sim.gtk_path(A, i)) for i in '12')
        self.assertGreater(listing[A]['bytes'], gtk_bytes)
        self.assertGreater(listing[B]['bytes'], 1000)
        self.assertLessEqual(abs(listing[A]['last-saved'] - now_us()), 10 * 1000000)

    def test_counts_gtk_windows(self):
        sim = Simulator(self.s)
        sim.save(A, '1')
        sim.save(A, '2')
        sim.save(B, '1', flatpak=True)
        sim.save(C, '1')
        # C's file is damaged: still listed, but its windows are unknown.
        with open(sim.gtk_path(C, '1'), 'r+b') as f:
            f.truncate(5)
        listing = self.s.list_state()
        # The simulator writes one window per instance, as GTK would.
        self.assertEqual(listing[A]['windows'], 2)
        self.assertEqual(listing[B]['windows'], 1)
        self.assertEqual(listing[C]['entries'], 2)
        self.assertNotIn('windows', listing[C])
        self.assertIn(f'{C}@1.state is not a serialized', self.s.log())

    def test_empty(self):
        self.assertEqual(self.s.list_state(), {})

    def test_list_needs_polkit(self):
        self.s.set_allowed([])
        self.assertDBusError('NotAllowed', self.s.list_state)


class GtkNamesTest(PolicydTestCase):
    """GTK 4.24 names its files <app-id>@<instance-id>.state, and
    <app-id>@fallback.state when no session manager answers. gnome-session's
    record and session-restore-portal's share $XDG_STATE_HOME and the "@",
    with no dot before it: no app's GTK state."""

    def test_only_apps_files_are_gtk_state(self):
        sim = Simulator(self.s)
        sim.save(A, 'fallback')
        sim.save(B, 'a1b2c3d4e5', flatpak=True)
        record = os.path.join(self.s.state_home, 'session-restore-portal@sway.state')
        write_session_file(record, {C: [now_us()]}, now_us())
        state = sim.gtk_state(A, '2', b'').get_data_as_bytes().get_data()
        others = [os.path.join(self.s.state_home, name) for name in (
            'firefox-esr@1.state',        # no dot: no GTK app's
            f'{A}@2.state.QX3ZK2',        # what g_file_set_contents() writes first
        )] + [os.path.join(os.path.dirname(sim.gtk_path(B, '1', flatpak=True)), f'{B}@2.state.QX3ZK2')]
        for path in others:
            with open(path, 'wb') as f:
                f.write(state)

        listing = self.s.list_state()
        self.assertEqual(sorted(listing), [A, B, C])
        self.assertEqual(sorted(listing[A]['stores']), ['gnome-session', 'gtk'])
        self.assertEqual(listing[A]['windows'], 1)
        self.assertEqual(sorted(listing[B]['stores']), ['gnome-session', 'gtk-flatpak'])
        self.assertEqual(listing[C]['stores'], ['session-restore-portal'])

        report = self.s.clear()
        self.assertEqual(report['apps'], [A, B, C])
        self.assertEqual(report['stores']['gtk']['entries'], 1)
        self.assertEqual(report['stores']['gtk-flatpak']['entries'], 1)
        self.assertFalse(os.path.exists(sim.gtk_path(A, 'fallback')))
        self.assertFalse(os.path.exists(sim.gtk_path(B, 'a1b2c3d4e5', flatpak=True)))
        # The records lost their entries, not their files.
        self.assertEqual(sim.session_file_apps()['instances'], {})
        self.assertTrue(os.path.exists(record))
        for path in others:
            self.assertTrue(os.path.exists(path), path)
        self.assertEqual(self.s.list_state(), {})


class ListBudgetTest(PolicydTestCase):
    def test_one_app_cannot_starve_the_others(self):
        # Issue 22: the listing reads at most 1,000 GTK files of a store to
        # count windows; a Flatpak app that wrote 1,001 files in its own
        # directory spent it all, and every app listed after it lost its
        # window count (in the panel and the login prompt). Each app now
        # has a budget of its own.
        sim = Simulator(self.s)
        others = [f'org.example.Other{i}' for i in range(8)]
        for app in others:
            sim.save(app, '1', flatpak=True)
            sim.save(app, '2', flatpak=True)
        var_app = os.path.join(self.s.home, '.var', 'app')
        # The store is walked in directory order: the big app must come
        # before the others there, or it would spend the budget last. Its
        # name is picked so that it does, whatever the file system's order.
        for i in range(100):
            big = f'org.example.Big{i}'
            os.makedirs(os.path.join(var_app, big))
            if os.listdir(var_app)[0] == big:
                break
            os.rmdir(os.path.join(var_app, big))
        else:
            self.fail(f'no app name comes first in {var_app}')
        state = sim.gtk_state(big, '1', b'').get_data_as_bytes().get_data()
        big_dir = os.path.dirname(sim.gtk_path(big, '1', flatpak=True))
        os.makedirs(big_dir)
        for i in range(1001):
            with open(os.path.join(big_dir, f'{big}@{i:04d}.state'), 'wb') as f:
                f.write(state)

        listing = self.s.list_state()
        self.assertEqual(listing[big]['entries'], 1001)
        self.assertNotIn('windows', listing[big])
        self.assertEqual({app: listing[app].get('windows') for app in others},
                         {app: 2 for app in others})


class OptOutTest(PolicydTestCase):
    def test_opt_out_forgets_that_app_only(self):
        sim = Simulator(self.s)
        for app in (A, B, C):
            sim.save(app, '1')
        sim.save(A, '2', flatpak=True)
        sim.write_compositor()
        before = files_under(self.s.home)
        # Saved before the clear point, however slow the run (valgrind).
        old = now_us() - 1000000

        self.s.call('SetAppExcluded', 'sb', A, True)
        # Gone from disk by the time the call returns.
        self.assertFalse(os.path.exists(sim.gtk_path(A, '1')))
        self.assertFalse(os.path.exists(sim.gtk_path(A, '2', flatpak=True)))
        self.assertEqual(sorted(sim.session_file_apps()['instances']), [B, C])
        self.assertEqual(sorted(self.s.list_state()), [B, C])
        # Everything of B and C, and the compositor's store, is untouched.
        after = files_under(self.s.home)
        for path, data in before.items():
            if A not in path and 'gnome-session@' not in path:
                self.assertEqual(after.get(path), data, path)
        self.assertTrue(os.path.exists(sim.compositor_path))
        # The simulator heard it and dropped its copy.
        sim.settle_signals()
        self.assertIn([A], sim.cleared_signals)
        self.assertNotIn(A, sim.memory)
        # Not restorable: excluded now, and cleared if it is let back in.
        self.assertEqual(self.s.check_restore(A, RESTORE), (DENY, 'excluded'))
        self.s.call('SetAppExcluded', 'sb', A, False)
        self.assertEqual(self.s.check_restore(A, RESTORE, {'saved-at': GLib.Variant('x', old)}),
                         (DENY, 'cleared'))
        self.assertEqual(sim.restore(B, RESTORE), (ALLOW, 'allowed'))

    def test_opt_out_through_gsettings_forgets_too(self):
        sim = Simulator(self.s)
        sim.save(A)
        sim.save(B)
        self.s.gsettings('set', 'excluded-apps', f"['{A}']")
        self.s.wait_until(lambda: not os.path.exists(sim.gtk_path(A, '1')), what='A forgotten')
        self.assertTrue(os.path.exists(sim.gtk_path(B, '1')))

    def test_switch_off_forgets_everything(self):
        sim = Simulator(self.s)
        sim.save(A)
        sim.save(B, flatpak=True)
        sim.write_compositor()
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.assertEqual(self.s.list_state(), {})
        self.assertFalse(os.path.exists(sim.compositor_path))
        self.assertEqual(sim.session_file_apps()['instances'], {})
        sim.settle_signals()
        self.assertIn([], sim.cleared_signals)
        self.assertEqual(sim.save(A), 'disabled')


class ClearTest(PolicydTestCase):
    def test_clear_some(self):
        sim = Simulator(self.s)
        for app in (A, B, C):
            sim.save(app)
        sim.write_compositor()
        report = self.s.clear([A, B])
        self.assertEqual(report['apps'], [A, B])
        self.assertEqual(report['errors'], [])
        self.assertEqual(report['entries'], 4)
        self.assertEqual(report['stores']['gtk']['entries'], 2)
        self.assertEqual(report['stores']['gnome-session']['entries'], 2)
        self.assertEqual(report['stores']['mutter']['entries'], 0)
        self.assertEqual(sorted(self.s.list_state()), [C])
        self.assertTrue(os.path.exists(sim.compositor_path))

    def test_clear_all_holds_against_owners_that_write_back(self):
        deaf = Simulator(self.s, listening=False)
        for app in (A, B):
            deaf.save(app)
        deaf.write_compositor()
        report = self.s.clear()
        self.assertEqual(report['apps'], [A, B])
        self.assertEqual(report['stores']['mutter']['entries'], 1)
        self.assertEqual(self.s.list_state(), {})
        # The owner did not listen: it writes its old state back...
        deaf.write_back()
        self.assertEqual(sorted(self.s.list_state()), [A, B])
        # ...and none of it is restored, for any reason.
        for app in (A, B):
            for reason in (LAUNCH, RECOVER, RESTORE):
                self.assertEqual(deaf.restore(app, reason), (DENY, 'cleared'))
        # New state saved after the clear is fine.
        deaf.save(A, '1', when=now_us())
        self.assertEqual(deaf.restore(A, LAUNCH), (ALLOW, 'allowed'))

    def test_listening_owner_does_not_write_back(self):
        sim = Simulator(self.s)
        sim.save(A)
        self.s.clear()
        sim.settle_signals()
        self.assertEqual(sim.memory, {})
        sim.write_back()
        self.assertEqual(self.s.list_state(), {})

    def test_clear_points_survive_restart(self):
        deaf = Simulator(self.s, listening=False)
        deaf.save(A)
        self.s.clear([A])
        self.s.stop_policyd(signal.SIGKILL)
        self.s.start_policyd()
        deaf.write_back()
        self.assertEqual(deaf.restore(A, LAUNCH), (DENY, 'cleared'))

    def test_corrupt_clear_points_still_hold(self):
        # Issue 22, 6: a clear-points file that does not parse (a disk
        # fault, an edit by hand) was set aside and every point forgotten:
        # state cleared before was restorable again. Now the file stands
        # for a global clear point at its own time.
        deaf = Simulator(self.s, listening=False)
        deaf.save(A, when=now_us() - 60 * 1000000)
        deaf.save(B, when=now_us() - 60 * 1000000)
        self.s.clear([A])
        self.assertEqual(self.s.stop_policyd(), 0)
        points = os.path.join(self.s.state_home, 'session-restore', 'clear-points')
        with open(points, 'r+b') as f:
            f.truncate(5)
        self.s.start_policyd()
        deaf.write_back()
        self.assertEqual(deaf.restore(A, LAUNCH), (DENY, 'cleared'))
        self.assertIn('counts as cleared', self.s.log())
        # State saved since the file was written is restored.
        deaf.save(A, '2')
        self.assertEqual(deaf.restore(A, LAUNCH, '2'), (ALLOW, 'allowed'))
        # The next start falls back the same way.
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.start_policyd()
        self.assertEqual(deaf.restore(A, LAUNCH), (DENY, 'cleared'))
        self.assertEqual(deaf.restore(A, LAUNCH, '2'), (ALLOW, 'allowed'))

    def test_clear_needs_polkit_and_changes_nothing_when_refused(self):
        sim = Simulator(self.s)
        sim.save(A)
        before = files_under(self.s.home)
        self.s.set_allowed([])
        self.assertDBusError('NotAllowed', self.s.clear)
        self.assertEqual(files_under(self.s.home), before)
        self.assertEqual(sim.restore(A, LAUNCH), (ALLOW, 'allowed'))

    def test_clear_validates_every_app_id(self):
        sim = Simulator(self.s)
        sim.save(A)
        for apps in ([A, '../x'], ['a/b'], [''], [f'org.example.App{i}' for i in range(10001)]):
            self.assertDBusError('InvalidArgs', self.s.clear, apps)
        self.assertEqual(sorted(self.s.list_state()), [A])

    def test_clear_of_apps_with_nothing_stored(self):
        report = self.s.clear([A])
        self.assertEqual(report['apps'], [])
        self.assertEqual(report['entries'], 0)

    def test_crash_loop_with_the_simulator(self):
        sim = Simulator(self.s)
        sim.save(A)
        for _ in range(3):
            sim.exit(A, voluntary=False)
        self.assertEqual(sim.restore(A, RECOVER), (DENY, 'crash-loop'))
        self.assertEqual(sim.restore(A, RESTORE), (ALLOW, 'allowed'))
        # A normal exit after the start it was held to (the DENY above)
        # releases it: what it saved then is good.
        sim.exit(A, voluntary=True)
        self.assertEqual(sim.restore(A, RECOVER), (ALLOW, 'allowed'))
        # A normal exit without such a start does not; a reset does.
        for _ in range(3):
            sim.exit(A, voluntary=False)
        sim.exit(A, voluntary=True)
        self.assertEqual(sim.restore(A, RECOVER), (DENY, 'crash-loop'))
        self.s.call('ResetCrashGuard', 's', A)
        self.assertEqual(sim.restore(A, RECOVER), (ALLOW, 'allowed'))


class PlusInAppIdTest(PolicydTestCase):
    """Issue 22: "+" is valid in an app id, and the store patterns did not
    take it: foo+bar's state was never listed, and Clear([foo+bar])
    reported success while its GTK state file stayed."""
    PLUS = 'org.example.foo+bar'
    LOOKALIKES = tuple(f'org.example.{name}' for name in ('fooobar', 'foobar', 'foo+bar+', 'foo',
                                                          'foo+barr'))

    def test_listed_and_cleared_literally(self):
        sim = Simulator(self.s)
        for app in (self.PLUS,) + self.LOOKALIKES:
            sim.save(app, '1')
            sim.save(app, '2', flatpak=True)
        listing = self.s.list_state()
        self.assertEqual(sorted(listing), sorted((self.PLUS,) + self.LOOKALIKES))
        self.assertEqual(sorted(listing[self.PLUS]['stores']), ['gnome-session', 'gtk', 'gtk-flatpak'])
        self.assertEqual(listing[self.PLUS]['windows'], 2)

        report = self.s.clear([self.PLUS])
        self.assertEqual(report['apps'], [self.PLUS])
        self.assertEqual(report['stores']['gtk']['entries'], 1)
        self.assertEqual(report['stores']['gtk-flatpak']['entries'], 1)
        self.assertFalse(os.path.exists(sim.gtk_path(self.PLUS, '1')))
        self.assertFalse(os.path.exists(sim.gtk_path(self.PLUS, '2', flatpak=True)))
        for app in self.LOOKALIKES:
            self.assertTrue(os.path.exists(sim.gtk_path(app, '1')), app)
            self.assertTrue(os.path.exists(sim.gtk_path(app, '2', flatpak=True)), app)
        self.assertEqual(sorted(self.s.list_state()), sorted(self.LOOKALIKES))


class ExpiryTest(PolicydTestCase):
    start = False

    def test_purged_at_start_up(self):
        sim = Simulator(self.s)
        self.s.gsettings('set', 'max-age-days', '7')
        old = now_us() - 8 * USEC_PER_DAY
        fresh = now_us() - 6 * USEC_PER_DAY
        sim.memory = {A: {'1': {'saved_at': old, 'flatpak': False, 'payload': b''}},
                      B: {'1': {'saved_at': fresh, 'flatpak': True, 'payload': b''}}}
        sim.write_back()
        seconds = old / 1e6
        os.utime(sim.session_path, (seconds, seconds))
        sim.write_compositor()
        os.utime(sim.compositor_path, (seconds, seconds))

        self.s.start_policyd()
        self.s.wait_until(lambda: not os.path.exists(sim.gtk_path(A, '1')), what='old state purged')
        self.s.wait_until(lambda: not os.path.exists(sim.compositor_path), what='old compositor store purged')
        self.assertTrue(os.path.exists(sim.gtk_path(B, '1', flatpak=True)))
        # The session file was older than the limit as a whole: its entries go.
        self.s.wait_until(lambda: sim.session_file_apps()['instances'] == {}, what='session entries purged')
        self.assertEqual(self.s.check_restore(A, LAUNCH, {'saved-at': GLib.Variant('x', old)}),
                         (DENY, 'expired'))
        self.assertEqual(sim.restore(B, LAUNCH), (ALLOW, 'allowed'))

    def test_app_id_with_plus_purged_at_start_up(self):
        # Issue 22 (PlusInAppIdTest): retention and the excluded apps'
        # purge find "+" app ids too.
        sim = Simulator(self.s)
        self.s.gsettings('set', 'max-age-days', '7')
        old = now_us() - 8 * USEC_PER_DAY
        plus, cpp, cxx = 'org.example.foo+bar', 'org.example.c++', 'org.example.cxx'
        sim.memory = {plus: {'1': {'saved_at': old, 'flatpak': True, 'payload': b''}},
                      cpp: {'1': {'saved_at': now_us(), 'flatpak': False, 'payload': b''}},
                      cxx: {'1': {'saved_at': now_us(), 'flatpak': False, 'payload': b''}}}
        sim.write_back()
        self.s.gsettings('set', 'excluded-apps', f"['{cpp}']")
        self.s.start_policyd()
        self.s.wait_until(lambda: not os.path.exists(sim.gtk_path(plus, '1', flatpak=True)),
                          what='old foo+bar state purged')
        self.s.wait_until(lambda: not os.path.exists(sim.gtk_path(cpp, '1')),
                          what='excluded c++ purged')
        self.assertTrue(os.path.exists(sim.gtk_path(cxx, '1')))

    def test_forever_keeps_everything(self):
        sim = Simulator(self.s)
        self.s.gsettings('set', 'max-age-days', '-1')
        old = now_us() - 4000 * USEC_PER_DAY
        # B is excluded: its state going shows that the start-up purge ran.
        sim.memory = {A: {'1': {'saved_at': old, 'flatpak': False, 'payload': b''}},
                      B: {'1': {'saved_at': old, 'flatpak': False, 'payload': b''}}}
        sim.write_back()
        self.s.gsettings('set', 'excluded-apps', f"['{B}']")
        self.s.start_policyd()
        self.s.wait_until(lambda: not os.path.exists(sim.gtk_path(B, '1')), what='the start-up purge')
        self.assertTrue(os.path.exists(sim.gtk_path(A, '1')))
        self.assertEqual(sim.restore(A, LAUNCH), (ALLOW, 'allowed'))

    def test_start_up_purge_waits_for_the_first_calls(self):
        # At login the session manager asks about every app it restores:
        # the start-up purge waits until calls stop for a second.
        sim = Simulator(self.s)
        sim.memory = {A: {'1': {'saved_at': now_us(), 'flatpak': False, 'payload': b''}}}
        sim.write_back()
        self.s.gsettings('set', 'excluded-apps', f"['{A}']")
        self.s.start_policyd()
        end = time.monotonic() + 3
        while time.monotonic() < end:
            self.assertEqual(self.s.check_save(B), (ALLOW, 'allowed'))
            self.assertTrue(os.path.exists(sim.gtk_path(A, '1')), 'purged while calls came in')
            time.sleep(0.2)
        self.s.wait_until(lambda: not os.path.exists(sim.gtk_path(A, '1')),
                          what='the purge once calls stopped')

    def test_excluded_and_disabled_are_purged_at_start_up(self):
        sim = Simulator(self.s)
        sim.memory = {A: {'1': {'saved_at': now_us(), 'flatpak': False, 'payload': b''}},
                      B: {'1': {'saved_at': now_us(), 'flatpak': False, 'payload': b''}}}
        sim.write_back()
        self.s.gsettings('set', 'excluded-apps', f"['{A}']")
        self.s.start_policyd()
        self.s.wait_until(lambda: not os.path.exists(sim.gtk_path(A, '1')), what='excluded app purged')
        self.assertTrue(os.path.exists(sim.gtk_path(B, '1')))
        self.s.stop_policyd()
        self.s.gsettings('set', 'enabled', 'false')
        self.s.start_policyd()
        self.s.wait_until(lambda: not os.path.exists(sim.gtk_path(B, '1')), what='everything purged')
