#!/usr/bin/python3
"""The real gnome-session-service 51 answering GTK's save/restore calls,
driven through tests/lib/gnomesession.py: what the harness and its app
(tests/lib/restoreclient.py) see is what gnome-session does, which the
differential test (test_differential.py) holds our backend to."""
import os
import unittest

from gnomesession import (LAUNCH, RECOVER, RESTORE, SM_IFACE, SM_NAME, SM_PATH, Apps, GnomeSession,
                          bus_call)
from srtest import Session

EDITOR = 'org.example.Editor'


class GnomeSessionTest(unittest.TestCase):
    def setUp(self):
        self.s = Session(polkit=None)
        self.addCleanup(self.s.close)
        self.gs = GnomeSession(self.s)
        self.addCleanup(self.gs.stop)
        self.apps = Apps(self.s)
        self.addCleanup(self.apps.close)
        self.apps.install(EDITOR)

    def test_launch_recover_quit_cleanup_restore(self):
        self.gs.start()
        # As shipped: it answers, but says it does not support it.
        self.assertFalse(bus_call(self.s.bus, SM_NAME, SM_PATH, 'org.freedesktop.DBus.Properties',
                                  'Get', 'ss', SM_IFACE, 'RestoreSupported')[0])
        first = self.apps.start(EDITOR)
        self.assertEqual((first.reason, first.cleanup_ids, first.error), (LAUNCH, [], None), first)
        self.assertEqual(len(first.instance_id), 10, first)
        self.assertTrue(os.path.exists(first.state_file()))
        record = self.gs.record()
        self.assertTrue(record['dirty'])
        self.assertEqual(record['instances'][EDITOR][1],
                         [{'instance-id': first.instance_id, 'crashed': False}])

        # kill -9: the same instance, RECOVER.
        first.crash()
        again = self.apps.start(EDITOR)
        self.assertEqual((again.reason, again.instance_id), (RECOVER, first.instance_id), again)

        # Two instances; both quit: the first's id is offered for cleanup,
        # the last's is the next launch's.
        second = self.apps.start(EDITOR)
        self.assertEqual(second.reason, LAUNCH, second)
        self.assertNotEqual(second.instance_id, again.instance_id)
        self.assertIsNone(again.quit())
        self.assertIsNone(second.quit())
        record = self.gs.record()['instances'][EDITOR]
        self.assertEqual(record, ({'next-instance-id': second.instance_id,
                                   'discarded-instance-ids': [again.instance_id]}, []))
        third = self.apps.start(EDITOR)
        self.assertEqual((third.reason, third.instance_id, third.cleanup_ids, third.deleted),
                         (LAUNCH, second.instance_id, [again.instance_id], [again.instance_id]), third)
        self.assertFalse(os.path.exists(again.state_file()))
        # DeletedInstanceIds took it off the record.
        self.assertEqual(self.gs.record()['instances'][EDITOR][0], {})

        # Logout with the app open, a new login: relaunched from its
        # desktop file, RESTORE with its id.
        self.gs.logout()
        self.assertFalse(self.gs.record()['dirty'])
        self.apps.end_session()
        self.gs.start()
        [relaunched] = self.apps.relaunched()
        self.assertEqual((relaunched.app_id, relaunched.reason, relaunched.instance_id),
                         (EDITOR, RESTORE, third.instance_id), relaunched)

    def test_sigterm_leaves_the_record_dirty_and_the_next_login_recovers(self):
        self.gs.start()
        app = self.apps.start(EDITOR)
        self.gs.terminate()
        self.assertTrue(self.gs.record()['dirty'])
        self.apps.end_session()
        self.gs.start()
        [relaunched] = self.apps.relaunched()
        self.assertEqual((relaunched.reason, relaunched.instance_id), (RECOVER, app.instance_id),
                         relaunched)

    def test_a_cleanup_id_whose_file_is_gone_is_not_reported_and_offered_again(self):
        self.gs.start()
        one, two = self.apps.start(EDITOR), self.apps.start(EDITOR)
        one.quit()
        two.quit()
        os.unlink(one.state_file())
        three = self.apps.start(EDITOR)
        self.assertEqual((three.cleanup_ids, three.deleted), ([one.instance_id], []), three)
        three.quit()
        four = self.apps.start(EDITOR)
        self.assertEqual(four.cleanup_ids, [one.instance_id], four)

    def test_a_record_written_before_the_start_is_what_it_relaunches(self):
        # What session-restore-ctl session prepare hands it. (Not
        # discarded-instance-ids: gnome-session 51 reads them with
        # g_variant_iter_loop() and keeps the strings it frees, so that
        # they come back as whatever the memory then holds.)
        notes = 'org.example.Notes'
        self.apps.install(notes)
        self.gs.write_record({EDITOR: ({}, [{'instance-id': 'aaaaaaaaaa', 'crashed': False}]),
                              notes: ({'next-instance-id': 'cccccccccc'},
                                      [{'instance-id': 'bbbbbbbbbb', 'crashed': True}])})
        self.gs.start()
        [relaunched] = self.apps.relaunched()
        self.assertEqual((relaunched.app_id, relaunched.reason, relaunched.instance_id),
                         (EDITOR, RESTORE, 'aaaaaaaaaa'), relaunched)
        crashed = self.apps.start(notes)
        self.assertEqual((crashed.reason, crashed.instance_id), (RECOVER, 'bbbbbbbbbb'), crashed)
        another = self.apps.start(notes)
        self.assertEqual((another.reason, another.instance_id), (LAUNCH, 'cccccccccc'), another)

    def test_an_app_without_a_desktop_file_is_refused(self):
        self.gs.start()
        app = self.apps.start('org.example.Unknown')
        self.assertEqual(app.error, 'org.freedesktop.DBus.Error.InvalidArgs', app)


if __name__ == '__main__':
    unittest.main()
