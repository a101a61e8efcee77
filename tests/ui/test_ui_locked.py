"""The panel under an administrator's lockdown: locked settings are shown,
insensitive, with a lock and the words "Set by your administrator", and a
notice at the top says so; an admin-excluded app is shown off and locked.
A locked excluded-apps locks the apps' switches, not search or clearing,
and is said once for the list."""
import os

from narrowtest import overflowing
from uitest import Atspi, PanelTestCase, write_state_file

FILES = 'org.example.Files'


class LockedPanelTest(PanelTestCase):
    site = {
        'max-age-days': 1,
        'restore-after-crash': False,
        'admin-excluded-apps': ['org.example.Terminal'],
    }
    locks = ('max-age-days', 'restore-after-crash', 'admin-excluded-apps', 'excluded-apps')
    # The dark style, for the screenshot: the lock notice must read in both.
    panel_env = {'ADW_DEBUG_COLOR_SCHEME': 'prefer-dark'}

    @classmethod
    def prepare(cls):
        # Saved behind policyd's back: nothing here has asked policyd.
        write_state_file(cls.s, FILES)

    def test_0_notice_and_locks(self):
        # First: the screenshot shows the page as it opens.
        self.find('label', 'Some settings are managed by your administrator')
        keep = self.find('combo box', 'Keep Saved Sessions For')
        self.assertFalse(self.has_state(keep, Atspi.StateType.SENSITIVE))
        crash = self.find('switch', 'Restore After a Crash')
        self.assertFalse(self.has_state(crash, Atspi.StateType.SENSITIVE))
        self.assertFalse(self.has_state(crash, Atspi.StateType.CHECKED))
        # One lock for each locked row, each saying so in words.
        for group, count in (('When to Restore', 1), ('Saved Sessions', 1)):
            locks = self.find_all('label', 'Set by your administrator', root=self.find('list', group))
            self.assertEqual(len(locks), count, group)
        # Unlocked settings still work.
        self.assertTrue(self.sensitive('switch', 'Restore on a Normal Launch'))
        self.assertTrue(self.sensitive('combo box', 'Reopen Apps at Login'))
        self.screenshot('locked-dark')

    def test_nothing_has_asked_yet(self):
        self.find('label', 'Nothing on this desktop has asked yet')

    def test_admin_excluded_app_is_off_and_locked(self):
        self.show_view('Apps')
        switch = self.find('switch', 'Save and restore Terminal')
        self.assertFalse(self.has_state(switch, Atspi.StateType.CHECKED))
        self.assertFalse(self.has_state(switch, Atspi.StateType.SENSITIVE))
        self.assertIn('Turned off by your administrator', self.row_text('Terminal'))
        # excluded-apps is locked: said once, above the list, not on every row.
        self.find('label', 'Your administrator decides which apps are saved and restored')
        self.assertTrue(self.find_all('switch', 'Save and restore Files'))
        self.assertEqual(self.find_all('label', 'Set by your administrator'), [])
        self.screenshot('locked-apps')
        # The notice wraps, the rows keep their switches inside: it fits 360 px.
        self.resize(360, 700)
        try:
            self.assertEqual(overflowing(self), [])
            self.screenshot('locked-apps-narrow')
        finally:
            self.resize(640, 760)
        self.show_view('Settings')

    def test_locked_exclusions_leave_search_and_clearing(self):
        self.show_view('Apps')
        files = self.find('switch', 'Save and restore Files')
        self.assertTrue(self.has_state(files, Atspi.StateType.CHECKED))
        self.assertFalse(self.has_state(files, Atspi.StateType.SENSITIVE))
        entry = self.find('entry', 'Search apps')
        self.assertTrue(self.has_state(entry, Atspi.StateType.SENSITIVE))
        entry.set_text_contents('files')
        self.wait_until(lambda: not self.find_all('switch', 'Save and restore Terminal'), 'search')
        self.click('button', 'Clear saved session of Files')
        self.click_button('Clear')
        self.wait_until(lambda: not [n for n in os.listdir(self.s.state_home) if FILES in n],
                        'its saved session to go')
        entry.set_text_contents('')
        self.show_view('Settings')

