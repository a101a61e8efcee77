"""./tools/run, end to end, as a person would start it: from a clean copy
of the source tree (the files git tracks, as they are in the working tree;
no _run/), headless. While it runs: a setting changes through the service
(the real polkitd on the demo's system bus authorizes it), the sample apps
are listed, they registered through session-restore-portal, which is the
one consumer policyd names, the four lines it prints for another terminal
work (the last, a Register by hand), and the three screenshots are there. Stopping it leaves nothing running.

tools/run is pointed at the build under test (SR_RUN_BUILD_DIR) rather
than building the copy: the script itself runs, only the build is shared.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

from srtest import BUILD_DIR, SOURCE_DIR

SAMPLE_APPS = {'org.gnome.TextEditor', 'org.gnome.Nautilus', 'org.gnome.Console',
               'org.mozilla.firefox', 'org.gnome.Calculator', 'org.gnome.Totem'}
READY_TIMEOUT = 240


def copy_tracked_files(source, target):
    """The files git tracks, as they are now; the whole tree but build and
    run directories when this is no git checkout (a release tarball)."""
    listing = subprocess.run(['git', '-C', source, 'ls-files', '-z'], capture_output=True)
    if listing.returncode == 0 and listing.stdout:
        for name in listing.stdout.decode().split('\0'):
            path = os.path.join(source, name)
            if name and os.path.isfile(path):
                os.makedirs(os.path.dirname(os.path.join(target, name)), exist_ok=True)
                shutil.copy2(path, os.path.join(target, name))
    else:
        shutil.copytree(source, target, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns('_build*', 'build*', '_run', '.git'))


def can_start_polkitd():
    if os.geteuid() == 0:
        return True
    return subprocess.run(['sudo', '-n', 'true'], capture_output=True).returncode == 0


class RunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # 0700, as home directories are on Debian 12: polkitd (the polkitd
        # user) must not need to reach into the checkout.
        cls.root = tempfile.mkdtemp(prefix='sr-run-')
        cls.top = os.path.join(cls.root, 'session-restore')
        copy_tracked_files(SOURCE_DIR, cls.top)
        env = {k: v for k, v in os.environ.items()
               if k not in ('DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'DBUS_SESSION_BUS_ADDRESS',
                            'DBUS_SYSTEM_BUS_ADDRESS', 'PYTHONPATH', 'SR_BUILD_DIR')}
        env['SR_RUN_BUILD_DIR'] = os.path.abspath(BUILD_DIR)
        cls.output = []
        cls.demo = subprocess.Popen([os.path.join(cls.top, 'tools', 'run'), '--headless'],
                                   cwd=cls.top, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, start_new_session=True)
        cls.ready = threading.Event()
        cls.reader = threading.Thread(target=cls.read_output, daemon=True)
        cls.reader.start()
        if not cls.ready.wait(READY_TIMEOUT):
            cls.stop()
            raise AssertionError('tools/run did not say "Ready":\n' + cls.text())
        cls.env_file = os.path.join(cls.top, '_run', 'env')

    @classmethod
    def read_output(cls):
        for line in cls.demo.stdout:
            cls.output.append(line.rstrip('\n'))
            if line.startswith('Ready:'):
                cls.ready.set()

    @classmethod
    def text(cls):
        return '\n'.join(cls.output)

    @classmethod
    def stop(cls):
        if cls.demo.poll() is None:
            os.killpg(cls.demo.pid, signal.SIGTERM)
        try:
            cls.demo.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(cls.demo.pid, signal.SIGKILL)
            cls.demo.wait(10)

    @classmethod
    def tearDownClass(cls):
        cls.stop()
        for line in cls.output:
            print(f'# tools/run: {line}')
        shutil.rmtree(cls.root, ignore_errors=True)

    def in_demo(self, command):
        """A shell command with the demo's environment, as a person pastes it."""
        return subprocess.run(['bash', '-c', f'. {self.env_file}; {command}'],
                              capture_output=True, text=True, timeout=60)

    def test_a_setting_changes_through_the_service(self):
        result = self.in_demo('session-restore-ctl set login-restore ask')
        if can_start_polkitd():
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(self.in_demo('session-restore-ctl get login-restore').stdout.strip(), 'ask')
            self.assertNotIn('read-only', self.text())
            restored = self.in_demo('gdbus call --session --dest org.gnome.SessionRestore.Policy '
                                    '--object-path /org/gnome/SessionRestore/Policy --method '
                                    'org.gnome.SessionRestore.Policy.SetSetting '
                                    "login-restore \"<'always'>\"")
            self.assertEqual(restored.returncode, 0, restored.stderr)
            self.assertEqual(self.in_demo('gsettings get org.gnome.SessionRestore login-restore')
                             .stdout.strip(), "'always'")
        else:
            # No way to start polkitd: one line says so, and changes fail.
            self.assertEqual(len([l for l in self.output if 'runs read-only' in l]), 1, self.text())
            self.assertNotEqual(result.returncode, 0)

    def test_b_the_portal_backend_is_what_consults_policyd(self):
        """The sample apps registered through session-restore-portal: the
        panel's main page says "Used by Session Restore portal" (the name of
        its desktop file), and names no Python (the seed and the apps ask
        policyd nothing themselves)."""
        self.assertIn('The sample apps registered through session-restore-portal: '
                      'org.gnome.TextEditor launch', self.text())
        result = self.in_demo('gdbus call --session --dest org.gnome.SessionRestore.Policy '
                              '--object-path /org/gnome/SessionRestore/Policy --method '
                              'org.freedesktop.DBus.Properties.Get '
                              'org.gnome.SessionRestore.Policy Consumers')
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(re.findall(r"\('([^']*)'", result.stdout), ['session-restore-portal'],
                         result.stdout)
        self.assertIn('The main page says: Used by Session Restore portal\n', self.text() + '\n')

    def test_gnome_switch_is_there(self):
        """The demo is a current GNOME desktop's world: GNOME's own switch
        exists (tests/lib/fixtures), and the master switch is both keys."""
        result = self.in_demo('gsettings get org.gnome.desktop.session save-restore')
        self.assertEqual((result.returncode, result.stdout.strip()), (0, 'true'), result.stderr)
        self.assertNotIn("save-restore switch is missing", self.text())

    def test_the_sample_apps_are_listed(self):
        result = self.in_demo('session-restore-ctl list --json')
        if not can_start_polkitd():
            return   # listing is a polkit action too: covered by the read-only line above
        self.assertEqual(result.returncode, 0, result.stderr)
        apps = {app['app_id']: app for app in json.loads(result.stdout)['apps']}
        self.assertEqual(set(apps), SAMPLE_APPS)
        self.assertIn('Sample data', self.text())
        # The crashed app is held back by the crash-loop guard.
        check = self.in_demo('session-restore-ctl check org.gnome.Console --reason recover')
        self.assertIn('crash-loop', check.stdout)

    def test_the_printed_lines_work(self):
        lines = [l.strip() for l in self.output if l.strip().startswith(f'. {self.env_file};')]
        self.assertEqual(len(lines), 4, self.text())
        if not can_start_polkitd():
            return
        results = [subprocess.run(['bash', '-c', line], capture_output=True, text=True, timeout=60)
                   for line in lines]
        for line, result in zip(lines[:2], results):
            self.assertEqual(result.returncode, 0, f'{line}: {result.stderr}')
        # The third shows what the second changed: the answer is "ask"
        # (exit status 2, as session-restore-ctl(1) says).
        self.assertEqual(results[2].returncode, 2, f'{lines[2]}: {results[2].stderr}')
        self.assertTrue(results[2].stdout.startswith('ask'), results[2].stdout)
        # The Register by hand: the backend's registration, with an
        # instance id (TextEditor quit cleanly, so LAUNCH, uint32 1).
        self.assertEqual(results[3].returncode, 0, f'{lines[3]}: {results[3].stderr}')
        self.assertRegex(results[3].stdout, r"'restore-reason': <uint32 1>.*'instance-id': <'[0-9a-f]{12}'>")

    def test_the_screenshots_and_the_ready_mark(self):
        # Both are there once it says Ready, before it waits for Ctrl-C.
        self.assertTrue(os.path.exists(os.path.join(self.top, '_run', 'ready')), self.text())
        for what, name in (('main page', 'main'), ('Apps page', 'apps'), ('Clear dialog', 'clear')):
            path = os.path.join(self.top, '_run', 'screenshots', f'{name}.png')
            self.assertIn(f'Screenshot of the {what}: {path}', self.output, self.text())
            with open(path, 'rb') as f:
                self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n')

    def test_zz_stopping_leaves_nothing_running(self):
        pids = [int(m.group(1)) for m in map(re.compile(r'\(pid (\d+)\)').search, self.output) if m]
        self.assertTrue(pids, self.text())
        with open(self.env_file) as f:
            system_bus_dir = re.search(r"DBUS_SYSTEM_BUS_ADDRESS='unix:path=([^,']+)/bus", f.read()).group(1)
        self.assertTrue(os.path.isdir(system_bus_dir))
        type(self).stop()
        self.assertIsNotNone(self.demo.poll())
        deadline = time.monotonic() + 10
        while True:
            left = []
            for pid in filter(str.isdigit, os.listdir('/proc')):
                try:
                    with open(f'/proc/{pid}/environ', 'rb') as f:
                        if self.top.encode() + b'/_run' in f.read():
                            left.append(pid)
                except OSError:
                    pass
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertEqual(left, [], 'processes of the demo still running')
        self.assertFalse(os.path.exists(system_bus_dir), 'the system bus directory is left behind')
