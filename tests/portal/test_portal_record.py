"""session-restore-portal's record (portal/sr-portal-record.c) against
faults: what a kill in the middle of a write leaves is removed."""
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
