"""Every bad input of DESIGN.md gets a named error, changes nothing, and
leaves the service answering correctly."""
import os

from srtest import GLib, Gio, PolicydTestCase, BUS_NAME, OBJECT_PATH, IFACE

BAD_APP_IDS = [
    '',
    'org.example/../../etc',
    'org/example.App',
    '..',
    'org..example.App',
    'org.example.App\n',
    'org.example.\x01App',
    '.org.example.App',
    'org.example.App.',
    'org.exa mple.App',
    'firefox-esr.desktop',
    '-rf',
    'org.example.App#1',
    'org.example.*',
    'org.example.' + 'a' * 250,
]


class BadInputTest(PolicydTestCase):
    def tearDown(self):
        # After every bad call: still up, still right, nothing changed.
        self.assertAlive()
        self.assertEqual(self.s.gsettings('list-recursively').count('\n'), 8)
        for key, default in (('excluded-apps', []), ('max-age-days', 30), ('enabled', True)):
            self.assertEqual(self.s.gsettings_value(key), default, key)
        super().tearDown()

    def test_bad_app_ids(self):
        for app_id in BAD_APP_IDS:
            with self.subTest(app_id=app_id):
                self.assertDBusError('InvalidArgs', self.s.check_save, app_id)
                self.assertDBusError('InvalidArgs', self.s.check_restore, app_id, 1)
                self.assertDBusError('InvalidArgs', self.s.call, 'NoteExit', 'sb', app_id, False)
                self.assertDBusError('InvalidArgs', self.s.call, 'SetAppExcluded', 'sb', app_id, True)

    def test_desktop_file_names_get_a_hint(self):
        message = self.assertDBusError('InvalidArgs', self.s.check_save, 'firefox-esr.desktop')
        self.assertIn('the app id is “firefox-esr”', message)

    def test_desktop_file_ids_without_a_dot(self):
        # Debian names many apps so: firefox-esr, vlc, gimp.
        for app_id in ('firefox-esr', 'vlc', 'org.1example.App', 'libreoffice-writer'):
            with self.subTest(app_id=app_id):
                self.assertEqual(self.s.check_save(app_id), (1, 'allowed'))
                self.s.call('SetAppExcluded', 'sb', app_id, True)
                self.assertEqual(self.s.check_restore(app_id, 1), (0, 'excluded'))
                self.s.call('SetAppExcluded', 'sb', app_id, False)
                self.s.clear([app_id])

    def test_bad_app_id_wins_over_disabled(self):
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.assertDBusError('InvalidArgs', self.s.check_save, 'a/b')
        self.s.set_setting('enabled', GLib.Variant('b', True))

    def test_unknown_and_pristine_reasons(self):
        for reason in (0, 4, 0xffffffff):
            self.assertDBusError('InvalidArgs', self.s.check_restore, 'org.example.App', reason)

    def test_saved_at_of_wrong_type(self):
        for value in (GLib.Variant('s', 'yesterday'), GLib.Variant('t', 5), GLib.Variant('i', 5)):
            self.assertDBusError('InvalidArgs', self.s.check_restore, 'org.example.App', 1,
                                 {'saved-at': value})

    def test_unknown_options_are_ignored(self):
        self.assertEqual(self.s.check_restore('org.example.App', 1, {'future': GLib.Variant('s', 'x')}),
                         (1, 'allowed'))

    def test_unknown_key(self):
        for key in ('no-such-key', '', 'Enabled', '../enabled'):
            self.assertDBusError('InvalidArgs', self.s.set_setting, key, GLib.Variant('b', True))

    def test_wrong_type(self):
        for key, value in (('enabled', GLib.Variant('s', 'true')),
                           ('max-age-days', GLib.Variant('u', 7)),
                           ('max-age-days', GLib.Variant('x', 7)),
                           ('excluded-apps', GLib.Variant('s', 'org.example.A')),
                           ('crash-loop-window', GLib.Variant('i', 5)),
                           ('login-restore', GLib.Variant('u', 1))):
            with self.subTest(key=key, value=value):
                message = self.assertDBusError('InvalidArgs', self.s.set_setting, key, value)
                self.assertIn(value.get_type_string(), message)

    def test_out_of_range(self):
        for key, value in (('max-age-days', GLib.Variant('i', -2)),
                           ('max-age-days', GLib.Variant('i', 3651)),
                           ('crash-loop-window', GLib.Variant('u', 0)),
                           ('crash-loop-threshold', GLib.Variant('u', 1001)),
                           ('login-restore', GLib.Variant('s', 'sometimes'))):
            with self.subTest(key=key, value=value):
                self.assertDBusError('InvalidArgs', self.s.set_setting, key, value)

    def test_excluded_list_with_bad_entry(self):
        self.assertDBusError('InvalidArgs', self.s.set_setting, 'excluded-apps',
                             GLib.Variant('as', ['org.example.Good', 'bad/one']))

    def test_oversized_list(self):
        apps = [f'org.example.App{i}' for i in range(10001)]
        message = self.assertDBusError('InvalidArgs', self.s.set_setting, 'excluded-apps',
                                       GLib.Variant('as', apps))
        self.assertIn('10000', message)
        # 10,000 is allowed.
        self.s.set_setting('excluded-apps', GLib.Variant('as', apps[:10000]))
        self.assertEqual(self.s.check_save('org.example.App9999'), (0, 'excluded'))
        self.assertEqual(self.s.check_save('org.example.App10000'), (1, 'allowed'))
        self.s.set_setting('excluded-apps', GLib.Variant('as', []))

    def test_wrong_signature_and_unknown_members(self):
        conn = self.s.bus
        for method, params in (('CheckSave', GLib.Variant('(i)', (1,))),
                               ('CheckSave', None),
                               ('CheckRestore', GLib.Variant('(su)', ('org.example.App', 1))),
                               ('SetSetting', GLib.Variant('(ss)', ('enabled', 'true'))),
                               ('NoSuchMethod', None)):
            with self.subTest(method=method):
                with self.assertRaises(GLib.Error) as ctx:
                    conn.call_sync(BUS_NAME, OBJECT_PATH, IFACE, method, params, None,
                                   Gio.DBusCallFlags.NONE, 5000, None)
                self.assertTrue(Gio.DBusError.get_remote_error(ctx.exception).startswith(
                    'org.freedesktop.DBus.Error.'), ctx.exception.message)

    def test_properties_are_read_only(self):
        with self.assertRaises(GLib.Error):
            self.s.bus.call_sync(BUS_NAME, OBJECT_PATH, 'org.freedesktop.DBus.Properties', 'Set',
                                 GLib.Variant('(ssv)', (IFACE, 'Enabled', GLib.Variant('b', False))),
                                 None, Gio.DBusCallFlags.NONE, 5000, None)


class BadStateFilesTest(PolicydTestCase):
    start = False

    def test_corrupt_state_files_are_set_aside(self):
        state = os.path.join(self.s.state_home, 'session-restore')
        os.makedirs(state)
        for name in ('crash-counters', 'clear-points'):
            with open(os.path.join(state, name), 'wb') as f:
                f.write(b'\xff' * 37)
        self.s.start_policyd()
        self.assertAlive()
        self.assertEqual(self.s.check_restore('org.example.App', 2), (1, 'allowed'))
        for name in ('crash-counters', 'clear-points'):
            self.assertTrue(os.path.exists(os.path.join(state, name + '.corrupt')), name)
        self.assertIn('not a valid state file', self.s.log())

    def test_invalid_entries_written_by_gsettings_are_ignored(self):
        self.s.gsettings('set', 'excluded-apps', "['bad/entry', 'org.example.Ok']")
        self.s.start_policyd()
        self.assertEqual(self.s.check_save('org.example.Ok'), (0, 'excluded'))
        self.assertIn('bad/entry', self.s.log())
        # The user can still edit the list through the service.
        self.s.call('SetAppExcluded', 'sb', 'org.example.New', True)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), ['org.example.Ok', 'org.example.New'])
        self.s.gsettings('reset', 'excluded-apps')
