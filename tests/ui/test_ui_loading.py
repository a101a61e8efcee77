"""The panel while policyd is slow to answer (here: stopped with SIGSTOP,
so its name is on the bus but nothing answers). The window does not claim
the service is missing: it opens on its loading state once it has waited
a moment, and fills in when the answers come."""
import os
import signal

from uitest import PanelTestCase, write_state_file


class LoadingTest(PanelTestCase):
    start_policyd = False

    @classmethod
    def prepare(cls):
        write_state_file(cls.s, 'org.gnome.TextEditor')
        cls.s.start_policyd()
        cls.policyd_pid = cls.s.owner_pid()
        os.kill(cls.policyd_pid, signal.SIGSTOP)

    @classmethod
    def tearDownClass(cls):
        os.kill(cls.policyd_pid, signal.SIGCONT)
        super().tearDownClass()

    def test_loading_then_filled(self):
        # The window shows itself without the answers...
        self.find('frame', 'Session Restore')
        # ...and says nothing untrue meanwhile: the service is there.
        self.assertFalse(self.find_all('label', 'Cannot Reach the Session Restore Service'))
        self.assertFalse(self.find_all('switch', 'Save and Restore Apps'))
        self.screenshot('loading')

        os.kill(self.policyd_pid, signal.SIGCONT)
        self.find('switch', 'Save and Restore Apps', timeout=20)
        self.find('label', '1 saved session (')
        self.assertFalse(self.find_all('label', 'Cannot Reach the Session Restore Service'))
