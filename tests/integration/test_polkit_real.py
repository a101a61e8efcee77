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

from srtest import BUILD_DIR, BUS_NAME, NOBODY, OBJECT_PATH, IFACE, PolicydTestCase, RealPolkit

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

AUTH_CONFIGURE = '''polkit.addRule(function(action, subject) {
    if (action.id == "org.gnome.SessionRestore.configure" && subject.user == "nobody")
        return polkit.Result.AUTH_ADMIN;
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
        # allow_any, allow_inactive and allow_active are "yes" for all
        # three actions: the user's own settings and state, from any
        # session (README, help "Who may change or clear").
        self.assertEqual(self.set_as('nobody', 'max-age-days', '<7>'), ('()', ''))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)
        self.assertEqual(self.call_as('nobody', 'CheckSave', 'org.example.App'),
                         ("(uint32 1, 'allowed')", ''))
        # uid 0 is always authorized by polkit.
        self.assertEqual(self.set_as('root', 'max-age-days', '<9>'), ('()', ''))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 9)

    def test_cron_like_caller_gets_the_documented_defaults(self):
        """As cron, SSH or a systemd timer run a job: a non-root uid, in no
        active local session (without logind, in no session at all: polkit
        applies allow_any), without a terminal, a display or an agent,
        using session-restore-ctl as the help's scripts do."""
        ctl = os.path.join(BUILD_DIR, 'ctl', 'session-restore-ctl')
        env = {'DBUS_SESSION_BUS_ADDRESS': self.s.env['DBUS_SESSION_BUS_ADDRESS'],
               'PATH': '/usr/bin:/bin', 'LANG': 'C', 'HOME': '/nonexistent'}

        def job(*args):
            return subprocess.run(['setsid', *NOBODY, ctl, *args], env=env, cwd='/',
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True)

        for args, check in ((('set', 'max-age-days', '7'), lambda: self.s.gsettings_value('max-age-days') == 7),
                            (('exclude', 'org.example.App'),
                             lambda: self.s.gsettings_value('excluded-apps') == ['org.example.App']),
                            (('list',), None),
                            (('clear',), None)):
            result = job(*args)
            self.assertEqual(result.returncode, 0, (args, result.stdout, result.stderr))
            self.assertNotIn('Not allowed', result.stderr)
            if check:
                self.assertTrue(check(), args)

    def test_rule_that_says_yes_then_one_that_says_no(self):
        self.write_rules('50-allow.rules', ALLOW_NOBODY)
        self.assertEqual(self.wait_for('nobody', 'max-age-days', '<7>', True), ('()', ''))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)

        # An earlier file wins: its NO overrides the YES.
        self.write_rules('10-deny.rules', DENY_CONFIGURE)
        # Waits writing the value it has: a write let through before the
        # reload changes nothing.
        self.assertNotAllowed(self.wait_for('nobody', 'max-age-days', '<7>', False))
        result = self.set_as('nobody', 'max-age-days', '<90>')
        self.assertNotAllowed(result)
        # The refusal says why in words, not only the action id.
        self.assertIn("Not allowed by the system's polkit rules (org.gnome.SessionRestore.configure)",
                      result[1])
        self.assertNotAllowed(self.call_as('nobody', 'SetAppExcluded', 'org.example.App', 'true'))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 7)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])

    def test_authentication_required_is_said_in_words(self):
        self.write_rules('10-auth.rules', AUTH_CONFIGURE)
        result = self.wait_for('nobody', 'max-age-days', '<7>', False)
        self.assertNotAllowed(result)
        self.assertIn('Not allowed without authentication (org.gnome.SessionRestore.configure): '
                      "the system's polkit rules require it, and the call does not allow interaction",
                      result[1])
        # Interaction allowed, but no agent in the caller's session to ask.
        result = self.call_as('nobody', 'SetSetting', '--interactive', 'max-age-days', '<7>')
        self.assertNotAllowed(result)
        self.assertIn('Not allowed without authentication (org.gnome.SessionRestore.configure): '
                      "the system's polkit rules require it, and no authentication agent asked for it",
                      result[1])
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
