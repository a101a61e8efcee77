"""The installed panel in German: under LANG=de_DE.UTF-8 it shows the
German translation. The locale is compiled into a private LOCPATH and the
project installed into a temporary prefix (where the catalogue is), so
nothing on the machine changes (tools/test's one install of the run,
srtest.installed_project). At 360 px (narrowtest's cases), every
screen and dialog fits, no value collapses to "…" and no description runs
past three lines."""
import os
import shutil
import subprocess
import tempfile

from narrowtest import GERMAN, NarrowChecks
from srtest import installed_project
from uitest import PanelTestCase


class GermanTest(NarrowChecks, PanelTestCase):
    WORDS = GERMAN
    SHOTS = 'german'
    window_title = GERMAN['title']
    # The Apps list locked: at 360 px its notice is checked too, beside
    # an app held back (test_ui_narrow has the English list unlocked).
    locks = ('excluded-apps',)

    @classmethod
    def setUpClass(cls):
        cls.install_root = tempfile.mkdtemp(prefix='sr-german-')
        prefix = installed_project(cls.install_root)
        cls.panel_path = os.path.join(prefix, 'bin', 'session-restore-panel')
        locales = os.path.join(cls.install_root, 'locales')
        os.makedirs(locales)
        subprocess.run(['localedef', '-i', 'de_DE', '-f', 'UTF-8',
                        os.path.join(locales, 'de_DE.UTF-8')], check=True, capture_output=True)
        cls.panel_env = {'LANG': 'de_DE.UTF-8', 'LC_ALL': 'de_DE.UTF-8', 'LOCPATH': locales}
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        shutil.rmtree(cls.install_root, ignore_errors=True)

    def test_shows_german(self):
        self.find('switch', 'Apps speichern und wiederherstellen')
        self.find('label', 'Wann wiederherstellen')
        self.find('combo box', 'Gespeicherte Sitzungen behalten für')
        self.find('label', 'Gespeicherte Sitzungen')
        self.find('label', 'Apps beim Anmelden wieder öffnen')
        # The value is the row's description.
        self.assertEqual(self.find('combo box', 'Gespeicherte Sitzungen behalten').get_description(), '30 Tage')
        self.assertFalse(self.find_all('label', 'When to Restore'))
        self.screenshot('german')

    def test_locked_list_said_once(self):
        self.show('Apps')
        self.find('label', 'Ihr Administrator legt fest, welche Apps gespeichert')
        self.assertFalse(self.sensitive('switch', 'Text Editor'))
        self.assertEqual(self.find_all('label', 'Von Ihrem Administrator festgelegt'), [])
        self.show('Settings')
