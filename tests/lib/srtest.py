"""A private desktop session for policyd tests.

Each Session has its own HOME and XDG directories, a dconf profile with a
user database and a compiled system ("site") database with locks, a private
session bus started *after* that environment is set (so dconf-service,
activated by the bus, sees the same files), a private system bus for polkit,
and policyd itself. Nothing on the machine outside the temporary directory
is read or written.
"""
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

BUILD_DIR = os.environ.get('SR_BUILD_DIR', os.path.join(os.path.dirname(__file__), '..', '..', 'build'))
SOURCE_DIR = os.environ.get('SR_SOURCE_DIR', os.path.join(os.path.dirname(__file__), '..', '..'))
POLICYD = os.path.join(BUILD_DIR, 'policyd', 'session-restore-policyd')
PANEL = os.path.join(BUILD_DIR, 'panel', 'session-restore-panel')
SCHEMA_DIR = os.path.join(BUILD_DIR, 'data')
# GNOME's org.gnome.desktop.session with its "save-restore" switch: the
# system's (gsettings-desktop-schemas 50 and later), in every Session
# unless desktop_key=False, a desktop whose schemas lack it
# (system_share()).
DESKTOP_SCHEMA = 'org.gnome.desktop.session'
# The interpreter the tests run under (tests/meson.build finds one with gi
# and dbusmock), for the helpers they start: dbusmock, callers.
PYTHON = sys.executable
POLKITD = '/usr/lib/polkit-1/polkitd'

# SR_VALGRIND=1 (meson test --setup valgrind) runs every policyd of the
# tests under memcheck; Session.close() fails the test if a policyd that
# exited normally lost memory (definitely or indirectly) or made a memory
# error. Runs killed with SIGKILL have no summary and are not checked.
# The suppressions are GLib's own (glib.supp: its type system and one-time
# initialisations) and valgrind.supp's one (GIO modules loaded without their
# cache); "possibly lost" is GLib's thread pools.
VALGRIND = bool(os.environ.get('SR_VALGRIND'))
VALGRIND_SUPPRESSIONS = [f'--suppressions={path}' for path in (
    '/usr/share/glib-2.0/valgrind/glib.supp',
    os.path.join(os.path.dirname(os.path.abspath(__file__)), 'valgrind.supp'))]
# What /proc says policyd runs, for the checks that expect it (sr-peer.c):
# under valgrind, valgrind's tool.
VALGRIND_ARCH = {'x86_64': 'amd64', 'aarch64': 'arm64'}.get(platform.machine(), platform.machine())
POLICYD_EXECUTABLE = (f'/usr/libexec/valgrind/memcheck-{VALGRIND_ARCH}-linux' if VALGRIND
                      else os.path.realpath(POLICYD))
# Everything is slower under valgrind.
SLOW = 5 if VALGRIND else 1
NOBODY = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups']

BUS_NAME = 'org.gnome.SessionRestore.Policy'
OBJECT_PATH = '/org/gnome/SessionRestore/Policy'
IFACE = 'org.gnome.SessionRestore.Policy'
ERROR = 'org.gnome.SessionRestore.Error.'

DENY, ALLOW, ASK = 0, 1, 2
PRISTINE, LAUNCH, RECOVER, RESTORE = 0, 1, 2, 3
USEC_PER_DAY = 86400 * 1000000

BUS_CONFIG = '''<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>{type}</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <!-- As the session bus (session.conf): messages up to 1 GB, 50,000
       calls waiting for replies per connection. -->
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="max_outgoing_bytes">1000000000</limit>
  <limit name="max_message_size">1000000000</limit>
  <limit name="max_replies_per_connection">50000</limit>
  {servicedirs}
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow send_type="method_call"/>
    <allow send_type="method_return"/>
    <allow send_type="signal"/>
    <allow send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="signal"/>
    <allow receive_type="error"/>
  </policy>
</busconfig>
'''


def now_us():
    return int(time.time() * 1000000)


def remote_error(exc):
    """The D-Bus error name of a GLib.Error from a call, or None."""
    if isinstance(exc, GLib.Error):
        return Gio.DBusError.get_remote_error(exc)
    return None


def install_project(root):
    """Builds and installs the project into root/prefix, as a distribution
    would (-Dtests=false); returns the prefix."""
    prefix = os.path.join(root, 'prefix')
    build = os.path.join(root, 'build')
    for command in (['meson', 'setup', build, SOURCE_DIR, f'--prefix={prefix}',
                     '--libdir=lib', '-Dtests=false'],
                    ['meson', 'install', '-C', build, '--quiet']):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise AssertionError(f'{command}: {result.stdout}\n{result.stderr}')
    return prefix


def installed_project(root):
    """A distribution install to read from, not to change: the one
    tools/test makes once for a run (SR_INSTALLED_PREFIX: each test that
    built its own spent a minute of both cores on it, the German UI test
    while holding the UI tests' lock), or, run on its own, one built into
    root by install_project(). test_install builds its own: it uninstalls
    and installs again."""
    return os.environ.get('SR_INSTALLED_PREFIX') or install_project(root)


def files_under(root):
    """Every regular file below root (links and dot-files left out), with its bytes."""
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            if not os.path.islink(path) and not name.startswith('.'):
                with open(path, 'rb') as f:
                    files[os.path.relpath(path, root)] = f.read()
    return files


def keyfile_value(value):
    """A Python value as GVariant text for a dconf keyfile."""
    if isinstance(value, GLib.Variant):
        return value.print_(False)
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, str):
        return GLib.Variant('s', value).print_(False)
    if isinstance(value, list):
        return GLib.Variant('as', value).print_(False)
    return str(value)



def remove_world(root):
    """Removes a test world. A GTK app in it may have started
    xdg-document-portal, whose FUSE mount under $XDG_RUNTIME_DIR/doc is
    still going away as the bus stops: reading it then fails with
    ECONNABORTED, which rmtree's ignore_errors does not cover. What is
    still mounted under the world is unmounted first (lazily), and a
    failed removal is tried again once that is done."""
    for attempt in range(20):
        with open('/proc/self/mounts') as mounts:
            below = [line.split()[1] for line in mounts
                     if line.split()[1].startswith(root.rstrip('/') + '/')]
        for point in sorted(below, reverse=True):
            subprocess.run(['umount', '-l', point], stderr=subprocess.DEVNULL, check=False)
        try:
            shutil.rmtree(root, ignore_errors=True)
            return
        except OSError:
            time.sleep(0.1)
    shutil.rmtree(root, ignore_errors=True)

class Bus:
    """A dbus-daemon of our own, of type session or system."""

    def __init__(self, directory, kind, env, servicedirs=''):
        os.makedirs(directory, exist_ok=True)
        os.chmod(directory, 0o755)
        self.socket = os.path.join(directory, 'bus')
        self.config = os.path.join(directory, 'bus.conf')
        with open(self.config, 'w') as f:
            f.write(BUS_CONFIG.format(type=kind, socket=self.socket, servicedirs=servicedirs))
        self.process = subprocess.Popen(
            ['dbus-daemon', f'--config-file={self.config}', '--nofork', '--print-address=1'],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.address = self.process.stdout.readline().strip()
        if not self.address:
            raise RuntimeError(f'dbus-daemon ({kind}) did not start')

    def connect(self):
        return Gio.DBusConnection.new_for_address_sync(
            self.address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
            Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process.stdout.close()


def system_data_dirs():
    return [d for d in os.environ.get('XDG_DATA_DIRS', '/usr/local/share:/usr/share').split(':') if d]


def require_desktop_key():
    """Fails unless the system's GSettings schemas have GNOME's
    save-restore key, which every test world but desktop_key=False's has."""
    source = Gio.SettingsSchemaSource.get_default()
    schema = source.lookup(DESKTOP_SCHEMA, True) if source is not None else None
    if schema is None or not schema.has_key('save-restore'):
        raise RuntimeError(f'this system\'s {DESKTOP_SCHEMA} has no save-restore key: the tests need '
                           'gsettings-desktop-schemas 50 or later (tools/world has it)')


def link_entries(target, directories, keep):
    """Links into @target every entry of @directories that keep(name)
    takes; the first directory that has an entry wins, as in a search of
    XDG_DATA_DIRS."""
    os.makedirs(target, exist_ok=True)
    for directory in directories:
        try:
            entries = os.listdir(directory)
        except OSError:
            continue
        for entry in entries:
            link = os.path.join(target, entry)
            if keep(entry) and not os.path.lexists(link):
                os.symlink(os.path.join(directory, entry), link)
    return target


def system_share(root, leave_out):
    """XDG_DATA_DIRS for a test world: one directory in @root that links
    to everything of the system's data directories (D-Bus services, icons,
    MIME data) but the entries named in @leave_out."""
    return link_entries(os.path.join(root, 'system-share'), system_data_dirs(),
                        lambda entry: entry not in leave_out)


def session_service_dirs(root, env):
    """The session bus's service directories, as <standard_session_servicedirs/>
    has them (the runtime directory's, the user's, the system's) but for
    xdg-desktop-portal's: without a backend (none is installed here) its
    frontend is a desktop no one runs, on which GTK's portal calls (help,
    inhibit) go nowhere. A test that wants a portal starts one."""
    system = link_entries(
        os.path.join(root, 'system-services'),
        [os.path.join(d, 'dbus-1', 'services') for d in system_data_dirs()],
        lambda entry: not entry.startswith(('org.freedesktop.portal.', 'org.freedesktop.impl.portal.')))
    return ''.join(f'<servicedir>{d}</servicedir>' for d in (
        os.path.join(env['XDG_RUNTIME_DIR'], 'dbus-1', 'services'),
        os.path.join(env['XDG_DATA_HOME'], 'dbus-1', 'services'),
        system))


class Session:
    """HOME, XDG dirs, dconf, buses and policyd for one test."""

    def __init__(self, site=None, locks=(), extra_schema_dirs=(), polkit='mock', site_files=(),
                 desktop_key=True,
                 allowed=('org.gnome.SessionRestore.configure',
                          'org.gnome.SessionRestore.clear',
                          'org.gnome.SessionRestore.list')):
        self.root = tempfile.mkdtemp(prefix='sr-test-')
        os.chmod(self.root, 0o755)
        self.home = os.path.join(self.root, 'home')
        self.config_home = os.path.join(self.home, '.config')
        self.state_home = os.path.join(self.home, '.local', 'state')
        self.data_home = os.path.join(self.home, '.local', 'share')
        self.runtime_dir = os.path.join(self.root, 'runtime')
        for d in (self.config_home, self.state_home, self.data_home, self.runtime_dir,
                  os.path.join(self.home, '.cache')):
            os.makedirs(d, exist_ok=True)
        os.chmod(self.runtime_dir, 0o700)
        # The shipped store drop-ins, as the system's: a test build of
        # policyd reads them from SR_SYSTEM_STORES_DIR instead of $datadir.
        # The user's own (stores_dir) are the tests' to write.
        self.system_stores_dir = os.path.join(self.root, 'system-stores.d')
        shutil.copytree(os.path.join(SOURCE_DIR, 'data', 'stores.d'), self.system_stores_dir)
        self.stores_dir = os.path.join(self.config_home, 'session-restore', 'stores.d')
        os.makedirs(self.stores_dir)

        self.site_dir = os.path.join(self.root, 'site.d')
        self.site_db = os.path.join(self.root, 'site.db')
        self.profile = os.path.join(self.root, 'dconf-profile')
        with open(self.profile, 'w') as f:
            f.write(f'user-db:user\nfile-db:{self.site_db}\n')
        self.write_site(site or {}, locks, site_files)

        schema_dirs = list(extra_schema_dirs) + [SCHEMA_DIR]
        if desktop_key:
            require_desktop_key()
        self.env = {
            'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
            'HOME': self.home,
            'XDG_CONFIG_HOME': self.config_home,
            'XDG_STATE_HOME': self.state_home,
            'XDG_DATA_HOME': self.data_home,
            'XDG_CACHE_HOME': os.path.join(self.home, '.cache'),
            'XDG_RUNTIME_DIR': self.runtime_dir,
            'DCONF_PROFILE': self.profile,
            'GSETTINGS_BACKEND': 'dconf',
            'GSETTINGS_SCHEMA_DIR': ':'.join(schema_dirs),
            'LANG': 'C.UTF-8',
            # A critical warning in policyd is a bug: make it fail the test.
            'G_DEBUG': 'fatal-criticals',
            # policyd and the login prompt trust each other only as these
            # programs (sr-peer.c); the build's, not the installed ones.
            'SR_PROMPT_EXECUTABLE': os.path.realpath(PANEL),
            'SR_POLICYD_EXECUTABLE': POLICYD_EXECUTABLE,
        }
        self.env['SR_SYSTEM_STORES_DIR'] = self.system_stores_dir
        # The world's installed apps are the test's alone (data_home), not
        # the machine's; without the desktop key, the system's GSettings
        # schemas are left out too: a desktop whose schemas lack it.
        self.env['XDG_DATA_DIRS'] = system_share(
            self.root, ('applications',) if desktop_key else ('applications', 'glib-2.0'))
        for passthrough in ('ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'G_DEBUG',
                            'G_SLICE', 'DISPLAY', 'XAUTHORITY'):
            if passthrough in os.environ:
                self.env[passthrough] = os.environ[passthrough]

        self.system_bus = Bus(os.path.join(self.root, 'system-bus'), 'system', self.env)
        self.env['DBUS_SYSTEM_BUS_ADDRESS'] = self.system_bus.address
        self.session_bus = Bus(os.path.join(self.root, 'session-bus'), 'session', self.env,
                               session_service_dirs(self.root, self.env))
        self.env['DBUS_SESSION_BUS_ADDRESS'] = self.session_bus.address

        self.polkit = None
        if polkit == 'mock':
            self.start_mock_polkit(allowed)

        self.bus = self.session_bus.connect()
        self.policyd = None
        self.signals = []
        self.bus.signal_subscribe(None, 'org.freedesktop.DBus.Properties', 'PropertiesChanged',
                                  OBJECT_PATH, None, Gio.DBusSignalFlags.NONE,
                                  self._on_signal, None)

    # -- dconf -------------------------------------------------------------

    def write_site(self, site, locks=(), files=()):
        """Compile the system database: {key: value} for our schema's path,
        and the keys in locks locked. Keys may be 'path/key' for others.
        files: (keyfile, locks file) pairs copied in as they are, as an
        administrator would put them in /etc/dconf/db/site.d/."""
        shutil.rmtree(self.site_dir, ignore_errors=True)
        os.makedirs(os.path.join(self.site_dir, 'locks'))
        groups = {}
        for key, value in site.items():
            path, _, name = key.rpartition('/')
            groups.setdefault(path or 'org/gnome/session-restore', {})[name] = value
        with open(os.path.join(self.site_dir, '00-site'), 'w') as f:
            for path, values in groups.items():
                f.write(f'[{path}]\n')
                for name, value in values.items():
                    f.write(f'{name}={keyfile_value(value)}\n')
        with open(os.path.join(self.site_dir, 'locks', '00-locks'), 'w') as f:
            for key in locks:
                f.write(key if key.startswith('/') else f'/org/gnome/session-restore/{key}')
                f.write('\n')
        for i, (keyfile, locksfile) in enumerate(files):
            shutil.copy(keyfile, os.path.join(self.site_dir, f'10-example-{i}'))
            shutil.copy(locksfile, os.path.join(self.site_dir, 'locks', f'10-example-{i}'))
        # What `dconf update` does for /etc/dconf/db/site.d.
        subprocess.run(['dconf', 'compile', self.site_db, self.site_dir], check=True)

    def gsettings(self, *args, schema='org.gnome.SessionRestore', check=True):
        result = subprocess.run(['gsettings', args[0], schema, *args[1:]], env=self.env,
                                capture_output=True, text=True)
        if check and result.returncode != 0:
            raise AssertionError(f'gsettings {args}: {result.stderr}')
        return result.stdout.strip()

    def gsettings_value(self, key, schema='org.gnome.SessionRestore'):
        return GLib.Variant.parse(None, self.gsettings('get', key, schema=schema), None, None).unpack()

    def gsettings_set_refused(self, key, value, schema='org.gnome.SessionRestore'):
        """gsettings set on a locked key: True when gsettings refuses it,
        which it does before anything reaches dconf, so that there is
        nothing to wait for."""
        result = subprocess.run(['gsettings', 'set', schema, key, value], env=self.env,
                                capture_output=True, text=True)
        return result.returncode != 0 and 'not writable' in result.stderr
    def sandboxed_command(self, app_id, *command, binds=()):
        """@command, run inside a sandbox as Flatpak makes one for @app_id
        (bubblewrap, with a .flatpak-info at its root), with the session
        bus and the extra bwrap arguments @binds."""
        info = os.path.join(self.root, f'flatpak-info-{app_id}')
        with open(info, 'w') as f:
            f.write(f'[Application]\nname={app_id}\n')
        bus_dir = os.path.dirname(self.session_bus.socket)
        return ['bwrap', '--die-with-parent', '--ro-bind', '/usr', '/usr',
                '--symlink', 'usr/lib', '/lib',
                '--symlink', 'usr/lib64', '/lib64', '--symlink', 'usr/bin', '/bin',
                '--symlink', 'usr/sbin', '/sbin', '--ro-bind', '/etc', '/etc', '--proc', '/proc',
                '--dev', '/dev', '--ro-bind', bus_dir, bus_dir, *binds,
                '--ro-bind', info, '/.flatpak-info', *command]

    # -- polkit ------------------------------------------------------------

    def start_mock_polkit(self, allowed):
        self.polkit = subprocess.Popen(
            [PYTHON, '-m', 'dbusmock', '--system', '--template', 'polkitd'],
            env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.system = self.system_bus.connect()
        self.wait_for_name(self.system, 'org.freedesktop.PolicyKit1')
        self.set_allowed(allowed)
        # The mock learns what it allows after it owns its name; a real
        # polkitd knows its rules before. Its Changed signal has whoever
        # asked in between (the panel, when polkitd comes back) ask again.
        self.emit_polkit_changed()

    def emit_polkit_changed(self):
        """polkitd's Changed: its rules or authorizations changed."""
        self.mock_polkit('EmitSignal', 'sssav', 'org.freedesktop.PolicyKit1.Authority', 'Changed', '', [])

    def set_allowed(self, actions):
        self.mock_polkit('SetAllowed', 'as', list(actions))

    def mock_polkit(self, method, signature=None, *args):
        """Calls the mock polkitd's org.freedesktop.DBus.Mock method (e.g.
        SimulateHang, ReleaseHangingCalls, HaveHangingCalls)."""
        params = GLib.Variant(f'({signature})', args) if signature else None
        reply = self.system.call_sync('org.freedesktop.PolicyKit1',
                                      '/org/freedesktop/PolicyKit1/Authority',
                                      'org.freedesktop.DBus.Mock', method, params, None,
                                      Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack() if reply is not None else None

    # -- policyd -----------------------------------------------------------

    def start_policyd(self, *args, wait=True, prefix=()):
        """prefix: a command that execs the rest (e.g. unshare), outermost."""
        command = [POLICYD, *args]
        if VALGRIND:
            command = ['valgrind', '--leak-check=full', '--show-leak-kinds=definite,indirect',
                       '--errors-for-leak-kinds=definite,indirect',
                       *VALGRIND_SUPPRESSIONS,
                       f'--log-file={self.root}/valgrind.%p.log'] + command
        command = list(prefix) + command
        self.policyd_log = open(os.path.join(self.root, 'policyd.log'), 'a')
        process = subprocess.Popen(command, env=self.env, stdout=self.policyd_log,
                                   stderr=subprocess.STDOUT)
        if self.policyd is None or self.policyd.poll() is not None:
            self.policyd = process
        if wait:
            self.wait_for_owner(process.pid)
        return process

    def activatable(self, command=POLICYD, name=BUS_NAME):
        """A D-Bus service file for policyd (or @name) in the session's data
        dir, as an installed one would be: the next call to its name starts
        it (with @command, a D-Bus Exec line)."""
        services = os.path.join(self.data_home, 'dbus-1', 'services')
        os.makedirs(services, exist_ok=True)
        with open(os.path.join(services, f'{name}.service'), 'w') as f:
            f.write(f'[D-BUS Service]\nName={name}\nExec={command}\n')
        self.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                           'ReloadConfig', None, None, Gio.DBusCallFlags.NONE, 5000, None)

    def wait_for_name(self, bus, name, timeout=20):
        deadline = time.monotonic() + timeout * SLOW
        while time.monotonic() < deadline:
            has = bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                'org.freedesktop.DBus', 'NameHasOwner',
                                GLib.Variant('(s)', (name,)), None,
                                Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
            if has:
                return
            time.sleep(0.02)
        raise AssertionError(f'{name} did not appear on the bus')

    def owner_pid(self):
        try:
            return self.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                      'org.freedesktop.DBus', 'GetConnectionUnixProcessID',
                                      GLib.Variant('(s)', (BUS_NAME,)), None,
                                      Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        except GLib.Error:
            return None

    def wait_for_owner(self, pid, timeout=20):
        deadline = time.monotonic() + timeout * SLOW
        while time.monotonic() < deadline:
            if self.owner_pid() == pid:
                self.settle()
                return
            time.sleep(0.02)
        raise AssertionError(f'policyd (pid {pid}) did not take {BUS_NAME}; log:\n{self.log()}')

    def log(self):
        with open(os.path.join(self.root, 'policyd.log')) as f:
            return f.read()

    def stop_policyd(self, sig=signal.SIGTERM):
        if self.policyd is None:
            return None
        if self.policyd.poll() is None:
            self.policyd.send_signal(sig)
        status = self.policyd.wait(30)
        self.policyd = None
        return status

    # -- calls -------------------------------------------------------------

    def call(self, method, signature=None, *args, flags=Gio.DBusCallFlags.NONE, timeout=10000 * SLOW):
        params = GLib.Variant(f'({signature})', args) if signature else None
        reply = self.bus.call_sync(BUS_NAME, OBJECT_PATH, IFACE, method, params, None,
                                   flags, timeout, None)
        return reply.unpack() if reply is not None else None

    def check_save(self, app_id):
        return tuple(self.call('CheckSave', 's', app_id))

    def check_restore(self, app_id, reason, options=None):
        return tuple(self.call('CheckRestore', 'sua{sv}', app_id, reason, options or {}))

    def set_setting(self, key, variant, **kwargs):
        return self.call('SetSetting', 'sv', key, variant, **kwargs)

    def clear(self, apps=(), **kwargs):
        return self.call('Clear', 'as', list(apps), **kwargs)[0]

    def list_state(self):
        """The listing's apps (without the row of the stores that could not
        be read: listing_errors())."""
        return {app: info for app, info in self.call('ListStoredState')[0] if app}

    def listing_errors(self):
        """What a listing could not read: {store: [messages]}, {} for none."""
        rows = dict(self.call('ListStoredState')[0])
        return rows.get('', {}).get('errors', {})

    def prop(self, name):
        reply = self.bus.call_sync(BUS_NAME, OBJECT_PATH, 'org.freedesktop.DBus.Properties', 'Get',
                                   GLib.Variant('(ss)', (IFACE, name)), None,
                                   Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]

    def all_props(self, consumers=False):
        """The properties; without Consumers unless asked: that one records
        when each program last asked, which every check changes."""
        reply = self.bus.call_sync(BUS_NAME, OBJECT_PATH, 'org.freedesktop.DBus.Properties', 'GetAll',
                                   GLib.Variant('(s)', (IFACE,)), None,
                                   Gio.DBusCallFlags.NONE, 5000, None)
        props = reply.unpack()[0]
        if not consumers:
            props.pop('Consumers', None)
        return props

    def _on_signal(self, conn, sender, path, iface, name, params, data):
        self.signals.append((name, params.unpack()))

    def round_trip(self):
        """Instead of waiting a while for "nothing happened": a call that
        policyd answers on its main thread, then the dispatch of what it
        sent before the answer. Whatever a call answered before this one,
        or a change policyd had seen, made it do on its main thread has
        been done and signalled when this returns."""
        self.prop('Version')
        context = GLib.MainContext.default()
        while context.iteration(False):
            pass

    def settle(self, seconds=0.05):
        """Run the main context briefly so that signals arrive."""
        deadline = time.monotonic() + seconds
        context = GLib.MainContext.default()
        while time.monotonic() < deadline:
            while context.iteration(False):
                pass
            time.sleep(0.005)

    def wait_until(self, predicate, timeout=10, what='condition'):
        deadline = time.monotonic() + timeout * SLOW
        context = GLib.MainContext.default()
        while time.monotonic() < deadline:
            while context.iteration(False):
                pass
            if predicate():
                return
            time.sleep(0.01)
        raise AssertionError(f'timed out waiting for {what}')

    def invalidated_properties(self):
        """Every property named as invalidated by PropertiesChanged so far."""
        names = set()
        for name, (iface, _, invalidated) in self.signals:
            if name == 'PropertiesChanged' and iface == IFACE:
                names.update(invalidated)
        return names

    def changed_properties(self):
        """All PropertiesChanged payloads seen so far, merged."""
        merged = {}
        for name, (iface, changed, _) in self.signals:
            if name == 'PropertiesChanged' and iface == IFACE:
                merged.update(changed)
        return merged

    def close(self):
        self.stop_policyd()
        if self.polkit is not None and self.polkit.poll() is None:
            self.polkit.terminate()
            self.polkit.wait(10)
        self.session_bus.stop()
        self.system_bus.stop()
        if getattr(self, 'policyd_log', None):
            self.policyd_log.close()
        try:
            if VALGRIND:
                self.check_valgrind_logs()
        finally:
            remove_world(self.root)

    def check_valgrind_logs(self):
        """Every policyd run under memcheck that got to its summary: no
        memory errors, nothing definitely or indirectly lost."""
        problems = []
        for name in sorted(os.listdir(self.root)):
            match = re.fullmatch(r'valgrind\.(\d+)\.log', name)
            if not match:
                continue
            # A policyd that lost its bus (or name) exits on its own.
            deadline = time.monotonic() + 60
            while os.path.exists(f'/proc/{match.group(1)}') and time.monotonic() < deadline:
                time.sleep(0.05)
            with open(os.path.join(self.root, name)) as f:
                report = f.read()
            if 'ERROR SUMMARY' not in report:
                continue        # killed (SIGKILL): no summary to check
            lost = [kind for kind in ('definitely', 'indirectly')
                    if re.search(rf'{kind} lost: ([\d,]+) bytes', report)
                    and re.search(rf'{kind} lost: ([\d,]+) bytes', report).group(1) != '0']
            if lost or not re.search(r'ERROR SUMMARY: 0 errors', report):
                problems.append(f'{name}:\n{report[-6000:]}')
        if problems:
            raise AssertionError('valgrind found problems in policyd:\n' + '\n'.join(problems))


class RealPolkit:
    """The real polkitd on a Session's system bus, reading the project's
    .policy and the .rules files of rules_dir. polkitd only reads its fixed
    directories, so it runs in a mount namespace where those are
    bind-mounted from the test's own; nothing on the machine is changed.
    Needs root. Without logind every subject is in no session (polkit
    applies allow_any), and uid 0 is always authorized: use NOBODY."""

    def __init__(self, session):
        self.s = session
        self.actions = os.path.join(session.root, 'polkit-actions')
        self.rules_dir = os.path.join(session.root, 'polkit-rules')
        for d in (self.actions, self.rules_dir):
            os.makedirs(d)
            os.chmod(d, 0o755)
        shutil.copy(os.path.join(BUILD_DIR, 'data', 'org.gnome.SessionRestore.policy'), self.actions)
        self.process = subprocess.Popen(
            ['unshare', '--mount', '--propagation', 'private', 'sh', '-ec',
             f'mount --bind {self.actions} /usr/share/polkit-1/actions; '
             f'mount --bind {self.rules_dir} /etc/polkit-1/rules.d; '
             f'exec {POLKITD} --no-debug'],
            env=session.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.system = session.system_bus.connect()
        session.wait_for_name(self.system, 'org.freedesktop.PolicyKit1')

    def write_rules(self, name, text):
        """Replaces a .rules file atomically; polkitd reloads on its own time."""
        path = os.path.join(self.rules_dir, name)
        with open(path + '.tmp', 'w') as f:
            f.write(text)
        os.chmod(path + '.tmp', 0o644)
        os.rename(path + '.tmp', path)

    def check_process(self, pid, uid, action):
        """polkit's answer for a process, without interaction:
        (is_authorized, is_challenge)."""
        with open(f'/proc/{pid}/stat') as f:
            start_time = int(f.read().rpartition(')')[2].split()[19])
        subject = ('unix-process', {'pid': GLib.Variant('u', pid),
                                    'start-time': GLib.Variant('t', start_time),
                                    'uid': GLib.Variant('i', uid)})
        reply = self.system.call_sync(
            'org.freedesktop.PolicyKit1', '/org/freedesktop/PolicyKit1/Authority',
            'org.freedesktop.PolicyKit1.Authority', 'CheckAuthorization',
            GLib.Variant('((sa{sv})sa{ss}us)', (subject, action, {}, 0, '')),
            None, Gio.DBusCallFlags.NONE, 10000, None)
        authorized, challenge, _ = reply.unpack()[0]
        return authorized, challenge

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


class PolicydTestCase(unittest.TestCase):
    """Starts a Session and policyd for each test. Subclasses set the class
    attributes to shape the session."""
    site = {}
    locks = ()
    extra_schema_dirs = ()
    site_files = ()
    polkit = 'mock'
    desktop_key = True
    start = True

    def setUp(self):
        self.s = Session(site=self.site, locks=self.locks, site_files=self.site_files,
                         extra_schema_dirs=self.extra_schema_dirs, polkit=self.polkit,
                         desktop_key=self.desktop_key)
        self.addCleanup(self.s.close)
        if self.start:
            self.s.start_policyd()

    def assertDBusError(self, name, func, *args, **kwargs):
        with self.assertRaises(GLib.Error) as ctx:
            func(*args, **kwargs)
        self.assertEqual(remote_error(ctx.exception), ERROR + name if '.' not in name else name,
                         ctx.exception.message)
        return ctx.exception.message

    def assertAlive(self):
        """policyd still answers, and answers right."""
        self.assertIsNone(self.s.policyd.poll(), 'policyd exited')
        self.assertEqual(self.s.check_save('org.example.Alive'), (ALLOW, 'allowed'))
