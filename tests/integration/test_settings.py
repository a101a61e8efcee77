"""Settings through the real dconf backend: gsettings and the D-Bus
properties never disagree, whichever side changes."""
import os
import time

from srtest import DESKTOP_SCHEMA, SLOW, GLib, PolicydTestCase

# key, D-Bus property, a non-default value as a GVariant
KEYS = [
    ('enabled', 'Enabled', GLib.Variant('b', False)),
    ('login-restore', 'LoginRestore', GLib.Variant('s', 'ask')),
    ('restore-after-crash', 'RestoreAfterCrash', GLib.Variant('b', False)),
    ('restore-on-launch', 'RestoreOnLaunch', GLib.Variant('b', False)),
    ('excluded-apps', 'ExcludedApps', GLib.Variant('as', ['org.example.A', 'org.example.B'])),
    ('max-age-days', 'MaxAgeDays', GLib.Variant('i', 7)),
    ('crash-loop-threshold', 'CrashLoopThreshold', GLib.Variant('u', 5)),
    ('crash-loop-window', 'CrashLoopWindow', GLib.Variant('u', 60)),
]


APP_LISTS = {'ExcludedApps', 'AdminExcludedApps'}


class SettingsTest(PolicydTestCase):
    def test_defaults_match_schema(self):
        props = self.s.all_props()
        self.assertEqual(props['Version'], 5)
        for key, prop, _ in KEYS:
            self.assertEqual(props[prop], self.s.gsettings_value(key), key)
        self.assertEqual(props['AdminExcludedApps'], [])
        self.assertEqual(props['LockedSettings'], [])

    def test_gsettings_set_updates_property_and_signal(self):
        for key, prop, value in KEYS:
            with self.subTest(key=key):
                self.s.signals.clear()
                self.s.gsettings('set', key, value.print_(False))
                if prop in APP_LISTS:
                    # App lists are only invalidated: the signal goes to
                    # every connection, sandboxed apps' too.
                    self.s.wait_until(lambda: prop in self.s.invalidated_properties(),
                                      what=f'PropertiesChanged invalidating {prop}')
                    self.assertNotIn(prop, self.s.changed_properties())
                else:
                    self.s.wait_until(lambda: prop in self.s.changed_properties(),
                                      what=f'PropertiesChanged for {prop}')
                    self.assertEqual(self.s.changed_properties()[prop], value.unpack())
                self.assertEqual(self.s.prop(prop), value.unpack())

    def test_gsettings_reset_updates_property(self):
        self.s.gsettings('set', 'max-age-days', '90')
        self.s.wait_until(lambda: self.s.prop('MaxAgeDays') == 90)
        self.s.signals.clear()
        self.s.gsettings('reset', 'max-age-days')
        self.s.wait_until(lambda: self.s.changed_properties().get('MaxAgeDays') == 30,
                          what='MaxAgeDays back to 30')

    def test_dconf_write_updates_property(self):
        # Not through GSettings at all: the dconf tool writes the database.
        import subprocess
        subprocess.run(['dconf', 'write', '/org/gnome/session-restore/restore-on-launch', 'false'],
                       env=self.s.env, check=True)
        self.s.wait_until(lambda: self.s.changed_properties().get('RestoreOnLaunch') is False,
                          what='RestoreOnLaunch false')

    def test_set_setting_shows_in_gsettings(self):
        for key, prop, value in KEYS:
            with self.subTest(key=key):
                self.s.signals.clear()
                self.s.set_setting(key, value)
                # The reply comes once dconf has the value.
                self.assertEqual(self.s.gsettings_value(key), value.unpack())
                self.assertEqual(self.s.prop(prop), value.unpack())
                signalled = (self.s.invalidated_properties if prop in APP_LISTS
                             else self.s.changed_properties)
                self.s.wait_until(lambda: prop in signalled(),
                                  what=f'PropertiesChanged for {prop}')

    def test_only_changed_properties_are_signalled(self):
        self.s.signals.clear()
        self.s.set_setting('max-age-days', GLib.Variant('i', 1))
        self.s.wait_until(lambda: 'MaxAgeDays' in self.s.changed_properties())
        self.s.round_trip()
        self.assertEqual(set(self.s.changed_properties()), {'MaxAgeDays'})

    def test_set_same_value_signals_nothing(self):
        self.s.set_setting('max-age-days', GLib.Variant('i', 30))
        self.s.round_trip()
        self.assertEqual(self.s.changed_properties(), {})

    def test_set_app_excluded_adds_and_removes(self):
        self.s.call('SetAppExcluded', 'sb', 'org.example.A', True)
        self.s.call('SetAppExcluded', 'sb', 'org.example.B', True)
        self.s.call('SetAppExcluded', 'sb', 'org.example.A', True)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), ['org.example.A', 'org.example.B'])
        self.assertEqual(self.s.check_save('org.example.A'), (0, 'excluded'))
        self.s.call('SetAppExcluded', 'sb', 'org.example.A', False)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), ['org.example.B'])
        self.assertEqual(self.s.prop('ExcludedApps'), ['org.example.B'])
        self.assertEqual(self.s.check_save('org.example.A'), (1, 'allowed'))

    def test_gsettings_change_drives_decisions(self):
        self.assertEqual(self.s.check_save('org.example.App'), (1, 'allowed'))
        self.s.gsettings('set', 'enabled', 'false')
        self.s.wait_until(lambda: self.s.check_save('org.example.App') == (0, 'disabled'),
                          what='CheckSave to follow gsettings')

    def test_properties_equal_gsettings_after_mixed_changes(self):
        self.s.set_setting('login-restore', GLib.Variant('s', 'never'))
        self.s.gsettings('set', 'login-restore', 'ask')
        self.s.set_setting('crash-loop-window', GLib.Variant('u', 30))
        self.s.gsettings('set', 'excluded-apps', "['org.example.Z']")
        self.s.call('SetAppExcluded', 'sb', 'org.example.Y', True)
        # SetAppExcluded read the list gsettings wrote: policyd had seen it.
        props = self.s.all_props()
        for key, prop, _ in KEYS:
            self.assertEqual(props[prop], self.s.gsettings_value(key), key)
        self.assertEqual(props['ExcludedApps'], ['org.example.Z', 'org.example.Y'])


class DesktopKeyTest(PolicydTestCase):
    """org.gnome.desktop.session save-restore (GNOME's own switch, in every
    test world: tests/lib/fixtures) is ANDed with our master switch; the
    switch writes both; a lock on either is a lock."""

    def desktop(self, *args):
        return self.s.gsettings(*args, schema=DESKTOP_SCHEMA)

    def assert_agree(self, expected):
        """gsettings (another process, reading dconf), policyd's properties
        and a policyd started afresh all say expected: {key: value}."""
        props = self.s.all_props()
        for key, prop, _ in KEYS:
            with self.subTest(key=key):
                self.assertEqual(self.s.gsettings_value(key), expected[key], f'gsettings: {key}')
                self.assertEqual(props[prop], expected[key], f'property: {prop}')
        self.assertEqual(self.desktop('get', 'save-restore'), str(expected['enabled']).lower())
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.start_policyd()
        props = self.s.all_props()
        for key, prop, _ in KEYS:
            self.assertEqual(props[prop], expected[key], f'{prop} after a restart')

    def test_desktop_key_off_disables(self):
        self.desktop('set', 'save-restore', 'false')
        self.s.wait_until(lambda: self.s.prop('Enabled') is False, what='Enabled false')
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertEqual(self.s.check_save('org.example.App'), (0, 'disabled'))
        self.assertEqual(self.s.check_restore('org.example.App', 1), (0, 'disabled'))
        self.desktop('set', 'save-restore', 'true')
        self.s.wait_until(lambda: self.s.prop('Enabled') is True, what='Enabled true')
        self.assertEqual(self.s.check_save('org.example.App'), (1, 'allowed'))

    def test_switch_writes_both(self):
        self.desktop('set', 'save-restore', 'false')
        self.s.wait_until(lambda: self.s.prop('Enabled') is False)
        self.s.set_setting('enabled', GLib.Variant('b', True))
        self.assertEqual(self.desktop('get', 'save-restore'), 'true')
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.s.wait_until(lambda: self.s.prop('Enabled') is True)
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.assertEqual(self.desktop('get', 'save-restore'), 'false')
        self.assertEqual(self.s.gsettings_value('enabled'), False)

    def test_settings_reach_dconf_after_the_switch(self):
        """Once the switch has been written, every later change still
        reaches dconf, and survives a restart: policyd's own properties
        are not the only place it shows."""
        expected = {key: self.s.gsettings_value(key) for key, _, _ in KEYS}
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.s.set_setting('enabled', GLib.Variant('b', True))
        self.s.set_setting('max-age-days', GLib.Variant('i', 7))
        self.s.call('SetAppExcluded', 'sb', 'org.example.OptedOut', True)
        self.s.set_setting('login-restore', GLib.Variant('s', 'ask'))
        expected.update({'enabled': True, 'max-age-days': 7, 'login-restore': 'ask',
                         'excluded-apps': ['org.example.OptedOut']})
        self.assert_agree(expected)
        self.assertEqual(self.s.check_save('org.example.OptedOut'), (0, 'excluded'))

        # And again with the switch left off.
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.s.set_setting('crash-loop-window', GLib.Variant('u', 60))
        self.s.call('SetAppExcluded', 'sb', 'org.example.OptedOut', False)
        expected.update({'enabled': False, 'crash-loop-window': 60, 'excluded-apps': []})
        self.assert_agree(expected)

    def test_gsettings_on_enabled_alone(self):
        """gsettings on our key alone still switches off; GNOME's key is
        left as it is."""
        self.s.gsettings('set', 'enabled', 'false')
        self.s.wait_until(lambda: self.s.prop('Enabled') is False, what='Enabled false')
        self.assertEqual(self.desktop('get', 'save-restore'), 'true')
        self.s.gsettings('set', 'enabled', 'true')
        self.s.wait_until(lambda: self.s.prop('Enabled') is True, what='Enabled true')


class DesktopKeyLockTest(PolicydTestCase):
    """The administrator locks GNOME's switch off."""
    locks = ('/org/gnome/desktop/session/save-restore',)
    site = {'org/gnome/desktop/session/save-restore': False}

    def test_desktop_lock_locks_enabled(self):
        self.assertIn('enabled', self.s.prop('LockedSettings'))
        self.assertIs(self.s.prop('Enabled'), False)
        self.assertDBusError('Locked', self.s.set_setting, 'enabled', GLib.Variant('b', True))
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertEqual(self.s.gsettings('get', 'save-restore', schema=DESKTOP_SCHEMA), 'false')
        # The other settings are the user's.
        self.s.set_setting('max-age-days', GLib.Variant('i', 7))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)


class DesktopKeyLockedOnTest(PolicydTestCase):
    """The administrator locks GNOME's switch on: switching off is refused
    and changes neither key, not even ours, which is writable."""
    locks = ('/org/gnome/desktop/session/save-restore',)
    site = {'org/gnome/desktop/session/save-restore': True}

    def test_switching_off_changes_nothing(self):
        self.assertIn('enabled', self.s.prop('LockedSettings'))
        self.s.signals.clear()
        self.assertDBusError('Locked', self.s.set_setting, 'enabled', GLib.Variant('b', False))
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertEqual(self.s.gsettings('get', 'save-restore', schema=DESKTOP_SCHEMA), 'true')
        self.assertIs(self.s.prop('Enabled'), True)
        self.assertEqual(self.s.check_save('org.example.App'), (1, 'allowed'))
        self.s.round_trip()
        self.assertEqual(self.s.changed_properties(), {})


class WithoutDesktopKeyTest(PolicydTestCase):
    """Debian 12's world: org.gnome.desktop.session has no save-restore.
    The master switch is ours alone."""
    desktop_key = False

    def test_switch_is_ours_alone(self):
        schema = self.s.gsettings('list-keys', schema=DESKTOP_SCHEMA, check=False)
        self.assertNotIn('save-restore', schema.split())
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.s.set_setting('max-age-days', GLib.Variant('i', 7))
        self.assertEqual(self.s.gsettings_value('enabled'), False)
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)
        self.assertEqual(self.s.check_save('org.example.App'), (0, 'disabled'))
        self.s.gsettings('set', 'enabled', 'true')
        self.s.wait_until(lambda: self.s.prop('Enabled') is True, what='Enabled true')
        self.assertEqual(self.s.check_save('org.example.App'), (1, 'allowed'))


class ChangedWhileNotRunningTest(PolicydTestCase):
    """The help (scripts, "Lock settings with dconf") and the README: a
    change made with gsettings while policyd is not running takes effect
    when it next starts, about a second after the first calls stop and at
    most 30 s after it starts."""

    def setUp(self):
        super().setUp()
        from simulator import Simulator
        self.sim = Simulator(self.s)
        for app in ('org.example.Excluded', 'org.example.Kept'):
            self.assertEqual(self.sim.save(app), 'allowed')
        self.sim.write_compositor()
        self.assertEqual(self.s.stop_policyd(), 0)

    def files(self):
        return {name: os.path.exists(path) for name, path in (
            ('excluded', self.sim.gtk_path('org.example.Excluded', '1')),
            ('kept', self.sim.gtk_path('org.example.Kept', '1')),
            ('compositor', self.sim.compositor_path))}

    def start_and_wait(self, expected):
        self.assertEqual(self.files(), {'excluded': True, 'kept': True, 'compositor': True})
        self.s.start_policyd()
        started = time.monotonic()
        self.s.wait_until(lambda: self.files() == expected, timeout=5,
                          what='the start-up purge')
        # No calls after start: about a second, well before 30 s.
        self.assertLess(time.monotonic() - started, 5 * SLOW)

    def test_excluded_with_gsettings(self):
        self.s.gsettings('set', 'excluded-apps', "['org.example.Excluded']")
        self.start_and_wait({'excluded': False, 'kept': True, 'compositor': True})
        self.assertEqual(self.s.check_save('org.example.Excluded'), (0, 'excluded'))

    def test_switched_off_with_gsettings(self):
        self.s.gsettings('set', 'enabled', 'false')
        self.start_and_wait({'excluded': False, 'kept': False, 'compositor': False})
        self.assertEqual(self.s.check_save('org.example.Kept'), (0, 'disabled'))

    def test_switched_off_with_gnomes_key(self):
        self.s.gsettings('set', 'save-restore', 'false', schema=DESKTOP_SCHEMA)
        self.start_and_wait({'excluded': False, 'kept': False, 'compositor': False})
        self.assertEqual(self.s.check_save('org.example.Kept'), (0, 'disabled'))
        self.assertIs(self.s.prop('Enabled'), False)

    def test_calls_at_start_delay_it_at_most_the_bound(self):
        """A login's burst of checks: the purge waits for a second without
        calls, but not past its bound (30 s; here SR_STARTUP_PURGE_LATEST,
        read at start, makes it 4 s)."""
        bound = 4
        self.s.env['SR_STARTUP_PURGE_LATEST'] = str(bound)
        self.s.gsettings('set', 'excluded-apps', "['org.example.Excluded']")
        started = time.monotonic()     # policyd's own clock starts later
        self.s.start_policyd()
        while self.files()['excluded']:
            elapsed = time.monotonic() - started
            self.assertLess(elapsed, bound + 3 * SLOW, f'not purged within {bound} s of start')
            self.s.check_save('org.example.Kept')   # never a second without a call
            time.sleep(0.2)    # paces the calls
        self.assertGreaterEqual(time.monotonic() - started, bound, 'purged while calls came in')
        self.assertTrue(self.files()['kept'])

    def test_a_bound_that_is_no_number_is_refused(self):
        self.s.env['SR_STARTUP_PURGE_LATEST'] = 'soon'
        self.s.gsettings('set', 'excluded-apps', "['org.example.Excluded']")
        self.start_and_wait({'excluded': False, 'kept': True, 'compositor': True})
        self.assertIn('SR_STARTUP_PURGE_LATEST=soon is not a number of seconds from 1 to 86400; '
                      'using 30', self.s.log())
