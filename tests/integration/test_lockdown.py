"""Lockdown through a real dconf system database with locks."""
from srtest import GLib, PolicydTestCase


class LockedKeysTest(PolicydTestCase):
    site = {
        'max-age-days': 1,
        'excluded-apps': ['org.example.Locked'],
        'admin-excluded-apps': ['org.example.Banned', 'org.example.AlsoBanned'],
    }
    locks = ('max-age-days', 'excluded-apps', 'admin-excluded-apps')

    def test_locked_settings_names_the_keys(self):
        self.assertEqual(sorted(self.s.prop('LockedSettings')),
                         ['admin-excluded-apps', 'excluded-apps', 'max-age-days'])

    def test_locked_value_is_the_admins(self):
        self.assertEqual(self.s.prop('MaxAgeDays'), 1)
        self.assertEqual(self.s.gsettings_value('max-age-days'), 1)

    def test_set_setting_on_locked_key_is_locked_and_changes_nothing(self):
        self.s.signals.clear()
        message = self.assertDBusError('Locked', self.s.set_setting, 'max-age-days',
                                       GLib.Variant('i', 90))
        self.assertIn('max-age-days', message)
        self.s.round_trip()
        self.assertEqual(self.s.gsettings_value('max-age-days'), 1)
        self.assertEqual(self.s.prop('MaxAgeDays'), 1)
        self.assertEqual(self.s.changed_properties(), {})
        # Nothing reached the user database either.
        import subprocess
        user_value = subprocess.run(['dconf', 'read', '/org/gnome/session-restore/max-age-days'],
                                    env=self.s.env, capture_output=True, text=True).stdout.strip()
        self.assertEqual(user_value, '1')

    def test_set_app_excluded_on_locked_list_is_locked(self):
        for excluded in (True, False):
            self.assertDBusError('Locked', self.s.call, 'SetAppExcluded', 'sb',
                                 'org.example.Locked', excluded)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), ['org.example.Locked'])

    def test_gsettings_cannot_change_locked_key_either(self):
        self.assertTrue(self.s.gsettings_set_refused('max-age-days', '90'))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 1)
        self.assertEqual(self.s.prop('MaxAgeDays'), 1)

    def test_admin_list_is_unioned_with_users(self):
        self.assertEqual(self.s.prop('AdminExcludedApps'), ['org.example.Banned', 'org.example.AlsoBanned'])
        for app in ('org.example.Banned', 'org.example.AlsoBanned', 'org.example.Locked'):
            self.assertEqual(self.s.check_save(app), (0, 'excluded'), app)
            self.assertEqual(self.s.check_restore(app, 3), (0, 'excluded'), app)
        self.assertEqual(self.s.check_save('org.example.Free'), (1, 'allowed'))

    def test_unlocked_keys_still_change(self):
        self.s.set_setting('restore-on-launch', GLib.Variant('b', False))
        self.assertEqual(self.s.gsettings_value('restore-on-launch'), False)


class AdminListWithUserListTest(PolicydTestCase):
    site = {'admin-excluded-apps': ['org.example.Banned']}
    locks = ('admin-excluded-apps',)

    def test_user_cannot_opt_back_in_to_admin_excluded_app(self):
        # Locked, as the setting would be: success would claim a change
        # that does not happen.
        self.s.call('SetAppExcluded', 'sb', 'org.example.Banned', True)
        message = self.assertDBusError('Locked', self.s.call, 'SetAppExcluded', 'sb',
                                       'org.example.Banned', False)
        self.assertIn('turned off by the administrator', message)
        self.assertEqual(self.s.check_save('org.example.Banned'), (0, 'excluded'))
        self.assertEqual(self.s.gsettings_value('excluded-apps'), ['org.example.Banned'])

    def test_user_list_adds_to_admin_list(self):
        self.s.call('SetAppExcluded', 'sb', 'org.example.Mine', True)
        self.assertEqual(self.s.check_save('org.example.Mine'), (0, 'excluded'))
        self.assertEqual(self.s.check_save('org.example.Banned'), (0, 'excluded'))
        self.assertEqual(self.s.prop('LockedSettings'), ['admin-excluded-apps'])

    def test_admin_list_is_not_settable_through_the_service(self):
        self.assertDBusError('InvalidArgs', self.s.set_setting, 'admin-excluded-apps',
                             GLib.Variant('as', []))
        self.assertEqual(self.s.prop('AdminExcludedApps'), ['org.example.Banned'])


class MasterSwitchLockedOffTest(PolicydTestCase):
    site = {'enabled': False}
    locks = ('enabled',)

    def test_locked_off(self):
        self.assertIs(self.s.prop('Enabled'), False)
        self.assertEqual(self.s.prop('LockedSettings'), ['enabled'])
        self.assertDBusError('Locked', self.s.set_setting, 'enabled', GLib.Variant('b', True))
        self.assertEqual(self.s.check_save('org.example.App'), (0, 'disabled'))
        self.assertEqual(self.s.gsettings_value('enabled'), False)

    def test_lock_checked_before_polkit(self):
        # Even a caller polkit refuses learns that the key is locked, and no
        # authentication dialog is raised for a change that cannot happen.
        self.s.set_allowed([])
        self.assertDBusError('Locked', self.s.set_setting, 'enabled', GLib.Variant('b', True))


class SiteDefaultWithoutLockTest(PolicydTestCase):
    site = {'login-restore': 'never'}

    def test_site_default_applies_and_user_may_override(self):
        self.assertEqual(self.s.prop('LoginRestore'), 'never')
        self.assertEqual(self.s.prop('LockedSettings'), [])
        self.assertEqual(self.s.check_restore('org.example.App', 3), (0, 'login-off'))
        self.s.set_setting('login-restore', GLib.Variant('s', 'always'))
        self.assertEqual(self.s.check_restore('org.example.App', 3), (1, 'allowed'))
        self.assertEqual(self.s.gsettings_value('login-restore'), 'always')
