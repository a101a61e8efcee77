"""The fast path: CheckSave and CheckRestore from a caller policyd already
knows are answered on GDBus's worker thread, without waiting for the main
thread; everything else still goes through the main thread and the gate.

policyd's main thread is held up for real: SetSetting waits in
g_settings_sync() until dconf-service has the write, and the test stops
dconf-service (SIGSTOP) first."""
import os
import signal
import threading
import time

from gi.repository import GLib, Gio

from srtest import (ALLOW, BUS_NAME, DENY, DESKTOP_SCHEMA, ERROR, IFACE, OBJECT_PATH, RECOVER,
                    RESTORE, SLOW, PolicydTestCase, now_us, remote_error)

APP = 'org.example.Fast'
# How long a call must stay unanswered to count as waiting. dconf gives up
# on a write after 25 s, which bounds how long the main thread can be held.
HELD_UP = 2.5 if SLOW > 1 else 1.0
ROUNDS = 50 if SLOW > 1 else 200


class Call(threading.Thread):
    """One call on its own thread, so the test can see whether it waits."""

    def __init__(self, bus, method, signature, *args, iface=IFACE):
        super().__init__(daemon=True)
        self.bus, self.method, self.signature, self.args = bus, method, signature, args
        self.iface = iface
        self.reply = self.error = None
        self.start()

    def run(self):
        try:
            reply = self.bus.call_sync(BUS_NAME, OBJECT_PATH, self.iface, self.method,
                                       GLib.Variant(f'({self.signature})', self.args), None,
                                       Gio.DBusCallFlags.NONE, 120000, None)
            self.reply = reply.unpack()
        except GLib.Error as e:
            self.error = remote_error(e)

    def result(self):
        self.join(60 * SLOW)
        assert not self.is_alive(), f'{self.method} never came back'
        return self.error or self.reply


class FastPathTest(PolicydTestCase):
    def dconf_service(self):
        return self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                    'org.freedesktop.DBus', 'GetConnectionUnixProcessID',
                                    GLib.Variant('(s)', ('ca.desrt.dconf',)), None,
                                    Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]

    def hold_up_main_thread(self):
        """Stops dconf-service and starts a SetSetting (login-restore:
        never) that keeps policyd's main thread waiting for it. Returns the
        call and a function that lets everything go on."""
        # A first write starts dconf-service.
        self.s.set_setting('restore-on-launch', GLib.Variant('b', False))
        pid = self.dconf_service()
        os.kill(pid, signal.SIGSTOP)

        def resume():
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self.addCleanup(resume)

        setting = Call(self.s.bus, 'SetSetting', 'sv', 'login-restore', GLib.Variant('s', 'never'))
        # Property reads always run on the main thread: once one does not
        # come back, the main thread is held up (SetSetting first waits
        # for polkit, without holding it).
        deadline = time.monotonic() + 20 * SLOW
        while True:
            probe = Call(self.s.bus, 'Get', 'ss', IFACE, 'Enabled',
                         iface='org.freedesktop.DBus.Properties')
            probe.join(HELD_UP)
            if probe.is_alive():
                break
            self.assertLess(time.monotonic(), deadline, 'the main thread was never held up')
        self.assertTrue(setting.is_alive(), 'SetSetting came back')
        return setting, probe, resume

    def test_known_callers_are_answered_while_the_main_thread_is_busy(self):
        # This connection's first call identifies it, on the main thread.
        self.assertEqual(self.s.check_save(APP), (ALLOW, 'allowed'))
        setting, probe, resume = self.hold_up_main_thread()

        start = time.monotonic()
        for _ in range(ROUNDS):
            self.assertEqual(self.s.check_save(APP), (ALLOW, 'allowed'))
            # The new value is in force in policyd's memory (dconf applies a
            # write locally at once), though its SetSetting has not returned.
            self.assertEqual(self.s.check_restore(APP, RESTORE), (DENY, 'login-off'))
            self.assertEqual(self.s.check_restore(APP, RECOVER, {'saved-at': GLib.Variant('x', now_us())}),
                             (ALLOW, 'allowed'))
        elapsed = time.monotonic() - start
        self.assertTrue(setting.is_alive() and probe.is_alive(),
                        f'the main thread moved on during the checks ({elapsed:.2f} s)')

        resume()
        self.assertEqual(setting.result(), ())
        self.assertEqual(probe.result(), (True,))
        self.assertEqual(self.s.gsettings_value('login-restore'), 'never')
        self.assertEqual(self.s.check_restore(APP, RESTORE), (DENY, 'login-off'))

    def test_what_needs_the_main_thread_waits_for_it(self):
        self.assertEqual(self.s.check_save(APP), (ALLOW, 'allowed'))
        setting, probe, resume = self.hold_up_main_thread()

        # A new connection: its caller is not known yet.
        newcomer = Call(self.s.session_bus.connect(), 'CheckSave', 's', APP)
        # Errors are worded by the gate: a bad app id, an unknown reason, a
        # mistyped option.
        bad_app = Call(self.s.bus, 'CheckSave', 's', 'not/an.app')
        bad_reason = Call(self.s.bus, 'CheckRestore', 'sua{sv}', APP, 0, {})
        bad_option = Call(self.s.bus, 'CheckRestore', 'sua{sv}', APP, 3,
                          {'saved-at': GLib.Variant('s', 'yesterday')})
        # Other methods, and a check with a signature policyd does not take.
        prop = threading.Thread(target=self.s.prop, args=('Enabled',), daemon=True)
        prop.start()
        time.sleep(HELD_UP)
        for name, call in (('newcomer', newcomer), ('bad app', bad_app), ('bad reason', bad_reason),
                           ('bad option', bad_option), ('Get', prop)):
            self.assertTrue(call.is_alive(), f'{name}: {getattr(call, "reply", None)} '
                            f'{getattr(call, "error", None)}')
        # Meanwhile this connection is still answered.
        self.assertEqual(self.s.check_save(APP), (ALLOW, 'allowed'))

        resume()
        self.assertEqual(setting.result(), ())
        self.assertEqual(newcomer.result(), (ALLOW, 'allowed'))
        self.assertEqual(bad_app.result(), ERROR + 'InvalidArgs')
        self.assertEqual(bad_reason.result(), ERROR + 'InvalidArgs')
        self.assertEqual(bad_option.result(), ERROR + 'InvalidArgs')
        prop.join(30 * SLOW)
        self.assertFalse(prop.is_alive())

    def test_answers_follow_the_main_thread(self):
        # Each change, made on the main thread, is seen by the next check
        # answered on the worker thread: the policy, an exclusion, a clear
        # point and the crash counters.
        self.assertEqual(self.s.check_restore(APP, RECOVER), (ALLOW, 'allowed'))
        saved_at = now_us()

        self.s.clear([APP])
        self.assertEqual(self.s.check_restore(APP, RESTORE, {'saved-at': GLib.Variant('x', saved_at)}),
                         (DENY, 'cleared'))

        for _ in range(3):
            self.s.call('NoteExit', 'sb', APP, False)
        self.assertEqual(self.s.check_restore(APP, RECOVER), (DENY, 'crash-loop'))
        self.s.call('ResetCrashGuard', 's', APP)
        self.assertEqual(self.s.check_restore(APP, RECOVER), (ALLOW, 'allowed'))

        self.s.call('SetAppExcluded', 'sb', APP, True)
        self.assertEqual(self.s.check_save(APP), (DENY, 'excluded'))
        self.s.call('SetAppExcluded', 'sb', APP, False)
        self.assertEqual(self.s.check_save(APP), (ALLOW, 'allowed'))

        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.assertEqual(self.s.check_save(APP), (DENY, 'disabled'))
        # gsettings, outside policyd: seen once policyd's main thread has
        # read dconf's change notification. SetSetting switched GNOME's key
        # off too: both must be on.
        self.s.gsettings('set', 'save-restore', 'true', schema=DESKTOP_SCHEMA)
        self.s.gsettings('set', 'enabled', 'true')
        self.s.wait_until(lambda: self.s.check_save(APP) == (ALLOW, 'allowed'),
                          what='the switch to come back on')

    def test_checks_see_exits_sent_before_them(self):
        # A consumer may report exits and ask straight after, without
        # waiting for the replies: the check must see the exits, as when
        # everything ran in order on the main thread.
        self.assertEqual(self.s.check_save(APP), (ALLOW, 'allowed'))
        for i in range(20):
            app = f'org.example.Crashy{i}'
            for _ in range(3):
                self.s.bus.call(BUS_NAME, OBJECT_PATH, IFACE, 'NoteExit',
                                GLib.Variant('(sb)', (app, False)), None,
                                Gio.DBusCallFlags.NONE, -1, None, None, None)
            self.assertEqual(self.s.check_restore(app, RECOVER), (DENY, 'crash-loop'), app)
        # Exits done, checks are answered on the worker thread again: with
        # the main thread held up, they still come back.
        setting, probe, resume = self.hold_up_main_thread()
        self.assertEqual(self.s.check_restore('org.example.Crashy0', RECOVER), (DENY, 'crash-loop'))
        resume()
        self.assertEqual(setting.result(), ())

    def test_no_reply_expected_gets_none(self):
        # A check sent with NO_REPLY_EXPECTED is answered with nothing; the
        # next call on the connection gets its own reply.
        self.assertEqual(self.s.check_save(APP), (ALLOW, 'allowed'))
        message = Gio.DBusMessage.new_method_call(BUS_NAME, OBJECT_PATH, IFACE, 'CheckSave')
        message.set_body(GLib.Variant('(s)', (APP,)))
        message.set_flags(Gio.DBusMessageFlags.NO_REPLY_EXPECTED)
        replies = []
        filter_id = self.s.bus.add_filter(
            lambda bus, m, incoming: (replies.append(m.get_reply_serial())
                                      if incoming and m.get_message_type() ==
                                      Gio.DBusMessageType.METHOD_RETURN else None) or m)
        self.addCleanup(self.s.bus.remove_filter, filter_id)
        _, serial = self.s.bus.send_message(message, Gio.DBusSendMessageFlags.NONE)
        # A reply to it, from either thread, would come before these.
        self.assertEqual(self.s.check_save(APP), (ALLOW, 'allowed'))
        self.s.round_trip()
        self.assertNotIn(serial, replies)
        self.assertAlive()
