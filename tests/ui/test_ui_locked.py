"""The panel under an administrator's lockdown: locked settings are shown,
insensitive, with a lock labelled "Set by your administrator", and a notice
at the top says so; an admin-excluded app is shown off and locked."""
from uitest import Atspi, PanelTestCase


class LockedPanelTest(PanelTestCase):
    site = {
        'max-age-days': 1,
        'restore-after-crash': False,
        'admin-excluded-apps': ['org.example.Terminal'],
    }
    locks = ('max-age-days', 'restore-after-crash', 'admin-excluded-apps')
    # The dark style, for the screenshot: the lock notice must read in both.
    panel_env = {'ADW_DEBUG_COLOR_SCHEME': 'prefer-dark'}

    def test_notice_and_locks(self):
        self.find('label', 'Some settings are managed by your administrator')
        keep = self.find('combo box', 'Keep Saved State For')
        self.assertFalse(self.has_state(keep, Atspi.StateType.SENSITIVE))
        crash = self.find('check box', 'Restore After a Crash')
        self.assertFalse(self.has_state(crash, Atspi.StateType.SENSITIVE))
        self.assertFalse(self.has_state(crash, Atspi.StateType.CHECKED))
        # One lock for each locked row, each labelled.
        group = self.find('list', 'When to Restore')
        locks = self.find_all('image', 'Set by your administrator', root=group)
        self.assertEqual(len(locks), 2)
        # Unlocked settings still work.
        self.assertTrue(self.sensitive('check box', 'Restore on a Normal Launch'))
        self.assertTrue(self.sensitive('combo box', 'Reopen Apps at Login'))
        self.screenshot('locked-dark')

    def test_admin_excluded_app_is_off_and_locked(self):
        self.show_view('Apps')
        switch = self.find('check box', 'Save and restore Terminal')
        self.assertFalse(self.has_state(switch, Atspi.StateType.CHECKED))
        self.assertFalse(self.has_state(switch, Atspi.StateType.SENSITIVE))
        self.find('image', 'Set by your administrator')
        other = self.find('check box', 'Save and restore Files')
        self.assertTrue(self.has_state(other, Atspi.StateType.SENSITIVE))
        self.show_view('Settings')
