"""The administrator examples of the help (help/C/examples/), executed: the
same keyfiles and locks files, compiled into a real dconf system database,
and policyd reporting the locks and refusing changes."""
import os

from srtest import SOURCE_DIR, GLib, PolicydTestCase, now_us, USEC_PER_DAY

EXAMPLES = os.path.join(SOURCE_DIR, 'help', 'C', 'examples')


def example(name):
    return ((os.path.join(EXAMPLES, f'{name}.keyfile'), os.path.join(EXAMPLES, f'{name}.locks')),)


class ProfileTest(PolicydTestCase):
    start = False

    def test_profile_has_user_and_system_databases(self):
        with open(os.path.join(EXAMPLES, 'profile-user')) as f:
            self.assertEqual(f.read().split(), ['user-db:user', 'system-db:site'])


class OffForEveryoneTest(PolicydTestCase):
    site_files = example('off-for-everyone')

    def test_off_and_locked(self):
        self.assertIs(self.s.prop('Enabled'), False)
        self.assertEqual(self.s.prop('LockedSettings'), ['enabled'])
        self.assertDBusError('Locked', self.s.set_setting, 'enabled', GLib.Variant('b', True))
        self.assertEqual(self.s.check_save('org.example.App'), (0, 'disabled'))
        self.assertEqual(self.s.gsettings_value('enabled'), False)


class TheseAppsNeverTest(PolicydTestCase):
    site_files = example('these-apps-never')

    def test_excluded_and_locked(self):
        apps = ['org.gnome.Terminal', 'org.mozilla.firefox']
        self.assertEqual(self.s.prop('AdminExcludedApps'), apps)
        self.assertEqual(self.s.prop('LockedSettings'), ['admin-excluded-apps'])
        for app in apps:
            self.assertEqual(self.s.check_save(app), (0, 'excluded'))
            self.assertEqual(self.s.check_restore(app, 3), (0, 'excluded'))
            # Letting it back in through the user's list is locked.
            self.assertDBusError('Locked', self.s.call, 'SetAppExcluded', 'sb', app, False)
            self.assertEqual(self.s.check_save(app), (0, 'excluded'))
        self.assertDBusError('InvalidArgs', self.s.set_setting, 'admin-excluded-apps',
                             GLib.Variant('as', []))
        self.assertTrue(self.s.gsettings_set_refused('admin-excluded-apps', '[]'))
        self.assertEqual(self.s.prop('AdminExcludedApps'), apps)
        self.assertEqual(self.s.check_save('org.gnome.TextEditor'), (1, 'allowed'))


class KeepOneDayTest(PolicydTestCase):
    site_files = example('keep-one-day')

    def test_one_day_and_locked(self):
        self.assertEqual(self.s.prop('MaxAgeDays'), 1)
        self.assertEqual(self.s.prop('LockedSettings'), ['max-age-days'])
        self.assertDBusError('Locked', self.s.set_setting, 'max-age-days', GLib.Variant('i', 30))
        old = {'saved-at': GLib.Variant('x', now_us() - 2 * USEC_PER_DAY)}
        fresh = {'saved-at': GLib.Variant('x', now_us() - USEC_PER_DAY // 2)}
        self.assertEqual(self.s.check_restore('org.example.App', 1, old), (0, 'expired'))
        self.assertEqual(self.s.check_restore('org.example.App', 1, fresh), (1, 'allowed'))


class KioskLocksTest(PolicydTestCase):
    """The polkit page's locks: what stops gsettings and dconf, which polkit
    does not (polkit here says yes to everything)."""
    site_files = ((os.devnull, os.path.join(EXAMPLES, 'kiosk.locks')),)

    def test_every_key_locked_by_every_route(self):
        keys = ['enabled', 'login-restore', 'restore-after-crash', 'restore-on-launch',
                'excluded-apps', 'admin-excluded-apps', 'max-age-days', 'crash-loop-threshold',
                'crash-loop-window']
        self.assertEqual(sorted(self.s.prop('LockedSettings')), sorted(keys))
        self.assertDBusError('Locked', self.s.set_setting, 'enabled', GLib.Variant('b', False))
        self.assertDBusError('Locked', self.s.call, 'SetAppExcluded', 'sb', 'org.example.App', True)
        for key in keys:
            self.assertEqual(self.s.gsettings('writable', key), 'false', key)
        self.assertTrue(self.s.gsettings_set_refused('enabled', 'false'))
        self.assertIs(self.s.gsettings_value('enabled'), True)
        self.assertIs(self.s.prop('Enabled'), True)
