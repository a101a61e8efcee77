"""policyd's own state under faults (issue 22, 7): the temporary files of
writes cut short by a kill, and a Clear cut short by a kill, are not left
behind for good."""
import ctypes
import os
import signal

from simulator import Simulator
from srtest import (ALLOW, BUS_NAME, DENY, IFACE, LAUNCH, OBJECT_PATH, SLOW, Gio, GLib,
                    PolicydTestCase, now_us)

IN_DELETE = 0x200
# What a kill between GLib's g_file_set_contents() creating NAME.XXXXXX
# and renaming it over NAME leaves.
LEFTOVERS = ('crash-counters.Ab3xQ9', 'clear-points.ZZ09az', 'consumers.q1W2e3',
             'pending-clears.000000')
# Not a leftover of policyd's writer: kept.
NOT_OURS = ('crash-counters.Ab3xQ', 'crash-counters.Ab3xQ9x', 'notes.Ab3xQ9',
            'clear-points.corrupt', 'clear-points.A-b_c.')


class LeftoverTest(PolicydTestCase):
    start = False

    def setUp(self):
        super().setUp()
        self.state = os.path.join(self.s.state_home, 'session-restore')
        os.makedirs(self.state, exist_ok=True)
        self.outside = os.path.join(self.s.root, 'outside')
        with open(self.outside, 'w') as f:
            f.write('not policyd\'s')

    def leave(self, names):
        for name in names:
            with open(os.path.join(self.state, name), 'wb') as f:
                f.write(GLib.Variant('a{sx}', {'org.example.Secret': 1}).get_data_as_bytes().get_data())

    def leave_others(self):
        self.leave(NOT_OURS)
        # A link and a directory named like leftovers: not regular files.
        os.symlink(self.outside, os.path.join(self.state, 'clear-points.LiNk00'))
        os.mkdir(os.path.join(self.state, 'consumers.DiR000'))

    def assertOthersKept(self):
        for name in NOT_OURS + ('clear-points.LiNk00', 'consumers.DiR000'):
            self.assertTrue(os.path.lexists(os.path.join(self.state, name)), name)
        self.assertTrue(os.path.isfile(self.outside))

    def gone(self, names):
        return not any(os.path.lexists(os.path.join(self.state, n)) for n in names)

    def test_removed_at_start_up(self):
        # Issue 22, 7: a kill inside an atomic write left NAME.XXXXXX, with
        # what it held (app ids), for good.
        self.leave(LEFTOVERS)
        self.leave_others()
        self.s.start_policyd()
        self.s.wait_until(lambda: 'temporary files left by interrupted writes' in self.s.log(),
                          what='the leftovers to be removed')
        self.assertTrue(self.gone(LEFTOVERS))
        self.assertOthersKept()

    def test_removed_when_everything_is_cleared(self):
        # Once the start-up chores have run (their sign: a leftover gone),
        # Clear([]) removes those that appeared since.
        self.leave(LEFTOVERS[:1])
        self.s.start_policyd()
        self.s.wait_until(lambda: self.gone(LEFTOVERS[:1]), what='the start-up chores')
        self.leave(LEFTOVERS)
        self.leave_others()
        self.s.clear(['org.example.One'])
        self.assertFalse(self.gone(LEFTOVERS))
        self.s.clear()
        self.assertTrue(self.gone(LEFTOVERS))
        self.assertOthersKept()


class NotRegularFileTest(PolicydTestCase):
    start = False

    def test_fifos_in_place_of_the_state_files_do_not_block(self):
        # Opening a FIFO for reading waits for a writer: one in place of any
        # of policyd's own files held it at start-up, before its first
        # answer, for good. Each is now not read, as a file that does not
        # parse is not.
        state = os.path.join(self.s.state_home, 'session-restore')
        os.makedirs(state, exist_ok=True)
        for name in ('crash-counters', 'clear-points', 'pending-clears', 'consumers'):
            os.mkfifo(os.path.join(state, name))
        self.s.start_policyd()
        app = 'org.example.Alpha'
        self.assertEqual(self.s.call('CheckSave', 's', app, timeout=5000 * SLOW)[0], ALLOW)
        self.s.call('NoteExit', 'sb', app, False, timeout=5000 * SLOW)
        # The consumers are read once first needed, after the first answer.
        self.assertTrue(self.s.prop('Consumers'))
        self.assertRegex(self.s.log(), r'clear-points: not a regular file')
        self.s.clear([app], timeout=5000 * SLOW)
        self.assertEqual(self.s.stop_policyd(), 0)


class InterruptedClearTest(PolicydTestCase):
    FILES = 3000

    def pending_path(self):
        return os.path.join(self.s.state_home, 'session-restore', 'pending-clears')

    def gtk_files(self):
        return [n for n in os.listdir(self.s.state_home)
                if n.endswith('.state') and n.startswith('org.example.')]

    def populate(self, saved_at):
        for i in range(self.FILES):
            path = os.path.join(self.s.state_home, f'org.example.App{i % 30}@{i}.state')
            with open(path, 'wb') as f:
                f.write(b'x' * 64)
            os.utime(path, (saved_at / 1e6, saved_at / 1e6))

    def test_finished_at_next_start(self):
        # Issue 22, 7: a kill a few ms into Clear([]) of 3,000 files left
        # the rest on disk for good. The clear is recorded until its
        # removal is done, and finished at the next start.
        saved_at = now_us() - 60 * 1000000
        self.populate(saved_at)
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(0)
        self.assertGreaterEqual(fd, 0)
        self.addCleanup(os.close, fd)
        self.assertGreaterEqual(libc.inotify_add_watch(fd, self.s.state_home.encode(), IN_DELETE), 0)

        self.s.bus.call(BUS_NAME, OBJECT_PATH, IFACE, 'Clear', GLib.Variant('(as)', ([],)), None,
                        Gio.DBusCallFlags.NONE, 60000 * SLOW, None, None)
        self.s.bus.flush_sync(None)
        os.read(fd, 4096)           # the first file removed
        self.s.stop_policyd(signal.SIGKILL)
        left = len(self.gtk_files())
        print(f'# {left} of {self.FILES} files left by the kill')
        self.assertGreater(left, 0, 'the kill came after the clear had finished')

        # State saved after the clear point is not what was cleared.
        sim = Simulator(self.s)
        self.s.start_policyd()
        sim.save('org.example.Later')
        self.s.wait_until(lambda: not os.path.exists(self.pending_path()), timeout=60,
                          what='the interrupted clear to be finished')
        self.assertEqual(self.gtk_files(), ['org.example.Later@1.state'])
        self.assertIn('Interrupted clear: removed', self.s.log())
        self.assertEqual(self.s.check_restore('org.example.App1', LAUNCH,
                                              {'saved-at': GLib.Variant('x', saved_at)}),
                         (DENY, 'cleared'))

    def test_a_clear_that_finishes_leaves_no_record(self):
        self.populate(now_us() - 60 * 1000000)
        report = self.s.clear(['org.example.App1'])
        self.assertEqual(report['entries'], self.FILES // 30)
        self.assertFalse(os.path.exists(self.pending_path()))
        self.s.clear()
        self.assertFalse(os.path.exists(self.pending_path()))
        self.assertEqual(self.gtk_files(), [])
        # Nor does stopping policyd with clears queued: they are carried
        # out first.
        self.populate(now_us() - 60 * 1000000)
        self.s.bus.call(BUS_NAME, OBJECT_PATH, IFACE, 'Clear', GLib.Variant('(as)', ([],)), None,
                        Gio.DBusCallFlags.NONE, 60000 * SLOW, None, None)
        self.s.bus.flush_sync(None)
        self.s.wait_until(lambda: len(self.gtk_files()) < self.FILES, what='the clear to begin')
        self.assertEqual(self.s.stop_policyd(), 0)
        self.assertEqual(self.gtk_files(), [])
        self.assertFalse(os.path.exists(self.pending_path()))
