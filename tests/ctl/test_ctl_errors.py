"""Named errors become one-line messages and distinct exit statuses: a
locked key, polkit's refusal (mock and the real polkitd), polkit gone, the
service absent (and started by D-Bus activation when it can be)."""
import json
import os
import subprocess
import time
import unittest

from ctltest import FAILED, INVALID, LOCKED, NOT_ALLOWED, OK, UNAVAILABLE, CtlTestCase
from simulator import Simulator
from srtest import (BUS_NAME, DESKTOP_SCHEMA, IFACE, OBJECT_PATH, POLICYD, PYTHON, Gio, GLib,
                    RealPolkit, files_under)

A = 'org.example.Alpha'

DENY_NOBODY = '''polkit.addRule(function(action, subject) {
    if (action.id.indexOf("org.gnome.SessionRestore.") == 0 && subject.user == "nobody")
        return polkit.Result.NO;
});
'''


class LockedTest(CtlTestCase):
    site = {'max-age-days': 1, 'excluded-apps': ['org.example.Locked']}
    locks = ('max-age-days', 'excluded-apps')

    def test_locked_key(self):
        result = self.assertCtl(LOCKED, 'set', 'max-age-days', '90')
        self.assertEqual(result.stderr, 'session-restore-ctl: “max-age-days” is locked by the administrator\n')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 1)
        self.assertCtl(LOCKED, 'exclude', A)
        self.assertCtl(LOCKED, 'include', 'org.example.Locked')
        self.assertEqual(self.s.gsettings_value('excluded-apps'), ['org.example.Locked'])
        # Unlocked keys still change.
        self.assertCtl(OK, 'set', 'restore-on-launch', 'false')

    def test_check_names_the_lock(self):
        out = self.ctl('check', 'org.example.Locked').stdout
        self.assertIn('(“excluded-apps”, locked by the administrator)', out)


class AdminExcludedTest(CtlTestCase):
    site = {'admin-excluded-apps': ['firefox-esr']}
    locks = ('admin-excluded-apps',)

    def test_include_of_an_admin_excluded_app_is_locked(self):
        result = self.assertCtl(LOCKED, 'include', 'firefox-esr')
        self.assertIn('turned off by the administrator', result.stderr)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])

    def test_ids_without_a_dot(self):
        self.assertCtl(OK, 'exclude', 'vlc')
        self.assertEqual(self.s.gsettings_value('excluded-apps'), ['vlc'])
        self.assertEqual(self.ctl('check', 'vlc').status, 1)
        result = self.assertCtl(INVALID, 'exclude', 'vlc.desktop')
        self.assertIn('without “.desktop”', result.stderr)


class PolkitMockTest(CtlTestCase):
    def test_refusals_change_nothing(self):
        sim = Simulator(self.s)
        sim.save(A)
        before = files_under(self.s.home)
        self.s.set_allowed([])
        for args, action in ((('set', 'max-age-days', '7'), 'configure'),
                             (('exclude', A), 'configure'),
                             (('clear',), 'clear'),
                             (('clear', '--yes', A), 'clear'),
                             (('list',), 'list')):
            result = self.assertCtl(NOT_ALLOWED, *args)
            self.assertIn(f'org.gnome.SessionRestore.{action}', result.stderr)
        self.assertEqual(files_under(self.s.home), before)
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])

    def test_polkit_unreachable(self):
        self.s.polkit.terminate()
        self.s.polkit.wait(10)
        result = self.ctl('set', 'max-age-days', '7')
        # policyd names this NotAllowed or Unavailable; either way it is
        # refused, said in one line, and nothing changed.
        self.assertIn(result.status, (NOT_ALLOWED, UNAVAILABLE), result)
        self.assertRegex(result.stderr, r'^session-restore-ctl: .*polkit.*\n$')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)


class ErrorMappingTest(CtlTestCase):
    """Each named error of the contract, from a stand-in service that
    answers SetAppExcluded with the error its app id names."""
    start = False

    def test_each_named_error_has_its_status(self):
        mock = subprocess.Popen([PYTHON, '-m', 'dbusmock', BUS_NAME, OBJECT_PATH, IFACE],
                                env=self.s.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (mock.terminate(), mock.wait(10)))
        self.s.wait_for_name(self.s.bus, BUS_NAME)
        self.s.bus.call_sync(BUS_NAME, OBJECT_PATH, 'org.freedesktop.DBus.Mock', 'AddMethod',
                             GLib.Variant('(sssss)', (IFACE, 'SetAppExcluded', 'sb', '',
                                          "raise dbus.exceptions.DBusException('told to fail: ' + args[0], "
                                          "name='org.gnome.SessionRestore.Error.' + args[0].split('.')[-1])")),
                             None, Gio.DBusCallFlags.NONE, 5000, None)
        for name, status in (('InvalidArgs', INVALID), ('Locked', LOCKED), ('NotAllowed', NOT_ALLOWED),
                             ('Unavailable', UNAVAILABLE), ('Failed', FAILED)):
            result = self.assertCtl(status, 'exclude', f'org.example.{name}')
            self.assertEqual(result.stderr, f'session-restore-ctl: told to fail: org.example.{name}\n')


@unittest.skipUnless(os.geteuid() == 0, 'needs root to run polkitd in a mount namespace')
class RealPolkitTest(CtlTestCase):
    polkit = None

    def setUp(self):
        super().setUp()
        self.polkitd = RealPolkit(self.s)
        self.addCleanup(self.polkitd.stop)

    def test_nobody_is_allowed_then_refused_by_a_rule(self):
        # The shipped defaults allow a caller outside an active session
        # (the user's own settings, from SSH, cron or a timer).
        self.assertCtl(OK, 'set', 'max-age-days', '7', user='nobody')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)
        self.assertCtl(OK, 'list', user='nobody')
        # Checks need no polkit.
        self.assertCtl(OK, 'check', A, user='nobody')

        self.polkitd.write_rules('10-deny.rules', DENY_NOBODY)
        deadline = time.monotonic() + 15
        while True:
            result = self.ctl('set', 'max-age-days', '9', user='nobody')
            if result.status != OK or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertEqual(result.status, NOT_ALLOWED, result.stderr)
        # The refusal says why, in words, and names the action.
        self.assertIn("Not allowed by the system's polkit rules (org.gnome.SessionRestore.configure)",
                      result.stderr)
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)
        self.assertCtl(NOT_ALLOWED, 'list', user='nobody')
        # Unlike "gsettings reset", "reset" asks polkit too.
        self.assertCtl(NOT_ALLOWED, 'reset', 'max-age-days', user='nobody')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)
        self.assertCtl(NOT_ALLOWED, 'reset-crash-guard', A, user='nobody')


class ServiceAbsentTest(CtlTestCase):
    start = False

    def test_absent(self):
        for args in ((), ('status',), ('status', '--json'), ('list', '--json'),
                     ('set', 'enabled', 'false'), ('reset', 'enabled'), ('check', A),
                     ('check', '--json', A), ('clear', '--yes'), ('monitor',), ('exclude', A),
                     ('reset-crash-guard', A)):
            result = self.assertCtl(UNAVAILABLE, *args)
            self.assertIn('The Session Restore service (org.gnome.SessionRestore.Policy) is not '
                          'running and could not be started', result.stderr)
        # A script reading JSON gets JSON, and the exit status.
        doc = json.loads(self.ctl('status', '--json').stdout)
        self.assertEqual(doc['service'], {
            'state': 'missing', 'bus_name': None, 'pid': None, 'version': None})
        self.assertEqual(self.s.gsettings_value('enabled'), True)

    def test_activation_is_tried_first(self):
        services = os.path.join(self.s.data_home, 'dbus-1', 'services')
        os.makedirs(services)
        with open(os.path.join(services, 'org.gnome.SessionRestore.Policy.service'), 'w') as f:
            f.write(f'[D-BUS Service]\nName=org.gnome.SessionRestore.Policy\nExec={POLICYD}\n')
        out = self.assertCtl(OK, 'status').stdout
        self.assertIn('Service:          running', out)
        self.assertIsNotNone(self.s.owner_pid())
        self.addCleanup(lambda: os.kill(self.s.owner_pid(), 15) if self.s.owner_pid() else None)


class ServiceAbsentSettingsTest(CtlTestCase):
    start = False
    site = {'max-age-days': 5}
    locks = ('max-age-days',)

    def test_settings_read_from_gsettings(self):
        # What the service will read, marked as such: the schema's keys,
        # the administrator's lock, and GNOME's switch ANDed with ours.
        self.s.gsettings('set', 'login-restore', 'ask')
        self.s.gsettings('set', 'excluded-apps', f"['{A}', 'org.example.Beta']")
        self.s.gsettings('set', 'save-restore', 'false', schema=DESKTOP_SCHEMA)
        out = self.assertCtl(UNAVAILABLE, 'status').stdout
        self.assertTrue(out.startswith('Service:          not running\n'
                                       'Settings:         read from the settings; the service '
                                       'is not running\n\n'), out)
        lines = {line.split()[0]: line for line in out.splitlines()[3:]}
        self.assertRegex(lines['enabled'], r'^enabled +false$')
        self.assertRegex(lines['login-restore'], r'^login-restore +ask$')
        self.assertRegex(lines['excluded-apps'], rf'^excluded-apps +{A}, org\.example\.Beta$')
        self.assertRegex(lines['max-age-days'], r'^max-age-days +5 +locked by the administrator$')
        doc = json.loads(self.assertCtl(UNAVAILABLE, 'status', '--json').stdout)
        self.assertEqual(doc['settings_from'], 'settings')
        self.assertEqual(doc['settings']['enabled'], {'value': False, 'locked': False})
        self.assertEqual(doc['settings']['max-age-days'], {'value': 5, 'locked': True})
        self.assertEqual(len(doc['settings']), 9)
        # get answers, and says where from.
        result = self.assertCtl(OK, 'get', 'login-restore')
        self.assertEqual(result.stdout, 'ask\n')
        self.assertEqual(result.stderr, 'session-restore-ctl: read from the settings; the service '
                                        'is not running\n')
        self.assertEqual(json.loads(self.assertCtl(OK, 'get', '--json', 'max-age-days').stdout),
                         {'key': 'max-age-days', 'value': 5, 'locked': True})
        self.assertEqual(self.assertCtl(OK, 'get', 'enabled').stdout, 'false\n')
        self.assertIsNone(self.s.owner_pid())
