"""Sandboxed callers: a process whose root holds a .flatpak-info (made with
bubblewrap, as Flatpak does) may ask about, and report on, its own app id
and nothing else."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

from srtest import (BUS_NAME, OBJECT_PATH, IFACE, PYTHON, SLOW, Gio, GLib, PolicydTestCase,
                    Session)

APP = 'org.example.Sandboxed'


class SandboxTest(PolicydTestCase):
    def sandboxed(self, info, *gdbus_args, command=None, timeout=None):
        """Runs gdbus call (or @command) inside a sandbox with @info as its
        .flatpak-info (or the bwrap arguments in @info)."""
        info_path = os.path.join(self.s.root, 'flatpak-info')
        if isinstance(info, str):
            with open(info_path, 'w') as f:
                f.write(info)
            bind = ['--ro-bind', info_path, '/.flatpak-info']
        else:
            bind = info
        command = ['bwrap', '--ro-bind', '/usr', '/usr',
                   '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
                   '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin',
                   '--ro-bind', '/etc', '/etc', '--proc', '/proc', '--dev', '/dev',
                   '--ro-bind', os.path.dirname(self.s.session_bus.socket),
                   os.path.dirname(self.s.session_bus.socket),
                   *bind,
                   *(command or ['gdbus', 'call', '--session', '--dest', BUS_NAME,
                                 '--object-path', OBJECT_PATH,
                                 '--method', f'{IFACE}.{gdbus_args[0]}', *gdbus_args[1:]])]
        result = subprocess.run(command, env=self.s.env, capture_output=True, text=True,
                                timeout=timeout)
        return result.stdout.strip(), result.stderr.strip()

    def flatpak(self, *args):
        return self.sandboxed(f'[Application]\nname={APP}\n', *args)

    def assertNotAllowed(self, result):
        out, err = result
        self.assertEqual(out, '')
        self.assertIn('org.gnome.SessionRestore.Error.NotAllowed', err)

    def test_may_ask_about_itself(self):
        self.assertEqual(self.flatpak('CheckSave', APP), ("(uint32 1, 'allowed')", ''))
        self.assertEqual(self.flatpak('CheckRestore', APP, '2', '{}'), ("(uint32 1, 'allowed')", ''))
        self.assertEqual(self.flatpak('NoteExit', APP, 'false'), ('()', ''))

    def test_cannot_release_itself_from_the_crash_guard(self):
        # Issue 22, 6: the app's own report of a voluntary exit released it
        # from the crash-loop guard, which only ResetCrashGuard (polkit)
        # should do.
        for _ in range(3):
            self.s.call('NoteExit', 'sb', APP, False)
        self.assertEqual(self.flatpak('NoteExit', APP, 'true'), ('()', ''))
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))

    def test_its_clean_exit_does_not_release_a_held_start(self):
        # A clean exit after a held start (a host consumer told DENY
        # crash-loop, starting the app without its state) releases the app,
        # but only in a host's report: the app's own, which needs no
        # authorization, does not, nor does a start it was told of about
        # itself.
        for _ in range(3):
            self.s.call('NoteExit', 'sb', APP, False)
        self.assertEqual(self.flatpak('CheckRestore', APP, '2', '{}'),
                         ("(uint32 0, 'crash-loop')", ''))
        self.assertEqual(self.flatpak('NoteExit', APP, 'true'), ('()', ''))
        self.s.call('NoteExit', 'sb', APP, True)
        self.assertEqual(self.s.check_restore(APP, 2), (0, 'crash-loop'))
        # The consumer's held start (the check just made): the app's own
        # report still releases nothing, and leaves it to the consumer's.
        self.assertEqual(self.flatpak('NoteExit', APP, 'true'), ('()', ''))
        self.assertEqual(self.flatpak('CheckRestore', APP, '2', '{}'),
                         ("(uint32 0, 'crash-loop')", ''))
        self.s.call('NoteExit', 'sb', APP, True)
        self.assertEqual(self.s.check_restore(APP, 2), (1, 'allowed'))

    def test_listed_as_a_sandboxed_app(self):
        # Issue 22, 6: a sandboxed caller was listed among the consumers
        # under its app id alone, which reads as a host program's name: an
        # app could pass itself off as the compositor. It is listed as
        # what it is.
        self.assertEqual(self.flatpak('CheckSave', APP), ("(uint32 1, 'allowed')", ''))
        self.s.check_save(APP)
        names = [name for name, _ in self.s.prop('Consumers')]
        self.assertIn(f'flatpak/{APP}', names)
        self.assertNotIn(APP, names)
        self.assertIn(os.path.basename(os.path.realpath(sys.executable)), names)

    def test_sees_its_own_exclusion(self):
        self.s.call('SetAppExcluded', 'sb', APP, True)
        self.assertEqual(self.flatpak('CheckSave', APP), ("(uint32 0, 'excluded')", ''))

    def test_rule_holds_for_later_calls_of_a_connection(self):
        # A connection's first call identifies the caller on the main
        # thread; later checks are answered on GDBus's worker thread (the
        # fast path). The sandbox rule must hold on both.
        script = f"""
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
def call(method, signature, *args):
    try:
        reply = bus.call_sync({BUS_NAME!r}, {OBJECT_PATH!r}, {IFACE!r}, method,
                              GLib.Variant(signature, args), None, 0, 20000, None)
        return repr(reply.unpack())
    except GLib.Error as e:
        return Gio.DBusError.get_remote_error(e)
for app in ({APP!r}, {APP!r}, 'org.example.Other', {APP!r}, 'org.example.Other'):
    print(call('CheckSave', '(s)', app))
    print(call('CheckRestore', '(sua{{sv}})', app, 2, {{}}))
"""
        out, err = self.sandboxed(f'[Application]\nname={APP}\n',
                                  command=[PYTHON, '-c', script])
        allowed = "(1, 'allowed')"
        refused = 'org.gnome.SessionRestore.Error.NotAllowed'
        self.assertEqual(out.splitlines(), [allowed] * 4 + [refused] * 2 + [allowed] * 2 +
                         [refused] * 2, err)

    def test_may_not_ask_about_others(self):
        self.assertNotAllowed(self.flatpak('CheckSave', 'org.example.Other'))
        self.assertNotAllowed(self.flatpak('CheckRestore', 'org.example.Other', '3', '{}'))
        self.assertNotAllowed(self.flatpak('NoteExit', 'org.example.Other', 'false'))

    def test_reports_about_others_change_nothing(self):
        for _ in range(3):
            self.assertNotAllowed(self.flatpak('NoteExit', 'org.example.Victim', 'false'))
        self.assertEqual(self.s.check_restore('org.example.Victim', 2), (1, 'allowed'))

    def test_cannot_pass_for_a_host_app(self):
        # Host apps are named by their desktop file ids, most without a
        # dot. A .flatpak-info naming one ("vlc") was taken for that app:
        # the sandbox's reports fed the crash-loop guard of the host app
        # vlc, holding back its recovery, or ended its run of crashes.
        # Flatpak names no app so (it wants three elements): refused.
        host_app = 'vlc'
        for _ in range(3):
            self.assertNotAllowed(self.sandboxed(f'[Application]\nname={host_app}\n',
                                                 'NoteExit', host_app, 'false'))
        self.assertEqual(self.s.check_restore(host_app, 2), (1, 'allowed'))
        self.s.call('NoteExit', 'sb', host_app, False)
        self.s.call('NoteExit', 'sb', host_app, False)
        self.assertNotAllowed(self.sandboxed(f'[Application]\nname={host_app}\n',
                                             'NoteExit', host_app, 'true'))
        self.s.call('NoteExit', 'sb', host_app, False)
        self.assertEqual(self.s.check_restore(host_app, 2), (0, 'crash-loop'))
        # Two elements are not enough either.
        self.assertNotAllowed(self.sandboxed('[Application]\nname=org.vlc\n',
                                             'NoteExit', 'org.vlc', 'false'))

    def test_may_not_change_settings(self):
        # polkit (the mock) allows everything: the sandbox rule alone refuses.
        self.assertNotAllowed(self.flatpak('SetSetting', 'enabled', '<false>'))
        self.assertNotAllowed(self.flatpak('SetAppExcluded', APP, 'true'))
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])

    def test_unparsable_flatpak_info_fails_closed(self):
        self.assertNotAllowed(self.sandboxed('not a key file \x00', 'CheckSave', APP))
        self.assertNotAllowed(self.sandboxed('[Application]\nname=bad/id\n', 'CheckSave', 'bad.id'))
        self.assertNotAllowed(self.sandboxed('[Runtime]\nruntime=x\n', 'CheckSave', APP))

    def test_unreadable_flatpak_info_fails_closed(self):
        # A directory where the file should be: it exists but cannot be read.
        directory = os.path.join(self.s.root, 'info-dir')
        os.makedirs(directory, exist_ok=True)
        self.assertNotAllowed(self.sandboxed(['--ro-bind', directory, '/.flatpak-info'],
                                             'CheckSave', APP))

    def test_host_callers_are_unaffected(self):
        self.flatpak('CheckSave', APP)
        self.assertEqual(self.s.check_save('org.example.Other'), (1, 'allowed'))
        self.s.call('SetAppExcluded', 'sb', 'org.example.Other', True)

    def test_fifo_flatpak_info_fails_closed_promptly(self):
        # Issue 13, A: a FIFO at the caller's /.flatpak-info blocked
        # policyd's main thread in open() for good. It must be refused at
        # once (fail closed), and policyd must go on answering others.
        fifo = os.path.join(self.s.root, 'info-fifo')
        os.mkfifo(fifo)
        start = time.monotonic()
        try:
            result = self.sandboxed(['--bind', fifo, '/.flatpak-info'], 'CheckSave', APP,
                                    timeout=20)
        except subprocess.TimeoutExpired:
            self.fail('a FIFO .flatpak-info hung the call')
        self.assertNotAllowed(result)
        self.assertLess(time.monotonic() - start, 10)
        self.assertAlive()
        self.assertEqual(self.s.check_save('org.example.Other'), (1, 'allowed'))


# Issue 22, 4: the arguments and the administrator's locks were checked
# before the sandbox rule, so a sandboxed caller told apps the
# administrator excluded (Locked) from others (NotAllowed), and locked keys
# from others, without being allowed anything.
LEAK_PROBE = """
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
def call(method, signature, *args):
    try:
        reply = bus.call_sync(BUS_NAME, OBJECT_PATH, IFACE, method,
                              GLib.Variant(signature, args) if signature else None,
                              None, 0, 20000, None)
        return repr(reply.unpack())
    except GLib.Error as e:
        return Gio.DBusError.get_remote_error(e).rpartition('.')[2]
for method, signature, args in CALLS:
    print(call(method, signature, *args), flush=True)
"""

# (method, signature, arguments as Python source, what a host caller is
# told): a host caller learns these, as it should.
LEAK_CALLS = [
    ('SetAppExcluded', '(sb)', "('org.example.Banned', False)", 'Locked'),
    ('SetAppExcluded', '(sb)', "('org.example.Other', False)", '()'),
    ('SetAppExcluded', '(sb)', "('bad/id', True)", 'InvalidArgs'),
    ('SetSetting', '(sv)', "('max-age-days', GLib.Variant('i', 5))", 'Locked'),
    ('SetSetting', '(sv)', "('crash-loop-threshold', GLib.Variant('u', 5))", '()'),
    ('SetSetting', '(sv)', "('crash-loop-window', GLib.Variant('s', 'long'))", 'InvalidArgs'),
    ('SetSetting', '(sv)', "('no-such-key', GLib.Variant('b', True))", 'InvalidArgs'),
    ('ResetSetting', '(s)', "('max-age-days',)", 'Locked'),
    ('ResetSetting', '(s)', "('crash-loop-threshold',)", '()'),
    ('ResetSetting', '(s)', "('no-such-key',)", 'InvalidArgs'),
    ('ResetCrashGuard', '(s)', "('bad/id',)", 'InvalidArgs'),
    ('ResetCrashGuard', '(s)', "('org.example.Banned',)", '()'),
    ('Clear', '(as)', "(['bad/id'],)", 'InvalidArgs'),
    ('CheckSave', '(s)', "('bad/id',)", 'InvalidArgs'),
    ('CheckSave', '(s)', "('org.example.Banned',)", "(0, 'excluded')"),
    ('CheckRestore', '(sua{sv})', "('bad/id', 2, {})", 'InvalidArgs'),
    ('NoteExit', '(sb)', "('bad/id', False)", 'InvalidArgs'),
]


def probe_script(calls):
    """A script that makes @calls ((method, signature, arguments as Python
    source)) on one connection and prints each answer: a reply, or the
    error name's last word."""
    listed = ', '.join(f'({method!r}, {signature!r}, {args})' for method, signature, args in calls)
    return (f'BUS_NAME, OBJECT_PATH, IFACE = {BUS_NAME!r}, {OBJECT_PATH!r}, {IFACE!r}\n'
            'from gi.repository import GLib\n'
            f'CALLS = [{listed}]\n' + LEAK_PROBE)


class SandboxLeakTest(PolicydTestCase):
    site = {'admin-excluded-apps': ['org.example.Banned'], 'max-age-days': 7}
    locks = ('admin-excluded-apps', 'max-age-days')
    sandboxed = SandboxTest.sandboxed

    def probe(self, calls, sandboxed):
        if sandboxed:
            out, err = self.sandboxed(f'[Application]\nname={APP}\n',
                                      command=[PYTHON, '-c', probe_script(calls)])
        else:
            result = subprocess.run([PYTHON, '-c', probe_script(calls)], env=self.s.env,
                                    capture_output=True, text=True)
            out, err = result.stdout, result.stderr
        answers = out.splitlines()
        self.assertEqual(len(answers), len(calls), err)
        return answers

    def test_host_callers_learn_arguments_and_locks(self):
        calls = [call[:3] for call in LEAK_CALLS]
        self.assertEqual(self.probe(calls, sandboxed=False), [call[3] for call in LEAK_CALLS])

    def test_sandboxed_callers_learn_nothing_from_arguments_or_locks(self):
        # The first call of the connection identifies the caller; the others
        # find it known: both ways.
        calls = [call[:3] for call in LEAK_CALLS]
        self.assertEqual(self.probe(calls, sandboxed=True), ['NotAllowed'] * len(calls))
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        self.assertEqual(self.s.gsettings_value('crash-loop-threshold'), 3)

    def test_sandboxed_callers_own_app_with_bad_arguments(self):
        # About its own app, what does not hold is InvalidArgs, as for anyone.
        calls = [('CheckSave', '(s)', f'({APP!r},)'),
                 ('CheckRestore', '(sua{sv})', f'({APP!r}, 0, {{}})'),
                 ('CheckRestore', '(sua{sv})', f'({APP!r}, 9, {{}})'),
                 ('CheckRestore', '(sua{sv})',
                  f"({APP!r}, 2, {{'saved-at': GLib.Variant('s', 'yesterday')}})"),
                 ('CheckRestore', '(sua{sv})', f'({APP!r}, 2, {{}})')]
        self.assertEqual(self.probe(calls, sandboxed=True),
                         ["(1, 'allowed')", 'InvalidArgs', 'InvalidArgs', 'InvalidArgs',
                          "(1, 'allowed')"])


class ConnectedBeforePolicydTest(PolicydTestCase):
    """policyd is D-Bus activated by the first call: that caller, and every
    other connection made before policyd started, appeared on the bus
    before policyd could note it. They are answered for what they are."""
    start = False

    def test_connections_made_before_policyd_started(self):
        host = self.s.session_bus.connect()
        script = ('import sys\n'
                  'from gi.repository import Gio\n'
                  'Gio.bus_get_sync(Gio.BusType.SESSION)\n'
                  'print("connected", flush=True)\n'
                  'sys.stdin.readline()\n' +
                  probe_script([('CheckSave', '(s)', f'({APP!r},)'),
                                ('CheckSave', '(s)', "('org.example.Other',)")]))
        info_path = os.path.join(self.s.root, 'flatpak-info')
        with open(info_path, 'w') as f:
            f.write(f'[Application]\nname={APP}\n')
        bus_dir = os.path.dirname(self.s.session_bus.socket)
        sandbox = subprocess.Popen(
            ['bwrap', '--ro-bind', '/usr', '/usr',
             '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
             '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin',
             '--ro-bind', '/etc', '/etc', '--proc', '/proc', '--dev', '/dev',
             '--ro-bind', bus_dir, bus_dir, '--ro-bind', info_path, '/.flatpak-info',
             '--die-with-parent', PYTHON, '-c', script],
            env=self.s.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.addCleanup(sandbox.wait)
        self.addCleanup(sandbox.kill)
        self.assertEqual(sandbox.stdout.readline().strip(), 'connected')

        self.s.start_policyd()
        sandbox.stdin.write('go\n')
        sandbox.stdin.flush()
        self.assertEqual([sandbox.stdout.readline().strip() for _ in range(2)],
                         ["(1, 'allowed')", 'NotAllowed'])
        reply = host.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'SetAppExcluded',
                               GLib.Variant('(sb)', ('org.example.Other', True)), None,
                               Gio.DBusCallFlags.NONE, 10000 * SLOW, None)
        self.assertEqual(reply.unpack(), ())
        self.assertEqual(self.s.gsettings_value('excluded-apps'), ['org.example.Other'])


class HostCallerSocketsTest(PolicydTestCase):
    """With ProcessFD (dbus-daemon 1.15.8 and later), a host caller is
    pinned by its pidfd: one whose sockets are in another network
    namespace, which policyd cannot see, is answered as any other. (Without
    ProcessFD it must hold a connection policyd can see: test-caller.)"""

    def test_host_caller_in_another_network_namespace(self):
        if os.getuid() != 0 or not shutil.which('unshare'):
            self.skipTest('needs root and unshare for a network namespace')
        command = ['gdbus', 'call', '--session', '--dest', BUS_NAME, '--object-path',
                   OBJECT_PATH, '--method', f'{IFACE}.CheckSave', 'org.example.Other']
        for namespace in (['unshare', '--net'], []):
            result = subprocess.run(namespace + command, env=self.s.env, capture_output=True, text=True)
            self.assertEqual(result.stdout.strip(), "(uint32 1, 'allowed')", result.stderr)


# A connection is identified at its first call. A sandboxed process
# connects, forks and exits; its child keeps the socket; a host process
# gets the pid. By the pid alone, the child's first call would be taken
# for that host process; the bus's pidfd names the process that
# connected, which is gone, whatever the load or however late the
# connection authenticated. The tests make the pid
# reuse happen for sure: the whole session runs in a new pid namespace,
# where the test (as root) sets ns_last_pid so that the next process it
# starts gets the freed pid.

# Run inside the sandbox: connects over a raw socket (GDBus does not
# survive fork), prints its pid, forks; the parent exits, the child waits
# for a line on stdin and then makes its calls, printing each answer as
# "error-name: message" or the reply. With LATE_AUTH, it forks before it
# authenticates, and the child authenticates once told to go.
CONNECTOR = r"""
import os, socket, sys
from gi.repository import Gio, GLib
address = os.environ['DBUS_SESSION_BUS_ADDRESS']
path = address.split('path=', 1)[1].split(',', 1)[0]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(path)
serial = 0

def recv_exactly(n):
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data

def call(dest, path, iface, method, body):
    global serial
    serial += 1
    msg = Gio.DBusMessage.new_method_call(dest, path, iface, method)
    if body is not None:
        msg.set_body(body)
    msg.set_serial(serial)
    sock.sendall(msg.to_blob(Gio.DBusCapabilityFlags.NONE))
    while True:
        header = recv_exactly(16)
        blob = header + recv_exactly(Gio.DBusMessage.bytes_needed(header) - 16)
        reply = Gio.DBusMessage.new_from_blob(blob, Gio.DBusCapabilityFlags.NONE)
        if reply.get_reply_serial() == serial:
            body = reply.get_body()
            if reply.get_message_type() == Gio.DBusMessageType.ERROR:
                return reply.get_error_name() + ': ' + (body.unpack()[0] if body else '')
            return repr(body.unpack()) if body is not None else '()'

def authenticate():
    sock.sendall(b'\0AUTH EXTERNAL ' + str(os.getuid()).encode().hex().encode() + b'\r\n')
    line = b''
    while not line.endswith(b'\r\n'):
        line += sock.recv(1)
    assert line.startswith(b'OK'), line
    sock.sendall(b'BEGIN\r\n')
    return eval(call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                     'Hello', None))[0]

name = None if LATE_AUTH else authenticate()
print(os.getpid(), name, flush=True)
if os.fork() > 0:
    os._exit(0)
sys.stdin.readline()
if LATE_AUTH:
    authenticate()
for method, body in (('CheckSave', GLib.Variant('(s)', ('org.example.Other',))),
                     ('SetAppExcluded', GLib.Variant('(sb)', ('org.example.Victim', True))),
                     ('CheckSave', GLib.Variant('(s)', ('org.example.Sandboxed',)))):
    print(call(BUS_NAME, OBJECT_PATH, IFACE, method, body), flush=True)
"""

# The host process that takes the pid: one that holds no connection to the
# bus, or one that does (it prints a line once connected).
HOST_PROCESSES = {
    'plain': ['sleep', '600'],
    'bus-client': [PYTHON, '-c', 'import sys\nfrom gi.repository import Gio\n'
                   'Gio.bus_get_sync(Gio.BusType.SESSION)\nprint("connected", flush=True)\n'
                   'sys.stdin.read()'],
}


def start_cpu_hogs():
    """One busy process per CPU, at least two: the load under which
    policyd read NameOwnerChanged late. Killed by pid (stop_cpu_hogs)."""
    return [subprocess.Popen(['yes'], stdout=subprocess.DEVNULL)
            for _ in range(max(2, os.cpu_count() or 1))]


def stop_cpu_hogs(hogs):
    for hog in hogs:
        hog.kill()
        hog.wait()


def take_pid(pid, command, env):
    """Starts @command as pid @pid, once it is free; None if others (policyd's
    threads) keep taking it first."""
    for _ in range(50):
        if not os.path.exists(f'/proc/{pid}'):
            with open('/proc/sys/kernel/ns_last_pid', 'w') as f:
                f.write(str(pid - 1))
            candidate = subprocess.Popen(command, env=env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True)
            if candidate.pid == pid:
                return candidate
            candidate.kill()
            candidate.wait()
        time.sleep(0.05)
    return None


def pid_reuse_scenario(mode):
    """Runs as pid 1 of a new pid namespace; prints what happened as JSON.
    mode:
    - 'loaded': CPU hogs run from before policyd starts until the
      sandboxed process's calls are answered;
    - 'starved': policyd gets no CPU at all (SIGSTOP) from before the
      sandboxed process connects until the pid is taken, the most load can
      do;
    - 'late-auth': the sandboxed process forks and exits between connect()
      and authenticating; its child authenticates once the pid is taken;
    - 'bus-client': the process that takes the pid holds a connection to
      the bus of its own, and starts after policyd has read that the
      sandboxed connection appeared."""
    result = {}
    s = Session()
    host = None
    hogs = []
    stopped = False
    try:
        if mode == 'loaded':
            hogs = start_cpu_hogs()
        s.start_policyd()
        info_path = os.path.join(s.root, 'flatpak-info')
        with open(info_path, 'w') as f:
            f.write(f'[Application]\nname={APP}\n')
        script = (f'BUS_NAME, OBJECT_PATH, IFACE = {BUS_NAME!r}, {OBJECT_PATH!r}, {IFACE!r}\n'
                  f'LATE_AUTH = {mode == "late-auth"}\n' + CONNECTOR)
        if mode == 'starved':
            os.kill(s.policyd.pid, signal.SIGSTOP)
            stopped = True
        sandbox = subprocess.Popen(
            ['bwrap', '--ro-bind', '/usr', '/usr',
             '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
             '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin',
             '--ro-bind', '/etc', '/etc', '--proc', '/proc', '--dev', '/dev',
             '--ro-bind', os.path.dirname(s.session_bus.socket),
             os.path.dirname(s.session_bus.socket),
             '--ro-bind', info_path, '/.flatpak-info',
             PYTHON, '-c', script],
            env=s.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        pid, name = sandbox.stdout.readline().split()
        pid = int(pid)
        result['sandboxed'] = [pid, name]
        sandbox.wait(30)          # bwrap, and the connecting process, gone
        deadline = time.monotonic() + 10
        while os.path.exists(f'/proc/{pid}') and time.monotonic() < deadline:
            time.sleep(0.01)
        if mode == 'bus-client':
            # A round trip through policyd: the bus sent it the connection's
            # NameOwnerChanged before this call, and policyd reads in order.
            s.check_save('org.example.Sentinel')
        # Outside a test, reusing a pid means cycling through all of them,
        # which takes far longer than the clock tick (10 ms) in which
        # policyd gives a process the benefit of the doubt: start the host
        # process in a later tick, as any real reuse would.
        time.sleep(0.03)
        host = take_pid(pid, HOST_PROCESSES['bus-client' if mode == 'bus-client' else 'plain'],
                        s.env)
        result['reused'] = host is not None
        if host is None:
            return
        if mode == 'bus-client':
            result['host_connected'] = host.stdout.readline().strip() == 'connected'
        if stopped:
            os.kill(s.policyd.pid, signal.SIGCONT)
            stopped = False
        sandbox.stdin.write('go\n')
        sandbox.stdin.flush()
        result['calls'] = [sandbox.stdout.readline().strip() for _ in range(3)]
        stop_cpu_hogs(hogs)
        hogs = []
        result['excluded'] = s.gsettings_value('excluded-apps')
        result['host_still_answered'] = s.check_save('org.example.Other')
    finally:
        stop_cpu_hogs(hogs)
        if stopped:
            os.kill(s.policyd.pid, signal.SIGCONT)
        if host is not None:
            host.kill()
            host.wait()
        s.close()
        print(json.dumps(result), flush=True)


EXITED = 'the process that made the connection has exited'


class PidReuseTest(unittest.TestCase):
    def run_scenario(self, mode, why):
        """Refused, even for its own app: the bus's pidfd (ProcessFD)
        pins the process that connected, which has exited; the process
        that took its pid is never asked about. @why: what the refusals
        say (None: not checked). The refusals of a bus without ProcessFD
        (no connection held, started after its connection) are
        test-caller's."""
        if os.getuid() != 0 or not shutil.which('unshare'):
            self.skipTest('needs root and unshare for a pid namespace')
        here = os.path.dirname(os.path.abspath(__file__))
        env = dict(os.environ, PYTHONPATH=f'{here}:{os.environ.get("PYTHONPATH", "")}')
        result = subprocess.run(
            ['unshare', '--pid', '--fork', '--mount-proc', PYTHON, '-c',
             f'import test_sandbox; test_sandbox.pid_reuse_scenario({mode!r})'],
            env=env, capture_output=True, text=True, timeout=120 * SLOW)
        self.assertEqual(result.returncode, 0, result.stderr)
        outcome = json.loads(result.stdout.strip().splitlines()[-1])
        self.assertTrue(outcome['reused'], f'the pid could not be reused: {outcome}')
        self.assertTrue(outcome.get('host_connected', True), outcome)
        not_allowed = 'org.gnome.SessionRestore.Error.NotAllowed: '
        for answer in outcome['calls']:
            self.assertTrue(answer.startswith(not_allowed), outcome)
            if why is not None:
                self.assertIn(why, answer, outcome)
        self.assertEqual(outcome['excluded'], [])
        self.assertEqual(outcome['host_still_answered'], [1, 'allowed'])

    def test_reused_pid_under_load(self):
        self.run_scenario('loaded', EXITED)

    def test_reused_pid_while_policyd_gets_no_cpu(self):
        self.run_scenario('starved', EXITED)

    def test_reused_pid_before_the_connection_authenticates(self):
        self.run_scenario('late-auth', EXITED)

    def test_reused_pid_of_a_bus_client_that_started_after(self):
        # It holds a connection of its own: what it is is not asked.
        self.run_scenario('bus-client', EXITED)
