"""What ListStoredState says will happen to each app's saved state, the
crash-loop reset, and the programs that consult policyd (Consumers)."""
import os
import shutil
import signal
import subprocess
import sys

from sessionfile import write_session_file
from simulator import Simulator
from srtest import (BUS_NAME, IFACE, OBJECT_PATH, RECOVER, Gio, GLib, PolicydTestCase, now_us,
                    USEC_PER_DAY)

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

    def test_crashed_instance_does_not_reopen_at_login(self):
        # gnome-session 51 relaunches at login only the instances whose
        # "crashed" is false; one that crashed stays in its file for the
        # app's next launch to recover: listed, but not as reopening.
        write_session_file(os.path.join(self.s.state_home, 'gnome-session@gnome.state'),
                           {APP: [None], OTHER: [None]}, now_us(), crashed={APP})
        listing = self.s.list_state()
        self.assertEqual(listing[APP]['stores'], ['gnome-session'])
        self.assertEqual(listing[APP]['entries'], 1)
        self.assertEqual(listing[APP]['state'], 'valid')
        self.assertFalse(listing[APP]['at-login'])
        self.assertTrue(listing[OTHER]['at-login'])

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


class OwnTimeTest(PolicydTestCase):
    """Issue 24: "last-saved" is the app's own newest save, not the time of
    a session file many apps share; "state" follows it."""
    HOUR = 3600 * 1000000

    def write_world(self, now):
        state = self.s.state_home
        self.times = {'record': now - 60 * 1000000, 'session': now - 30 * 1000000}
        # The portal's record, just rewritten for someone else: each app's
        # instances say when they were saved.
        write_session_file(os.path.join(state, 'session-restore-portal@test.state'),
                           {APP: [now - 3 * self.HOUR, now - 5 * self.HOUR],
                            OTHER: [now - 40 * USEC_PER_DAY]}, self.times['record'])
        # gnome-session's file, just rewritten: no time per instance. One of
        # its apps has GTK state of its own, saved days ago; one has not.
        write_session_file(os.path.join(state, 'gnome-session@gnome.state'),
                           {'org.example.Gtk': [None], 'org.example.Bare': [None]},
                           self.times['session'])
        sim = Simulator(self.s, listening=False)
        path = sim.gtk_path('org.example.Gtk', '1')
        with open(path, 'wb') as f:
            f.write(sim.gtk_state('org.example.Gtk', '1', b'').get_data_as_bytes().get_data())
        self.gtk_time = now - 5 * USEC_PER_DAY
        os.utime(path, (self.gtk_time / 1e6, self.gtk_time / 1e6))

    def test_each_app_tells_its_own_time(self):
        now = now_us()
        self.write_world(now)
        listing = self.s.list_state()
        self.assertEqual(listing[APP]['last-saved'], now - 3 * self.HOUR)
        self.assertEqual(listing[APP]['last-written'], self.times['record'])
        self.assertEqual(listing[APP]['state'], 'valid')
        # Past max-age-days (30) by its own time, though its file is fresh:
        # CheckRestore with that saved-at says "expired", and so does the
        # listing.
        self.assertEqual(listing[OTHER]['last-saved'], now - 40 * USEC_PER_DAY)
        self.assertEqual(listing[OTHER]['state'], 'expired')
        self.assertEqual(self.s.check_restore(OTHER, RECOVER,
                                              {'saved-at': GLib.Variant('x', now - 40 * USEC_PER_DAY)}),
                         (0, 'expired'))
        # Its GTK file's time, not the shared file's.
        gtk = listing['org.example.Gtk']
        self.assertAlmostEqual(gtk['last-saved'], self.gtk_time, delta=1000)
        self.assertEqual(gtk['last-written'], self.times['session'])
        # Nothing tells its own time: no time rather than another app's;
        # its state is judged by the file's, which it is no newer than.
        bare = listing['org.example.Bare']
        self.assertNotIn('last-saved', bare)
        self.assertEqual(bare['last-written'], self.times['session'])
        self.assertEqual(bare['state'], 'valid')

    def test_an_old_shared_file_is_expired_for_all_its_apps(self):
        now = now_us()
        write_session_file(os.path.join(self.s.state_home, 'gnome-session@gnome.state'),
                           {'org.example.Bare': [None]}, now - 40 * USEC_PER_DAY)
        bare = self.s.list_state()['org.example.Bare']
        self.assertNotIn('last-saved', bare)
        self.assertEqual(bare['state'], 'expired')


class ListingFloodTest(PolicydTestCase):
    FLOOD = 200

    def test_a_flood_of_listings_shares_walks_and_does_not_hold_up_a_clear(self):
        # The stores are walked on one thread, first come first served: 200
        # listings asked at once by one caller were 200 walks, each queued
        # ahead of another caller's Clear (6 s here, and as much more as
        # the caller asked). A listing asked while one not started yet is
        # the last job queued shares that one's walk.
        sim = Simulator(self.s)
        sim.memory = {f'org.example.App{a}': {str(i): {'saved_at': now_us(), 'flatpak': False,
                                                        'payload': b'p' * 64}
                                               for i in range(30)}
                      for a in range(100)}
        sim.write_back()
        # Each walk says once that it cannot read this: the walks, counted.
        os.mkfifo(os.path.join(self.s.state_home, 'gnome-session@walks.state'))
        marker = 'gnome-session@walks.state: not a regular file'

        flooder = self.s.session_bus.connect()
        answers = []
        for _ in range(self.FLOOD):
            flooder.call(BUS_NAME, OBJECT_PATH, IFACE, 'ListStoredState', None, None,
                         Gio.DBusCallFlags.NONE, 600000, None,
                         lambda conn, result, _: answers.append(len(conn.call_finish(result)[0])),
                         None)
        flooder.flush_sync(None)
        report = self.s.clear(['org.example.App0'])
        walks_before_clear = self.s.log().count(marker)
        self.assertEqual(report['apps'], ['org.example.App0'])
        self.s.wait_until(lambda: GLib.MainContext.default().iteration(False) or
                          len(answers) == self.FLOOD, timeout=60, what='the listings')
        # Every listing has every app (and the row of what could not be
        # read), or all but the one cleared meanwhile.
        self.assertTrue(set(answers) <= {101, 100}, answers)
        # 41 walks before the Clear and 201 in all before the change, 4 and
        # 4 after it.
        self.assertLess(walks_before_clear, self.FLOOD // 10)
        self.assertLess(self.s.log().count(marker), self.FLOOD // 10)


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

    def test_a_check_after_other_calls_names_the_program(self):
        # Issue 24, "Used by": a program that read the properties or listed
        # before its first check was known to the fast path, which answered
        # that check without naming it: "nothing has asked yet".
        self.s.all_props()
        self.s.list_state()
        self.s.check_save(APP)
        self.assertEqual([name for name, _ in self.s.prop('Consumers')], [self.program()])

    def test_properties_only_are_not_consulting(self):
        self.s.all_props()
        self.s.prop('Version')
        self.assertEqual(self.s.prop('Consumers'), [])

    def consumers_path(self):
        return os.path.join(self.s.state_home, 'session-restore', 'consumers')

    def on_disk(self):
        """The consumers file: {name: (last, first, days)}, or {}."""
        try:
            with open(self.consumers_path(), 'rb') as f:
                data = f.read()
        except FileNotFoundError:
            return {}
        value = GLib.Variant.new_from_bytes(GLib.VariantType('a{s(xxu)}'), GLib.Bytes(data), False)
        return value.unpack() if value.is_normal_form() else {}

    def test_new_program_saved_without_a_clean_exit(self):
        # Issue 22, 6: the record was written a minute after a program was
        # first seen, or at a clean exit: a crash before lost it.
        self.s.check_save(APP)
        self.s.wait_until(lambda: self.program() in self.on_disk(), what='the record on disk')
        self.s.stop_policyd(signal.SIGKILL)
        self.s.start_policyd()
        self.assertEqual([name for name, _ in self.s.prop('Consumers')], [self.program()])

    def test_later_time_saved_without_a_clean_exit(self):
        # Issue 22, 6: a program already known got its later times written
        # only at a clean exit: after a crash, a consumer that asks every
        # day dropped off the list 30 days after it was first seen. (The
        # file here is in the format of before, which is still read.)
        self.assertEqual(self.s.stop_policyd(), 0)
        os.makedirs(os.path.dirname(self.consumers_path()), exist_ok=True)
        with open(self.consumers_path(), 'wb') as f:
            f.write(GLib.Variant('a{sx}', {self.program(): now_us() - 29 * USEC_PER_DAY})
                    .get_data_as_bytes().get_data())
        self.s.start_policyd()
        before = now_us()
        self.s.check_save(APP)
        self.s.wait_until(lambda: self.on_disk().get(self.program(), (0,))[0] >= before,
                          what='the later time on disk')
        self.assertEqual(self.on_disk()[self.program()][2], 2)    # two days on which it asked
        self.s.stop_policyd(signal.SIGKILL)
        self.s.start_policyd()
        self.assertGreaterEqual(dict(self.s.prop('Consumers'))[self.program()], before)

    def ask_as(self, names):
        """Each of @names, a program of that name (a hard link to a copy of
        gdbus), asks policyd once, a few at a time."""
        bindir = os.path.join(self.s.root, 'bin')
        original = os.path.join(bindir, '.gdbus')
        if not os.path.exists(original):
            os.makedirs(bindir)
            shutil.copy(shutil.which('gdbus'), original)
        for start in range(0, len(names), 16):
            running = []
            for name in names[start:start + 16]:
                path = os.path.join(bindir, name)
                if not os.path.exists(path):
                    os.link(original, path)
                running.append(subprocess.Popen(
                    [path, 'call', '--session', '--dest', BUS_NAME, '--object-path', OBJECT_PATH,
                     '--method', f'{IFACE}.CheckSave', APP],
                    env=self.s.env, stdout=subprocess.DEVNULL))
            for process in running:
                self.assertEqual(process.wait(60), 0)

    def test_made_up_programs_do_not_push_out_the_real_ones(self):
        # Issue 22, 6: the record was capped at 256 programs, first come
        # first served: a flood of made-up host programs (copies of one
        # executable) kept out a consumer that came after it for 30 days.
        # Now the most frequent and the most recent programs stay.
        made_up = [f'made-up-{i}' for i in range(400)]
        self.ask_as(['session-manager'])         # known before the flood
        self.ask_as(made_up[:300])
        self.s.check_save(APP)                   # a consumer new after the flood...
        for start in range(300, 400, 10):        # ...that keeps asking during the next
            self.ask_as(made_up[start:start + 10])
            self.s.check_save(APP)
        for restart in (False, True):
            if restart:
                self.assertEqual(self.s.stop_policyd(), 0)
                self.s.start_policyd()
            names = [name for name, _ in self.s.prop('Consumers')]
            for name in ('session-manager', self.program(), 'made-up-399'):
                self.assertIn(name, names)
            self.assertNotIn('made-up-350', names)
            self.assertLessEqual(len(names), 64)
