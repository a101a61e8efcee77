"""Who may use the login prompt: only the owner of the policy's name, a
host process of the user running policyd's program, one Ask at a time.
Here a stand-in owns org.gnome.SessionRestore.Policy (this test's own
connection, with the bus's activation environment naming this Python as
the program policyd runs), so that it can do what policyd never does; the
prompt is the real panel, D-Bus-activated, with G_DEBUG=fatal-criticals."""
import os
import subprocess

import promptcase as base

from srtest import BUS_NAME, ERROR, PYTHON, Gio, GLib

# A sandboxed program that owns the policy's name and asks the prompt:
# prints the error its Ask got, or its answer.
SANDBOXED_ASKER = f'''
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
              'RequestName', GLib.Variant('(su)', ({BUS_NAME!r}, 4)), None, 0, 5000, None)
try:
    reply = bus.call_sync({base.PROMPT_NAME!r}, {base.PROMPT_PATH!r}, {base.PROMPT_IFACE!r}, 'Ask',
                          GLib.Variant('(a(sa{{sv}}))', ([('org.example.Evil', {{}})],)), None,
                          0, 15000, None)
    print(reply.unpack())
except GLib.Error as e:
    print(Gio.DBusError.get_remote_error(e), e.message)
'''


class PromptTrustTest(base.PromptCase):
    @classmethod
    def prepare(cls):
        # The prompt, activated by the bus, takes this Python for policyd.
        cls.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                            'org.freedesktop.DBus', 'UpdateActivationEnvironment',
                            GLib.Variant('(a{ss})', ({'SR_POLICYD_EXECUTABLE':
                                                      os.path.realpath(PYTHON)},)),
                            None, Gio.DBusCallFlags.NONE, 5000, None)

    def setUp(self):
        # No policyd: the stand-in takes its name.
        self.owner = self.s.session_bus.connect()
        self.addCleanup(self.owner.close_sync, None)
        reply = self.owner.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                     'org.freedesktop.DBus', 'RequestName',
                                     GLib.Variant('(su)', (BUS_NAME, 4)), None,
                                     Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        self.assertEqual(reply, 1)

    def ask(self, app_id):
        """Ask, from the stand-in, with one app; the reply (or the error)
        lands in the returned list."""
        results = []

        def done(bus, result):
            try:
                results.append(bus.call_finish(result).unpack())
            except GLib.Error as e:
                results.append(Gio.DBusError.get_remote_error(e))
        self.owner.call(base.PROMPT_NAME, base.PROMPT_PATH, base.PROMPT_IFACE, 'Ask',
                        GLib.Variant('(a(sa{sv}))', ([(app_id, {})],)), None,
                        Gio.DBusCallFlags.NONE, -1, None, done)
        return results

    def test_1_one_ask_at_a_time(self):
        first = self.ask('org.example.First')
        self.wait_for_prompt('check box', 'org.example.First')
        # A second Ask, even from the owner, fails and shows nothing.
        second = self.ask('org.example.Second')
        self.s.wait_until(lambda: second, what='the second Ask to fail')
        self.assertEqual(second, [ERROR + 'Failed'])
        self.assertEqual(self.find_all('check box', 'org.example.Second'), [])
        # Another connection cannot close it.
        other = self.s.session_bus.connect()
        self.assertEqual(self.call_prompt(other, 'Close'), ERROR + 'NotAllowed')
        other.close_sync(None)
        self.assertEqual(self.prompts(), 1)
        self.assertEqual(first, [])
        # The owner can: the first Ask is answered Don't Restore, and the
        # window goes without a critical warning.
        self.assertIsNone(self.call_prompt(self.owner, 'Close'))
        self.s.wait_until(lambda: first, what='the first Ask to be answered')
        self.assertEqual(first, [(False, [], False)])
        self.gone('label', base.HEADING, timeout=20)
        self.prompt_went_cleanly()

    def test_2_sandboxed_owner_is_refused(self):
        # A Flatpak app that got the policy's name (here: policyd is not
        # running) cannot ask the user anything.
        self.owner.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                             'org.freedesktop.DBus', 'ReleaseName',
                             GLib.Variant('(s)', (BUS_NAME,)), None,
                             Gio.DBusCallFlags.NONE, 5000, None)
        result = subprocess.run(
            self.s.sandboxed_command('org.example.Evil', PYTHON, '-c', SANDBOXED_ASKER),
            env=self.s.env, capture_output=True, text=True, timeout=60)
        self.assertIn(ERROR + 'NotAllowed', result.stdout, result.stderr)
        self.assertIn('runs in a sandbox, as the app org.example.Evil', result.stdout)
