"""polkit that answers late (python-dbusmock's polkitd, made to hang and
then released): policyd answers Unavailable before a client that set no
timeout gives up (GDBus's 25 s), and a "yes" that comes after that, or
after the caller left the bus, changes nothing. Values are read back with
`gsettings get`, in another process, from dconf."""
import time

from srtest import SLOW, BUS_NAME, OBJECT_PATH, IFACE, GLib, Gio, PolicydTestCase, remote_error

# common/sr-bus.h
POLKIT_WAIT_S = 20
DEFAULT_CLIENT_TIMEOUT_S = 25


def hang(session):
    session.mock_polkit('SimulateHang', 'b', True)


def release(session):
    session.mock_polkit('SimulateHang', 'b', False)
    session.mock_polkit('ReleaseHangingCalls')


def settle(session):
    """Once this change went through the gate, every earlier call's polkit
    answer has been acted on: polkit answers in order, and the bus answers
    policyd's questions in order."""
    session.set_setting('crash-loop-threshold', GLib.Variant('u', 4))
    assert session.gsettings_value('crash-loop-threshold') == 4


class LatePolkitTest(PolicydTestCase):

    def start_call(self, conn, flags=Gio.DBusCallFlags.NONE, timeout=GLib.MAXINT):
        """SetSetting max-age-days 5 on conn; returns the list its outcome
        goes into (a reply, or a GLib.Error)."""
        outcome = []

        def done(conn, result):
            try:
                outcome.append(conn.call_finish(result))
            except GLib.Error as e:
                outcome.append(e)
        conn.call(BUS_NAME, OBJECT_PATH, IFACE, 'SetSetting',
                  GLib.Variant('(sv)', ('max-age-days', GLib.Variant('i', 5))), None,
                  flags, timeout, None, done)
        self.s.wait_until(lambda: self.s.mock_polkit('HaveHangingCalls')[0],
                          what='the call to reach polkit')
        return outcome

    def check_caller_leaves(self, flags):
        hang(self.s)
        conn = self.s.session_bus.connect()
        self.start_call(conn, flags)
        conn.close_sync(None)
        release(self.s)
        settle(self.s)
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        self.assertEqual(self.s.prop('MaxAgeDays'), 30)

    def test_caller_that_left_changes_nothing(self):
        self.check_caller_leaves(Gio.DBusCallFlags.NONE)
        self.assertAlive()

    def test_interactive_caller_that_left_changes_nothing(self):
        self.check_caller_leaves(Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION)

    def test_answers_before_a_default_client_gives_up(self):
        # The client of the issue: GDBus with no timeout of its own (25 s).
        # policyd answers Unavailable first, and polkit's "yes" after that
        # changes nothing, though the client is still on the bus.
        hang(self.s)
        conn = self.s.session_bus.connect()
        started = time.monotonic()
        outcome = self.start_call(conn, timeout=-1)
        self.s.wait_until(lambda: outcome, timeout=DEFAULT_CLIENT_TIMEOUT_S + 5,
                          what='an answer')
        elapsed = time.monotonic() - started
        self.assertIsInstance(outcome[0], GLib.Error)
        self.assertEqual(remote_error(outcome[0]), 'org.gnome.SessionRestore.Error.Unavailable',
                         outcome[0].message)
        self.assertIn('polkit did not answer in time', outcome[0].message)
        self.assertGreaterEqual(elapsed, POLKIT_WAIT_S - 1)
        if SLOW == 1:
            self.assertLess(elapsed, DEFAULT_CLIENT_TIMEOUT_S)
        release(self.s)
        settle(self.s)
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        conn.close_sync(None)
