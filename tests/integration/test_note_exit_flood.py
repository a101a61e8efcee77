"""A flood of NoteExit from one connection is cut short before it reaches
policyd's main thread, and other callers keep being answered."""
import time

from srtest import BUS_NAME, OBJECT_PATH, IFACE, RECOVER, SLOW, GLib, Gio, PolicydTestCase

FLOOD = 5000
BURST, RATE = 200, 20        # sr-fast-path.c
APP = 'org.example.Flooder'


class NoteExitFloodTest(PolicydTestCase):
    def connect(self):
        return Gio.DBusConnection.new_for_address_sync(
            self.s.env['DBUS_SESSION_BUS_ADDRESS'],
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)

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
        # holds back (test_crash_guard).
        self.assertEqual(self.s.check_restore(APP, RECOVER), (0, 'crash-loop'))
        time.sleep(0.2)
        flooder.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit', GLib.Variant('(sb)', (APP, True)),
                          None, Gio.DBusCallFlags.NONE, 5000 * SLOW, None)
        self.assertEqual(self.s.check_restore(APP, RECOVER), (0, 'crash-loop'))

    def test_other_connections_have_their_own_limit(self):
        first, second = self.connect(), self.connect()
        for _ in range(BURST):
            first.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit',
                            GLib.Variant('(sb)', ('org.example.A', True)),
                            None, Gio.DBusCallFlags.NONE, 5000 * SLOW, None)
        second.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit',
                         GLib.Variant('(sb)', ('org.example.B', True)),
                         None, Gio.DBusCallFlags.NONE, 5000 * SLOW, None)
