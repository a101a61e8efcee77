"""The crash-loop guard, through the bus and across restarts of policyd."""
import os
import signal

from srtest import GLib, PolicydTestCase

APP = 'org.example.Crashy'


class CrashGuardTest(PolicydTestCase):
    def crash(self, times, app=APP):
        for _ in range(times):
            self.s.call('NoteExit', 'sb', app, False)

    def test_threshold_stops_recovery(self):
        self.crash(2)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        self.crash(1)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        # Only RECOVER is affected, and only this app.
        self.assertEqual(self.s.check_restore(APP, 1), (1, 'allowed'))
        self.assertEqual(self.s.check_restore(APP, 3), (1, 'allowed'))
        self.assertEqual(self.s.check_save(APP), (1, 'allowed'))
        self.assertEqual(self.s.check_restore('org.example.Other', 2), (1, 'allowed'))

    def test_voluntary_exit_resets(self):
        self.crash(3)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        self.s.call('NoteExit', 'sb', APP, True)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        self.crash(2)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))

    def test_threshold_zero_turns_guard_off(self):
        self.crash(5)
        self.s.set_setting('crash-loop-threshold', GLib.Variant('u', 0))
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        self.s.set_setting('crash-loop-threshold', GLib.Variant('u', 6))
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        self.crash(1)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))

    def test_window_expires(self):
        self.s.set_setting('crash-loop-window', GLib.Variant('u', 1))
        self.crash(3)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        import time
        time.sleep(1.2)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))

    def test_recover_off_comes_before_crash_loop(self):
        self.crash(3)
        self.s.set_setting('restore-after-crash', GLib.Variant('b', False))
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'recover-off'))

    def test_counters_survive_restart(self):
        self.crash(2)
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        self.crash(1)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))

    def test_counters_survive_kill_9(self):
        self.crash(3)
        self.s.stop_policyd(signal.SIGKILL)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        self.s.call('NoteExit', 'sb', APP, True)
        self.s.stop_policyd(signal.SIGKILL)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))

    def test_state_file_is_policyds_own(self):
        self.crash(1)
        path = os.path.join(self.s.state_home, 'session-restore', 'crash-counters')
        self.assertTrue(os.path.isfile(path))
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        self.assertFalse([n for n in os.listdir(os.path.dirname(path)) if n.startswith('.')],
                         'temporary files left behind')
