"""The real gnome-session-service (gnome-session 51) on a test's private
session bus, and apps that use its save/restore calls as GTK does.

    gs = GnomeSession(session)        # a srtest.Session (its env and root)
    gs.start()                        # a login: Initialized() called, running
    apps = Apps(session)              # restoreclient.py processes, one log
    apps.install('org.example.Editor')   # its .desktop file: relaunchable
    a = apps.start('org.example.Editor') # waits for its RegisterRestore's answer
    a.reason, a.instance_id, a.cleanup_ids, a.deleted
    a.quit() / a.crash() / a.exit_uncleanly()
    gs.logout()                       # Logout(1): the record sealed, dirty=false
    apps.end_session()                # what the session's end does to apps
    gs.start()                        # the next login relaunches: apps.relaunched()
    gs.record()                       # the state file, unpacked
    gs.write_record({app: ({'next-instance-id': 'abc'},       # a record for the
                           [{'instance-id': 'def', 'crashed': False}])})  # next start
    gs.terminate()                    # SIGTERM: a forced logout, record left dirty

How gnome-session-service runs here (read from its sources, 51):
- `gnome-session-service --session=NAME` owns org.gnome.SessionManager and
  waits in its Initialization phase until something calls
  org.gnome.SessionManager.Initialized() on /org/gnome/SessionManager (on a
  systemd desktop, gnome-session-ctl when gnome-session-initialized.target
  is reached). Initialized runs the Application phase before it returns:
  the record's non-crashed instances are relaunched from their desktop
  files (or, with none, the autostart apps are started), and the Running
  phase begins.
- It needs NAME.session, with a [GNOME Session] group, under
  $XDG_CONFIG_HOME/gnome-session/sessions (or the config or data dirs);
  XDG_CONFIG_DIRS points at an empty directory of the test's, so that the
  machine's /etc/xdg/autostart is not started. Without logind on the
  system bus it runs with a null system; without systemd its scopes fail
  quietly.
- Its record, $XDG_STATE_HOME/gnome-session@NAME.state, is read once, as
  it starts, and written from memory at every RegisterRestore,
  DeletedInstanceIds and UnregisterRestore while unsealed, with dirty=true.
  Logout(0 or 1), Shutdown and Reboot seal it: written once more with
  dirty=false, and not again in that session. Logout(2) (forced) and
  SIGTERM (which is a forced logout) do not seal: the record stays dirty,
  and the next start takes every instance in it for a crashed session's
  (relaunched, and RECOVER). Logout(1) is used here: mode 0 would ask
  gnome-shell for its dialog (logout-prompt is on by default). The Query
  End Session phase waits 1 s for clients before the process exits.
- An instance whose app's bus name vanished without UnregisterRestore is
  marked crashed (in memory; written at the next write). RegisterRestore
  hands a new instance LAUNCH, a crashed one RECOVER, any other instance
  not running RESTORE; `dbus_name` '' is the sender. It takes the first
  instance of the app's list that is not running, crashed or not: an app
  relaunched at login can be handed a crashed instance (RECOVER) of the
  same app that the record also held.
- Its reading of `discarded-instance-ids` from the record keeps strings
  that g_variant_iter_loop() frees: the cleanup ids a record hands a
  start come back as whatever that memory holds (seen: ''). Ids to clean
  up survive only within one run of it; write_record() them only to show
  that.

The apps are tests/lib/restoreclient.py (see its docstring); what each one
did is one JSON line of a log shared by an Apps, so that the ones a login
relaunches are seen like the ones a test starts.
"""
import json
import os
import signal
import subprocess
import time

from srtest import PYTHON, SLOW, SOURCE_DIR, GLib, Gio

GNOME_SESSION_SERVICE = os.environ.get('SR_GNOME_SESSION_SERVICE',
                                       '/usr/libexec/gnome-session-service')
CLIENT = os.path.join(SOURCE_DIR, 'tests', 'lib', 'restoreclient.py')
SM_NAME = 'org.gnome.SessionManager'
SM_PATH = '/org/gnome/SessionManager'
SM_IFACE = 'org.gnome.SessionManager'
LOGOUT_NO_CONFIRMATION, LOGOUT_FORCE = 1, 2
PRISTINE, LAUNCH, RECOVER, RESTORE = 0, 1, 2, 3


def bus_call(conn, name, path, iface, method, signature=None, *args, timeout=30000):
    params = GLib.Variant(f'({signature})', args) if signature else None
    reply = conn.call_sync(name, path, iface, method, params, None,
                           Gio.DBusCallFlags.NO_AUTO_START, timeout, None)
    return reply.unpack() if reply is not None else None


def name_owner(conn, name):
    """The unique name owning @name, or None."""
    try:
        return bus_call(conn, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                        'GetNameOwner', 's', name, timeout=5000)[0]
    except GLib.Error:
        return None


def owner_pid(conn, name):
    try:
        return bus_call(conn, 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                        'GetConnectionUnixProcessID', 's', name, timeout=5000)[0]
    except GLib.Error:
        return None


def wait_until(predicate, what, timeout=20):
    deadline = time.monotonic() + timeout * SLOW
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(f'timed out waiting for {what}')


def read_record(path):
    """A gnome-session 51 record, unpacked: {'version', 'dirty', 'instances':
    {app: (app props, [instance props])}}; None when there is no file."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except FileNotFoundError:
        return None
    return GLib.Variant.new_from_bytes(GLib.VariantType('a{sv}'), GLib.Bytes(data), False).unpack()


class GnomeSession:
    """gnome-session-service on @session's bus (a srtest.Session: its env,
    root and bus), session NAME @name. start() is a login; logout(),
    terminate() and kill() end it; start() again is the next login. The
    process's output goes to <root>/gnome-session.log, with debugging on."""

    def __init__(self, session, name='sr-test'):
        self.s = session
        self.name = name
        self.process = None
        self.env = dict(session.env)
        # Not ours to judge: a critical in gnome-session is not a test failure.
        self.env.pop('G_DEBUG', None)
        self.env['GNOME_SESSION_DEBUG'] = '1'
        config_dirs = os.path.join(session.root, 'gnome-session-xdg-config')
        os.makedirs(config_dirs, exist_ok=True)
        self.env['XDG_CONFIG_DIRS'] = config_dirs
        sessions = os.path.join(session.config_home, 'gnome-session', 'sessions')
        os.makedirs(sessions, exist_ok=True)
        with open(os.path.join(sessions, f'{name}.session'), 'w') as f:
            f.write(f'[GNOME Session]\nName={name}\n')
        self.record_path = os.path.join(session.state_home, f'gnome-session@{name}.state')
        self.log_path = os.path.join(session.root, 'gnome-session.log')

    def start(self):
        """Starts gnome-session-service and calls Initialized() as the
        desktop's start-up does; returns once it runs (the record's apps
        relaunched, their processes spawned)."""
        assert self.process is None or self.process.poll() is not None, 'already running'
        with open(self.log_path, 'a') as log:
            log.write('--- start ---\n')
            log.flush()
            self.process = subprocess.Popen([GNOME_SESSION_SERVICE, f'--session={self.name}'],
                                            env=self.env, stdout=log, stderr=subprocess.STDOUT)
        wait_until(lambda: self.process.poll() is not None or
                   owner_pid(self.s.bus, SM_NAME) == self.process.pid,
                   f'gnome-session-service to own {SM_NAME}')
        if self.process.poll() is not None:
            raise AssertionError(f'gnome-session-service exited ({self.process.returncode}):\n{self.log()}')
        self.call('Initialized')
        assert self.call('IsSessionRunning')[0], self.log()
        return self

    def call(self, method, signature=None, *args, timeout=30000):
        return bus_call(self.s.bus, SM_NAME, SM_PATH, SM_IFACE, method, signature, *args,
                        timeout=timeout)

    def running(self):
        return self.process is not None and self.process.poll() is None

    def logout(self, mode=LOGOUT_NO_CONFIRMATION):
        """Logout(@mode) and the process's exit (about 1 s: its Query End
        Session phase waits that long). Mode 1 seals the record (written
        with dirty=false); mode 2, forced, does not."""
        self.call('Logout', 'u', mode)
        return self.wait()

    def terminate(self):
        """SIGTERM: gnome-session's forced logout; the record stays dirty."""
        self.process.send_signal(signal.SIGTERM)
        return self.wait()

    def kill(self):
        self.process.kill()
        return self.wait()

    def wait(self):
        status = self.process.wait(30 * SLOW)
        wait_until(lambda: name_owner(self.s.bus, SM_NAME) is None, f'{SM_NAME} released')
        return status

    def stop(self):
        """For cleanups: ends a running gnome-session-service at once."""
        if self.running():
            self.kill()

    def record(self):
        return read_record(self.record_path)

    def write_record(self, instances, dirty=False):
        """Writes the record the next start() reads, as gnome-session 51
        writes it: @instances {app id: ({'next-instance-id': s,
        'discarded-instance-ids': [s]}, [{'instance-id': s, 'crashed': b}])},
        any key of either dict left out at will."""
        with open(self.record_path, 'wb') as f:
            f.write(record_bytes(instances, dirty))

    def log(self):
        with open(self.log_path, errors='replace') as f:
            return f.read()


def record_bytes(instances, dirty=False):
    """A gnome-session 51 record (version 1) in its on-disk bytes."""
    types = {'next-instance-id': 's', 'discarded-instance-ids': 'as', 'instance-id': 's', 'crashed': 'b'}

    def vardict(d):
        return {key: GLib.Variant(types[key], value) for key, value in d.items()}
    value = GLib.Variant('a{sv}', {
        'version': GLib.Variant('u', 1),
        'dirty': GLib.Variant('b', dirty),
        'instances': GLib.Variant('a{s(a{sv}aa{sv})}', {
            app: (vardict(props), [vardict(i) for i in listed])
            for app, (props, listed) in instances.items()}),
    })
    return value.get_data_as_bytes().get_data()


class App:
    """One restoreclient.py process, known by its log line."""

    def __init__(self, apps, entry, process=None):
        self.apps = apps
        self.entry = entry
        self.process = process
        self.app_id = entry['app']
        self.pid = entry['pid']
        self.name = entry['name']
        self.reason = entry['reason']
        self.instance_id = entry['instance_id']
        self.cleanup_ids = entry['cleanup_ids']
        self.deleted = entry['deleted']
        self.error = entry['error']

    def __repr__(self):
        return (f'<{self.app_id} pid {self.pid}: reason {self.reason}, id {self.instance_id}, '
                f'cleanup {self.cleanup_ids}, deleted {self.deleted}, error {self.error}>')

    def quit(self):
        """A clean quit: UnregisterRestore, then exit. Returns its error, or None."""
        os.kill(self.pid, signal.SIGTERM)
        self.apps.wait_for(lambda e: e['event'] == 'quit' and e['pid'] == self.pid, 'its quit')
        self._gone()
        return [e for e in self.apps.events() if e['event'] == 'quit' and e['pid'] == self.pid][0]['error']

    def crash(self):
        """kill -9."""
        os.kill(self.pid, signal.SIGKILL)
        self._gone()

    def exit_uncleanly(self):
        """exit(1) without UnregisterRestore."""
        os.kill(self.pid, signal.SIGUSR1)
        self._gone()

    def _gone(self):
        """Returns once the bus has dropped its connection (so that
        whoever watches its name has been told before any later call)."""
        if self.process is not None:
            self.process.wait(30 * SLOW)
        wait_until(lambda: name_owner(self.apps.s.bus, self.name) is None,
                   f'{self.app_id} ({self.name}) to leave the bus')

    def state_file(self):
        from restoreclient import state_path
        return state_path(self.app_id, self.instance_id, self.apps.s.state_home)


class Apps:
    """restoreclient.py apps on @session's bus, logging to one file."""

    def __init__(self, session, log_name='apps.log'):
        self.s = session
        self.log_path = os.path.join(session.root, log_name)
        self.processes = []
        self.applications = os.path.join(session.data_home, 'applications')

    def install(self, app_id):
        """Writes <app_id>.desktop in $XDG_DATA_HOME/applications: its Exec
        runs restoreclient.py for @app_id with this log, so that an app a
        login relaunches logs its registration here."""
        os.makedirs(self.applications, exist_ok=True)
        with open(os.path.join(self.applications, f'{app_id}.desktop'), 'w') as f:
            f.write(f'[Desktop Entry]\nType=Application\nName={app_id}\n'
                    f'Exec={PYTHON} {CLIENT} {app_id} {self.log_path}\n')

    def events(self):
        try:
            with open(self.log_path) as f:
                return [json.loads(line) for line in f if line.endswith('\n')]
        except FileNotFoundError:
            return []

    def registrations(self):
        return [e for e in self.events() if e['event'] == 'registered']

    def wait_for(self, predicate, what, timeout=20):
        wait_until(lambda: any(predicate(e) for e in self.events()), what, timeout)

    def start(self, app_id, env=None):
        """Starts an app as the user would; returns it once it has its
        RegisterRestore's answer (and did its cleanup and wrote its state)."""
        process = subprocess.Popen([PYTHON, CLIENT, app_id, self.log_path],
                                   env=env or self.s.env)
        self.processes.append(process)
        self.wait_for(lambda e: e['event'] == 'registered' and e['pid'] == process.pid,
                      f'{app_id} to register')
        entry = [e for e in self.registrations() if e['pid'] == process.pid][0]
        return App(self, entry, process)

    def relaunched(self):
        """The apps a login started (call it once the login returned,
        which is once the session manager spawned them): every process
        running this log's app that the test did not start, once each has
        registered."""
        ours = {p.pid for p in self.processes}
        pids = [pid for pid in self.client_pids() if pid not in ours]
        self.wait_for(lambda e: {r['pid'] for r in self.registrations()} >= set(pids),
                      f'the relaunched apps {pids} to register')
        return [App(self, e) for e in self.registrations() if e['pid'] in pids]

    def client_pids(self):
        """The running processes of restoreclient.py with this log."""
        pids = []
        for pid in filter(str.isdigit, os.listdir('/proc')):
            try:
                with open(f'/proc/{pid}/cmdline', 'rb') as f:
                    argv = f.read().split(b'\0')
            except OSError:
                continue
            if CLIENT.encode() in argv and self.log_path.encode() in argv and process_alive(int(pid)):
                pids.append(int(pid))
        return pids

    def running(self):
        """Every app that registered and has not exited."""
        ended = {e['pid'] for e in self.events() if e['event'] == 'quit'}
        alive = []
        for e in self.registrations():
            if e['pid'] not in ended and process_alive(e['pid']):
                alive.append(App(self, e))
        return alive

    def end_session(self):
        """What a session's end does to its apps: they are killed (their
        windows' display goes away), without UnregisterRestore."""
        for app in self.running():
            try:
                os.kill(app.pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            app._gone()

    def close(self):
        self.end_session()
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait(10)


def process_alive(pid):
    """True while @pid runs (a zombie, whose parent has not reaped it yet,
    has ended)."""
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().rpartition(')')[2].split()[0] != 'Z'
    except OSError:
        return False
