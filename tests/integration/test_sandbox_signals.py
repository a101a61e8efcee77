"""What a sandboxed app hears from policyd: its own app's clear and crash
loop, and nothing that names other apps (StoredStateCleared and
CrashGuardChanged are sent to each caller, not broadcast; app lists in
PropertiesChanged are only invalidated)."""
import json
import os
import subprocess

from srtest import BUS_NAME, OBJECT_PATH, IFACE, PYTHON, PolicydTestCase

APP = 'org.example.Sandboxed'

OTHER = 'org.example.Neighbour'

# Identifies itself with a check of its own app, subscribes as any app
# would (no eavesdropping), says "ready", and after a while prints what it
# heard as JSON.
LISTENER = f"""
import json, sys
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
heard = []
def on_signal(conn, sender, path, iface, name, params, data):
    heard.append([iface, name, json.loads(json.dumps(params.unpack(), default=str))])
bus.signal_subscribe({BUS_NAME!r}, None, None, {OBJECT_PATH!r}, None,
                     Gio.DBusSignalFlags.NONE, on_signal, None)
bus.call_sync({BUS_NAME!r}, {OBJECT_PATH!r}, {IFACE!r}, 'CheckSave',
              GLib.Variant('(s)', ({APP!r},)), None, 0, 20000, None)
print('ready', flush=True)
sys.stdin.readline()
context = GLib.MainContext.default()
deadline = GLib.get_monotonic_time() + 1000000
while GLib.get_monotonic_time() < deadline:
    context.iteration(False)
print(json.dumps(heard), flush=True)
"""


class SandboxSignalsTest(PolicydTestCase):
    def listen(self):
        info_path = os.path.join(self.s.root, 'flatpak-info')
        with open(info_path, 'w') as f:
            f.write(f'[Application]\nname={APP}\n')
        command = ['bwrap', '--ro-bind', '/usr', '/usr',
                   '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
                   '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin',
                   '--ro-bind', '/etc', '/etc', '--proc', '/proc', '--dev', '/dev',
                   '--ro-bind', os.path.dirname(self.s.session_bus.socket),
                   os.path.dirname(self.s.session_bus.socket),
                   '--ro-bind', info_path, '/.flatpak-info', PYTHON, '-c', LISTENER]
        listener = subprocess.Popen(command, env=self.s.env, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, text=True)
        self.addCleanup(listener.kill)
        self.assertEqual(listener.stdout.readline().strip(), 'ready')
        return listener

    def heard(self, listener):
        out, _ = listener.communicate('go\n', timeout=30)
        return json.loads(out)

    def test_hears_nothing_of_other_apps(self):
        listener = self.listen()
        self.s.clear([OTHER])
        self.s.call('SetAppExcluded', 'sb', OTHER, True)
        heard = self.heard(listener)
        self.assertNotIn(OTHER, json.dumps(heard))
        self.assertEqual([s for s in heard if s[1] == 'StoredStateCleared'], [])
        # It still learns that the excluded apps changed, and may ask (and
        # be refused).
        invalidated = [s[2][2] for s in heard if s[1] == 'PropertiesChanged']
        self.assertIn(['ExcludedApps'], invalidated)

    def test_hears_its_own_clear_without_the_others(self):
        listener = self.listen()
        self.s.clear([OTHER, APP])
        heard = self.heard(listener)
        self.assertEqual([s[2] for s in heard if s[1] == 'StoredStateCleared'], [[[APP]]])

    def test_hears_clear_everything(self):
        listener = self.listen()
        self.s.clear([])
        heard = self.heard(listener)
        self.assertEqual([s[2] for s in heard if s[1] == 'StoredStateCleared'], [[[]]])

    def test_host_callers_hear_the_whole_list(self):
        self.s.check_save(OTHER)
        self.s.signals.clear()
        received = []
        self.s.bus.signal_subscribe(BUS_NAME, IFACE, 'StoredStateCleared', OBJECT_PATH, None,
                                    0, lambda *a: received.append(a[5].unpack()[0]), None)
        self.s.clear([OTHER, APP])
        self.s.wait_until(lambda: received, what='StoredStateCleared')
        self.assertEqual(sorted(received[0]), sorted([OTHER, APP]))

    def crash(self, app, times=3):
        for _ in range(times):
            self.s.call('NoteExit', 'sb', app, False)

    def test_hears_only_its_own_crash_loop(self):
        listener = self.listen()
        self.crash(OTHER)
        self.crash(APP)
        heard = self.heard(listener)
        self.assertNotIn(OTHER, json.dumps(heard))
        self.assertEqual([s[2] for s in heard if s[1] == 'CrashGuardChanged'], [[[APP]]])

    def test_host_callers_hear_the_crash_guard_change(self):
        received = []
        self.s.bus.signal_subscribe(BUS_NAME, IFACE, 'CrashGuardChanged', OBJECT_PATH, None,
                                    0, lambda *a: received.append(a[5].unpack()[0]), None)
        # Below the threshold (3): nothing changed, nothing said. A round
        # trip after it: a signal sent would have come first.
        self.crash(OTHER, times=2)
        self.s.round_trip()
        self.assertEqual(received, [])
        self.crash(OTHER, times=1)
        self.s.wait_until(lambda: received, what='CrashGuardChanged')
        self.assertEqual(received, [[OTHER]])
        # A further crash keeps it held: nothing new to say.
        self.crash(OTHER, times=1)
        self.s.round_trip()
        self.assertEqual(received, [[OTHER]])
        self.s.call('ResetCrashGuard', 's', OTHER)
        self.s.wait_until(lambda: len(received) == 2, what='CrashGuardChanged on the reset')
        self.assertEqual(received, [[OTHER], [OTHER]])
