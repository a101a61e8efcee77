"""polkit through the real polkitd, on the private system bus, reading the
project's .policy and our .rules files. polkitd only reads its fixed
directories, so it runs in a mount namespace where those directories are
bind-mounted from the test's own; nothing on the machine is changed.

Without logind every subject is in no session, so polkit applies
allow_any; and it authorizes uid 0 for everything, so the client runs as
nobody (65534)."""
import os
import subprocess
import time
import unittest

from srtest import BUS_NAME, NOBODY, OBJECT_PATH, IFACE, PolicydTestCase, RealPolkit

ALLOW_NOBODY = '''polkit.addRule(function(action, subject) {
    if (action.id.indexOf("org.gnome.SessionRestore.") == 0 && subject.user == "nobody")
        return polkit.Result.YES;
});
'''
DENY_CONFIGURE = '''polkit.addRule(function(action, subject) {
    if (action.id == "org.gnome.SessionRestore.configure" && subject.user == "nobody")
        return polkit.Result.NO;
});
'''


@unittest.skipUnless(os.geteuid() == 0, 'needs root to run polkitd in a mount namespace')
class RealPolkitTest(PolicydTestCase):
    polkit = None

    def setUp(self):
        super().setUp()
        self.polkitd = RealPolkit(self.s)
        self.addCleanup(self.polkitd.stop)

    def write_rules(self, name, text):
        self.polkitd.write_rules(name, text)

    def call_as(self, user, method, *args):
        command = ['gdbus', 'call', '--session', '--dest', BUS_NAME, '--object-path', OBJECT_PATH,
                   '--method', f'{IFACE}.{method}', *args]
        if user == 'nobody':
            command = NOBODY + command
        env = {'DBUS_SESSION_BUS_ADDRESS': self.s.env['DBUS_SESSION_BUS_ADDRESS'],
               'PATH': self.s.env['PATH']}
        result = subprocess.run(command, env=env, capture_output=True, text=True, cwd='/')
        return result.stdout.strip(), result.stderr.strip()

    def set_as(self, user, key, value):
        return self.call_as(user, 'SetSetting', key, value)

    def assertNotAllowed(self, result):
        self.assertEqual(result[0], '')
        self.assertIn('org.gnome.SessionRestore.Error.NotAllowed', result[1])

    def wait_for(self, user, key, value, expect_allowed, timeout=15):
        """polkitd reloads rules on its own time; ask until it answers as
        expected or the time is up."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.set_as(user, key, value)
            if (result[0] == '()') == expect_allowed or time.monotonic() > deadline:
                return result
            time.sleep(0.2)

    def test_shipped_defaults(self):
        # allow_any is "no" for all three actions: a caller outside an
        # active session is refused; the hot path needs no polkit at all.
        self.assertNotAllowed(self.set_as('nobody', 'max-age-days', '<7>'))
        self.assertNotAllowed(self.call_as('nobody', 'SetAppExcluded', 'org.example.App', 'true'))
        self.assertEqual(self.call_as('nobody', 'CheckSave', 'org.example.App'),
                         ("(uint32 1, 'allowed')", ''))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        # uid 0 is always authorized by polkit.
        self.assertEqual(self.set_as('root', 'max-age-days', '<7>'), ('()', ''))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)

    def test_rule_that_says_yes_then_one_that_says_no(self):
        self.write_rules('50-allow.rules', ALLOW_NOBODY)
        self.assertEqual(self.wait_for('nobody', 'max-age-days', '<7>', True), ('()', ''))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)

        # An earlier file wins: its NO overrides the YES.
        self.write_rules('10-deny.rules', DENY_CONFIGURE)
        # Waits writing the value it has: a write let through before the
        # reload changes nothing.
        self.assertNotAllowed(self.wait_for('nobody', 'max-age-days', '<7>', False))
        self.assertNotAllowed(self.set_as('nobody', 'max-age-days', '<90>'))
        self.assertNotAllowed(self.call_as('nobody', 'SetAppExcluded', 'org.example.App', 'true'))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
