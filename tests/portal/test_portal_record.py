"""session-restore-portal's record (portal/sr-portal-record.c) against
faults and floods: a record it cannot take in is never written over, what
a kill in the middle of a write leaves is removed, and the apps it keeps
are bounded, and expire with policyd's retention."""
import glob
import os
import signal
import stat

from portalapp import PortalApp
from portaltest import CONTROL, PortalTestCase
from srtest import LAUNCH, GLib

NOT_LOST = 'it is not written, so that nothing in it is lost'


def record_bytes(instances, version=1, dirty=False):
    return GLib.Variant('a{sv}', {
        'version': GLib.Variant('u', version), 'dirty': GLib.Variant('b', dirty),
        'instances': GLib.Variant('a{s(a{sv}aa{sv})}', instances)}).get_data_as_bytes().get_data()


def closed_app(instance_id, saved_at):
    """An app's entry as a voluntary quit leaves it: an id for its next
    launch, saved at @saved_at (µs)."""
    return ({'next-instance-id': GLib.Variant('s', instance_id),
             'next-saved-at': GLib.Variant('x', saved_at)}, [])


class RecordTestCase(PortalTestCase):
    def log(self):
        self.backend_log.flush()
        with open(os.path.join(self.s.root, 'backend.log'), encoding='utf-8') as f:
            return f.read()

    def write_record(self, data):
        with open(self.record, 'wb') as f:
            f.write(data)

    def restart_on(self, data, **env):
        """The backend started again on a record of @data."""
        self.stop(self.backend)
        self.write_record(data)
        self.start_backend(**env)

    def assert_not_written(self, what):
        """Sync says the record is not written, and why (@what, a regex)."""
        message = self.assertDBusError('org.freedesktop.DBus.Error.Failed',
                                       self.backend_call, *CONTROL, 'Sync')
        self.assertRegex(message, r'session-restore-portal@sway\.state ' + what + '; ' + NOT_LOST)

    def aside(self):
        return sorted(glob.glob(self.record + '.*.unreadable'))


class TestUnreadableRecord(RecordTestCase):
    """A record the backend could not take in was written over by the first
    Register: 20 apps went down to 1."""
    def twenty_apps(self, version=1):
        now = GLib.get_real_time()
        return record_bytes({f'org.example.App{i}': closed_app(f'{i:012x}', now)
                             for i in range(20)}, version=version)

    def test_a_record_that_does_not_parse_is_kept_aside_whole(self):
        cases = {
            'garbage': b'\x07not a record at all\xff' * 50,
            'wrong instances': GLib.Variant('a{sv}', {
                'version': GLib.Variant('u', 1),
                'instances': GLib.Variant('s', 'twenty apps')}).get_data_as_bytes().get_data(),
            'truncated': self.twenty_apps()[:-40],
            'version 0': self.twenty_apps(version=0),
        }
        for i, (name, data) in enumerate(cases.items()):
            with self.subTest(name):
                for path in self.aside():
                    os.unlink(path)
                log_start = len(self.log())
                self.restart_on(data)
                a = self.app('org.example.Editor', token=f'e{i}')
                a.quit()
                self.sync_frontend()
                # Set aside, byte for byte, under a name that says so...
                aside = self.aside()
                self.assertEqual(len(aside), 1, aside)
                self.assertRegex(aside[0], r'session-restore-portal@sway\.state\.\d{8}T\d{6}Z\.unreadable$')
                with open(aside[0], 'rb') as f:
                    self.assertEqual(f.read(), data)
                # ...and a new record begun, said once.
                self.assertEqual(list(self.record_apps()), ['org.example.Editor'])
                log = self.log()[log_start:]
                self.assertEqual(log.count('does not parse'), 1, log)
                self.assertIn(f'kept as {aside[0]}, and a new record begun', log)

    def test_a_record_set_aside_is_cleared_only_with_everything(self):
        garbage = b'\x07not a record at all\xff' * 50
        self.restart_on(garbage)
        self.app('org.example.Editor').quit()
        self.sync_frontend()
        aside = self.aside()
        self.assertEqual(len(aside), 1)
        # A fault, or clearing one app, leaves it; policyd lists it with
        # nothing else.
        self.s.clear(['org.example.Editor'])
        self.assertEqual(self.aside(), aside)
        self.assertEqual(self.s.listing_errors(), {})
        # "Clear everything" leaves nothing of it.
        report = self.s.clear()
        self.assertIn('session-restore-portal-unreadable', report['stores'])
        self.assertEqual(self.aside(), [])

    def test_a_second_bad_record_does_not_replace_the_first_set_aside(self):
        first, second = b'\x07first bad record\xff' * 50, b'\x07second bad record\xff' * 50
        self.restart_on(first)
        self.restart_on(second)
        aside = self.aside()
        self.assertEqual(len(aside), 2, aside)
        contents = set()
        for path in aside:
            with open(path, 'rb') as f:
                contents.add(f.read())
        self.assertEqual(contents, {first, second})

    def test_a_newer_record_is_never_written(self):
        newer = self.twenty_apps(version=2)
        self.restart_on(newer)
        # The backend still serves; nothing reaches the disk.
        a = self.app('org.example.Editor')
        self.assertEqual(a.reason, LAUNCH)
        self.assertIsNotNone(a.instance_id)
        a.quit()
        b = self.app('org.example.Mail')
        b.crash()
        self.frontend_round_trip()
        self.assert_not_written(r'is a version 2 record, newer than this backend\'s \(1\)')
        with open(self.record, 'rb') as f:
            self.assertEqual(f.read(), newer)
        self.assertEqual(self.log().count('newer than this backend'), 1)
        self.assertEqual(glob.glob(self.record + '*'), [self.record])

    def test_a_record_it_may_not_read_is_never_written(self):
        data = self.twenty_apps()
        self.stop(self.backend)
        self.write_record(data)
        os.chmod(self.record, 0)
        # uid 0 reads anything: the backend without the capabilities that
        # let it.
        self.start_backend(prefix=('setpriv', '--bounding-set=-dac_override,-dac_read_search', '--'))
        a = self.app('org.example.Editor')
        self.assertIsNotNone(a.instance_id)
        a.quit()
        self.frontend_round_trip()
        self.assert_not_written(r'could not be read \(Permission denied\)')
        os.chmod(self.record, 0o600)
        with open(self.record, 'rb') as f:
            self.assertEqual(f.read(), data)
        self.assertEqual(self.log().count('could not be read'), 1)
        self.assertEqual(self.aside(), [])

    def test_a_fifo_at_the_record_is_neither_waited_on_nor_replaced(self):
        # The backend waited in open() for a writer, before it took its
        # name: start_backend() waits for the name.
        self.stop(self.backend)
        os.unlink(self.record)
        os.mkfifo(self.record)
        self.start_backend()
        a = self.app('org.example.Editor')
        self.assertIsNotNone(a.instance_id)
        a.quit()
        self.frontend_round_trip()
        self.assert_not_written(r'could not be read \(not a regular file\)')
        self.assertTrue(stat.S_ISFIFO(os.lstat(self.record).st_mode))

    def test_a_link_at_the_record_is_neither_followed_nor_replaced(self):
        elsewhere = os.path.join(self.s.root, 'elsewhere.state')
        data = self.twenty_apps()
        with open(elsewhere, 'wb') as f:
            f.write(data)
        self.stop(self.backend)
        os.unlink(self.record)
        os.symlink(elsewhere, self.record)
        self.start_backend()
        a = self.app('org.example.App3')
        self.assertNotEqual(a.instance_id, f'{3:012x}')     # not read
        a.quit()
        self.frontend_round_trip()
        self.assert_not_written(r'could not be read \(a symbolic link\)')
        self.assertEqual(os.readlink(self.record), elsewhere)
        with open(elsewhere, 'rb') as f:
            self.assertEqual(f.read(), data)

    def frontend_round_trip(self):
        """What the apps sent has gone through the frontend to the backend;
        the Sync that follows is handled after it."""
        self.s.bus.call_sync('org.freedesktop.portal.Desktop', '/org/freedesktop/portal/desktop',
                             'org.freedesktop.DBus.Properties', 'Get',
                             GLib.Variant('(ss)', ('org.freedesktop.portal.SaveRestore', 'version')),
                             None, 0, 30000, None)


class TestLeftovers(RecordTestCase):
    """A kill in the middle of a write left "<record>.XXXXXX" copies (the
    temporary files of g_file_set_contents()) with every app in them, which
    nothing removed, "clear everything" included."""
    def make(self, name, kind='file'):
        path = os.path.join(self.s.state_home, name)
        if kind == 'file':
            with open(path, 'wb') as f:
                f.write(b'a copy of every app')
        elif kind == 'dir':
            os.mkdir(path)
        elif kind == 'fifo':
            os.mkfifo(path)
        elif kind == 'link':
            os.symlink(self.target, path)
        return path

    def test_leftovers_are_removed_at_start_and_nothing_else(self):
        self.target = os.path.join(self.s.root, 'target')
        with open(self.target, 'w') as f:
            f.write('not the backend\'s')
        self.stop(self.backend)
        removed = [self.make('session-restore-portal@sway.state.Ab12Cd'),
                   self.make('.session-restore-portal@sway.state.0123abcd')]
        kept = [self.make('session-restore-portal@sway.state.Ab12C'),
                self.make('session-restore-portal@sway.state.Ab12Cde'),
                self.make('session-restore-portal@sway.state.Ab-2Cd'),
                self.make('session-restore-portal@gnome.state.Ab12Cd'),
                self.make('session-restore-portal@sway.stateAb12Cd'),
                self.make('.session-restore-portal@sway.state.0123ABCD'),
                self.make('.session-restore-portal@sway.state.0123abc'),
                self.make('.session-restore-portal@gnome.state.0123abcd'),
                self.make('session-restore-portal@sway.state.Zz99zz', 'dir'),
                self.make('.session-restore-portal@sway.state.89abcdef', 'fifo'),
                self.make('session-restore-portal@sway.state.Yy88yy', 'link')]
        self.start_backend()
        self.sync_backend()
        for path in removed:
            self.assertFalse(os.path.lexists(path), path)
        for path in kept:
            self.assertTrue(os.path.lexists(path), path)
        with open(self.target) as f:
            self.assertEqual(f.read(), 'not the backend\'s')
        self.assertEqual(self.log().count('left by a write of the record that was interrupted'), 2)

    def leftovers(self):
        state = self.s.state_home
        return sorted(n for n in os.listdir(state)
                      if n.startswith(('session-restore-portal@sway.state.',
                                       '.session-restore-portal@sway.state.')))

    def test_what_a_kill_mid_write_leaves_goes_with_clear_everything(self):
        a = self.app('org.example.Editor')
        a.quit()
        self.sync_frontend()
        self.stop(self.backend)
        env = {'LD_PRELOAD': os.environ['SR_DIE_MID_WRITE_MODULE'],
               'SR_DIE_MID_WRITE': os.path.realpath(self.record)}
        if 'ASAN_OPTIONS' in self.s.env:     # a sanitizer build: its runtime is not first
            env['ASAN_OPTIONS'] = self.s.env['ASAN_OPTIONS'] + ':verify_asan_link_order=0'
        self.start_backend(**env)
        b = PortalApp(self.s.session_bus.address, self.s.state_home, 'org.example.Mail',
                      register=False)
        try:
            b.register()
        except GLib.Error:
            pass
        self.s.wait_until(lambda: self.backend.poll() is not None, timeout=30, what='the kill')
        self.assertEqual(self.backend.returncode, -signal.SIGKILL)
        # A copy, hidden from policyd's listing, half written...
        self.assertEqual(len(self.leftovers()), 1, self.leftovers())
        self.assertEqual(self.s.listing_errors(), {})
        self.assertIn('org.example.Editor', self.s.list_state())
        # ...goes with everything else while the backend is not there.
        self.s.clear()
        self.assertEqual(self.leftovers(), [])
        self.assertEqual(self.record_apps(), {})


class TestAppBound(RecordTestCase):
    """48,000 Registers under distinct app ids grew the backend by 200 MiB
    and the record past the size the next start reads, after which no
    app's record was written. The bound lowered to 4 apps
    (SR_PORTAL_RECORD_MAX_APPS in test builds)."""
    MAX_APPS = 4

    def quit_apps(self, names):
        ids = {}
        for name in names:
            a = self.app(name)
            ids[name] = a.instance_id
            a.quit()
            self.sync_frontend()
        return ids

    def bound_said(self):
        return self.log().count('its most: for each new one')

    def test_the_least_recently_used_app_keeps_only_its_ids_to_delete(self):
        self.stop(self.backend)
        self.start_backend(SR_PORTAL_RECORD_MAX_APPS=str(self.MAX_APPS))
        # The oldest of all, but running: it stays.
        running = self.app('org.example.Running')
        apps = [f'org.example.App{i}' for i in range(10)]
        ids = self.quit_apps(apps)
        record = self.record_apps()
        # With state: the running app and the three used last.
        with_state = sorted(a for a, (props, instances) in record.items()
                            if instances or 'next-instance-id' in props)
        self.assertEqual(with_state, ['org.example.App7', 'org.example.App8', 'org.example.App9',
                                      'org.example.Running'])
        self.assertEqual(record['org.example.Running'][1][0]['instance-id'], running.instance_id)
        # Reduced to their ids to delete: the four used before them; the
        # three before those are gone whole.
        for name in apps[3:7]:
            props, instances = record[name]
            self.assertEqual(instances, [])
            self.assertNotIn('next-instance-id', props)
            self.assertEqual(props['discarded-instance-ids'], [ids[name]])
        for name in apps[:3]:
            self.assertNotIn(name, record)
        self.assertEqual(len(record), 2 * self.MAX_APPS)
        # One of them back: it deletes what it saved before, and the one
        # with state used least recently makes room.
        back = self.app('org.example.App4')
        self.assertEqual(back.registration['discard-instance-ids'], [ids['org.example.App4']])
        self.assertNotEqual(back.instance_id, ids['org.example.App4'])
        back.quit()
        self.sync_frontend()
        record = self.record_apps()
        self.assertNotIn('next-instance-id', record['org.example.App7'][0])
        self.assertEqual(record['org.example.App4'][0]['next-instance-id'], back.instance_id)
        self.assertEqual(self.bound_said(), 1)
        running.quit()

    def test_a_record_past_the_bound_is_cut_down_at_start(self):
        now = GLib.get_real_time()
        apps = {f'org.example.App{i}': closed_app(f'{i:012x}', now - (10 - i) * 1000000)
                for i in range(10)}
        self.restart_on(record_bytes(apps), SR_PORTAL_RECORD_MAX_APPS=str(self.MAX_APPS))
        self.sync_backend()
        record = self.record_apps()
        self.assertEqual(sorted(a for a, (props, _) in record.items() if 'next-instance-id' in props),
                         [f'org.example.App{i}' for i in range(6, 10)])
        self.assertEqual(sorted(a for a, (props, _) in record.items() if 'next-instance-id' not in props),
                         [f'org.example.App{i}' for i in range(2, 6)])
        self.assertEqual(record['org.example.App2'][0]['discarded-instance-ids'], [f'{2:012x}'])
        self.assertEqual(self.bound_said(), 1)
        # The order of those reduced outlives a restart: the next to go is
        # the one reduced first.
        self.stop(self.backend)
        self.start_backend(SR_PORTAL_RECORD_MAX_APPS=str(self.MAX_APPS))
        self.quit_apps(['org.example.New'])
        record = self.record_apps()
        self.assertNotIn('org.example.App2', record)
        self.assertIn('org.example.App3', record)
        self.assertEqual(len(record), 2 * self.MAX_APPS)


class TestRetention(RecordTestCase):
    """An app whose state was past max-age-days stayed in the record for
    good: policyd's purge took it from the file, and the backend's next
    write put it back."""
    def start_on_old_state(self):
        now = GLib.get_real_time()
        day = 86400 * 1000000
        self.restart_on(record_bytes({
            'org.example.Old': closed_app('0123456789ab', now - 40 * day),
            'org.example.Fresh': closed_app('ba9876543210', now - 2 * day)}),
            SR_PORTAL_EXPIRE_DELAY_MS='0')

    def test_apps_past_retention_leave_the_record(self):
        self.start_on_old_state()
        self.wait_for_sweep('2 apps of the record with older state; 1 left it')
        # The next write is from memory, policyd's purge or not.
        self.app('org.example.Other').quit()
        self.sync_frontend()
        record = self.record_apps()
        self.assertNotIn('org.example.Old', record)
        self.assertIn('org.example.Fresh', record)

    def test_apps_kept_forever_stay(self):
        self.s.gsettings('set', 'max-age-days', '-1')
        self.start_on_old_state()
        self.wait_for_sweep('2 apps of the record with older state; 0 left it')
        self.app('org.example.Other').quit()
        self.sync_frontend()
        self.assertIn('org.example.Old', self.record_apps())

    def wait_for_sweep(self, said):
        self.s.wait_until(lambda: 'Retention: policyd was asked about' in self.log(), timeout=30,
                          what='the retention sweep')
        self.assertIn(said, self.log())
