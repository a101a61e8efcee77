"""Nothing session-restore-ctl got from the bus reaches a terminal raw.

A Flatpak app names files in its own state directory as it likes; a
program's executable may have any name; a store drop-in's name is a file
name. Each of these reaches the tool's plain output (list, clear, status):
escape sequences in them would set the window title, erase a line and
forge "All clear.". The tool escapes control characters (C0, DEL, C1) as
C escapes in plain output; --json has its own escaping."""
import json
import os
import shutil
import subprocess
import tempfile

from ctltest import FAILED, OK, CtlTestCase, run_ctl
from simulator import Simulator
from srtest import BUS_NAME, IFACE, OBJECT_PATH

APP = 'org.example.Evil'
# Sets the window title, erases the line, returns to its start and prints
# a green "All clear."; then DEL and two C1 controls (CSI, NEL).
NASTY = '\x1b]0;pwned\x07\x1b[2K\r\x1b[32mAll clear.\x1b[0m\x7f\u009b2J\u0085'
SHOWN = '\\x1b]0;pwned\\a\\x1b[2K\\r\\x1b[32mAll clear.\\x1b[0m\\x7f\\xc2\\x9b2J\\xc2\\x85'
# What no output may hold: ESC, BEL, CR, DEL, the C1 controls in UTF-8.
RAW = [b'\x1b', b'\x07', b'\r', b'\x7f', '\u009b'.encode(), '\u0085'.encode()]


class TerminalTest(CtlTestCase):
    def assertClean(self, result, *, shows=None, where='stdout'):
        for stream in ('stdout', 'stderr'):
            data = getattr(result, stream)
            for byte in RAW:
                self.assertNotIn(byte, data, f'{stream} holds {byte!r}:\n{data!r}')
        if shows is not None:
            self.assertIn(shows.encode(), getattr(result, where))

    def ctl_raw(self, *args):
        return run_ctl(self.s, *args, raw=True)

    def flatpak_dir(self):
        path = os.path.join(self.s.home, '.var', 'app', APP, '.local', 'state')
        os.makedirs(path, exist_ok=True)
        return path

    def test_a_file_name_in_a_flatpak_apps_own_directory(self):
        sim = Simulator(self.s)
        self.assertEqual(sim.save(APP, instance=NASTY, flatpak=True), 'allowed')
        path = sim.gtk_path(APP, NASTY, flatpak=True)
        self.assertTrue(os.path.exists(path))
        # A directory of the store's pattern: clear leaves it and names it.
        os.mkdir(os.path.join(self.flatpak_dir(), f'{APP}@{NASTY}-dir.state'))

        result = self.ctl_raw('list')
        self.assertEqual(result.status, OK, result.stderr)
        self.assertClean(result, shows=APP)

        result = self.ctl_raw('clear', '--yes', APP)
        self.assertEqual(result.status, FAILED, result.stderr)
        self.assertClean(result, shows=f'{APP}@{SHOWN}-dir.state: not a regular file', where='stderr')
        self.assertFalse(os.path.exists(path))

        result = self.ctl_raw('clear', '--yes')
        self.assertEqual(result.status, FAILED, result.stderr)
        self.assertClean(result, shows=SHOWN, where='stderr')

    def test_a_store_drop_in_name(self):
        # A user's files store holds GTK state (a drop-in of the user's may
        # declare nothing else): one file that reads as GTK state and one
        # that does not, which the listing and clear name on stderr.
        directory = os.path.join(self.s.state_home, 'evil')
        os.makedirs(directory)
        with open(os.path.join(self.s.stores_dir, f'evil{NASTY}.store'), 'w') as f:
            f.write(f'[Store]\nDescription=Evil\nKind=files\nFormat=gtk\n'
                    'Directory=$XDG_STATE_HOME/evil\nPattern={app}@*.evil\n')
        good = os.path.join(directory, f'{APP}@1.evil')
        with open(good, 'wb') as f:
            f.write(Simulator(self.s).gtk_state(APP, '1', b'').get_data_as_bytes().get_data())
        bad = os.path.join(directory, f'{APP}@2.evil')
        with open(bad, 'wb') as f:
            f.write(b'x' * 100)
        self.s.stop_policyd()
        self.s.start_policyd()
        listing = self.s.list_state()
        self.assertEqual(listing[APP]['stores'], [f'evil{NASTY}'])

        # The file that does not parse is named on stderr, with its store.
        result = self.ctl_raw('list')
        self.assertEqual(result.status, FAILED, result.stderr)
        self.assertClean(result, shows=f'evil{SHOWN}')
        self.assertClean(result, shows=f'(store evil{SHOWN})', where='stderr')
        # JSON as it was: the name, escaped the JSON way.
        result = self.ctl_raw('list', '--json')
        self.assertClean(result)
        self.assertEqual(json.loads(result.stdout)['apps'][0]['stores'], [f'evil{NASTY}'])

        # What reads as GTK state goes; the other is left, and said so.
        result = self.ctl_raw('clear', '--yes')
        self.assertEqual(result.status, FAILED, result.stderr)
        self.assertClean(result, shows=f'evil{SHOWN}')
        self.assertFalse(os.path.exists(good))
        self.assertTrue(os.path.exists(bad))

    def test_a_consumers_program_name(self):
        # A program whose executable is named with escape sequences asks
        # policyd; "status" lists it among the programs that consult it.
        directory = tempfile.mkdtemp(prefix='sr-ctl-terminal-')
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        program = os.path.join(directory, f'consumer{NASTY}')
        shutil.copy(shutil.which('gdbus'), program)
        subprocess.run([program, 'call', '--session', '--dest', BUS_NAME, '--object-path', OBJECT_PATH,
                        '--method', f'{IFACE}.CheckSave', APP],
                       env=self.s.env, check=True, capture_output=True)
        self.assertIn(f'consumer{NASTY}', [name for name, _ in self.s.prop('Consumers')])

        result = self.ctl_raw('status')
        self.assertEqual(result.status, OK, result.stderr)
        self.assertClean(result, shows=f'consumer{SHOWN}')

    def test_app_ids_cannot_carry_controls(self):
        # App ids are letters, digits and "._-+": a file whose name would
        # give one with a control character is no entry of the store.
        with open(os.path.join(self.s.state_home, f'org.example.{NASTY}@1.state'), 'wb') as f:
            f.write(b'')
        self.assertEqual(self.s.list_state(), {})
        # excluded-apps holds whatever gsettings wrote; what the tool
        # prints of it is escaped, and the completion offers no such word.
        self.s.gsettings('set', 'excluded-apps', f"['{APP}', 'org.example.{NASTY}']")
        self.s.wait_until(lambda: len(self.s.prop('ExcludedApps')) == 2, what='ExcludedApps')
        result = self.ctl_raw('status')
        self.assertEqual(result.status, OK, result.stderr)
        self.assertClean(result, shows=APP)
        result = self.ctl_raw('_complete', 'excluded')
        self.assertEqual(result.stdout, f'{APP}\n'.encode())
