"""policyd loses its bus connection through no fault of its own, and comes
back with nothing lost.

GLib 2.74's GDBus misreads some valid messages: an array of structs (or
dict entries) whose elements start after 4 bytes of padding, when the last
element and its padding take 4 bytes or less. parse_value_from_blob() in
gio/gdbusmessage.c counts the array's end from before that padding, reads
what follows out of place, and GDBus closes the connection. dbus-daemon
passes the message on (it is valid), so any client, a sandboxed one too,
can make policyd leave the bus with one call. policyd cannot see the
message: it never reaches its code. What it can do is exit with a failure,
so that systemd (Restart=on-failure, no start limit) or the next call (by
D-Bus activation) starts it again, and lose nothing on the way out.
"""
import os
import unittest

from simulator import Simulator
from srtest import (BUS_NAME, OBJECT_PATH, IFACE, RECOVER, SLOW, GLib, Gio,
                    PolicydTestCase, now_us)

# The smallest message known to do it: body (a(g)s), ([('yyyy',), ('',)], 'x').
POISON = GLib.Variant('(a(g)s)', ([('yyyy',), ('',)], 'x'))

APP = 'org.example.Crashy'


class BusDropTest(PolicydTestCase):
    def connect(self):
        return Gio.DBusConnection.new_for_address_sync(
            self.s.env['DBUS_SESSION_BUS_ADDRESS'],
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)

    def poison(self):
        """Sends the message from a connection of its own, without waiting."""
        conn = self.connect()
        conn.call(BUS_NAME, OBJECT_PATH, IFACE, 'CheckSave', POISON, None,
                  Gio.DBusCallFlags.NO_AUTO_START, 5000 * SLOW, None, None, None)
        conn.flush_sync(None)
        return conn

    def test_dropped_bus_is_a_failure_and_activation_brings_it_back(self):
        self.s.activatable()
        self.poison()
        self.assertEqual(self.s.policyd.wait(20 * SLOW), 1)
        self.s.policyd = None
        self.assertIn('connection to the bus was closed', self.s.log())
        # The next call starts it again, and it answers right.
        self.assertEqual(self.s.check_save('org.example.Back'), (1, 'allowed'))
        self.assertIsNotNone(self.s.owner_pid())

    def test_nothing_lost_mid_clear_and_mid_note_exit(self):
        sim = Simulator(self.s, listening=False)
        apps = [f'org.example.App{i}' for i in range(200)]
        for app in apps:
            sim.memory[app] = {str(i): {'saved_at': now_us() - 1000000, 'flatpak': False,
                                        'payload': b''} for i in range(5)}
        sim.write_back()
        # Exits that have been answered (their counts may not be on disk
        # yet), then a clear that has begun: its clear point is written,
        # the removal of a thousand files is under way. Then the poison.
        for _ in range(3):
            self.s.call('NoteExit', 'sb', APP, False)
        conn = self.connect()
        conn.call(BUS_NAME, OBJECT_PATH, IFACE, 'Clear', GLib.Variant('(as)', ([],)),
                  None, Gio.DBusCallFlags.NONE, 5000 * SLOW, None, None, None)
        conn.flush_sync(None)
        points = os.path.join(self.s.state_home, 'session-restore', 'clear-points')
        self.s.wait_until(lambda: os.path.exists(points), timeout=20, what='the clear to begin')
        self.poison()
        self.assertEqual(self.s.policyd.wait(20 * SLOW), 1)
        self.s.policyd = None

        # The clear was carried out before it exited...
        left = [app for app in apps for i in range(5) if os.path.exists(sim.gtk_path(app, str(i)))]
        self.assertEqual(left, [])
        # ...and holds against the owner writing its memory back.
        sim.write_back()
        self.s.start_policyd()
        self.assertEqual(sim.restore(apps[0], 3), (0, 'cleared'))
        # The exits were counted and kept.
        self.assertEqual(self.s.check_restore(APP, RECOVER), (0, 'crash-loop'))

    @unittest.expectedFailure
    def test_glib_reads_the_message(self):
        # Fails while GLib misreads the message. When a fixed GLib is in
        # use, this passes, the run fails as an unexpected success, and
        # this file, the README and the admin help need updating.
        conn = self.poison()
        # The bus answers this connection once it has passed the message on.
        conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                       'GetId', None, None, Gio.DBusCallFlags.NONE, 5000, None)
        self.assertAlive()
