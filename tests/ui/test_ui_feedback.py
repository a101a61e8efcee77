"""What the panel says when a change is refused or costs something, and
how its Apps list behaves under the pointer: a refusal names what was
refused, shortening "Keep Saved Sessions For" asks before it clears, a
row stays where it was when it is toggled."""
import os
import time

from simulator import Simulator
from srtest import now_us
from uitest import APPS, PanelTestCase, is_gtk_state, write_state_file

EDITOR, FILES, TERMINAL = 'org.example.TextEditor', 'org.example.Files', 'org.example.Terminal'
LIST = 'org.gnome.SessionRestore.list'
ALL_ACTIONS = ['org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear', LIST]
DAY = 86400


class FeedbackTest(PanelTestCase):
    @classmethod
    def prepare(cls):
        cls.sim = Simulator(cls.s)

    def setUp(self):
        self.s.gsettings('reset-recursively')
        self.s.set_allowed(ALL_ACTIONS)
        # The simulator writes back all it holds: nothing from an earlier case.
        self.sim.memory.clear()
        for name in os.listdir(self.s.state_home):
            if is_gtk_state(name):
                os.unlink(os.path.join(self.s.state_home, name))
        self.show_view('Settings')
        self.wait_until(lambda: self.checked('Save and Restore Apps'), 'the switch to be on')

    def tearDown(self):
        for button in self.find_all('button', 'Cancel'):
            self.act(button, 'click')
        self.dismiss_toasts()

    def dismiss_toasts(self):
        for button in self.find_all('button', 'Dismiss'):
            self.act(button, 'click')

    def state_files(self):
        return sorted(n for n in os.listdir(self.s.state_home) if is_gtk_state(n))

    def toast(self, text):
        """The toast saying @text, which is then dismissed (toasts queue)."""
        label = self.find('label', text)
        name = label.get_name()
        self.dismiss_toasts()
        return name

    def test_refusals_name_what_was_refused(self):
        for app in APPS:
            self.sim.save(app, payload=b's' * 4000)
        # Listing is allowed, changing and clearing are not.
        self.s.set_allowed([LIST])
        self.toggle('Restore After a Crash')
        self.assertEqual(self.toast('Could not change Restore After a Crash'),
                         'Could not change Restore After a Crash: not allowed')
        self.show_view('Apps')
        self.toggle('Save and restore Terminal')
        self.click_button('Turn Off')
        self.assertEqual(self.toast('Could not turn off Terminal'), 'Could not turn off Terminal: not allowed')
        self.click('button', 'Clear saved session of Files')
        self.click_button('Clear')
        self.assertEqual(self.toast('Could not clear the saved session of Files'),
                         'Could not clear the saved session of Files: not allowed')
        self.assertFalse(self.find_all('label', 'make this change'))
        self.assertEqual(len(self.state_files()), 3)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        self.show_view('Settings')

    def test_refused_listing_is_a_refusal_to_show(self):
        self.s.set_allowed(['org.gnome.SessionRestore.configure'])
        self.show_view('Apps')
        self.find('label', 'You are not allowed to see saved sessions')
        self.assertFalse(self.find_all('label', 'make this change'))
        self.s.set_allowed(ALL_ACTIONS)
        self.show_view('Settings')

    def test_shortening_retention_asks_first(self):
        write_state_file(self.s, FILES, age_seconds=10 * DAY)
        write_state_file(self.s, TERMINAL, age_seconds=12 * DAY)
        self.sim.save(EDITOR, payload=b's' * 4000)
        self.show_view('Apps')
        self.wait_until(lambda: 'days ago' in self.row_text('Terminal'), 'Terminal listed as saved days ago')
        self.show_view('Settings')

        # 30 → 7 days would clear two: it asks; Cancel puts 30 back.
        self.choose_keep(['Up'], '7 Days')
        body = self.find('label', 'will be cleared')
        self.assertEqual(body.get_name(), '2 saved sessions are older than 7 days and will be cleared. '
                                          'This cannot be undone.')
        # While it asks, the row says what is in force.
        self.assertEqual(self.find('combo box', 'Keep Saved Sessions For').get_description(), '30 Days')
        self.screenshot('retention-dialog')
        self.click_button('Cancel')
        self.gone('label', 'will be cleared')
        time.sleep(0.3)   # time enough to have moved
        self.assertEqual(self.find('combo box', 'Keep Saved Sessions For').get_description(), '30 Days')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        self.assertEqual(len(self.state_files()), 3)

        # Confirmed: set, the two cleared, and said so; the row follows.
        self.choose_keep(['Up'], '7 Days')
        self.assertEqual(self.find('combo box', 'Keep Saved Sessions For').get_description(), '30 Days')
        self.click_button('Clear')
        self.wait_until(lambda: self.find('combo box', 'Keep Saved Sessions For').get_description() ==
                        '7 Days', 'the row to say 7 Days')
        self.wait_until(lambda: self.s.gsettings_value('max-age-days') == 7, 'max-age-days=7')
        self.wait_until(lambda: [n for n in self.state_files() if not n.startswith(EDITOR)] == [],
                        'the older saved sessions to go')
        self.assertEqual(self.toast('Cleared'), 'Cleared 2 saved sessions')
        self.screenshot('retention-cleared')

        # Lengthening asks nothing: the value is set at once.
        self.choose_keep(['Down'], '30 Days')
        self.wait_until(lambda: self.s.gsettings_value('max-age-days') == 30, 'max-age-days=30')
        # Shortening past nothing asks nothing either (Text Editor saved now).
        self.choose_keep(['Home'], '1 Day')
        self.wait_until(lambda: self.s.gsettings_value('max-age-days') == 1, 'max-age-days=1')
        self.assertFalse(self.find_all('label', 'will be cleared'))
        self.assertEqual(self.state_files(), [n for n in self.state_files() if n.startswith(EDITOR)])
        self.assertTrue(self.state_files())

    def test_toggled_row_stays_put(self):
        # Files is the most recent: the first row, and the one toggled.
        for app, ago in ((TERMINAL, 3), (EDITOR, 2), (FILES, 1)):
            self.sim.save(app, payload=b's' * 4000, when=now_us() - ago * 1000000)
        self.show_view('Apps')
        self.wait_until(lambda: 'kB' in self.row_text('Files'), 'Files listed with its saved session')

        def place():
            """Where Files' row is in the list, as on screen."""
            time.sleep(0.5)   # laid out
            switches = self.in_order(self.find_all('switch', 'Save and restore'))
            return [n.get_name() for n in switches].index('Save and restore Files')
        before = place()
        self.assertEqual(before, 0)
        self.toggle('Save and restore Files')
        self.click_button('Turn Off')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == [FILES], 'Files excluded')
        # The listing that says it has nothing saved is the one that would
        # have sorted it last, in the same turn of the main loop.
        self.wait_until(lambda: 'kB' not in self.row_text('Files'), 'its row to lose its saved session')
        self.assertEqual(place(), before)
        self.screenshot('toggled-row')
        self.toggle('Save and restore Files')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == [], 'Files back in')
        self.assertEqual(place(), before)
        # Shown anew, the list is sorted again: Files, with nothing saved,
        # after the apps with saved sessions.
        self.show_view('Settings')
        self.show_view('Apps')
        self.wait_until(lambda: place() > 1, 'Files to sort after the apps with saved sessions')
        self.show_view('Settings')

    def test_row_follows_a_crash_loop_live(self):
        self.sim.save(FILES, payload=b's' * 4000)
        self.show_view('Apps')
        self.wait_until(lambda: 'kB' in self.row_text('Files'), 'Files listed with its saved session')
        self.assertFalse(self.find_all('button', 'Allow Recovery'))
        # Three crashes in a row (the threshold): policyd tells the panel,
        # which lists again on its own.
        for _ in range(3):
            self.s.call('NoteExit', 'sb', FILES, False)
        self.wait_until(lambda: 'Held back after repeated crashes' in self.row_text('Files'),
                        'the row to say Files is held back')
        self.find('button', 'Allow Recovery')
        self.screenshot('crash-loop-live')
        # Released by someone else (the command line): the row follows too.
        self.s.call('ResetCrashGuard', 's', FILES)
        self.wait_until(lambda: 'Held back' not in self.row_text('Files'), 'the row to follow the reset')
        self.gone('button', 'Allow Recovery')
        self.show_view('Settings')
