"""The authorization matrix: caller kind (host, Flatpak, Snap) × polkit's
answer (yes, no, needs authentication, with and without the message's
ALLOW_INTERACTIVE_AUTHORIZATION flag) × every method of the interface →
exactly the outcome the documentation gives (EXPECTED below, written from
data/org.gnome.SessionRestore.Policy.xml and DESIGN.md, "Authorization").
After every refusal nothing has changed: not the HOME tree, not dconf, not
policyd's properties. After every allowed change, the change is there.

One real polkitd (its answer set by a .rules file for the user nobody) and
one policyd serve every row. The callers are long-lived processes of uid
65534, one per kind, that make the calls they are told on stdin:
- host: a plain process;
- Flatpak: a bubblewrap sandbox whose root holds a .flatpak-info;
- Snap: this machine has no AppArmor, so policyd runs in a mount namespace
  of its own, in which a file holding a snap label is bind-mounted over
  the caller's /proc/PID/attr/current before the caller's first call
  (policyd identifies a caller once, on its first call). policyd's own
  code reads the label; nothing in policyd knows about the test.
"""
import hashlib
import json
import os
import re
import stat
import subprocess
import sys
import time
import unittest

from srtest import (BUS_NAME, ERROR, LAUNCH, NOBODY, OBJECT_PATH, IFACE, PYTHON, SLOW, GLib,
                    Gio, RealPolkit, Session)
from simulator import Simulator

HOST_APP = 'org.example.Host'
FLATPAK_APP = 'org.example.Flatpak'
SNAP_APP = 'snap.example-app'
SNAP_LABEL = 'snap.example-app.example-app (enforce)\n'
OTHER_APP = 'org.example.Other'
OWN_APP = {'host': HOST_APP, 'flatpak': FLATPAK_APP, 'snap': SNAP_APP}

ACTIONS = ('org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear',
           'org.gnome.SessionRestore.list')
RULES = '''polkit.addRule(function(action, subject) {
    if (action.id.indexOf("org.gnome.SessionRestore.") == 0 && subject.user == "nobody")
        return polkit.Result.%s;
});
'''
# answer: (polkit result in the .rules, message flag ALLOW_INTERACTIVE_AUTHORIZATION,
#          what polkit then says without interaction: (is_authorized, is_challenge))
ANSWERS = {
    'yes': ('YES', False, (True, False)),
    'no': ('NO', False, (False, False)),
    'auth': ('AUTH_ADMIN', False, (False, True)),
    'auth-interactive': ('AUTH_ADMIN', True, (False, True)),
}
KINDS = ('host', 'flatpak', 'snap')

# Every method, with a valid argument set. {own}: the caller's own app id
# (a host caller has none; it is then just one app among others).
# effect: what an allowed call must change (documented in the XML):
#   None: nothing (checks, listing, properties);
#   'counters': the crash counters on disk (NoteExit, involuntary);
#   'setting': the setting, in dconf and the property (SetSetting);
#   'reset': the setting, changed before the call, back to its default in
#            dconf and the property (ResetSetting);
#   'exclude': the exclusion, and the app's stored state is gone (SetAppExcluded);
#   'clear': the stored state is gone and a clear point is written (Clear).
METHODS = {
    'CheckSave(own)': (IFACE, 'CheckSave', '(s)', ('{own}',), None),
    'CheckSave(other)': (IFACE, 'CheckSave', '(s)', (OTHER_APP,), None),
    'CheckRestore(own)': (IFACE, 'CheckRestore', '(sua{sv})', ('{own}', LAUNCH, {}), None),
    'CheckRestore(other)': (IFACE, 'CheckRestore', '(sua{sv})', (OTHER_APP, LAUNCH, {}), None),
    'NoteExit(own)': (IFACE, 'NoteExit', '(sb)', ('{own}', False), 'counters'),
    'NoteExit(other)': (IFACE, 'NoteExit', '(sb)', (OTHER_APP, False), 'counters'),
    'SetSetting': (IFACE, 'SetSetting', '(sv)', ('restore-on-launch', GLib.Variant('b', False)),
                   'setting'),
    'ResetSetting': (IFACE, 'ResetSetting', '(s)', ('restore-on-launch',), 'reset'),
    'SetAppExcluded(own)': (IFACE, 'SetAppExcluded', '(sb)', ('{own}', True), 'exclude'),
    'SetAppExcluded(other)': (IFACE, 'SetAppExcluded', '(sb)', (OTHER_APP, True), 'exclude'),
    'ListStoredState': (IFACE, 'ListStoredState', None, (), None),
    'Clear(own)': (IFACE, 'Clear', '(as)', (['{own}'],), 'clear'),
    'Clear(all)': (IFACE, 'Clear', '(as)', ([],), 'clear'),
    'Get(ExcludedApps)': ('org.freedesktop.DBus.Properties', 'Get', '(ss)', (IFACE, 'ExcludedApps'),
                          None),
    'GetAll': ('org.freedesktop.DBus.Properties', 'GetAll', '(s)', (IFACE,), None),
}

OK, REFUSED = 'ok', 'NotAllowed'
_ALWAYS = (OK, OK, OK, OK)
_POLKIT = (OK, REFUSED, REFUSED, REFUSED)
_NEVER = (REFUSED, REFUSED, REFUSED, REFUSED)

# The documented outcomes. Columns: polkit says yes, no, needs
# authentication (no agent: it cannot be given), the same with the
# message allowing interaction.
# - Host: CheckSave, CheckRestore and NoteExit "do not call polkit"; the
#   rest go through polkit (configure, clear, list): NotAllowed unless
#   polkit says yes. Properties are readable.
# - Sandboxed: "may only call CheckSave, CheckRestore and NoteExit, and
#   only with their own application id" (XML); "all else is NotAllowed"
#   (DESIGN.md), whatever polkit would say. The Properties interface is
#   "all else" too: ExcludedApps names other apps.
_ROWS = {
    'host': {
        'CheckSave(own)': _ALWAYS, 'CheckSave(other)': _ALWAYS,
        'CheckRestore(own)': _ALWAYS, 'CheckRestore(other)': _ALWAYS,
        'NoteExit(own)': _ALWAYS, 'NoteExit(other)': _ALWAYS,
        'SetSetting': _POLKIT, 'ResetSetting': _POLKIT,
        'SetAppExcluded(own)': _POLKIT, 'SetAppExcluded(other)': _POLKIT,
        'ListStoredState': _POLKIT,
        'Clear(own)': _POLKIT, 'Clear(all)': _POLKIT,
        'Get(ExcludedApps)': _ALWAYS, 'GetAll': _ALWAYS,
    },
    'sandboxed': {
        'CheckSave(own)': _ALWAYS, 'CheckSave(other)': _NEVER,
        'CheckRestore(own)': _ALWAYS, 'CheckRestore(other)': _NEVER,
        'NoteExit(own)': _ALWAYS, 'NoteExit(other)': _NEVER,
        'SetSetting': _NEVER, 'ResetSetting': _NEVER,
        'SetAppExcluded(own)': _NEVER, 'SetAppExcluded(other)': _NEVER,
        'ListStoredState': _NEVER,
        'Clear(own)': _NEVER, 'Clear(all)': _NEVER,
        'Get(ExcludedApps)': _NEVER, 'GetAll': _NEVER,
    },
}
EXPECTED = {
    (kind, answer, method): outcomes[i]
    for kind in KINDS
    for method, outcomes in _ROWS['host' if kind == 'host' else 'sandboxed'].items()
    for i, answer in enumerate(ANSWERS)
}
assert set(m for _, _, m in EXPECTED) == set(METHODS)

# A caller: connects, says who it is, then makes one call per line of
# stdin ({iface, method, sig, args as GVariant text, flags}) and answers
# each with one line of JSON.
CALLER = r'''
import json, sys
import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib
bus = Gio.DBusConnection.new_for_address_sync(
    sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
    Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
print(json.dumps({'name': bus.get_unique_name()}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    params = None
    if request['sig']:
        params = GLib.Variant.parse(GLib.VariantType(request['sig']), request['args'], None, None)
    try:
        reply = bus.call_sync(sys.argv[2], sys.argv[3], request['iface'], request['method'], params,
                              None, Gio.DBusCallFlags(request['flags']), 30000, None)
        answer = {'reply': reply.print_(True)}
    except GLib.Error as e:
        answer = {'error': Gio.DBusError.get_remote_error(e), 'message': e.message}
    print(json.dumps(answer), flush=True)
'''


class Caller:
    def __init__(self, session, kind, command):
        self.kind = kind
        env = {'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8', 'HOME': '/nonexistent',
               'PYTHONDONTWRITEBYTECODE': '1'}
        self.process = subprocess.Popen(
            command + [PYTHON, '-c', CALLER, session.session_bus.address, BUS_NAME, OBJECT_PATH],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd='/')
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError(f'the {kind} caller did not start')
        self.name = json.loads(line)['name']
        self.pid = session.bus.call_sync(
            'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'GetConnectionUnixProcessID', GLib.Variant('(s)', (self.name,)), None,
            Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]

    def call(self, iface, method, sig, args, interactive):
        flags = Gio.DBusCallFlags.ALLOW_INTERACTIVE_AUTHORIZATION if interactive else 0
        text = GLib.Variant(sig, args).print_(True) if sig else None
        self.process.stdin.write(json.dumps({'iface': iface, 'method': method, 'sig': sig,
                                             'args': text, 'flags': int(flags)}) + '\n')
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError(f'the {self.kind} caller died')
        answer = json.loads(line)
        if 'reply' in answer:
            return True, GLib.Variant.parse(None, answer['reply'], None, None).unpack()
        return False, (answer['error'], answer['message'])

    def stop(self):
        self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()


# policyd's note of which programs asked it (written SAVE_DELAY_SECS after
# a new one first asks), not anything a refusal could have changed; and
# the directory its first write makes, which under load can come during
# any later row (every other file in it is compared).
NOT_COMPARED = {os.path.join('.local', 'state', 'session-restore', 'consumers'),
                os.path.join('.local', 'state', 'session-restore')}
# The temporary file of one of policyd's atomic writes (NAME.XXXXXX),
# there only while the write is under way (the crash counters are written
# up to a second after an exit); test_state_files checks none is left.
TRANSIENT = re.compile(re.escape(os.path.join('.local', 'state', 'session-restore', '')) +
                       r'[a-z-]+\.[A-Za-z0-9]{6}')


def tree(root):
    """Every path below root: kind, size, mtime, and the bytes' hash."""
    entries = {}
    for directory, dirs, names in os.walk(root):
        for name in dirs + names:
            path = os.path.join(directory, name)
            relative = os.path.relpath(path, root)
            if relative in NOT_COMPARED or TRANSIENT.fullmatch(relative):
                continue
            try:
                st = os.lstat(path)
                digest = None
                if os.path.islink(path):
                    digest = os.readlink(path)
                elif os.path.isfile(path):
                    with open(path, 'rb') as f:
                        digest = hashlib.sha256(f.read()).hexdigest()
            except FileNotFoundError:
                # Renamed away between the listing and the look: a write
                # in progress, which the next snapshot sees done.
                continue
            if stat.S_ISDIR(st.st_mode):
                # A directory's own times change with NOT_COMPARED's files;
                # what it holds is compared entry by entry.
                entries[os.path.relpath(path, root)] = (st.st_mode,)
                continue
            entries[os.path.relpath(path, root)] = (st.st_mode, st.st_size, st.st_mtime_ns, digest)
    return entries


def print_table():
    answers = list(ANSWERS)
    width = max(len(m) for m in METHODS) + 10
    print(f"# {'kind / method':{width}}" + ''.join(f'{a:>18}' for a in answers), flush=True)
    for kind in KINDS:
        for method in METHODS:
            print(f"# {kind + ' ' + method:{width}}" +
                  ''.join(f'{EXPECTED[(kind, a, method)]:>18}' for a in answers), flush=True)


@unittest.skipUnless(os.geteuid() == 0, 'needs root: polkitd and policyd in mount namespaces')
class AuthzMatrixTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        print_table()
        cls.s = Session(polkit=None)
        cls.addClassCleanup(cls.s.close)
        cls.polkit = RealPolkit(cls.s)
        cls.addClassCleanup(cls.polkit.stop)
        cls.answer = None

        # policyd in a mount namespace of its own, for the snap label.
        cls.s.start_policyd(prefix=['unshare', '--mount', '--propagation', 'private'])
        cls.addClassCleanup(cls.s.stop_policyd)

        # Stored state for every app the rows name, and the compositor's.
        cls.sim = Simulator(cls.s, listening=False)
        for app in (HOST_APP, SNAP_APP, OTHER_APP):
            cls.sim.save(app)
        cls.sim.save(FLATPAK_APP, flatpak=True)
        cls.sim.write_compositor()
        cls.fixture = [cls.sim.gtk_path(HOST_APP, '1'), cls.sim.gtk_path(SNAP_APP, '1'),
                       cls.sim.gtk_path(OTHER_APP, '1'),
                       cls.sim.gtk_path(FLATPAK_APP, '1', flatpak=True),
                       cls.sim.session_path, cls.sim.compositor_path]
        cls.baseline_dconf = cls.dconf_dump()
        cls.baseline_props = cls.s.all_props()

        cls.callers = {}
        cls.callers['host'] = Caller(cls.s, 'host', NOBODY)
        cls.addClassCleanup(cls.callers['host'].stop)

        info = os.path.join(cls.s.root, 'flatpak-info')
        with open(info, 'w') as f:
            f.write(f'[Application]\nname={FLATPAK_APP}\n')
        bus_dir = os.path.dirname(cls.s.session_bus.socket)
        # The directories leading to the bus socket, searchable by nobody.
        parents = []
        parent = os.path.dirname(bus_dir)
        while parent != '/':
            parents[:0] = ['--perms', '0755', '--dir', parent]
            parent = os.path.dirname(parent)
        cls.callers['flatpak'] = Caller(cls.s, 'flatpak', [
            'bwrap', '--ro-bind', '/usr', '/usr',
            '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
            '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin',
            '--ro-bind', '/etc', '/etc', '--proc', '/proc', '--dev', '/dev', *parents,
            '--ro-bind', bus_dir, bus_dir, '--ro-bind', info, '/.flatpak-info',
            '--die-with-parent', *NOBODY])
        cls.addClassCleanup(cls.callers['flatpak'].stop)

        snap = Caller(cls.s, 'snap', NOBODY)
        cls.addClassCleanup(snap.stop)
        label = os.path.join(cls.s.root, 'snap-label')
        with open(label, 'w') as f:
            f.write(SNAP_LABEL)
        in_policyd = ['nsenter', f'--target={cls.s.policyd.pid}', '--mount']
        subprocess.run(in_policyd + ['mount', '--bind', label, f'/proc/{snap.pid}/attr/current'],
                       check=True)
        seen = subprocess.run(in_policyd + ['cat', f'/proc/{snap.pid}/attr/current'],
                              capture_output=True, text=True, check=True).stdout
        if seen != SNAP_LABEL:
            raise AssertionError(f'policyd would see the label {seen!r}')
        cls.callers['snap'] = snap

        for caller in cls.callers.values():
            if os.stat(f'/proc/{caller.pid}').st_uid != 65534:
                raise AssertionError(f'the {caller.kind} caller does not run as nobody')

    @classmethod
    def dconf_dump(cls):
        return subprocess.run(['dconf', 'dump', '/'], env=cls.s.env, capture_output=True,
                              text=True, check=True).stdout

    @classmethod
    def set_answer(cls, answer):
        """Rules for the answer, then wait until polkitd gives it."""
        if cls.answer == answer:
            return
        result, _, expected = ANSWERS[answer]
        cls.polkit.write_rules('50-matrix.rules', RULES % result)
        pid = cls.callers['host'].pid
        deadline = time.monotonic() + 30
        while not all(cls.polkit.check_process(pid, 65534, a) == expected for a in ACTIONS):
            if time.monotonic() > deadline:
                raise AssertionError(f'polkitd did not take the rules for "{answer}"')
            time.sleep(0.1)
        cls.answer = answer

    def prepare(self):
        """Back to the baseline: default settings, every app's stored state."""
        if self.dconf_dump() != self.baseline_dconf:
            subprocess.run(['dconf', 'reset', '-f', '/'], env=self.s.env, check=True)
            self.s.wait_until(lambda: self.s.all_props() == self.baseline_props,
                              what='policyd to see the settings reset')
        if not all(os.path.exists(path) for path in self.fixture):
            self.sim.write_back()
            self.sim.write_compositor()

    def snapshot(self):
        return {'home': tree(self.s.home), 'dconf': self.dconf_dump(),
                'properties': self.s.all_props()}

    def run_row(self, kind, answer, method):
        expected = EXPECTED[(kind, answer, method)]
        iface, name, sig, args, effect = METHODS[method]
        own = OWN_APP[kind]
        args = tuple([a.replace('{own}', own) for a in arg] if isinstance(arg, list)
                     else arg.replace('{own}', own) if isinstance(arg, str) else arg
                     for arg in args)
        target = next((a for a in args if isinstance(a, str) and a != IFACE), None)

        self.set_answer(answer)
        self.prepare()
        if effect == 'reset':
            # Something to reset, written as gsettings would.
            self.s.gsettings('set', 'restore-on-launch', 'false')
            self.s.wait_until(lambda: self.s.prop('RestoreOnLaunch') is False,
                              what='policyd to see restore-on-launch false')
        before = self.snapshot()
        ok, result = self.callers[kind].call(iface, name, sig, args, ANSWERS[answer][1])
        self.s.round_trip()
        after = self.snapshot()
        if ok and effect == 'counters':
            # The crash counters are written at most once a second (issue
            # 13, C): the write may come up to a second after the call.
            counters = os.path.relpath(os.path.join(self.s.state_home, 'session-restore',
                                                    'crash-counters'), self.s.home)
            deadline = time.monotonic() + 3 * SLOW
            while (after['home'].get(counters) == before['home'].get(counters) and
                   time.monotonic() < deadline):
                self.s.settle(0.1)
                after = self.snapshot()

        if expected == REFUSED:
            self.assertFalse(ok, f'documented: NotAllowed; got the reply {result}')
            self.assertEqual(result[0], ERROR + 'NotAllowed', result[1])
            self.assertEqual(after['dconf'], before['dconf'], 'dconf changed after a refusal')
            self.assertEqual(after['properties'], before['properties'],
                             'properties changed after a refusal')
            self.assertEqual(after['home'], before['home'], 'HOME changed after a refusal')
            return

        self.assertTrue(ok, f'documented: allowed; got {result}')
        if name in ('CheckSave', 'CheckRestore'):
            self.assertEqual(tuple(result), (1, 'allowed'))
        elif name == 'ListStoredState':
            self.assertEqual([app for app, _ in result[0]],
                             sorted([HOST_APP, FLATPAK_APP, SNAP_APP, OTHER_APP]))
        elif name == 'Get':
            self.assertEqual(result[0], [])
        elif name == 'GetAll':
            self.assertEqual({k: v for k, v in result[0].items() if k != 'Consumers'},
                             before['properties'])
        self.check_effect(effect, target, args, before, after)

    def check_effect(self, effect, target, args, before, after):
        state = os.path.join(self.s.state_home, 'session-restore')
        changed = {path for path in set(before['home']) | set(after['home'])
                   if before['home'].get(path) != after['home'].get(path)}
        changed = {os.path.join(self.s.home, path) for path in changed}

        if effect is None:
            self.assertEqual(after, before, 'an allowed call that changes nothing changed something')
        elif effect == 'counters':
            self.assertEqual(after['dconf'], before['dconf'])
            self.assertEqual(after['properties'], before['properties'])
            # The counters file, and the directories it was written into.
            counters = os.path.join(state, 'crash-counters')
            self.assertIn(counters, changed)
            self.assertEqual({path for path in changed if not counters.startswith(path + '/')},
                             {counters})
        elif effect == 'setting':
            self.assertIn('restore-on-launch=false', after['dconf'])
            self.assertNotIn('restore-on-launch', before['dconf'])
            self.assertEqual(after['properties']['RestoreOnLaunch'], False)
        elif effect == 'reset':
            self.assertIn('restore-on-launch=false', before['dconf'])
            self.assertNotIn('restore-on-launch', after['dconf'])
            self.assertEqual(after['properties']['RestoreOnLaunch'], True)
        elif effect == 'exclude':
            self.assertEqual(after['properties']['ExcludedApps'], [target])
            self.assertIn(f"excluded-apps=['{target}']", after['dconf'])
            self.check_cleared([target], after)
        elif effect == 'clear':
            self.check_cleared(args[0], after)
            self.assertEqual(after['dconf'], before['dconf'])
            self.assertEqual(after['properties'], before['properties'])

    def check_cleared(self, apps, after):
        """The apps' stored state is gone (all of it for []); the rest is kept;
        a clear point is on disk."""
        self.assertIn(os.path.join('.local', 'state', 'session-restore', 'clear-points'),
                      after['home'])
        apps_state = {HOST_APP: self.fixture[0], SNAP_APP: self.fixture[1],
                      OTHER_APP: self.fixture[2], FLATPAK_APP: self.fixture[3]}
        for app, path in apps_state.items():
            self.assertEqual(os.path.exists(path), bool(apps) and app not in apps, path)
        self.assertEqual(os.path.exists(self.sim.compositor_path), bool(apps))


def _add_rows():
    for a, answer in enumerate(ANSWERS):
        for k, kind in enumerate(KINDS):
            for m, method in enumerate(METHODS):
                slug = method.replace('(', '_').replace(')', '')
                name = f'test_{a}_{answer.replace("-", "_")}_{k}_{kind}_{m:02}_{slug}'

                def row(self, kind=kind, answer=answer, method=method):
                    self.run_row(kind, answer, method)
                row.__doc__ = f'{kind} × {answer} × {method} → {EXPECTED[(kind, answer, method)]}'
                setattr(AuthzMatrixTest, name, row)


_add_rows()

if __name__ == '__main__':
    sys.exit(unittest.main())
