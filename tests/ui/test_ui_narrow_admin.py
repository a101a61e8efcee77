"""The widest first line an Apps row can have, at 360 px: an app the
administrator turned off (a lock, with its words) that still has a saved
session (a clear button), beside its switch. When narrow, the lock goes
under the description; the window fits 360 px."""
import os
import time

from narrowtest import overflowing
from uitest import PanelTestCase, write_state_file


class AdminExcludedNarrowTest(PanelTestCase):
    site = {'admin-excluded-apps': ['org.example.Terminal']}
    locks = ('admin-excluded-apps',)   # the list itself is not locked
    start_policyd = False

    @classmethod
    def prepare(cls):
        # policyd's start-up purge takes an excluded app's saved session;
        # one saved after it (behind policyd's back, by an app that did
        # not ask) stays until the next.
        path = write_state_file(cls.s, 'org.example.Terminal')
        cls.s.start_policyd()
        cls.s.wait_until(lambda: not os.path.exists(path), what='the start-up purge')
        write_state_file(cls.s, 'org.example.Terminal')

    def test_lock_clear_and_switch_fit(self):
        self.show_view('Apps')
        self.find('button', 'Clear saved session of Terminal')
        self.assertIn('Turned off by your administrator', self.row_text('Terminal'))
        self.screenshot('english-admin-excluded')
        self.resize(360, 700)
        try:
            time.sleep(0.5)   # laid out
            self.assertEqual(overflowing(self), [])
            self.screenshot('english-narrow-admin-excluded')
        finally:
            self.resize(1000, 700)
