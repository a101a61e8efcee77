"""Stored state under attack and under failure: kill -9 inside Clear,
symbolic links and path traversal (with canaries outside the stores that
must survive), read-only and full file systems, bad drop-ins."""
import os
import shutil
import random
import signal
import subprocess
import time
import unittest

from simulator import Simulator
from srtest import (ALLOW, DENY, LAUNCH, BUS_NAME, OBJECT_PATH, IFACE, SLOW, VALGRIND, GLib, Gio,
                    PolicydTestCase, files_under, now_us)

A, B, C = 'org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'


class KillDuringClearTest(PolicydTestCase):
    TRIALS = 30

    def populate(self, sim, saved_at):
        sim.memory = {}
        for app, count in ((A, 300), (B, 20), (C, 20)):
            sim.memory[app] = {str(i): {'saved_at': saved_at, 'flatpak': i % 2 == 1, 'payload': b'p' * 64}
                               for i in range(count)}
        sim.write_back()

    def test_kill_9_inside_clear(self):
        rng = random.Random(int(os.environ.get('SR_SEED', '1234')))
        sim = Simulator(self.s, listening=False)
        outcomes = {'before clear point': 0, 'partly removed': 0, 'all removed': 0}
        for trial in range(self.TRIALS):
            saved_at = now_us() - 60 * 1000000
            self.populate(sim, saved_at)
            clear_all = trial % 4 == 3
            cleared = [A, B, C] if clear_all else [A]
            kept = [] if clear_all else [B, C]
            before = files_under(self.s.home)
            kept_session = {app: sim.session_file_apps()['instances'][app] for app in kept}

            self.s.bus.call(BUS_NAME, OBJECT_PATH, IFACE, 'Clear',
                            GLib.Variant('(as)', ([] if clear_all else [A],)), None,
                            Gio.DBusCallFlags.NONE, 10000, None, None)
            self.s.bus.flush_sync(None)
            time.sleep(0 if trial % 5 == 0 else rng.uniform(0, 0.04))
            self.s.stop_policyd(signal.SIGKILL)
            self.s.start_policyd()

            after = files_under(self.s.home)
            # No other app lost anything: files byte for byte, session entries.
            for path, data in before.items():
                if (not any(app in path for app in cleared) and 'gnome-session@' not in path
                        and 'session-restore/' not in path):
                    self.assertEqual(after.get(path), data, f'trial {trial}: {path}')
            instances = sim.session_file_apps()['instances']   # still parses
            for app in kept:
                self.assertEqual(instances.get(app), kept_session[app], f'trial {trial}: {app}')
            # A cleared app whose state was touched at all is not restorable.
            options = {'saved-at': GLib.Variant('x', saved_at)}
            for app in cleared:
                touched = (app not in instances or
                           any(app in p and p not in after for p in before))
                verdict = self.s.check_restore(app, LAUNCH, options)
                if touched:
                    self.assertEqual(verdict, (DENY, 'cleared'), f'trial {trial}: {app}')
                if verdict == (DENY, 'cleared'):
                    gone = sum(1 for p in before if app in p and p not in after)
                    key = 'all removed' if app not in instances and gone == len(
                        [p for p in before if app in p]) else 'partly removed'
                    outcomes[key] += 1
                else:
                    outcomes['before clear point'] += 1
            self.s.call('Clear', 'as', [])
        # The kills landed in different places.
        print(f'# outcomes over {self.TRIALS} trials: {outcomes}')
        self.assertGreater(outcomes['before clear point'] + outcomes['partly removed'], 0)
        self.assertGreater(outcomes['all removed'] + outcomes['partly removed'], 0)


class SymlinkTest(PolicydTestCase):
    def setUp(self):
        super().setUp()
        self.outside = os.path.join(self.s.root, 'outside')
        os.makedirs(os.path.join(self.outside, 'flatpak', '.local', 'state'))
        os.makedirs(os.path.join(self.outside, 'deep', 'state'))
        self.canaries = {
            'org.example.Evil@1.state': b'canary 1',
            'session.gvdb': b'canary 2',
            'flatpak/.local/state/org.example.Link@1.state': b'canary 3',
            'deep/state/org.example.Deep@1.state': b'canary 4',
            'gnome-session@x.state': b'canary 5',
        }
        for path, data in self.canaries.items():
            with open(os.path.join(self.outside, path), 'wb') as f:
                f.write(data)
        home = self.s.home
        var_app = os.path.join(home, '.var', 'app')
        os.makedirs(os.path.join(var_app, 'org.example.Deep'))
        os.makedirs(self.s.data_home, exist_ok=True)
        os.symlink(os.path.join(self.outside, 'org.example.Evil@1.state'),
                   os.path.join(self.s.state_home, 'org.example.Evil@1.state'))
        os.symlink(os.path.join(self.outside, 'gnome-session@x.state'),
                   os.path.join(self.s.state_home, 'gnome-session@x.state'))
        os.symlink(os.path.join(self.outside, 'flatpak'), os.path.join(var_app, 'org.example.Link'))
        os.symlink(os.path.join(self.outside, 'deep'),
                   os.path.join(var_app, 'org.example.Deep', '.local'))
        os.symlink(self.outside, os.path.join(self.s.data_home, 'mutter'))

    def assertCanariesAlive(self):
        for path, data in self.canaries.items():
            with open(os.path.join(self.outside, path), 'rb') as f:
                self.assertEqual(f.read(), data, path)

    def test_links_are_never_followed(self):
        sim = Simulator(self.s)
        sim.save(A)
        self.assertEqual(sorted(self.s.list_state()), [A])
        errors = ''
        for app in ('org.example.Evil', 'org.example.Link', 'org.example.Deep'):
            errors += '\n'.join(self.s.clear([app])['errors'])
            self.s.call('SetAppExcluded', 'sb', app, True)
        report = self.s.clear()
        self.assertCanariesAlive()
        self.assertEqual(report['apps'], [A])
        errors += '\n'.join(report['errors'])
        self.assertIn('org.example.Evil@1.state: not a regular file', errors)
        self.assertIn('mutter: a symbolic link', errors)
        self.assertIn('org.example.Link: a symbolic link', errors)
        # The links themselves are left alone too, and the service answers.
        self.assertTrue(os.path.islink(os.path.join(self.s.state_home, 'org.example.Evil@1.state')))
        self.assertAlive()

    def test_path_traversal_app_ids(self):
        for app in ('../outside/org.example.Evil', '..', 'org.example/../../outside',
                    '../../../../etc', 'org.example.Evil@1.state/..'):
            self.assertDBusError('InvalidArgs', self.s.clear, [app])
            self.assertDBusError('InvalidArgs', self.s.call, 'SetAppExcluded', 'sb', app, True)
        self.assertCanariesAlive()


class DropInTest(PolicydTestCase):
    start = False

    def write_dropin(self, name, text):
        with open(os.path.join(self.s.stores_dir, name), 'w') as f:
            f.write(text)

    def test_bad_dropins_are_reported_and_skipped(self):
        outside = os.path.join(self.s.root, 'outside')
        os.makedirs(outside)
        with open(os.path.join(outside, 'org.example.Victim@1.state'), 'w') as f:
            f.write('canary')
        bad = {
            'garbage.store': 'this is not a key file [[[',
            'no-kind.store': '[Store]\nDirectory=$HOME\nPattern={app}.x\n',
            'bad-kind.store': '[Store]\nKind=everything\nDirectory=$HOME\nPattern={app}.x\n',
            'dotdot.store': f'[Store]\nKind=files\nDirectory=$HOME/../../{os.path.relpath(outside, "/")}\n'
                            'Pattern={app}@*.state\n',
            'relative.store': '[Store]\nKind=files\nDirectory=relative/dir\nPattern={app}@*.state\n',
            'root.store': '[Store]\nKind=whole-file\nDirectory=/\nPattern=*\n',
            'slash.store': '[Store]\nKind=files\nDirectory=$HOME\nPattern=../{app}\n',
            'unknown-var.store': '[Store]\nKind=files\nDirectory=$SECRET\nPattern={app}\n',
            'no-app.store': '[Store]\nKind=files\nDirectory=$HOME\nPattern=*.state\n',
            'format.store': '[Store]\nKind=entries\nDirectory=$HOME\nPattern=*.db\nFormat=sqlite\n',
        }
        for name, text in bad.items():
            self.write_dropin(name, text)
        self.s.start_policyd()
        sim = Simulator(self.s)
        sim.save(A)
        self.assertEqual(sorted(self.s.list_state()), [A])
        report = self.s.clear()
        self.assertEqual(report['apps'], [A])
        self.assertEqual(sorted(report['stores']),
                         ['gnome-session', 'gnome-shell', 'gtk', 'gtk-flatpak', 'mutter',
                          'session-restore-portal', 'session-restore-portal-unreadable'])
        log = self.s.log()
        for name in bad:
            self.assertIn(name, log)
        self.assertTrue(os.path.exists(os.path.join(outside, 'org.example.Victim@1.state')))

    def test_fifo_dropin_does_not_block(self):
        # Anything running as the user can write its drop-ins: a FIFO named
        # like one held the store worker in open() for good, waiting for a
        # writer, and with it every listing and clear (and policyd's exit,
        # which waits for the worker).
        os.mkfifo(os.path.join(self.s.stores_dir, 'fifo.store'))
        self.s.start_policyd()
        sim = Simulator(self.s)
        sim.save(A)
        listing = dict(self.s.call('ListStoredState', timeout=5000 * SLOW)[0])
        self.assertEqual(sorted(app for app in listing if app), [A])
        self.assertRegex(self.s.log(), r"Ignoring the store drop-in .*fifo\.store: .*not a regular file")
        report = self.s.call('Clear', 'as', [], timeout=5000 * SLOW)[0]
        self.assertEqual(report['apps'], [A])
        self.assertEqual(self.s.stop_policyd(), 0)

    def test_huge_dropin_is_refused_unread(self):
        # A drop-in of a million keys (9 MB) took GKeyFile 170 MiB at its
        # peak, and policyd kept 130 MiB of it for good; a drop-in is a few
        # lines, and one over 64 KiB is refused before it is parsed.
        with open(os.path.join(self.s.stores_dir, 'huge.store'), 'w') as f:
            f.write('[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\nPattern={app}@*.huge\n'
                    'Format=gtk\n')
            f.writelines(f'Padding{i}=x\n' for i in range(1000000))
        self.s.start_policyd()
        sim = Simulator(self.s)
        sim.save(A)
        self.assertEqual(sorted(self.s.list_state()), [A])
        if not VALGRIND:
            with open(f'/proc/{self.s.policyd.pid}/status') as f:
                peak_kib = int(next(line for line in f if line.startswith('VmHWM:')).split()[1])
            self.assertLess(peak_kib, 64 * 1024)
        self.assertRegex(self.s.log(), r"Ignoring the store drop-in .*huge\.store: .* bytes, "
                                       r"more than the 65536 read")
        report = self.s.clear()
        self.assertNotIn('huge', report['stores'])
        self.assertAlive()

    def test_user_dropin_cannot_reach_outside_state_directories(self):
        # Issue 13, B: a user drop-in naming $HOME with Pattern=* made the
        # start-up purge delete a 400-day-old ~/Thesis.odt. Now it is
        # refused (and said so), as is one that confines its pattern but
        # not its directory; retention and Clear keep the file.
        self.write_dropin('home.store', '[Store]\nKind=whole-file\nDirectory=$HOME\nPattern=*\n')
        self.write_dropin('home-odt.store',
                          '[Store]\nKind=whole-file\nDirectory=$HOME\nPattern=*.odt\n')
        self.write_dropin('home-apps.store',
                          '[Store]\nKind=files\nDirectory=$HOME/{app}\nPattern=*.odt\n')
        thesis = os.path.join(self.s.home, 'Thesis.odt')
        with open(thesis, 'w') as f:
            f.write('four hundred days of work')
        old = time.time() - 400 * 86400
        os.utime(thesis, (old, old))
        os.makedirs(os.path.join(self.s.home, A))
        chapter = os.path.join(self.s.home, A, 'chapter.odt')
        shutil.copy(thesis, chapter)
        os.utime(chapter, (old, old))
        # Old state of A's in a real store: its going shows the purge ran.
        sim = Simulator(self.s)
        self.s.gsettings('set', 'max-age-days', '7')
        sim.memory = {A: {'1': {'saved_at': now_us() - 400 * 86400 * 1000000,
                                'flatpak': False, 'payload': b''}}}
        sim.write_back()

        self.s.start_policyd()
        self.s.wait_until(lambda: not os.path.exists(sim.gtk_path(A, '1')), what='the start-up purge')
        # The stores are worked on in order, on one thread: a listing
        # queued now ends after the purge.
        self.s.list_state()
        self.assertTrue(os.path.exists(thesis))
        self.assertTrue(os.path.exists(chapter))
        log = self.s.log()
        for name in ('home.store', 'home-odt.store', 'home-apps.store'):
            self.assertRegex(log, f"Refusing the user's store drop-in .*{name}")

        report = self.s.clear()
        self.assertNotIn('home', report['stores'])
        self.assertNotIn('home-odt', report['stores'])
        self.assertTrue(os.path.exists(thesis))
        self.assertTrue(os.path.exists(chapter))
        with open(thesis) as f:
            self.assertEqual(f.read(), 'four hundred days of work')
        self.assertAlive()

    def test_corrupt_session_file_is_reported_and_kept(self):
        sim = Simulator(self.s)
        self.s.start_policyd()
        sim.save(A)
        broken = os.path.join(self.s.state_home, 'gnome-session@broken.state')
        with open(broken, 'wb') as f:
            f.write(b'\x01\x02garbage')
        wrong_type = os.path.join(self.s.state_home, 'gnome-session@typed.state')
        with open(wrong_type, 'wb') as f:
            f.write(GLib.Variant('a{sv}', {'instances': GLib.Variant('s', 'x')})
                    .get_data_as_bytes().get_data())
        self.assertEqual(sorted(self.s.list_state()), [A])
        report = self.s.clear([A])
        self.assertEqual(report['apps'], [A])
        errors = '\n'.join(report['errors'])
        self.assertIn('gnome-session@broken.state', errors)
        self.assertIn('gnome-session@typed.state', errors)
        with open(broken, 'rb') as f:
            self.assertEqual(f.read(), b'\x01\x02garbage')
        self.assertAlive()

    def test_fifo_named_like_a_state_file_does_not_block(self):
        # Opening a FIFO for reading waits for a writer: policyd used to
        # wait forever on one named like a gnome-session file.
        sim = Simulator(self.s)
        self.s.start_policyd()
        sim.save(A)
        fifos = [os.path.join(self.s.state_home, 'gnome-session@fifo.state'),
                 os.path.join(self.s.state_home, f'{B}@1.state')]
        for fifo in fifos:
            os.mkfifo(fifo)
        listing = self.s.list_state()
        self.assertEqual(sorted(listing), [A])
        self.assertEqual(listing[A]['windows'], 1)
        self.assertIn('gnome-session@fifo.state: not a regular file', self.s.log())
        report = self.s.clear()
        self.assertEqual(report['apps'], [A])
        for fifo in fifos:
            self.assertTrue(os.path.exists(fifo), fifo)
        self.assertAlive()


@unittest.skipUnless(os.geteuid() == 0, 'needs root to mount')
class FileSystemFaultTest(PolicydTestCase):
    start = False

    def mount(self, *args):
        subprocess.run(['mount', *args], check=True)
        self.addCleanup(subprocess.run, ['umount', '-l', args[-1]], check=False)

    def test_read_only_state_directory(self):
        sim = Simulator(self.s)
        self.s.start_policyd()
        sim.save(A)
        sim.save(B)
        before = files_under(self.s.home)
        self.mount('--bind', self.s.state_home, self.s.state_home)
        subprocess.run(['mount', '-o', 'remount,bind,ro', self.s.state_home], check=True)
        message = self.assertDBusError('Failed', self.s.clear, [A])
        self.assertIn('Nothing was cleared', message)
        self.assertIn('Read-only file system', message)
        self.assertEqual(files_under(self.s.home), before)
        self.assertEqual(sim.restore(A, LAUNCH), (ALLOW, 'allowed'))
        self.assertEqual(sorted(self.s.list_state()), [A, B])
        self.assertAlive()

    def test_read_only_store_but_writable_clear_points(self):
        sim = Simulator(self.s)
        self.s.start_policyd()
        sim.save(A, '1', flatpak=True)
        sim.save(A, '2')
        flatpak_dir = os.path.dirname(sim.gtk_path(A, '1', flatpak=True))
        self.mount('--bind', flatpak_dir, flatpak_dir)
        subprocess.run(['mount', '-o', 'remount,bind,ro', flatpak_dir], check=True)
        report = self.s.clear([A])
        self.assertIn('Read-only file system', '\n'.join(report['errors']))
        self.assertTrue(os.path.exists(sim.gtk_path(A, '1', flatpak=True)))
        self.assertFalse(os.path.exists(sim.gtk_path(A, '2')))
        # What could not be removed is still not restored: the clear point holds.
        self.assertEqual(sim.restore(A, LAUNCH, instance='1'), (DENY, 'cleared'))

    def test_file_time_far_in_the_future(self):
        # Issue 22: a file's time was multiplied into µs unchecked; tmpfs
        # (like btrfs) keeps any 64-bit second, and past the year 294,246
        # the product overflowed: a state file saved "in the future" went
        # negative, older than any limit, and was purged as expired and
        # listed as cleared. Times are now taken as at most the year 9999.
        self.mount('-t', 'tmpfs', '-o', 'size=4m,mode=0755', 'sr-times', self.s.state_home)
        self.s.gsettings('set', 'max-age-days', '7')
        self.s.gsettings('set', 'excluded-apps', f"['{C}']")
        future = 2**63 // 10**6 + 5          # seconds; in µs, past 2^63
        deaf = Simulator(self.s, listening=False)
        deaf.memory = {A: {'1': {'saved_at': future * 10**6, 'flatpak': False, 'payload': b''}},
                       B: {'1': {'saved_at': now_us() - 60 * 10**6, 'flatpak': False,
                                 'payload': b''}}}
        deaf.start_policyd_after_purge(C)
        self.assertEqual(os.stat(deaf.gtk_path(A, '1')).st_mtime_ns // 10**9, future)

        # Retention kept it, and the listing gives the clamped time.
        year_9999_us = 253402300799 * 10**6
        listing = self.s.list_state()
        self.assertEqual(listing[A]['last-saved'], year_9999_us)
        self.assertEqual(listing[A]['state'], 'valid')
        self.assertEqual(listing[B]['state'], 'valid')
        # After a clear, an owner that did not listen writes both back: B's
        # is from before the clear point, A's says it is from after it.
        self.s.clear()
        self.assertEqual(self.s.list_state(), {})
        deaf.write_back()
        # B's entry in the session file too (its time is the file's).
        before_clear = (now_us() - 60 * 10**6) / 1e6
        os.utime(deaf.session_path, (before_clear, before_clear))
        listing = self.s.list_state()
        self.assertEqual(listing[B]['state'], 'cleared')
        self.assertEqual(listing[A]['state'], 'valid')
        self.assertEqual(listing[A]['last-saved'], year_9999_us)
        self.assertAlive()

    def test_full_file_system(self):
        self.mount('-t', 'tmpfs', '-o', 'size=256k,mode=0755', 'sr-full', self.s.state_home)
        sim = Simulator(self.s)
        self.s.start_policyd()
        sim.save(A)
        sim.save(B)
        filler = os.path.join(self.s.state_home, 'filler')
        try:
            with open(filler, 'wb') as f:
                while True:
                    f.write(b'\0' * 4096)
                    f.flush()
        except OSError:
            pass
        before = files_under(self.s.home)
        message = self.assertDBusError('Failed', self.s.clear, [A])
        self.assertIn('No space left on device', message)
        self.assertEqual(files_under(self.s.home), before)
        self.assertEqual(sim.restore(A, LAUNCH), (ALLOW, 'allowed'))
        self.assertAlive()
        # Room again: the clear goes through.
        os.unlink(filler)
        self.assertEqual(self.s.clear([A])['apps'], [A])
        self.assertEqual(sorted(self.s.list_state()), [B])
