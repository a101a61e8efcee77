"""What ListStoredState says will happen to each app's saved state, the
crash-loop reset, and the programs that consult policyd (Consumers)."""
import os
import sys

from simulator import Simulator
from srtest import RECOVER, GLib, PolicydTestCase, now_us, USEC_PER_DAY

APP = 'org.example.Editor'
OTHER = 'org.example.Viewer'
CONFIGURE = 'org.gnome.SessionRestore.configure'
LIST = 'org.gnome.SessionRestore.list'
CLEAR = 'org.gnome.SessionRestore.clear'


class ListingTest(PolicydTestCase):
    def setUp(self):
        super().setUp()
        self.sim = Simulator(self.s)

    def test_valid_state_reopens_at_login(self):
        self.sim.save(APP)
        info = self.s.list_state()[APP]
        self.assertEqual(info['state'], 'valid')
        self.assertTrue(info['at-login'])
        self.assertFalse(info['crash-loop'])

    def test_gtk_file_alone_does_not_reopen_at_login(self):
        path = self.sim.gtk_path(OTHER, '7')
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(self.sim.gtk_state(OTHER, '7', b'').get_data_as_bytes().get_data())
        info = self.s.list_state()[OTHER]
        self.assertEqual(info['stores'], ['gtk'])
        self.assertFalse(info['at-login'])
        self.assertEqual(info['state'], 'valid')

    def test_state_written_back_after_a_clear_is_cleared(self):
        # An owner that did not listen writes its old state back: listed,
        # but as what it is, state that will not be restored.
        deaf = Simulator(self.s, listening=False)
        saved = (now_us() - 60 * 1000000)
        deaf.save(APP, when=saved)
        self.s.clear([APP])
        deaf.write_back()
        # The session manager's file has no per-app times: it counts as
        # saved when it was written. Here it was written with the rest.
        os.utime(deaf.session_path, (saved / 1e6, saved / 1e6))
        info = self.s.list_state()[APP]
        self.assertEqual(info['state'], 'cleared')
        self.assertEqual(deaf.restore(APP, 3), (0, 'cleared'))

    def test_shorter_retention_purges_at_once(self):
        self.sim.save(APP, when=now_us() - 10 * USEC_PER_DAY)
        self.sim.save(OTHER)
        self.assertEqual(self.s.list_state()[APP]['state'], 'valid')
        self.s.set_setting('max-age-days', GLib.Variant('i', 5))
        self.s.wait_until(lambda: not os.path.exists(self.sim.gtk_path(APP, '1')),
                          what='the state older than 5 days to be purged')
        listing = self.s.list_state()
        self.assertNotIn(APP, [app for app, info in listing.items() if 'gtk' in info['stores']])
        self.assertTrue(os.path.exists(self.sim.gtk_path(OTHER, '1')))

    def test_crash_loop_shows_and_resets(self):
        self.sim.save(APP)
        for _ in range(3):
            self.sim.exit(APP, False)
        self.assertTrue(self.s.list_state()[APP]['crash-loop'])
        self.assertEqual(self.sim.restore(APP, RECOVER), (0, 'crash-loop'))
        self.s.call('ResetCrashGuard', 's', APP)
        self.assertFalse(self.s.list_state()[APP]['crash-loop'])
        self.assertEqual(self.sim.restore(APP, RECOVER), (1, 'allowed'))

    def test_reset_crash_guard_needs_configure(self):
        for _ in range(3):
            self.sim.exit(APP, False)
        self.s.set_allowed([LIST, CLEAR])
        self.assertDBusError('NotAllowed', self.s.call, 'ResetCrashGuard', 's', APP)
        self.assertDBusError('InvalidArgs', self.s.call, 'ResetCrashGuard', 's', '../etc')
        self.assertEqual(self.s.check_restore(APP, RECOVER), (0, 'crash-loop'))

    def test_rewriting_the_session_file_keeps_its_time(self):
        self.sim.save(APP)
        self.sim.save(OTHER, when=now_us() - 3 * USEC_PER_DAY)
        old = (now_us() - 3 * USEC_PER_DAY) / 1e6
        os.utime(self.sim.session_path, (old, old))
        self.s.clear([APP])
        self.assertNotIn(APP, self.sim.session_file_apps()['instances'])
        self.assertAlmostEqual(os.stat(self.sim.session_path).st_mtime, old, places=3)
        # So OTHER does not look freshly saved.
        other = self.s.list_state()[OTHER]
        self.assertLess(other['last-saved'], now_us() - 2 * USEC_PER_DAY)


class ConsumersTest(PolicydTestCase):
    def program(self):
        return os.path.basename(os.path.realpath(sys.executable))

    def test_nothing_asked_yet(self):
        self.assertEqual(self.s.prop('Consumers'), [])

    def test_a_check_names_the_program(self):
        self.s.signals.clear()
        before = now_us()
        self.s.check_save(APP)
        consumers = self.s.prop('Consumers')
        self.assertEqual([name for name, _ in consumers], [self.program()])
        self.assertGreaterEqual(consumers[0][1], before)
        self.s.wait_until(lambda: any(name == 'PropertiesChanged' and 'Consumers' in args[2]
                                      for name, args in self.s.signals),
                          what='Consumers to be invalidated')

    def test_later_checks_move_the_time(self):
        self.s.check_save(APP)
        first = self.s.prop('Consumers')[0][1]
        for _ in range(5):
            self.s.check_restore(APP, 1)
        self.assertGreater(self.s.prop('Consumers')[0][1], first)

    def test_remembered_across_restarts(self):
        self.s.call('NoteExit', 'sb', APP, True)
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.start_policyd()
        self.assertEqual([name for name, _ in self.s.prop('Consumers')], [self.program()])

    def test_properties_only_are_not_consulting(self):
        self.s.all_props()
        self.s.prop('Version')
        self.assertEqual(self.s.prop('Consumers'), [])
