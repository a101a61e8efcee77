"""The panel believes only a service it trusts: while policyd is not
running, a sandboxed app owns its name and answers as policyd would
(tests/lib/fakepolicyd.py: everything allowed, every change a success).
The panel says in words that it does not trust it, shows no settings, and
calls nothing that changes anything; when the name passes to the real
policyd, the settings come."""
import os
import subprocess

import fakepolicyd
from srtest import SOURCE_DIR
from uitest import PanelTestCase

TITLE = 'Session Restore Service Not Trusted'


class UntrustedServiceTest(PanelTestCase):
    start_policyd = False

    @classmethod
    def prepare(cls):
        # The stand-in owns the name before the panel starts.
        log_dir = os.path.join(cls.s.root, 'fake')
        os.makedirs(log_dir)
        cls.calls_log = os.path.join(log_dir, 'calls')
        source = os.path.realpath(SOURCE_DIR)
        cls.fake = subprocess.Popen(
            cls.s.sandboxed_command('org.example.Evil', *fakepolicyd.command(cls.calls_log),
                                    binds=['--ro-bind', source, source, '--bind', log_dir, log_dir]),
            env=cls.s.env, stdout=subprocess.PIPE, text=True)
        assert cls.fake.stdout.readline().strip() == 'owned'

    @classmethod
    def tearDownClass(cls):
        if cls.fake.poll() is None:
            cls.fake.terminate()
        cls.fake.wait(10)
        super().tearDownClass()

    def test_1_says_it_is_not_trusted(self):
        self.find('label', TITLE, timeout=20)
        self.find('label', 'runs in a sandbox or as another user')
        self.screenshot('untrusted')
        self.assertFalse(self.find_all('switch'))
        self.assertFalse(self.find_all('button', 'Back'))
        # The first listing was sent as the panel started, before the owner
        # was verified; nothing else, and its answer was not shown.
        self.assertEqual([c for c in fakepolicyd.calls(self.calls_log) if c != 'ListStoredState'],
                         [])

    def test_2_the_real_service_is_trusted(self):
        self.fake.terminate()
        self.fake.wait(10)
        self.find('label', 'Cannot Reach the Session Restore Service', timeout=20)
        self.s.start_policyd()
        self.find('switch', 'Save and Restore Apps', timeout=20)
        self.assertFalse(self.find_all('label', TITLE))
