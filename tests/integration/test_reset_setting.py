"""ResetSetting: a setting back to its default (the site database's where
it sets one) through policyd, with the checks SetSetting has (the key,
the administrator's lock, polkit), and GNOME's switch reset with ours.
The sandbox rule is test_sandbox's (LEAK_CALLS); a refusal by the real
polkitd, as nobody, test_authz_matrix's."""
import os
import subprocess

from simulator import Simulator
from srtest import DESKTOP_SCHEMA, GLib, PolicydTestCase

# key, D-Bus property, a non-default value, the schema's default
KEYS = [
    ('enabled', 'Enabled', GLib.Variant('b', False), True),
    ('login-restore', 'LoginRestore', GLib.Variant('s', 'ask'), 'always'),
    ('restore-after-crash', 'RestoreAfterCrash', GLib.Variant('b', False), True),
    ('restore-on-launch', 'RestoreOnLaunch', GLib.Variant('b', False), True),
    ('excluded-apps', 'ExcludedApps', GLib.Variant('as', ['org.example.A']), []),
    ('max-age-days', 'MaxAgeDays', GLib.Variant('i', 7), 30),
    ('crash-loop-threshold', 'CrashLoopThreshold', GLib.Variant('u', 5), 3),
    ('crash-loop-window', 'CrashLoopWindow', GLib.Variant('u', 60), 600),
]


def dconf_read(session, path):
    """The user database's own value ('' when it has none): dconf dump
    shows that database alone."""
    directory, _, key = path.rpartition('/')
    dump = subprocess.run(['dconf', 'dump', directory + '/'], env=session.env,
                          capture_output=True, text=True, check=True).stdout
    values = [line.partition('=')[2] for line in dump.splitlines()
              if line.partition('=')[0] == key]
    return values[0] if values else ''


def dconf_dump(session):
    return subprocess.run(['dconf', 'dump', '/'], env=session.env, capture_output=True,
                          text=True, check=True).stdout


class ResetSettingTest(PolicydTestCase):
    def reset(self, key):
        return self.s.call('ResetSetting', 's', key)

    def test_every_key_back_to_its_default(self):
        for key, prop, value, default in KEYS:
            with self.subTest(key=key):
                self.s.set_setting(key, value)
                self.assertEqual(self.s.gsettings_value(key), value.unpack())
                self.reset(key)
                # The reply comes once dconf has it: gsettings, another
                # process, agrees at once.
                self.assertEqual(self.s.gsettings_value(key), default)
                self.assertEqual(self.s.prop(prop), default)
                self.assertEqual(dconf_read(self.s, f'/org/gnome/session-restore/{key}'), '')

    def test_enabled_resets_gnomes_switch_too(self):
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.assertEqual(self.s.gsettings('get', 'save-restore', schema=DESKTOP_SCHEMA), 'false')
        self.reset('enabled')
        self.assertEqual(self.s.gsettings('get', 'save-restore', schema=DESKTOP_SCHEMA), 'true')
        self.assertEqual(dconf_read(self.s, '/org/gnome/desktop/session/save-restore'), '')
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertIs(self.s.prop('Enabled'), True)
        self.assertEqual(self.s.check_save('org.example.App'), (1, 'allowed'))

    def test_a_key_at_its_default_stays(self):
        self.s.signals.clear()
        self.reset('max-age-days')
        self.s.round_trip()
        self.assertEqual(self.s.changed_properties(), {})
        self.assertEqual(dconf_dump(self.s), '')

    def test_bad_keys(self):
        self.s.set_setting('max-age-days', GLib.Variant('i', 7))
        before = dconf_dump(self.s)
        message = self.assertDBusError('InvalidArgs', self.reset, 'no-such-key')
        self.assertIn('There is no setting “no-such-key”', message)
        message = self.assertDBusError('InvalidArgs', self.reset, 'admin-excluded-apps')
        self.assertIn('set by the administrator', message)
        self.assertEqual(dconf_dump(self.s), before)

    def test_polkit_refusal_changes_nothing(self):
        self.s.set_setting('max-age-days', GLib.Variant('i', 7))
        self.s.set_allowed([])
        self.assertDBusError('NotAllowed', self.reset, 'max-age-days')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)
        self.assertEqual(self.s.prop('MaxAgeDays'), 7)


class ResetToSiteValueTest(PolicydTestCase):
    """The administrator's value without a lock is the default a reset
    goes back to."""
    site = {'max-age-days': 5, 'enabled': False}

    def test_back_to_the_site_value(self):
        self.assertEqual(self.s.prop('MaxAgeDays'), 5)
        self.s.set_setting('max-age-days', GLib.Variant('i', 12))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 12)
        self.s.call('ResetSetting', 's', 'max-age-days')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 5)
        self.assertEqual(self.s.prop('MaxAgeDays'), 5)

    def test_switch_reset_to_off_clears_before_the_reply(self):
        self.s.set_setting('enabled', GLib.Variant('b', True))
        sim = Simulator(self.s)
        sim.save('org.example.App')
        self.assertTrue(os.path.exists(sim.gtk_path('org.example.App', '1')))
        self.s.call('ResetSetting', 's', 'enabled')
        self.assertIs(self.s.prop('Enabled'), False)
        self.assertEqual(self.s.gsettings_value('enabled'), False)
        self.assertFalse(os.path.exists(sim.gtk_path('org.example.App', '1')))


class ResetLockedTest(PolicydTestCase):
    site = {'login-restore': 'never'}
    locks = ('login-restore',)

    def test_locked_changes_nothing(self):
        self.s.set_setting('max-age-days', GLib.Variant('i', 7))
        self.s.round_trip()
        before = dconf_dump(self.s)
        self.s.signals.clear()
        message = self.assertDBusError('Locked', self.s.call, 'ResetSetting', 's', 'login-restore')
        self.assertIn('locked by the administrator', message)
        self.s.round_trip()
        self.assertEqual(self.s.changed_properties(), {})
        self.assertEqual(dconf_dump(self.s), before)
        self.assertEqual(self.s.prop('LoginRestore'), 'never')


class ResetDesktopLockedTest(PolicydTestCase):
    """GNOME's switch locked: "enabled" is locked, its reset refused, and
    our key, writable itself, keeps the user's value."""
    locks = ('/org/gnome/desktop/session/save-restore',)
    site = {'org/gnome/desktop/session/save-restore': True}

    def test_enabled_reset_refused(self):
        self.s.gsettings('set', 'enabled', 'false')
        self.s.wait_until(lambda: self.s.prop('Enabled') is False, what='Enabled false')
        self.assertDBusError('Locked', self.s.call, 'ResetSetting', 's', 'enabled')
        self.assertEqual(dconf_read(self.s, '/org/gnome/session-restore/enabled'), 'false')
        self.assertIs(self.s.prop('Enabled'), False)
