#!/usr/bin/python3
"""session-restore-ctl session prepare against the real gnome-session-service
51 (tests/lib/gnomesession.py): what a user opts out of during a session,
which gnome-session writes back into its record at logout, is not reopened
at the next login, and everything else is, as gnome-session would have."""
import os
import subprocess
import time
import unittest

from gnomesession import RESTORE, Apps, GnomeSession
from srtest import BUILD_DIR, PolicydTestCase

CTL = os.environ.get('SR_CTL') or os.path.join(BUILD_DIR, 'ctl', 'session-restore-ctl')
EDITOR, NOTES = 'org.example.Editor', 'org.example.Notes'


class PrepareTest(PolicydTestCase):
    start = False

    def setUp(self):
        super().setUp()
        # policyd's start-up purge removes an excluded app's entries too;
        # it runs to its end (its own expired file gone, a listing queued
        # behind it answered) before the session begins, so that what
        # leaves the record is session prepare's doing.
        sentinel = os.path.join(self.s.state_home, 'org.example.Sentinel@0.state')
        with open(sentinel, 'wb'):
            pass
        os.utime(sentinel, (0, 0))
        self.s.start_policyd()
        self.s.wait_until(lambda: not os.path.exists(sentinel), what='the start-up purge')
        self.s.list_state()

        self.gs = GnomeSession(self.s)
        self.addCleanup(self.gs.stop)
        self.apps = Apps(self.s)
        self.addCleanup(self.apps.close)
        for app in (EDITOR, NOTES):
            self.apps.install(app)

    def ctl(self, *args):
        return subprocess.run([CTL, *args], env=self.s.env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)

    def test_an_app_excluded_during_the_session_is_not_reopened_the_other_is(self):
        self.gs.start()
        editor, notes = self.apps.start(EDITOR), self.apps.start(NOTES)

        # Opted out while gnome-session runs: policyd clears the Editor's
        # saved session at once, and gnome-session, which asks nobody,
        # keeps it in memory and writes it back at logout.
        result = self.ctl('exclude', EDITOR)
        self.assertEqual(result.returncode, 0, result.stderr)
        # While it runs, session prepare would be undone: refused.
        result = self.ctl('session', 'prepare')
        self.assertEqual(result.returncode, 7, result.stdout)
        self.assertIn('gnome-session is running', result.stderr)

        self.gs.logout()
        self.apps.end_session()
        self.assertEqual(sorted(self.gs.record()['instances']), [EDITOR, NOTES])
        notes_entry = self.gs.record()['instances'][NOTES]

        result = self.ctl('session', 'prepare')
        self.assertEqual((result.returncode, result.stderr), (0, ''))
        self.assertRegex(result.stdout, rf'{EDITOR} +{editor.instance_id} +excluded')
        record = self.gs.record()
        self.assertEqual(record['instances'], {NOTES: notes_entry})
        self.assertFalse(record['dirty'])
        self.assertFalse(os.path.exists(editor.state_file()))
        self.assertTrue(os.path.exists(notes.state_file()))

        # The next login: only the Notes come back, as themselves.
        self.gs.start()
        [relaunched] = self.apps.relaunched()
        self.assertEqual((relaunched.app_id, relaunched.reason, relaunched.instance_id),
                         (NOTES, RESTORE, notes.instance_id), relaunched)
        # Nothing else was started: the Editor's desktop file is there,
        # and would have been launched with the record's entry.
        time.sleep(0.5)
        self.assertEqual([a.app_id for a in self.apps.relaunched()], [NOTES])


if __name__ == '__main__':
    unittest.main()
