"""What session-restore-portal's tests share: the backend started on a
test session, the stand-in frontend (portalfrontend.py) beside it, apps
(portalapp.py), and the record read back."""
import os
import re
import subprocess

from portalapp import PortalApp
from srtest import BUILD_DIR, PYTHON, SOURCE_DIR, GLib, Gio, PolicydTestCase

BACKEND = os.path.join(BUILD_DIR, 'portal', 'session-restore-portal')
CTL = os.path.join(BUILD_DIR, 'ctl', 'session-restore-ctl')
BACKEND_NAME = 'org.freedesktop.impl.portal.SessionRestore'
FRONTEND = os.path.join(SOURCE_DIR, 'tests', 'lib', 'portalfrontend.py')
APP = os.path.join(SOURCE_DIR, 'tests', 'lib', 'portalapp.py')
FAKE_PROMPT = os.path.join(SOURCE_DIR, 'tests', 'lib', 'fakeprompt.py')
IMPL_SESSION = 'org.freedesktop.impl.portal.Session'
CONTROL = ('/org/gnome/SessionRestore/Portal', 'org.gnome.SessionRestore.Portal')
PORTAL_PATH = '/org/freedesktop/portal/desktop'
FRONTEND_NAME = 'org.freedesktop.portal.Desktop'


class PortalTestCase(PolicydTestCase):
    def setUp(self):
        super().setUp()
        self.s.env['XDG_CURRENT_DESKTOP'] = 'sway'
        self.record = os.path.join(self.s.state_home, 'session-restore-portal@sway.state')
        self.start_backend()
        self.frontend = subprocess.Popen([PYTHON, FRONTEND, BACKEND_NAME], env=self.s.env)
        self.addCleanup(self.stop, self.frontend)
        self.s.wait_for_name(self.s.bus, FRONTEND_NAME)

    def start_backend(self, prefix=(), **env):
        self.backend_log = open(os.path.join(self.s.root, 'backend.log'), 'a')
        self.addCleanup(self.backend_log.close)
        self.backend = subprocess.Popen([*prefix, BACKEND], env={**self.s.env, **env},
                                        stdout=self.backend_log, stderr=subprocess.STDOUT)
        self.addCleanup(self.stop, self.backend)
        self.s.wait_for_name(self.s.bus, BACKEND_NAME)

    def stop(self, process):
        if process.poll() is None:
            process.terminate()
            process.wait(30)

    def app(self, app_id, token='t'):
        return PortalApp(self.s.session_bus.address, self.s.state_home, app_id, token)

    def backend_call(self, path, iface, method, params=None, timeout=30000, direct=False):
        """A call to the backend: to its impl interface's paths from the
        stand-in frontend (which alone the backend answers there), unless
        @direct; to the control interface from the test itself."""
        if direct or not path.startswith(PORTAL_PATH):
            reply = self.s.bus.call_sync(BACKEND_NAME, path, iface, method, params, None,
                                         Gio.DBusCallFlags.NONE, timeout, None)
            return reply.unpack() if reply is not None else None
        reply = self.s.bus.call_sync(FRONTEND_NAME, '/org/example/PortalFrontendTest',
                                     'org.example.PortalFrontendTest', 'Call',
                                     relay_args(path, iface, method, params),
                                     None, Gio.DBusCallFlags.NONE, timeout, None)
        return relay_reply(reply)

    def relay_async(self, path, iface, method, params, on_done, timeout=60000):
        """A call the stand-in frontend makes to the backend for the test,
        without waiting: on_done(answer) with the answer unpacked, or the
        GLib.Error."""
        def done(conn, result, data=None):
            try:
                answer = relay_reply(conn.call_finish(result))
            except GLib.Error as e:
                answer = e
            on_done(answer)
        self.s.bus.call(FRONTEND_NAME, '/org/example/PortalFrontendTest',
                        'org.example.PortalFrontendTest', 'Call',
                        relay_args(path, iface, method, params), None, Gio.DBusCallFlags.NONE,
                        timeout, None, done, None)

    def session_nodes(self):
        """The senders the backend serves session objects for."""
        xml = self.backend_call('/org/freedesktop/portal/desktop/session',
                                'org.freedesktop.DBus.Introspectable', 'Introspect')[0]
        return re.findall(r'<node name="([^"]+)"', xml)

    def sync_backend(self, written=True):
        """A round trip through the backend's main loop: whatever it was
        sent before (Close2 from the frontend) has been handled, and the
        record it wrote for it is on disk (Sync); or, not @written, Sync
        says the record was too large to write."""
        if written:
            self.backend_call(*CONTROL, 'Sync')
            return
        message = self.assertDBusError('org.freedesktop.DBus.Error.Failed',
                                       self.backend_call, *CONTROL, 'Sync')
        self.assertRegex(message, r'session-restore-portal@[^ ]*\.state was not written: \d+ bytes, '
                                  r'more than the \d+ read at the next start')

    def sync_frontend(self, written=True):
        self.s.bus.call_sync('org.freedesktop.portal.Desktop', '/org/freedesktop/portal/desktop',
                             'org.freedesktop.DBus.Properties', 'Get',
                             GLib.Variant('(ss)', ('org.freedesktop.portal.SaveRestore', 'version')),
                             None, Gio.DBusCallFlags.NONE, 30000, None)
        self.sync_backend(written)

    def open_sessions(self, app, count, prefix):
        registrations = []
        for i in range(count):
            app.token = f'{prefix}{i}'
            registrations.append((app.token, app.register(obey=False)))
        return registrations

    def assert_not_written_said_once_each(self, log):
        """A record too large to write is in @log once when it happened,
        and once where the session ended; said a third time, bare, after
        that, it read as a second failure (2026-12-06)."""
        before, marker, after = log.partition('The session is ending with ')
        self.assertTrue(marker, log)
        self.assertEqual(before.count('.state was not written: '), 1, log)
        self.assertEqual(after.count('.state was not written: '), 1, log)
        self.assertEqual(after.count("Could not record the apps open at the session's end: "),
                         1, log)

    def record_apps(self):
        with open(self.record, 'rb') as f:
            return parse_record(f.read()).unpack()['instances']


def parse_record(data):
    return GLib.Variant.new_from_bytes(GLib.VariantType('a{sv}'), GLib.Bytes(data), False)


def relay_args(path, iface, method, params):
    """The arguments of the stand-in frontend's Call, which makes the call
    to the backend."""
    args = [] if params is None else [params.get_child_value(i) for i in range(params.n_children())]
    return GLib.Variant.new_tuple(GLib.Variant('s', path), GLib.Variant('s', iface),
                                  GLib.Variant('s', method),
                                  GLib.Variant.new_array(GLib.VariantType('v'),
                                                         [GLib.Variant.new_variant(a) for a in args]))


def relay_reply(reply):
    """The backend's answer, from the frontend's Call's: unpacked as
    call_sync's is, None for an empty one."""
    values = reply.get_child_value(0)
    if values.n_children() == 0:
        return None
    return GLib.Variant.new_tuple(*[values.get_child_value(i).get_variant()
                                    for i in range(values.n_children())]).unpack()


def own_frontend_name(session):
    """The caller of the cold starts takes the frontend's name, as the
    frontend that starts the backend holds it: the backend answers its
    impl interface for that name's owner alone, verified at its first
    call (part of what the cold start measures)."""
    reply = session.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                  'org.freedesktop.DBus', 'RequestName',
                                  GLib.Variant('(su)', ('org.freedesktop.portal.Desktop', 4)),
                                  None, Gio.DBusCallFlags.NONE, -1, None)
    assert reply.unpack()[0] == 1, 'could not take org.freedesktop.portal.Desktop'
