"""Faults that used to be answered as successes: crash counters that
cannot be saved (a read-only or full file system), and a listing that
could not read a store (a directory or file policyd may not read). Each is
now an error the caller sees, and what could be done still is.

Root reads any file whatever its mode: policyd runs here without the
capabilities that allow it (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), as a
user's policyd runs, so that a file of mode 000 is as unreadable to it as
to a user. Read-only and full file systems are real mounts, which root
cannot write either."""
import os
import subprocess
import unittest

from simulator import Simulator
from srtest import DENY, RECOVER, PolicydTestCase

A, B, C = 'org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'
NO_DAC = ['setpriv', '--inh-caps=-dac_override,-dac_read_search',
          '--bounding-set=-dac_override,-dac_read_search']


@unittest.skipUnless(os.geteuid() == 0, 'needs root to mount')
class NoteExitSaveTest(PolicydTestCase):
    def setUp(self):
        super().setUp()
        self.state_dir = os.path.join(self.s.state_home, 'session-restore')
        os.makedirs(self.state_dir, exist_ok=True)
        self.counters = os.path.join(self.state_dir, 'crash-counters')

    def mount(self, *args):
        subprocess.run(['mount', *args], check=True)
        self.addCleanup(subprocess.run, ['umount', '-l', args[-1]], check=False,
                        stderr=subprocess.DEVNULL)

    def assertExitsCountedButNotSaved(self, reason):
        # Each exit is an error that says so, in words; none is lost from
        # memory: three crashes make a crash loop (the default threshold).
        for _ in range(3):
            message = self.assertDBusError('Failed', self.s.call, 'NoteExit', 'sb', A, False)
            self.assertIn('crash counters could not be saved', message)
            self.assertIn(reason, message)
        self.assertEqual(self.s.check_restore(A, RECOVER), (DENY, 'crash-loop'))
        self.assertFalse(os.path.exists(self.counters))
        # An exit that changes nothing has nothing to save.
        self.s.call('NoteExit', 'sb', B, True)

    def test_read_only_state_directory(self):
        self.mount('--bind', self.state_dir, self.state_dir)
        subprocess.run(['mount', '-o', 'remount,bind,ro', self.state_dir], check=True)
        self.assertExitsCountedButNotSaved('Read-only file system')
        # Writable again: the next exit saves them all, and succeeds.
        subprocess.run(['umount', '-l', self.state_dir], check=True)
        self.s.call('NoteExit', 'sb', C, False)
        self.assertTrue(os.path.exists(self.counters))
        self.s.stop_policyd()
        self.s.start_policyd()
        self.assertEqual(self.s.check_restore(A, RECOVER), (DENY, 'crash-loop'))
        self.assertAlive()

    def test_full_file_system(self):
        self.mount('-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'sr-full', self.state_dir)
        filler = os.path.join(self.state_dir, 'filler')
        # dd stops at "No space left on device".
        subprocess.run(['dd', 'if=/dev/zero', f'of={filler}', 'bs=4k'], stderr=subprocess.DEVNULL)
        self.assertExitsCountedButNotSaved('No space left on device')
        os.unlink(filler)
        self.s.call('NoteExit', 'sb', C, False)
        self.assertTrue(os.path.exists(self.counters))


@unittest.skipUnless(os.geteuid() == 0, 'needs root to drop capabilities')
class ListingErrorsTest(PolicydTestCase):
    start = False

    def setUp(self):
        super().setUp()
        self.s.start_policyd(prefix=NO_DAC)
        self.sim = Simulator(self.s)
        self.sim.save(A)
        self.sim.save(B, flatpak=True)

    def unreadable(self, path):
        mode = os.stat(path).st_mode & 0o7777
        os.chmod(path, 0)
        self.addCleanup(os.chmod, path, mode)

    def test_unreadable_store_is_reported(self):
        self.assertEqual(self.s.listing_errors(), {})
        self.unreadable(os.path.dirname(self.sim.gtk_path(B, '1', flatpak=True)))
        listing = self.s.list_state()
        # B's GTK state is missing; what the session manager's file says
        # of it is there.
        self.assertEqual(sorted(listing), [A, B])
        self.assertEqual(listing[B]['stores'], ['gnome-session'])
        errors = self.s.listing_errors()
        self.assertEqual(list(errors), ['gtk-flatpak'])
        self.assertEqual(len(errors['gtk-flatpak']), 1)
        self.assertIn(f'.var/app/{B}/.local/state: Permission denied', errors['gtk-flatpak'][0])

        self.unreadable(self.sim.session_path)
        listing = self.s.list_state()
        self.assertEqual(sorted(listing), [A])
        self.assertNotIn('gnome-session', listing[A]['stores'])
        errors = self.s.listing_errors()
        self.assertEqual(sorted(errors), ['gnome-session', 'gtk-flatpak'])
        self.assertIn('gnome-session@gnome.state: Permission denied', errors['gnome-session'][0])

        # The errors are the last entry, and hold nothing else.
        rows = self.s.call('ListStoredState')[0]
        self.assertEqual(rows[-1][0], '')
        self.assertEqual(list(rows[-1][1]), ['errors'])
        self.assertEqual([app for app, _ in rows[:-1]], [A])

    def test_whole_listing_has_no_errors_entry(self):
        rows = self.s.call('ListStoredState')[0]
        self.assertEqual([app for app, _ in rows], [A, B])
