"""A consumer that behaves like the real owners of stored state.

It plays gnome-session (the save/restore portal backend: one state file per
session with per-app instance entries), GTK (one state file per app
instance, also inside Flatpak apps' directories) and the compositor (a
whole-file window store). It writes the real formats at the real paths
under the test's HOME, asks policyd before saving and restoring (with
"saved-at"), reports exits, and, when `listening`, drops what it holds in
memory when policyd emits StoredStateCleared. Like the real owners, it
rewrites its files from memory.
"""
import os
import time

from srtest import ALLOW, BUS_NAME, IFACE, OBJECT_PATH, GLib, Gio, now_us

GVDB_HEADER = b'GVariant' + b'\0' * 16   # a gvdb file's signature and an empty root


class Simulator:
    def __init__(self, session, listening=True, session_name='gnome'):
        self.s = session
        self.listening = listening
        self.session_name = session_name
        self.memory = {}          # app id → {instance id: {'saved_at': µs, 'flatpak': bool}}
        self.cleared_signals = []
        self.s.bus.signal_subscribe(BUS_NAME, IFACE, 'StoredStateCleared', OBJECT_PATH, None,
                                    Gio.DBusSignalFlags.NONE, self._on_cleared, None)

    # -- paths -------------------------------------------------------------

    def gtk_path(self, app, instance, flatpak=False):
        if flatpak:
            return os.path.join(self.s.home, '.var', 'app', app, '.local', 'state',
                                f'{app}@{instance}.state')
        return os.path.join(self.s.state_home, f'{app}@{instance}.state')

    @property
    def session_path(self):
        return os.path.join(self.s.state_home, f'gnome-session@{self.session_name}.state')

    @property
    def compositor_path(self):
        return os.path.join(self.s.data_home, 'mutter', 'session.gvdb')

    # -- the owners' behaviour -------------------------------------------------

    def _on_cleared(self, conn, sender, path, iface, name, params, data):
        apps = params.unpack()[0]
        self.cleared_signals.append(apps)
        if not self.listening:
            return
        if not apps:
            self.memory.clear()
            self.compositor_windows = 0
        for app in apps:
            self.memory.pop(app, None)

    def save(self, app, instance='1', flatpak=False, payload=b'', when=None):
        """Save one instance's state if policyd allows; returns the verdict."""
        verdict, why = self.s.check_save(app)
        if verdict != ALLOW:
            return why
        when = when if when is not None else now_us()
        self.memory.setdefault(app, {})[instance] = {'saved_at': when, 'flatpak': flatpak,
                                                     'payload': payload}
        self.write_back()
        return why

    def gtk_state(self, app, instance, payload):
        return GLib.Variant('(a{sv}a{sv}a(a{sv}a{sv}))', (
            {'app-id': GLib.Variant('s', app), 'data': GLib.Variant('ay', payload)},
            {'instance-id': GLib.Variant('s', instance)},
            [({'title': GLib.Variant('s', f'{app} window')},
              {'width': GLib.Variant('i', 800), 'height': GLib.Variant('i', 600)})],
        ))

    def session_state(self):
        instances = {}
        for app, entries in sorted(self.memory.items()):
            instances[app] = ({'desktop-id': GLib.Variant('s', f'{app}.desktop')},
                              [{'instance-id': GLib.Variant('s', i),
                                'crashed': GLib.Variant('b', False)} for i in sorted(entries)])
        return GLib.Variant('a{sv}', {
            'version': GLib.Variant('u', 1),
            'dirty': GLib.Variant('b', False),
            'instances': GLib.Variant('a{s(a{sv}aa{sv})}', instances),
        })

    def write_back(self):
        """Rewrite every file from memory, as the owners do."""
        for app, entries in self.memory.items():
            for instance, info in entries.items():
                path = self.gtk_path(app, instance, info['flatpak'])
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'wb') as f:
                    f.write(self.gtk_state(app, instance, info['payload']).get_data_as_bytes().get_data())
                seconds = info['saved_at'] / 1e6
                os.utime(path, (seconds, seconds))
        os.makedirs(os.path.dirname(self.session_path), exist_ok=True)
        with open(self.session_path, 'wb') as f:
            f.write(self.session_state().get_data_as_bytes().get_data())

    def start_policyd_after_purge(self, excluded_app):
        """Starts policyd, and returns once its start-up purge has run to its
        end: for a test that writes state the purge removes (an excluded
        app's, written by an owner that did not ask). The purge runs once a
        second has gone by without a call (sr-maintenance.c), which a slow
        run (valgrind) can give it at any point of a test. The sign is
        excluded_app's state (excluded in the session's settings), written
        before policyd starts: it goes with the purge's last removal, and a
        listing, queued on the store worker behind that removal, returns
        once it is done."""
        self.memory[excluded_app] = {'1': {'saved_at': now_us(), 'flatpak': False, 'payload': b''}}
        self.write_back()
        self.s.start_policyd()
        self.s.wait_until(lambda: not os.path.exists(self.gtk_path(excluded_app, '1')),
                          what='the start-up purge')
        del self.memory[excluded_app]
        self.s.list_state()

    def write_compositor(self):
        os.makedirs(os.path.dirname(self.compositor_path), exist_ok=True)
        with open(self.compositor_path, 'wb') as f:
            f.write(GVDB_HEADER)

    def restore(self, app, reason, instance='1'):
        """Ask to restore what is on disk for this instance; (verdict, why)."""
        info = self.memory.get(app, {}).get(instance)
        if info is not None:
            saved_at = info['saved_at']
        else:
            path = self.gtk_path(app, instance)
            if not os.path.exists(path):
                return None
            saved_at = int(os.stat(path).st_mtime * 1e6)
        return self.s.check_restore(app, reason, {'saved-at': GLib.Variant('x', saved_at)})

    def start_login(self, apps, interactive=True):
        """A login: every app in @apps asks, at once and each on its own
        connection (as the session manager restoring several apps), to
        restore (RESTORE, with "saved-at" of what is in memory, and
        "interactive"), with no call timeout. Returns a Login: its answers
        fill in as the main context runs."""
        login = Login(apps)
        for app in apps:
            conn = self.s.session_bus.connect()
            login.conns.append(conn)
            options = {'interactive': GLib.Variant('b', interactive)}
            info = self.memory.get(app, {}).get('1')
            if info is not None:
                options['saved-at'] = GLib.Variant('x', info['saved_at'])

            def done(conn, result, app=app):
                try:
                    login.answers[app] = tuple(conn.call_finish(result).unpack())
                except GLib.Error as e:
                    login.answers[app] = e
            conn.call(BUS_NAME, OBJECT_PATH, IFACE, 'CheckRestore',
                      GLib.Variant('(sua{sv})', (app, 3, options)), None,
                      Gio.DBusCallFlags.NONE, GLib.MAXINT, None, done)
        return login

    def login(self, apps, interactive=True, timeout=120):
        """start_login(), and its answers: {app: (verdict, why)}."""
        return self.start_login(apps, interactive).wait(timeout)

    def exit(self, app, voluntary):
        self.s.call('NoteExit', 'sb', app, voluntary)

    # -- what is on disk -----------------------------------------------------------

    def session_file_apps(self):
        with open(self.session_path, 'rb') as f:
            data = f.read()
        state = GLib.Variant.new_from_bytes(GLib.VariantType('a{sv}'), GLib.Bytes(data), False)
        return state.unpack()

    def settle_signals(self):
        """StoredStateCleared goes out before the reply of the call that
        cleared: after a round trip, it has arrived."""
        self.s.round_trip()


class Login:
    """The restore checks of one login, under way."""

    def __init__(self, apps):
        self.apps = list(apps)
        self.answers = {}
        self.conns = []

    def wait(self, timeout=120):
        """Every app's answer, {app: (verdict, why)}; raises after @timeout
        seconds."""
        deadline = time.monotonic() + timeout
        context = GLib.MainContext.default()
        while len(self.answers) < len(self.apps):
            if time.monotonic() > deadline:
                raise AssertionError(f'login: only {sorted(self.answers)} were answered')
            if not context.iteration(False):
                time.sleep(0.01)
        for conn in self.conns:
            conn.close_sync(None)
        return self.answers
