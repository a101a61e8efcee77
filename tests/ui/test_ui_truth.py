"""Issue 24, true states: each row's "saved … ago" is the app's own save,
not the time of a session file many apps share (or nothing); the main
page's total counts saved sessions as the Apps rows and
session-restore-ctl list do, with how many are too old to be restored;
an opted-out app says "Not saved", apart from one with nothing saved;
"Used by …" names a program by its desktop file's Name."""
import os
import subprocess
import sys

from sessionfile import write_session_file
from simulator import Simulator
from srtest import BUILD_DIR, USEC_PER_DAY, now_us
from uitest import PanelTestCase, write_desktop_files, write_state_file

EDITOR, FILES, TERMINAL = 'org.example.TextEditor', 'org.example.Files', 'org.example.Terminal'
EXCLUDED, EMPTY = 'org.example.Abacus', 'org.example.Blank'
CTL = os.path.join(BUILD_DIR, 'ctl', 'session-restore-ctl')


class TrueStatesTest(PanelTestCase):
    start_policyd = False

    @classmethod
    def prepare(cls):
        write_desktop_files(cls.s, {EXCLUDED: 'Abacus', EMPTY: 'Blank'})
        # The program that asks policyd here (this test's Python) has a
        # hidden desktop file, as gnome-shell and the portal backend do.
        program = os.path.realpath(sys.executable)
        with open(os.path.join(cls.s.data_home, 'applications', 'org.example.Shell.desktop'), 'w') as f:
            f.write(f'[Desktop Entry]\nType=Application\nName=Example Shell\nNoDisplay=true\n'
                    f'Exec={program} --shell\n')
        cls.s.gsettings('set', 'excluded-apps', f"['{EXCLUDED}']")
        # What follows is written after the start-up purge, which would
        # take the expired entry: as an owner writes back what it holds
        # between two purges.
        Simulator(cls.s).start_policyd_after_purge(EXCLUDED)
        now = now_us()
        # Saved two hours ago by itself, and listed in gnome-session's file,
        # which was rewritten just now for another app.
        write_state_file(cls.s, TERMINAL, age_seconds=2 * 3600)
        write_session_file(os.path.join(cls.s.state_home, 'gnome-session@gnome.state'),
                           {FILES: [None], TERMINAL: [None]}, now)
        # Too old to be restored (max-age-days is 30) by its own time in the
        # portal's record, which was rewritten just now: the rules refuse
        # it, and the next purge takes it.
        write_session_file(os.path.join(cls.s.state_home, 'session-restore-portal@test.state'),
                           {EDITOR: [now - 40 * USEC_PER_DAY]}, now)

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # A consumer: this process, by its executable.
        cls.s.check_save(EDITOR)

    def test_rows_tell_each_apps_own_time(self):
        self.show_view('Apps')
        terminal = self.row_text('Terminal')
        self.assertIn('saved 2 hours ago', terminal)
        self.assertIn('reopens at login', terminal)
        # Only in the shared file: no time of its own, so none.
        files = self.row_text('Files')
        self.assertIn('reopens at login', files)
        self.assertNotIn('saved', files)
        self.assertIn('Too old to be restored', self.row_text('Text Editor'))
        self.screenshot('truth-apps')

    def test_opted_out_is_not_nothing_saved(self):
        self.show_view('Apps')
        self.assertEqual(self.row_text('Abacus'), 'Not saved')
        self.assertEqual(self.row_text('Blank'), 'Nothing saved')

    def test_totals_agree_with_rows_and_ctl(self):
        self.show_view('Settings')
        totals = self.find('label', 'saved sessions (').get_name()
        self.assertRegex(totals, r'^3 saved sessions \(.*\), 1 too old to be restored$')
        self.screenshot('truth-main')
        # session-restore-ctl counts the same, in the same words.
        out = subprocess.run([CTL, 'list'], env=self.s.env, capture_output=True, text=True,
                             check=True).stdout
        self.assertRegex(out.splitlines()[-1], r'^3 saved sessions \(.*\), 1 too old to be restored$')

    def test_used_by_names_the_desktop_file(self):
        self.show_view('Settings')
        # Its own desktop file, of the user's data directory, names it
        # rather than the system's python3.x.desktop (Debian's "Python").
        self.find('label', 'Used by Example Shell')
        self.assertEqual([label.get_name() for label in self.find_all('label', 'Used by')],
                         ['Used by Example Shell'])
