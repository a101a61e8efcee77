"""Issue 24, true states: what the panel shows of saved sessions is the
newest listing it asked for, whatever order policyd's answers come in
(policyd asks polkit before each); and shortening "Keep Saved Sessions
For" counts what the purge will take from a session file many apps share
(an app by its own save, not the file's time), and the purge takes that."""
import os

from sessionfile import write_session_file
from srtest import USEC_PER_DAY, now_us
from uitest import PanelTestCase, write_state_file

FILES, TERMINAL = 'org.example.Files', 'org.example.Terminal'
STALE, FRESH, BARE = 'org.example.Stale', 'org.example.Fresh', 'org.example.Bare'
LIST = 'org.gnome.SessionRestore.list'
ALL_ACTIONS = ['org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear', LIST]
HOUR = 3600 * 1000000


class ListingTest(PanelTestCase):
    def setUp(self):
        self.s.gsettings('reset-recursively')
        self.s.set_allowed(ALL_ACTIONS)
        for name in os.listdir(self.s.state_home):
            if name.endswith('.state'):
                os.unlink(os.path.join(self.s.state_home, name))
        self.show_view('Settings')

    def tearDown(self):
        for button in self.find_all('button', 'Cancel'):
            self.act(button, 'click')
        for button in self.find_all('button', 'Dismiss'):
            self.act(button, 'click')
        self.s.mock_polkit('SimulateHangActions', 'as', [])
        self.s.mock_polkit('ReleaseHangingCalls')

    def panel_said(self, text):
        with open(os.path.join(self.s.root, 'panel.log')) as f:
            return text in f.read()

    def test_an_older_answer_does_not_replace_a_newer_one(self):
        write_state_file(self.s, FILES)
        self.show_view('Apps')
        self.show_view('Settings')
        self.find('label', '1 saved session (')

        # The first listing waits for polkit, which will refuse it.
        self.s.set_allowed(ALL_ACTIONS[:2])
        self.s.mock_polkit('SimulateHangActions', 'as', [LIST])
        self.show_view('Apps')
        self.wait_until(lambda: self.s.mock_polkit('HaveHangingCalls')[0] > 0,
                        'the first listing to wait for polkit')

        # The second, asked for after it, is answered first.
        self.s.mock_polkit('SimulateHangActions', 'as', [])
        self.s.set_allowed(ALL_ACTIONS)
        write_state_file(self.s, TERMINAL)
        self.show_view('Settings')
        self.find('label', '2 saved sessions (')

        # Now the first one's refusal comes in: the panel shows the second.
        self.s.mock_polkit('ReleaseHangingCalls')
        self.wait_until(lambda: self.panel_said('Could not list saved sessions'),
                        "the first listing's refusal to reach the panel")
        self.assertTrue(self.find_all('label', '2 saved sessions ('))
        self.assertFalse(self.find_all('label', 'Could not read saved sessions'))
        self.show_view('Apps')
        self.assertFalse(self.find_all('label', 'You are not allowed to see saved sessions'))
        self.screenshot('listing-out-of-order')

    def test_shortening_counts_what_the_purge_takes_from_a_shared_file(self):
        now = now_us()
        record = os.path.join(self.s.state_home, 'session-restore-portal@test.state')
        session = os.path.join(self.s.state_home, 'gnome-session@gnome.state')
        # The portal's record, rewritten a minute ago for FRESH; STALE saved
        # 10 days ago. gnome-session's file, rewritten just now: BARE tells
        # no time of its own, and is as fresh as the file.
        write_session_file(record, {STALE: [now - 10 * USEC_PER_DAY], FRESH: [now - 3 * HOUR]},
                           now - 60 * 1000000)
        write_session_file(session, {BARE: [None]}, now - 30 * 1000000)
        self.show_view('Apps')
        self.wait_until(lambda: 'days ago' in self.row_text(STALE), 'Stale listed as saved days ago')
        self.show_view('Settings')

        # 30 → 7 days takes STALE alone: one is counted.
        self.choose_keep(['Up'], '7 Days')
        body = self.find('label', 'will be cleared')
        self.assertEqual(body.get_name(), '1 saved session is older than 7 days and will be cleared. '
                                          'This cannot be undone.')
        self.click_button('Clear')
        self.wait_until(lambda: self.s.gsettings_value('max-age-days') == 7, 'max-age-days=7')
        self.find('label', 'Cleared 1 saved session')
        self.s.wait_until(lambda: STALE not in self.s.list_state(), what="STALE's entry purged")
        self.assertEqual(set(self.s.list_state()), {FRESH, BARE})
