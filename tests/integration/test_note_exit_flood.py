"""A flood of NoteExit from one connection is cut short before it reaches
policyd's main thread, and other callers keep being answered."""
import time

from srtest import (BUS_NAME, ERROR, OBJECT_PATH, IFACE, RECOVER, SLOW, GLib, Gio, PolicydTestCase,
                    remote_error)

FLOOD = 5000
BURST, RATE = 200, 20        # sr-fast-path.c: a connection's
APP_BURST, APP_RATE = 100, 10    # … and one app's share of it
THRESHOLD = 3                # crash-loop-threshold's default
APP = 'org.example.Flooder'


class NoteExitFloodTest(PolicydTestCase):
    def connect(self):
        return Gio.DBusConnection.new_for_address_sync(
            self.s.env['DBUS_SESSION_BUS_ADDRESS'],
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)

    def note_exits_at_once(self, conn, exits):
        """NoteExit(app, voluntary) for each of @exits, all sent at once on
        @conn (the filter decides on each as it reads it); returns when
        they were sent, each one's outcome ('counted', or its error's name
        and text) and when its reply came (timed as it arrived: blocking
        iterations)."""
        results, replied = [None] * len(exits), [None] * len(exits)

        def on_reply(c, result, i):
            replied[i] = time.monotonic()
            try:
                c.call_finish(result)
                results[i] = 'counted'
            except GLib.Error as e:
                results[i] = (remote_error(e), e.message.partition(': ')[2])

        started = time.monotonic()
        for i, params in enumerate(exits):
            conn.call(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit', GLib.Variant('(sb)', params),
                      None, Gio.DBusCallFlags.NONE, 60000 * SLOW, None, on_reply, i)
        conn.flush_sync(None)
        context = GLib.MainContext.default()
        deadline = time.monotonic() + 60 * SLOW
        while None in results:
            self.assertLess(time.monotonic(), deadline, 'not every NoteExit was answered')
            context.iteration(True)
        return started, results, replied

    def test_flood_is_limited_and_others_are_answered(self):
        flooder = self.connect()
        replies = {'ok': 0, 'limited': 0, 'other': []}

        def on_reply(conn, result, data):
            try:
                conn.call_finish(result)
                replies['ok'] += 1
            except GLib.Error as e:
                if 'Too many exit reports' in e.message:
                    replies['limited'] += 1
                else:
                    replies['other'].append(e.message)

        started = time.monotonic()
        for _ in range(FLOOD):
            flooder.call(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit', GLib.Variant('(sb)', (APP, False)),
                         None, Gio.DBusCallFlags.NONE, 60000 * SLOW, None, on_reply, None)
        flooder.flush_sync(None)

        # A caller new to policyd (its first call goes to the main thread)
        # is answered while the flood is in flight.
        other = self.connect()
        asked = time.monotonic()
        reply = other.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'CheckRestore',
                                GLib.Variant('(sua{sv})', ('org.example.Bystander', 1, {})),
                                None, Gio.DBusCallFlags.NONE, 30000 * SLOW, None)
        latency = time.monotonic() - asked
        self.assertEqual(reply.unpack(), (1, 'allowed'))

        self.s.wait_until(lambda: replies['ok'] + replies['limited'] + len(replies['other']) == FLOOD,
                          timeout=60, what='every NoteExit to be answered')
        elapsed = time.monotonic() - started
        self.assertEqual(replies['other'], [])
        self.assertLessEqual(replies['ok'], BURST + RATE * elapsed + RATE)
        self.assertGreater(replies['limited'], 0)
        print(f'# {FLOOD} NoteExit in {elapsed:.2f} s: {replies["ok"]} counted, '
              f'{replies["limited"]} refused; a new caller\'s check answered in '
              f'{latency * 1000:.0f} ms meanwhile')

        # What was counted counts; the limit lifts with time (the call is
        # not refused). A voluntary exit does not release an app the guard
        # holds back, unless it follows the start the guard held for the
        # connection reporting it (test_crash_guard): the flooder was told
        # of none.
        self.assertEqual(self.s.check_restore(APP, RECOVER), (0, 'crash-loop'))
        time.sleep(0.2)
        flooder.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit', GLib.Variant('(sb)', (APP, True)),
                          None, Gio.DBusCallFlags.NONE, 5000 * SLOW, None)
        self.assertEqual(self.s.check_restore(APP, RECOVER), (0, 'crash-loop'))

    def test_the_201st_is_refused_and_others_have_their_own_limit(self):
        first, second = self.connect(), self.connect()
        sent = BURST + 40
        # Forty apps, each well within its share, more than the filter
        # keeps shares of at once (32): the connection's limit.
        started, results, replied = self.note_exits_at_once(
            first, [(f'org.example.A{i % 40}', True) for i in range(sent)])

        self.assertEqual(results[:BURST], ['counted'] * BURST, 'the burst')
        refused = [i for i, r in enumerate(results) if r != 'counted']
        self.assertTrue(refused, f'all {sent} counted')
        for i in refused:
            self.assertEqual(results[i], (ERROR + 'Failed', 'Too many exit reports from this '
                                          'connection; this one was not counted'))
        # The 201st is refused, unless 1/RATE s went by before it was
        # read: RATE calls a second come back. The first refused one, n,
        # was read before its reply came: n <= BURST + RATE * that time.
        first_refused = refused[0]
        window = replied[first_refused] - started
        self.assertLessEqual(first_refused, BURST + RATE * window,
                             f'call {first_refused + 1} was the first refused, {window:.3f} s on')
        counted = sent - len(refused)
        self.assertLessEqual(counted, BURST + RATE * (max(replied) - started) + 1)
        print(f'# {sent} NoteExit at once: the first {first_refused} counted, call '
              f'{first_refused + 1} refused ({window * 1000:.0f} ms on), {counted} counted in all')

        # Another connection has a limit of its own.
        second.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit',
                         GLib.Variant('(sb)', ('org.example.B', True)),
                         None, Gio.DBusCallFlags.NONE, 5000 * SLOW, None)

    def test_one_app_s_flood_leaves_the_others_their_share(self):
        # Every app's exits come through the portal backend's one
        # connection. One app crashing in a fast loop used up that
        # connection's budget, and another app's crashes, reported after,
        # were refused: the guard missed its crash loop.
        conn = self.connect()
        looping, crashing = 'org.example.Looping', 'org.example.Crashing'
        flood = 1000
        started, results, replied = self.note_exits_at_once(
            conn, [(looping, False)] * flood + [(crashing, False)] * THRESHOLD)

        self.assertEqual(self.s.check_restore(crashing, RECOVER), (0, 'crash-loop'))
        self.assertEqual(results[flood:], ['counted'] * THRESHOLD, "the other app's exits")
        counted = results[:flood].count('counted')
        self.assertEqual(results[:APP_BURST], ['counted'] * APP_BURST, "the looping app's burst")
        self.assertLessEqual(counted, APP_BURST + APP_RATE * (max(replied) - started) + 1)
        self.assertEqual(set(results[:flood]) - {'counted'},
                         {(ERROR + 'Failed', 'Too many exit reports of this app from this '
                           'connection; this one was not counted')})
        self.assertEqual(self.s.check_restore(looping, RECOVER), (0, 'crash-loop'))
        print(f'# {flood} NoteExit of one app, then {THRESHOLD} of another on the same '
              f'connection: {counted} of the first counted, all of the second')
