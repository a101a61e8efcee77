"""The administrator help, followed literally: install into a temporary
prefix, take the shell commands of the installed "Lock settings with dconf"
page (its <screen> blocks, XIncludes resolved), and run them in the page's
order as root: the profile, the folders, each example's keyfile and locks
file, dconf update. Then check what the page promises, in a session that
uses the installed policyd and schema: the locked values, LockedSettings,
that saved state the settings no longer allow is deleted within about a
second, and that SetAppExcluded on an admin-excluded app is Locked.

The real /etc is not touched: every command (and policyd, and gsettings)
runs in a mount namespace of its own in which a temporary directory is
bind-mounted over /etc/dconf, so the page's paths are used as they are
printed; and the test refuses to run a command that names anything in /etc
but /etc/dconf. Needs root (mount namespaces) and an existing /etc/dconf
to mount over."""
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

import srtest
from srtest import ERROR, GLib, Session, installed_project, now_us, remote_error, USEC_PER_DAY
from simulator import Simulator

MALLARD = '{http://projectmallard.org/1.0/}'
TERMINAL, FIREFOX, OTHER = 'org.gnome.Terminal', 'org.mozilla.firefox', 'org.example.Other'


def page_commands(path):
    """{'steps': [...], 'note': [...], section id: [...]}: the text of each
    <screen>, in order, with XIncludes resolved by libxml2, as yelp does
    (Mallard's XInclude namespace is the 2003 one, which Python's
    ElementInclude does not know)."""
    expanded = subprocess.run(['xmllint', '--xinclude', '--nonet', path], check=True,
                              capture_output=True).stdout
    tree = ET.ElementTree(ET.fromstring(expanded))
    blocks = {}

    def walk(element, where):
        tag = element.tag.replace(MALLARD, '')
        if tag == 'section':
            where = element.get('id')
        elif tag in ('steps', 'note'):
            where = tag
        if tag == 'screen':
            blocks.setdefault(where, []).append(''.join(element.itertext()))
            return
        for child in element:
            walk(child, where)
    walk(tree.getroot(), None)
    return blocks


@unittest.skipUnless(os.geteuid() == 0 and os.path.isdir('/etc/dconf'),
                     'needs root and /etc/dconf to run the page in a mount namespace')
class LockdownPageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix='sr-admin-pages-')
        cls.prefix = installed_project(cls.root)
        cls.page = os.path.join(cls.prefix, 'share', 'help', 'C', 'session-restore',
                                'admin-lockdown.page')
        cls.blocks = page_commands(cls.page)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root, ignore_errors=True)

    def setUp(self):
        self.s = Session()
        self.addCleanup(self.s.close)
        self.etc_dconf = os.path.join(self.s.root, 'etc', 'dconf')
        os.makedirs(self.etc_dconf)
        # The machine's dconf profile, as every program finds it (no
        # DCONF_PROFILE); the installed schema, beside GNOME's
        # org.gnome.desktop.session (the system's) with its save-restore
        # switch.
        del self.s.env['DCONF_PROFILE']
        self.s.env['GSETTINGS_SCHEMA_DIR'] = os.path.join(self.prefix, 'share', 'glib-2.0', 'schemas')
        self.namespace = ['unshare', '--mount', '--propagation', 'private', 'sh', '-ec',
                          'mount --bind "$0" /etc/dconf && exec "$@"', self.etc_dconf]
        self.sim = Simulator(self.s)

    # -- the page ----------------------------------------------------------

    def run_commands(self, text, check=True):
        for path in re.findall(r'/etc/\S*', text):
            self.assertTrue(path.startswith('/etc/dconf/'), f'the page names {path}')
        result = subprocess.run(self.namespace + ['bash', '-e', '-c', text], env=self.s.env,
                                capture_output=True, text=True, cwd='/')
        if check:
            self.assertEqual(result.returncode, 0, f'{text}\n{result.stderr}')
        return result

    def follow_page(self, *sections, before_update=None):
        """The steps in order, with the chosen examples' commands where the
        page says to write them (before "dconf update", the last step).
        Starts policyd once the profile exists, as at a login after it."""
        steps = self.blocks['steps']
        self.assertEqual(steps[-1].strip(), 'dconf update')
        self.run_commands(steps[0])
        self.start_policyd()
        if before_update:
            before_update()
        for text in steps[1:-1]:
            self.run_commands(text)
        for section in sections:
            for text in self.blocks[section]:
                self.run_commands(text)
        self.run_commands(steps[-1])
        self.updated_at = time.monotonic()

    def start_policyd(self):
        srtest.POLICYD = os.path.join(self.prefix, 'libexec', 'session-restore-policyd')
        try:
            self.s.start_policyd(prefix=self.namespace)
        finally:
            srtest.POLICYD = os.path.join(srtest.BUILD_DIR, 'policyd', 'session-restore-policyd')

    def gsettings(self, *args):
        result = subprocess.run(self.namespace + ['gsettings', *args], env=self.s.env,
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout.strip()

    def within_about_a_second(self, predicate, what):
        """The page: "within about a second". Two, on shared machines."""
        deadline = self.updated_at + 2 * srtest.SLOW
        while not predicate():
            self.assertLess(time.monotonic(), deadline, f'{what}, after dconf update')
            self.s.settle(0.02)

    def assertLocked(self, method, *args):
        with self.assertRaises(GLib.Error) as ctx:
            self.s.call(method, *args)
        self.assertEqual(remote_error(ctx.exception), ERROR + 'Locked')

    def save_some_state(self):
        for app in (TERMINAL, FIREFOX, OTHER):
            self.assertEqual(self.sim.save(app), 'allowed')
        self.sim.save(OTHER, instance='old', when=now_us() - 3 * USEC_PER_DAY)

    def saved(self, app, instance='1'):
        return os.path.exists(self.sim.gtk_path(app, instance))

    # -- the steps ---------------------------------------------------------

    def test_profile_created_when_there_is_none(self):
        self.run_commands(self.blocks['steps'][0])
        with open(os.path.join(self.etc_dconf, 'profile', 'user')) as f:
            created = f.read()
        with open(os.path.join(os.path.dirname(self.page), 'examples', 'profile-user')) as f:
            self.assertEqual(created, f.read())

    def test_profile_step_adds_to_an_existing_profile(self):
        os.makedirs(os.path.join(self.etc_dconf, 'profile'))
        profile = os.path.join(self.etc_dconf, 'profile', 'user')
        with open(profile, 'w') as f:
            f.write('user-db:user\nsystem-db:local\n')
        for _ in range(2):    # and twice is once
            self.run_commands(self.blocks['steps'][0])
        with open(profile) as f:
            self.assertEqual(f.read(), 'user-db:user\nsystem-db:local\nsystem-db:site\n')

    # -- each example, and all three together ----------------------------

    def test_off_for_everyone(self):
        self.follow_page('off', before_update=self.save_some_state)
        self.within_about_a_second(lambda: self.s.prop('Enabled') is False, 'switched off')
        self.assertEqual(self.s.prop('LockedSettings'), ['enabled'])
        self.within_about_a_second(lambda: not any(self.saved(a) for a in (TERMINAL, FIREFOX, OTHER)),
                                   'saved state deleted')
        self.assertEqual(self.gsettings('get', 'org.gnome.SessionRestore', 'enabled'), 'false')
        self.assertEqual(self.gsettings('writable', 'org.gnome.SessionRestore', 'enabled'), 'false')
        self.assertLocked('SetSetting', 'sv', 'enabled', GLib.Variant('b', True))

    def test_these_apps_never(self):
        self.follow_page('never', before_update=self.save_some_state)
        self.within_about_a_second(lambda: self.s.prop('LockedSettings') == ['admin-excluded-apps'],
                                   'locked')
        self.assertEqual(self.s.prop('AdminExcludedApps'), [TERMINAL, FIREFOX])
        self.within_about_a_second(lambda: not self.saved(TERMINAL) and not self.saved(FIREFOX),
                                   "the excluded apps' saved state deleted")
        self.assertTrue(self.saved(OTHER))
        for app in (TERMINAL, FIREFOX):
            self.assertEqual(self.s.check_save(app), (0, 'excluded'))
            self.assertLocked('SetAppExcluded', 'sb', app, False)
            self.assertEqual(self.s.check_save(app), (0, 'excluded'))
        self.assertEqual(self.s.check_save(OTHER), (1, 'allowed'))

    def test_keep_one_day(self):
        self.follow_page('one-day', before_update=self.save_some_state)
        self.within_about_a_second(lambda: self.s.prop('MaxAgeDays') == 1, 'one day')
        self.assertEqual(self.s.prop('LockedSettings'), ['max-age-days'])
        self.within_about_a_second(lambda: not self.saved(OTHER, 'old'), 'old state deleted')
        self.assertTrue(self.saved(OTHER))
        self.assertLocked('SetSetting', 'sv', 'max-age-days', GLib.Variant('i', 30))

    def test_all_three_together(self):
        self.follow_page('off', 'never', 'one-day', before_update=self.save_some_state)
        self.within_about_a_second(lambda: len(self.s.prop('LockedSettings')) == 3, 'locked')
        self.assertEqual(sorted(self.s.prop('LockedSettings')),
                         ['admin-excluded-apps', 'enabled', 'max-age-days'])
        self.assertIs(self.s.prop('Enabled'), False)
        self.assertEqual(self.s.prop('AdminExcludedApps'), [TERMINAL, FIREFOX])
        self.assertEqual(self.s.prop('MaxAgeDays'), 1)
        self.within_about_a_second(lambda: not any(self.saved(a) for a in (TERMINAL, FIREFOX, OTHER)),
                                   'saved state deleted')
        self.assertLocked('SetAppExcluded', 'sb', TERMINAL, False)
        self.assertEqual(sorted(os.listdir(os.path.join(self.etc_dconf, 'db', 'site.d'))),
                         ['10-session-restore-off', '20-session-restore-apps',
                          '30-session-restore-retention', 'locks'])

    def test_when_policyd_is_not_running(self):
        """dconf update while no policyd runs: the deletions happen when it
        next starts, once its first calls stop, at most 30 s on."""
        steps = self.blocks['steps']
        self.run_commands(steps[0])
        self.start_policyd()
        self.save_some_state()
        self.s.stop_policyd()
        for text in steps[1:-1] + self.blocks['never']:
            self.run_commands(text)
        self.run_commands(steps[-1])
        self.assertTrue(self.saved(TERMINAL))
        self.start_policyd()
        started = time.monotonic()
        self.s.wait_until(lambda: not self.saved(TERMINAL) and not self.saved(FIREFOX), timeout=5,
                          what="the excluded apps' state deleted at start-up")
        self.assertLess(time.monotonic() - started, 5 * srtest.SLOW)
        self.assertTrue(self.saved(OTHER))

    # -- the warning ---------------------------------------------------------

    def test_a_mistyped_value_locks_the_default_and_the_checks_show_it(self):
        steps = self.blocks['steps']
        self.run_commands(steps[0])
        for text in steps[1:-1]:
            self.run_commands(text)
        for text in self.blocks['one-day']:
            # The mistake the warning names: a string where an integer belongs.
            self.run_commands(text.replace('max-age-days=1', "max-age-days='1'"))
        self.run_commands(steps[-1])
        check = self.run_commands(self.blocks['note'][0]).stdout.splitlines()
        self.assertEqual(check[0], '30')             # gsettings get: the default
        self.assertEqual(check[1], 'false')          # gsettings writable: locked
        self.assertIn("max-age-days='1'", check)     # dconf dump: what the database holds

        # A value that does not parse: dconf update fails, the old database stays.
        site = os.path.join(self.etc_dconf, 'db', 'site')
        with open(site, 'rb') as f:
            before = f.read()
        for text in self.blocks['one-day']:
            self.run_commands(text.replace('max-age-days=1', 'max-age-days=one'))
        self.assertNotEqual(self.run_commands(steps[-1], check=False).returncode, 0)
        with open(site, 'rb') as f:
            self.assertEqual(f.read(), before)
