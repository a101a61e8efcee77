"""The crash-loop guard, through the bus and across restarts of policyd."""
import ctypes
import os
import signal
import struct
import subprocess
import time

from srtest import (BUILD_DIR, BUS_NAME, IFACE, OBJECT_PATH, SLOW, Gio, GLib, PolicydTestCase,
                    now_us)

APP = 'org.example.Crashy'
# How long a SIGKILL may take the latest exits with it: the crash counters
# are written at most once a second.
WRITE_WINDOW = 1.5 * SLOW
IN_MOVED_FROM = 0x40
IN_MOVED_TO = 0x80
IN_NONBLOCK = 0o4000


class Renames:
    """Counts the files renamed into place in a directory (each atomic
    rewrite of a state file is one), through inotify: the renames from
    name.XXXXXX, the temporary file. (Not the renames to name: inotify
    merges identical events that have not been read yet.)"""

    def __init__(self, directory, name):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(IN_NONBLOCK)
        assert self.fd >= 0
        assert self.libc.inotify_add_watch(self.fd, directory.encode(),
                                           IN_MOVED_FROM | IN_MOVED_TO) >= 0
        self.prefix = name.encode() + b'.'
        self.count = 0

    def poll(self):
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return self.count
            offset = 0
            while offset < len(data):
                _, mask, _, length = struct.unpack_from('iIII', data, offset)
                name = data[offset + 16:offset + 16 + length].rstrip(b'\0')
                if mask & IN_MOVED_FROM and name.startswith(self.prefix):
                    self.count += 1
                offset += 16 + length

    def close(self):
        os.close(self.fd)


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

    def test_voluntary_exit_ends_a_run(self):
        # Crashes that have not reached the threshold no longer count once
        # the app has exited normally.
        self.crash(2)
        self.s.call('NoteExit', 'sb', APP, True)
        self.crash(2)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        self.crash(1)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))

    def test_voluntary_exit_without_a_held_start_does_not_release_a_loop(self):
        # Issue 22, 6: NoteExit(app, true), which needs no authorization,
        # released an app the guard held back, as only ResetCrashGuard
        # (polkit "configure") should. Without a held start (the app may
        # have run with the state that made it crash) it releases nothing
        # and keeps the count: the reset, or the window passing, does.
        self.crash(3)
        self.s.call('NoteExit', 'sb', APP, True)
        self.s.call('NoteExit', 'sb', APP, True)
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        self.s.set_allowed([])
        self.assertDBusError('NotAllowed', self.s.call, 'ResetCrashGuard', 's', APP)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        self.s.set_allowed(['org.gnome.SessionRestore.configure'])
        self.s.call('ResetCrashGuard', 's', APP)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))

    def test_clean_exit_after_a_held_start_releases(self):
        # A held app stayed held after a clean exit from the start it was
        # held to, so that what it saved in that good run was thrown away
        # at its next crash. A host consumer told DENY crash-loop starts it
        # without its state (a held start); its report of the clean exit
        # that follows releases the app.
        self.crash(3)
        self.s.round_trip()      # the CrashGuardChanged of the third crash comes first
        heard = []
        self.s.bus.signal_subscribe(BUS_NAME, IFACE, 'CrashGuardChanged', OBJECT_PATH, None,
                                    Gio.DBusSignalFlags.NONE,
                                    lambda *args: heard.append(args[5].unpack()[0]), None)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        self.s.call('NoteExit', 'sb', APP, True)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        self.s.wait_until(lambda: heard == [[APP]], what='CrashGuardChanged on the release')
        # Released, not just out of the loop: one crash more is the first.
        self.crash(1)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        # Written: a restart keeps it released.
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))

    def test_clean_exit_after_a_held_start_from_the_main_thread_releases(self):
        # A connection's first check goes to policyd's main thread, later
        # ones are answered on GDBus's worker thread (sr-fast-path.c):
        # both note the held start.
        self.crash(3)
        consumer = self.s.session_bus.connect()
        reply = consumer.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'CheckRestore',
                                   GLib.Variant('(sua{sv})', (APP, 2, {})), None,
                                   Gio.DBusCallFlags.NONE, 10000 * SLOW, None)
        self.assertEqual(reply.unpack(), (0, 'crash-loop'))
        consumer.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit',
                           GLib.Variant('(sb)', (APP, True)), None, Gio.DBusCallFlags.NONE,
                           10000 * SLOW, None)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))

    def test_only_the_consumer_held_releases(self):
        # session-restore-ctl check asks what the guard says, and starts
        # nothing: a clean exit that another connection then reports
        # releases nothing. The consumer told before it still releases.
        self.crash(3)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        ctl = [os.path.join(BUILD_DIR, 'ctl', 'session-restore-ctl'), 'check', APP,
               '--reason', 'recover']
        result = subprocess.run(ctl, env=self.s.env, capture_output=True, text=True)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn('deny (crash-loop)', result.stdout)
        other = self.s.session_bus.connect()
        other.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit', GLib.Variant('(sb)', (APP, True)),
                        None, Gio.DBusCallFlags.NONE, 10000 * SLOW, None)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        self.s.call('NoteExit', 'sb', APP, True)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))

    def test_held_start_that_crashed_releases_nothing(self):
        # The app crashed even without its state: the start ends, and the
        # clean exit after the next start (not held) releases nothing.
        self.crash(3)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        self.crash(1)
        self.s.call('NoteExit', 'sb', APP, True)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))

    def test_window_passing_releases_a_held_app(self):
        self.crash(3)
        self.s.call('NoteExit', 'sb', APP, True)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        # A second's window, a second and more after the crashes.
        self.s.set_setting('crash-loop-window', GLib.Variant('u', 1))
        time.sleep(1.2)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))

    def test_widening_the_window_counts_older_crashes(self):
        # Issue 22, 6: each exit noted pruned the app's crashes to the
        # window in force, so widening the window found nothing older.
        # They are kept for the widest window the schema allows.
        self.s.set_setting('crash-loop-window', GLib.Variant('u', 1))
        for _ in range(3):
            self.crash(1)
            time.sleep(1.2)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        self.s.gsettings('set', 'crash-loop-window', '600')
        self.s.wait_until(lambda: self.s.prop('CrashLoopWindow') == 600, what='the wider window')
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))

    def test_crashes_from_the_future_age(self):
        # Issue 22, 6: a wall clock that went back left crashes "in the
        # future", which counted until the clock caught up with them. They
        # count as of now, and age from now.
        self.assertEqual(self.s.stop_policyd(), 0)
        year = 365 * 86400 * 1000000
        future = [now_us() + year + i for i in range(3)]
        os.makedirs(os.path.dirname(self.counters_path()), exist_ok=True)
        with open(self.counters_path(), 'wb') as f:
            f.write(GLib.Variant('a{sax}', {APP: future}).get_data_as_bytes().get_data())
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        # A second's window, a second and more after policyd read them.
        self.s.set_setting('crash-loop-window', GLib.Variant('u', 1))
        time.sleep(1.2)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))
        self.assertLess(max(self.on_disk()[APP]), now_us())

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
        # Writes are coalesced: at most one a second (issue 13, C). A
        # SIGKILL may lose the exits of the last second, no more: wait it
        # out before each kill.
        self.crash(3)
        self.s.settle(WRITE_WINDOW)
        self.s.stop_policyd(signal.SIGKILL)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        # A run of crashes ended by a voluntary exit, too.
        self.crash(2, app='org.example.Other')
        self.s.call('NoteExit', 'sb', 'org.example.Other', True)
        self.crash(2, app='org.example.Other')
        self.s.settle(WRITE_WINDOW)
        self.s.stop_policyd(signal.SIGKILL)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore('org.example.Other', 2), (1, 'allowed'))
        self.crash(1, app='org.example.Other')
        self.assertEqual(self.s.check_restore('org.example.Other', 2), (0, 'crash-loop'))
        self.s.settle(WRITE_WINDOW)
        self.s.stop_policyd(signal.SIGKILL)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore('org.example.Other', 2), (0, 'crash-loop'))

    def test_state_file_is_policyds_own(self):
        self.crash(1)
        path = os.path.join(self.s.state_home, 'session-restore', 'crash-counters')
        self.assertTrue(os.path.isfile(path))
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        self.assertFalse([n for n in os.listdir(os.path.dirname(path)) if n.startswith('.')],
                         'temporary files left behind')

    def counters_path(self):
        return os.path.join(self.s.state_home, 'session-restore', 'crash-counters')

    def on_disk(self):
        with open(self.counters_path(), 'rb') as f:
            data = f.read()
        return GLib.Variant.new_from_bytes(GLib.VariantType('a{sax}'), GLib.Bytes(data), False).unpack()

    def test_counters_survive_sigterm_right_after_a_burst(self):
        # The exits of the last second, not yet written, are written when
        # policyd exits cleanly.
        self.crash(1)
        self.crash(2)
        self.s.call('NoteExit', 'sb', 'org.example.Other', False)
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        # Other's single crash, ended by a voluntary exit: forgotten.
        self.s.call('NoteExit', 'sb', 'org.example.Other', True)
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        self.assertEqual(list(self.on_disk()), [APP])

    def test_many_app_ids_cost_a_bounded_number_of_writes(self):
        # Issue 13, C: 5,000 distinct app ids in NoteExit made each call
        # rewrite the whole table (30 ms a call at 5,000). Now the table is
        # capped and written at most once a second.
        self.crash(1)
        renames = Renames(os.path.dirname(self.counters_path()), 'crash-counters')
        self.addCleanup(renames.close)
        pending = []
        errors = []

        def done(conn, result, _):
            try:
                conn.call_finish(result)
            except GLib.Error as e:
                errors.append(e.message)
            pending.pop()

        # From 25 connections: one may report 200 exits at once (the
        # rate limit of sr-fast-path.c), not 5,000.
        address = self.s.env['DBUS_SESSION_BUS_ADDRESS']
        flags = (Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
                 Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        connections = [Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
                       for _ in range(25)]
        start = time.monotonic()
        context = GLib.MainContext.default()
        for i in range(5000):
            pending.append(i)
            connections[i // 200].call(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit',
                            GLib.Variant('(sb)', (f'org.example.Flood{i}', False)), None,
                            Gio.DBusCallFlags.NONE, 60000, None, done, None)
            while len(pending) >= 64:
                context.iteration(True)
        while pending:
            context.iteration(True)
        elapsed = time.monotonic() - start
        self.assertEqual(errors, [])
        # One write now and then one at the end of each second at most.
        # Counted once the writes have stopped (a loaded machine may land
        # the last one late).
        self.s.settle(WRITE_WINDOW)
        writes = renames.poll()
        while True:
            self.s.settle(2 * WRITE_WINDOW)
            if renames.poll() == writes:
                break
            writes = renames.poll()
        self.assertGreaterEqual(writes, 1)
        self.assertLessEqual(writes, int(elapsed) + 3, f'{writes} writes in {elapsed:.1f} s')

        # One more, after a quiet second: one write, at once.
        self.crash(1, app='org.example.OneMore')
        self.s.wait_until(lambda: renames.poll() >= writes + 1, what='one more exit written')
        self.assertEqual(renames.poll(), writes + 1)
        table = self.on_disk()
        self.assertLessEqual(len(table), 1024)
        self.assertIn('org.example.OneMore', table)
        self.assertIn('org.example.Flood4999', table)
        # The cap evicted the oldest: Crashy's single exit went first.
        self.assertNotIn(APP, table)
        self.assertAlive()

