"""Retention ("max-age-days") in a session file many apps share: an entry
goes when its app's own saves are older than the limit, whatever the
file's time (issue 24). gnome-session's file and session-restore-portal's
record are written whenever any of their apps saves: judged by the file's
time, a fresh file kept every stale entry forever, though the listing, the
panel and session-restore-ctl called it "too old to be restored"."""
import json
import os
import subprocess

from sessionfile import write_session_file
from srtest import BUILD_DIR, GLib, PolicydTestCase, now_us, USEC_PER_DAY

CTL = os.path.join(BUILD_DIR, 'ctl', 'session-restore-ctl')
FRESH = 'org.example.Fresh'
STALE = 'org.example.Stale'
BARE = 'org.example.Bare'
HOUR = 3600 * 1000000


def read_state(path):
    with open(path, 'rb') as f:
        data = f.read()
    return GLib.Variant.new_from_bytes(GLib.VariantType('a{sv}'), GLib.Bytes(data), False)


def entries(state):
    """app id → its entry's serialized bytes, in the file's order."""
    instances = state.lookup_value('instances', GLib.VariantType('a{s(a{sv}aa{sv})}'))
    result = {}
    for i in range(instances.n_children()):
        entry = instances.get_child_value(i)
        result[entry.get_child_value(0).get_string()] = \
            entry.get_child_value(1).get_data_as_bytes().get_data()
    return result


def others(state):
    """The top-level keys but "instances", serialized."""
    return {state.get_child_value(i).get_child_value(0).get_string():
            state.get_child_value(i).get_child_value(1).get_data_as_bytes().get_data()
            for i in range(state.n_children())
            if state.get_child_value(i).get_child_value(0).get_string() != 'instances'}


class SharedFileRetentionTest(PolicydTestCase):
    start = False

    def setUp(self):
        super().setUp()
        now = now_us()
        self.record = os.path.join(self.s.state_home, 'session-restore-portal@test.state')
        self.session = os.path.join(self.s.state_home, 'gnome-session@gnome.state')
        # The portal's record, rewritten a minute ago for FRESH: STALE's
        # own save is 40 days old, past the default 30.
        self.record_time = now - 60 * 1000000
        write_session_file(self.record,
                           {STALE: [now - 40 * USEC_PER_DAY, now - 45 * USEC_PER_DAY],
                            FRESH: [now - 3 * HOUR, now - 50 * USEC_PER_DAY]},
                           self.record_time,
                           extra={'x-owner-note': GLib.Variant('s', 'kept as it is')})
        # gnome-session's file tells no time per app: its fresh file's
        # entries are as fresh as the file.
        write_session_file(self.session, {BARE: [None]}, now - 30 * 1000000)
        self.before = read_state(self.record)

    def ctl_list(self):
        result = subprocess.run([CTL, 'list', '--json'], env=self.s.env, capture_output=True,
                                text=True, check=True)
        return {app['app_id']: app for app in json.loads(result.stdout)['apps']}

    def wait_for_purge(self):
        self.s.wait_until(lambda: STALE not in entries(read_state(self.record)),
                          what="the stale app's entry to be purged")

    def assert_only_the_stale_entry_went(self):
        after = read_state(self.record)
        self.assertEqual(list(entries(after)), [FRESH])
        # FRESH's entry and everything else in the file, byte for byte;
        # the file keeps its time, so that FRESH does not look saved now.
        self.assertEqual(entries(after)[FRESH], entries(self.before)[FRESH])
        self.assertEqual(others(after), others(self.before))
        self.assertEqual(os.stat(self.record).st_mtime_ns, self.record_time * 1000)
        self.assertEqual(list(entries(read_state(self.session))), [BARE])

        listing = self.s.list_state()
        self.assertNotIn(STALE, listing)
        self.assertEqual(listing[FRESH]['state'], 'valid')
        self.assertEqual(listing[FRESH]['entries'], 2)
        self.assertEqual(listing[BARE]['state'], 'valid')
        ctl = self.ctl_list()
        self.assertNotIn(STALE, ctl)
        self.assertEqual({app: ctl[app]['state'] for app in (FRESH, BARE)},
                         {FRESH: 'valid', BARE: 'valid'})

    def set_max_age(self, days):
        """Sets max-age-days and waits for policyd to see it: the purge it
        starts then is queued before any listing asked for after."""
        self.s.signals.clear()
        self.s.set_setting('max-age-days', GLib.Variant('i', days))
        self.s.wait_until(lambda: any(name == 'PropertiesChanged' and 'MaxAgeDays' in args[1]
                                      for name, args in self.s.signals),
                          what='policyd to see max-age-days change')

    def test_start_up_purge(self):
        self.s.start_policyd()
        self.wait_for_purge()
        self.assert_only_the_stale_entry_went()

    def test_shortening_purges_what_the_listing_calls_too_old(self):
        self.s.gsettings('set', 'max-age-days', '-1')
        self.s.start_policyd()
        self.assertEqual(self.s.list_state()[STALE]['state'], 'valid')
        self.set_max_age(39)
        self.assert_only_the_stale_entry_went()

    def test_an_app_with_one_fresh_save_keeps_all(self):
        # STALE's newest save is 40 days old: kept whole at 41 days, though
        # one of its instances is older; nothing goes, the file is not
        # rewritten.
        self.s.gsettings('set', 'max-age-days', '-1')
        inode = os.stat(self.record).st_ino
        self.s.start_policyd()
        self.set_max_age(41)
        self.assertEqual(set(self.s.list_state()), {FRESH, STALE, BARE})
        self.assertEqual(os.stat(self.record).st_ino, inode)
        self.assertEqual(read_state(self.record).get_data_as_bytes().get_data(),
                         self.before.get_data_as_bytes().get_data())

    def test_an_old_session_file_still_goes_whole(self):
        # gnome-session's entries tell no time: the file's is theirs.
        write_session_file(self.session, {BARE: [None]}, now_us() - 35 * USEC_PER_DAY)
        self.s.start_policyd()
        self.s.wait_until(lambda: entries(read_state(self.session)) == {},
                          what="the old session file's entries to be purged")
        self.assertNotIn(BARE, self.s.list_state())
