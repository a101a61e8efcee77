"""The panel when policyd could not read all of the saved sessions (a
Flatpak app's state directory it may not read): it says so in words, on
the main page and above the Apps list, and lists what it could read."""
import os
import unittest

from uitest import PanelTestCase, write_state_file

# policyd without the capabilities that let root read any file, so that a
# directory of mode 000 stops it as it stops a user's (test_swallowed_errors).
NO_DAC = ['setpriv', '--inh-caps=-dac_override,-dac_read_search',
          '--bounding-set=-dac_override,-dac_read_search']


@unittest.skipUnless(os.geteuid() == 0, 'needs root to drop capabilities')
class IncompleteListingTest(PanelTestCase):
    start_policyd = False

    @classmethod
    def prepare(cls):
        write_state_file(cls.s, 'org.example.Files')
        hidden = os.path.join(cls.s.home, '.var', 'app', 'org.example.Terminal', '.local', 'state')
        os.makedirs(hidden)
        with open(os.path.join(hidden, 'org.example.Terminal@1.state'), 'wb') as f:
            f.write(b'state policyd cannot read')
        os.chmod(hidden, 0)
        cls.s.start_policyd(prefix=NO_DAC)

    def test_says_some_could_not_be_read(self):
        totals = self.find('label', ', some could not be read').get_name()
        self.assertTrue(totals.startswith('1 saved session ('), totals)
        self.show_view('Apps')
        self.find('label', 'Some saved sessions could not be read, so some apps may be missing')
        self.assertIn('1 window', self.row_text('Files'))
        self.show_view('Settings')
