"""What a store drop-in may reach (issue 22): a user's drop-in declares only
GTK files and gnome-session entries inside the user's state directories, a
file of its store goes only when it reads as GTK state, no drop-in reaches
policyd's own state, no link below a store's base is followed, and no
drop-in with a NUL byte or a control character in a value is taken. The
shipped drop-ins are the system's here (srtest: SR_SYSTEM_STORES_DIR); the
tests write the user's own, and sometimes an administrator's."""
import os
import shutil
import signal
import time

from simulator import Simulator
from srtest import DENY, LAUNCH, GLib, PolicydTestCase, now_us

A, B = 'org.example.Alpha', 'org.example.Beta'
DAY_US = 86400 * 10**6


def gtk_state(app):
    return GLib.Variant('(a{sv}a{sv}a(a{sv}a{sv}))', (
        {'app-id': GLib.Variant('s', app)}, {}, [({}, {})],
    )).get_data_as_bytes().get_data()


class StoreDropInTestCase(PolicydTestCase):
    start = False

    def write(self, directory, name, text):
        with open(os.path.join(directory, name), 'w') as f:
            f.write(text)

    def user_dropin(self, name, text):
        self.write(self.s.stores_dir, name, text)

    def system_dropin(self, name, text):
        self.write(self.s.system_stores_dir, name, text)

    def write_file(self, path, data, age_days=0):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
        when = time.time() - age_days * 86400
        os.utime(path, (when, when))

    def start_after_purge(self, sim, max_age_days=7):
        """policyd started with retention at max_age_days, once its start-up
        purge is done: an excluded app's state is its sign."""
        self.s.gsettings('set', 'max-age-days', str(max_age_days))
        self.s.gsettings('set', 'excluded-apps', "['org.example.Excluded']")
        sim.start_policyd_after_purge('org.example.Excluded')

    def assertFile(self, path, data):
        with open(path, 'rb') as f:
            self.assertEqual(f.read(), data, path)


class UserDropInFormatTest(StoreDropInTestCase):
    KEYRING = b'GnomeKeyring\n\r\0\n\0\0\0\0 the login keyring'

    def test_keyring_is_never_deleted(self):
        # Issue 22: "Directory=$XDG_DATA_HOME/{app}", "Pattern=*.keyring"
        # made ~/.local/share/keyrings/login.keyring an app's state
        # ("keyrings"), and retention and Clear deleted it. A user's files
        # store needs Format=gtk now, and removes only what reads as GTK
        # state: the first drop-in is refused, the second keeps the keyring.
        self.user_dropin('keyring.store', '[Store]\nKind=files\nDirectory=$XDG_DATA_HOME/{app}\n'
                                          'Pattern=*.keyring\n')
        self.user_dropin('keyring-gtk.store', '[Store]\nKind=files\n'
                                              'Directory=$XDG_DATA_HOME/{app}\n'
                                              'Pattern=*.keyring\nFormat=gtk\n')
        keyring = os.path.join(self.s.data_home, 'keyrings', 'login.keyring')
        self.write_file(keyring, self.KEYRING, age_days=400)
        # GTK state in the same kind of place is the store's, and goes.
        gtk_file = os.path.join(self.s.data_home, A, 'old.keyring')
        self.write_file(gtk_file, gtk_state(A), age_days=400)

        self.start_after_purge(Simulator(self.s))
        self.assertFile(keyring, self.KEYRING)
        self.assertFalse(os.path.exists(gtk_file))
        log = self.s.log()
        self.assertRegex(log, r"Refusing the user's store drop-in .*keyring\.store: "
                              r"Format: a user's files store needs Format=gtk")
        self.assertIn('login.keyring is not a serialized', log)

        for apps in (['keyrings'], []):
            report = self.s.clear(apps)
            self.assertNotIn('keyring', report['stores'])
            self.assertEqual(report['stores']['keyring-gtk']['entries'], 0)
            self.assertIn('login.keyring is not a serialized', '\n'.join(report['errors']))
            self.assertFile(keyring, self.KEYRING)
        self.assertAlive()

    def test_user_may_not_declare_whole_file_stores(self):
        # A whole-file store is removed unread, by Clear([]) and by age.
        self.user_dropin('odt.store', '[Store]\nKind=whole-file\nDirectory=$XDG_DATA_HOME/docs\n'
                                      'Pattern=*.odt\n')
        thesis = os.path.join(self.s.data_home, 'docs', 'Thesis.odt')
        self.write_file(thesis, b'four hundred days of work', age_days=400)
        self.start_after_purge(Simulator(self.s))
        report = self.s.clear()
        self.assertNotIn('odt', report['stores'])
        self.assertFile(thesis, b'four hundred days of work')
        self.assertRegex(self.s.log(), r"Refusing the user's store drop-in .*odt\.store: "
                                       r"Kind: a user's drop-in may not declare a whole-file")

    def test_user_gtk_and_entries_stores_still_work(self):
        # What a user may declare: GTK files (here in place of the shipped
        # "gtk", by its name) and gnome-session entries, listed and cleared.
        elsewhere = os.path.join(self.s.data_home, 'elsewhere')
        self.user_dropin('gtk.store', f'[Store]\nKind=files\nDirectory={elsewhere}\n'
                                      'Pattern={app}.dat\nFormat=gtk\n')
        self.user_dropin('portal.store', '[Store]\nKind=entries\nDirectory=$XDG_STATE_HOME\n'
                                         'Pattern=portal@*.state\nFormat=gnome-session\n')
        self.write_file(os.path.join(elsewhere, f'{B}.dat'), gtk_state(B))
        sim = Simulator(self.s)
        self.s.start_policyd()
        sim.save(A)
        shutil.copy(sim.session_path, os.path.join(self.s.state_home, 'portal@gnome.state'))
        listing = self.s.list_state()
        self.assertEqual(listing[B]['stores'], ['gtk'])
        self.assertEqual(listing[B]['windows'], 1)
        self.assertEqual(sorted(listing[A]['stores']), ['gnome-session', 'portal'])
        report = self.s.clear([A, B])
        self.assertEqual(report['apps'], [A, B])
        self.assertEqual(report['stores']['gtk']['entries'], 1)
        self.assertEqual(report['stores']['portal']['entries'], 1)
        self.assertFalse(os.path.exists(os.path.join(elsewhere, f'{B}.dat')))
        # The shipped "gtk" no longer counts: A's file there is no store's.
        self.assertTrue(os.path.exists(sim.gtk_path(A, '1')))


class ControlCharacterTest(StoreDropInTestCase):
    def test_a_value_cut_short_or_with_a_control_character_is_refused(self):
        # GKeyFile keeps a line as a C string: a NUL byte in a value cut it
        # there, and "Directory=$XDG_STATE_HOME<NUL>/notes" made a store of
        # the whole state directory, whose files Clear then deleted. An
        # escaped line break or tab makes a path or a pattern other than
        # the one that reads. Each drop-in is refused, said so, and what
        # it would have matched stays.
        with open(os.path.join(self.s.stores_dir, 'cut.store'), 'wb') as f:
            f.write(b'[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\0/notes\n'
                    b'Pattern={app}.notes\nFormat=gtk\n')
        self.user_dropin('cut-pattern.store', '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\n'
                                              'Pattern={app}.keep\0.notes\nFormat=gtk\n')
        self.user_dropin('escaped.store', '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\n'
                                          'Pattern={app}.\\nkeep\nFormat=gtk\n')
        self.user_dropin('tab.store', '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME/\tx\n'
                                      'Pattern={app}.keep\nFormat=gtk\n')
        kept = [os.path.join(self.s.state_home, f'{B}.notes'),
                os.path.join(self.s.state_home, f'{B}.keep'),
                os.path.join(self.s.state_home, f'{B}.\nkeep'),
                os.path.join(self.s.state_home, '\tx', f'{B}.keep')]
        for path in kept:
            self.write_file(path, gtk_state(B))
        self.s.start_policyd()
        report = self.s.clear()
        for path in kept:
            self.assertFile(path, gtk_state(B))
        self.assertEqual(sorted(report['stores']),
                         ['gnome-session', 'gnome-shell', 'gtk', 'gtk-flatpak', 'mutter',
                          'session-restore-portal', 'session-restore-portal-unreadable'])
        log = self.s.log()
        self.assertRegex(log, r"Ignoring the store drop-in .*/cut\.store: a NUL byte at offset 44")
        self.assertRegex(log, r"Ignoring the store drop-in .*/cut-pattern\.store: a NUL byte")
        self.assertRegex(log, r"Ignoring the store drop-in .*/escaped\.store: Pattern: the value "
                              r"holds a control character \(0x0a\)")
        self.assertRegex(log, r"Ignoring the store drop-in .*/tab\.store: Directory: the value "
                              r"holds a control character \(0x09\)")
        self.assertAlive()


class OwnStateTest(StoreDropInTestCase):
    """Issue 22: a drop-in over policyd's own clear-points let Clear([])
    delete them, and after a restart the cleared state was restorable."""

    def clear_then_restart(self):
        deaf = Simulator(self.s, listening=False)
        self.s.start_policyd()
        deaf.save(A)
        own = os.path.join(self.s.state_home, 'session-restore')
        report = self.s.clear()
        self.assertTrue(os.path.exists(os.path.join(own, 'clear-points')))
        self.s.stop_policyd(signal.SIGKILL)
        self.s.start_policyd()
        deaf.write_back()
        self.assertEqual(deaf.restore(A, LAUNCH), (DENY, 'cleared'))
        self.assertTrue(os.path.exists(os.path.join(own, 'clear-points')))
        return report

    def test_user_dropins_over_clear_points(self):
        self.user_dropin('own.store', '[Store]\nKind=whole-file\n'
                                      'Directory=$XDG_STATE_HOME/session-restore\n'
                                      'Pattern=clear-points\n')
        self.user_dropin('own-app.store', '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME/{app}\n'
                                          'Pattern=clear-*s\nFormat=gtk\n')
        report = self.clear_then_restart()
        self.assertNotIn('own', report['stores'])
        self.assertIn('session-restore: policyd\'s own state', '\n'.join(report['errors']))
        self.assertRegex(self.s.log(), r"Refusing the user's store drop-in .*own\.store: "
                                       r"Directory: .* is policyd's own state")

    def test_administrator_dropin_over_clear_points(self):
        # The system's drop-ins may declare files of no format, but not
        # reach policyd's state: not by name, not through {app}.
        self.system_dropin('admin.store', '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME/{app}\n'
                                          'Pattern=clear-points\n')
        self.system_dropin('admin-own.store', '[Store]\nKind=whole-file\n'
                                              'Directory=$HOME/.local/state/session-restore\n'
                                              'Pattern=clear-points\n')
        report = self.clear_then_restart()
        self.assertEqual(report['stores']['admin']['entries'], 0)
        self.assertIn('session-restore: policyd\'s own state', '\n'.join(report['errors']))
        self.assertNotIn('admin-own', report['stores'])
        self.assertRegex(self.s.log(), r"Refusing the system store drop-in .*admin-own\.store")


class LinkTest(StoreDropInTestCase):
    def test_link_below_the_base_is_not_followed(self):
        # Issue 22: a link inside $XDG_STATE_HOME (to $HOME) let the
        # purge and Clear([]) delete files in ~/Documents, through a
        # store whose directory went through it. Now a link anywhere below
        # a store's base skips the store, with a warning, for the user's
        # drop-ins and the system's alike.
        os.symlink(self.s.home, os.path.join(self.s.state_home, 'link'))
        os.symlink(self.s.home, os.path.join(self.s.data_home, 'link'))
        self.user_dropin('docs.store', '[Store]\nKind=files\n'
                                       'Directory=$XDG_STATE_HOME/link/Documents\n'
                                       'Pattern={app}@*.state\nFormat=gtk\n')
        self.system_dropin('admin-docs.store', '[Store]\nKind=whole-file\n'
                                               'Directory=$XDG_DATA_HOME/link/Documents\n'
                                               'Pattern=*.odt\n')
        documents = os.path.join(self.s.home, 'Documents')
        canaries = {os.path.join(documents, f'{A}@backup.state'): gtk_state(A),
                    os.path.join(documents, 'Thesis.odt'): b'four hundred days of work'}
        for path, data in canaries.items():
            self.write_file(path, data, age_days=400)

        self.start_after_purge(Simulator(self.s))
        report = self.s.clear()
        for path, data in canaries.items():
            self.assertFile(path, data)
        errors = '\n'.join(report['errors'])
        self.assertIn('state/link: a symbolic link', errors)
        self.assertIn('share/link: a symbolic link', errors)
        self.assertEqual(report['stores']['docs']['entries'], 0)
        self.assertEqual(report['stores']['admin-docs']['entries'], 0)
        self.assertRegex(self.s.log(), r'WARNING.*state/link: a symbolic link')
        self.assertAlive()

    def test_base_directories_may_be_links(self):
        # People move ~/.local/state or ~/.var to another disk and leave a
        # link: the stores based there work through it.
        disk = os.path.join(self.s.root, 'other-disk')
        os.makedirs(disk)
        os.rmdir(self.s.state_home)
        os.makedirs(os.path.join(disk, 'state'))
        os.symlink(os.path.join(disk, 'state'), self.s.state_home)
        os.makedirs(os.path.join(disk, 'var'))
        os.symlink(os.path.join(disk, 'var'), os.path.join(self.s.home, '.var'))
        sim = Simulator(self.s)
        self.s.start_policyd()
        sim.save(A)
        sim.save(B, flatpak=True)
        listing = self.s.list_state()
        self.assertEqual(sorted(listing[A]['stores']), ['gnome-session', 'gtk'])
        self.assertEqual(sorted(listing[B]['stores']), ['gnome-session', 'gtk-flatpak'])
        report = self.s.clear()
        self.assertEqual(report['errors'], [])
        self.assertEqual(report['apps'], [A, B])
        self.assertFalse(os.path.exists(os.path.join(disk, 'state', f'{A}@1.state')))
        self.assertEqual(self.s.check_restore(A, LAUNCH, {'saved-at': GLib.Variant('x', now_us() - DAY_US)}),
                         (DENY, 'cleared'))
