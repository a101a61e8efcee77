"""CheckRestore "interactive" in ask mode: policyd asks the user once per
login through the prompt (here a stand-in, tests/lib/fakeprompt.py,
D-Bus-activated as the panel is; tests/ui/test_ui_prompt.py drives the real
one) and answers every waiting check with the user's choice."""
import json
import os
import subprocess
import time
import unittest

from simulator import Simulator
from srtest import (ALLOW, ASK, BUS_NAME, DENY, IFACE, LAUNCH, NOBODY, OBJECT_PATH, PANEL, PYTHON,
                    RESTORE, SOURCE_DIR, Gio, GLib, PolicydTestCase, now_us)

PROMPT_NAME = 'org.gnome.SessionRestore'
FAKE_PROMPT = os.path.join(SOURCE_DIR, 'tests', 'lib', 'fakeprompt.py')
APPS = ['org.example.Editor', 'org.example.Mail', 'org.example.Terminal']


class PromptBase(PolicydTestCase):
    start = False
    prompt_timeout = 30
    # The stand-in is this Python: policyd must take it for the prompt.
    prompt_executable = os.path.realpath(PYTHON)

    def setUp(self):
        super().setUp()
        # Where the stand-in, whoever it runs as, can write its log.
        self.prompt_dir = os.path.join(self.s.root, 'prompt')
        os.makedirs(self.prompt_dir)
        os.chmod(self.prompt_dir, 0o777)
        self.config = os.path.join(self.prompt_dir, 'prompt.json')
        self.s.env['SR_PROMPT_TIMEOUT'] = str(self.prompt_timeout)
        self.s.env['SR_PROMPT_EXECUTABLE'] = self.prompt_executable
        self.s.start_policyd()
        self.s.gsettings('set', 'login-restore', 'ask')
        self.s.wait_until(lambda: self.s.prop('LoginRestore') == 'ask', what='ask mode')
        self.sim = Simulator(self.s)
        for app in APPS:
            self.sim.memory[app] = {'1': {'saved_at': now_us() - 1000000, 'flatpak': False,
                                          'payload': b''}}
        self.sim.write_back()

    def prompt(self, **config):
        """The stand-in prompt, activatable, doing what @config says."""
        self.write_config(config)
        services = os.path.join(self.s.data_home, 'dbus-1', 'services')
        os.makedirs(services, exist_ok=True)
        with open(os.path.join(services, f'{PROMPT_NAME}.service'), 'w') as f:
            f.write(f'[D-BUS Service]\nName={PROMPT_NAME}\nExec={PYTHON} {FAKE_PROMPT} {self.config}\n')
        self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                             'ReloadConfig', None, None, Gio.DBusCallFlags.NONE, 5000, None)

    def write_config(self, config):
        with open(self.config, 'w') as f:
            json.dump(config, f)
        os.chmod(self.config, 0o644)

    def start_prompt(self, command, **config):
        """The stand-in prompt, started by @command (the stand-in's own
        command line appended) instead of by the bus; once it owns the
        name, policyd's StartServiceByName finds it running."""
        self.write_config(config)
        process = subprocess.Popen([*command, PYTHON, FAKE_PROMPT, self.config], env=self.s.env)
        self.addCleanup(process.wait, 10)
        self.addCleanup(process.terminate)
        self.s.wait_for_name(self.s.bus, PROMPT_NAME)
        return process

    def calls(self):
        try:
            with open(self.config + '.log') as f:
                return [json.loads(line) for line in f]
        except FileNotFoundError:
            return []

    def asks(self):
        return [c for c in self.calls() if c['call'] == 'Ask']



class PromptTest(PromptBase):
    def sandboxed_check(self, app, about=None):
        """CheckRestore "interactive" about @about (@app by default) from a
        Flatpak sandbox of @app."""
        result = subprocess.run(
            self.s.sandboxed_command(
                app, 'gdbus', 'call', '--session', '--dest', BUS_NAME, '--object-path', OBJECT_PATH,
                '--method', f'{IFACE}.CheckRestore', about or app, '3', "{'interactive': <true>}"),
            env=self.s.env, capture_output=True, text=True, timeout=30)
        return result.stdout.strip(), result.stderr.strip()

    def test_one_prompt_for_three_consumers_restore(self):
        self.prompt(answer=[True, [], False], delay=0.5)
        answers = self.sim.login(APPS)
        self.assertEqual(answers, {app: (ALLOW, 'allowed') for app in APPS})
        asks = self.asks()
        self.assertEqual(len(asks), 1, asks)
        self.assertEqual(sorted(app for app, _ in asks[0]['apps']), APPS)
        # The answer holds for the rest of the login: no second prompt.
        self.assertEqual(self.sim.login(APPS[:1]), {APPS[0]: (ALLOW, 'allowed')})
        self.assertEqual(len(self.asks()), 1)

    def test_flood_opens_one_prompt(self):
        self.prompt(answer=[True, [], False], delay=1)
        apps = [f'org.example.App{i}' for i in range(100)]
        answers = self.sim.login(apps)
        self.assertEqual(set(answers.values()), {(ALLOW, 'allowed')})
        self.assertEqual(len(self.asks()), 1)

    def test_unticked_app_declined(self):
        self.prompt(answer=[True, ['org.example.Mail'], False])
        answers = self.sim.login(APPS)
        self.assertEqual(answers, {'org.example.Editor': (ALLOW, 'allowed'),
                                   'org.example.Mail': (DENY, 'declined'),
                                   'org.example.Terminal': (ALLOW, 'allowed')})

    def test_dont_restore(self):
        self.prompt(answer=[False, [], False])
        self.assertEqual(self.sim.login(APPS), {app: (DENY, 'declined') for app in APPS})
        self.assertEqual(self.sim.login(['org.example.Later']),
                         {'org.example.Later': (DENY, 'declined')})

    def test_state_rules_still_apply_after_yes(self):
        self.sim.memory['org.example.Editor']['1']['saved_at'] = now_us() - 400 * 86400 * 1000000
        self.prompt(answer=[True, [], False])
        answers = self.sim.login(APPS)
        self.assertEqual(answers['org.example.Editor'], (DENY, 'expired'))
        self.assertEqual(answers['org.example.Mail'], (ALLOW, 'allowed'))

    def test_crashed_prompt_is_dont_restore(self):
        self.prompt(crash=True)
        self.assertEqual(self.sim.login(APPS), {app: (DENY, 'declined') for app in APPS})

    def test_prompt_missing_is_unavailable(self):
        # No service file: the name cannot be activated.
        self.assertEqual(self.sim.login(APPS, timeout=20),
                         {app: (DENY, 'ask-unavailable') for app in APPS})
        self.assertIn('did not answer', self.s.log())

    def test_prompt_binary_missing_is_unavailable(self):
        # A service file whose program is gone (the panel uninstalled).
        self.prompt(answer=[True, [], False])
        services = os.path.join(self.s.data_home, 'dbus-1', 'services')
        with open(os.path.join(services, f'{PROMPT_NAME}.service'), 'w') as f:
            f.write(f'[D-BUS Service]\nName={PROMPT_NAME}\n'
                    f'Exec={self.s.root}/no-such-panel --gapplication-service\n')
        self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                             'ReloadConfig', None, None, Gio.DBusCallFlags.NONE, 5000, None)
        self.assertEqual(self.sim.login(APPS, timeout=20),
                         {app: (DENY, 'ask-unavailable') for app in APPS})

    def test_non_interactive_still_ask(self):
        self.prompt(answer=[True, [], False])
        self.assertEqual(self.sim.login(APPS, interactive=False), {app: (ASK, 'ask') for app in APPS})
        self.assertEqual(self.s.check_restore(APPS[0], RESTORE), (ASK, 'ask'))
        self.assertEqual(self.asks(), [])

    def test_other_reasons_and_modes_unchanged(self):
        self.prompt(answer=[True, [], False])
        interactive = {'interactive': GLib.Variant('b', True)}
        self.assertEqual(self.s.check_restore(APPS[0], LAUNCH, interactive), (ALLOW, 'allowed'))
        self.s.gsettings('set', 'login-restore', 'always')
        self.s.wait_until(lambda: self.s.prop('LoginRestore') == 'always', what='always')
        self.assertEqual(self.s.check_restore(APPS[0], RESTORE, interactive), (ALLOW, 'allowed'))
        self.assertEqual(self.asks(), [])

    def test_wrong_option_type(self):
        self.assertDBusError('InvalidArgs', self.s.check_restore, APPS[0], RESTORE,
                             {'interactive': GLib.Variant('s', 'yes')})

    def test_other_calls_answered_while_prompt_open(self):
        self.prompt(hang=True)
        login = self.sim.start_login(APPS)
        self.s.wait_until(lambda: len(self.asks()) == 1, what='the prompt')
        start = time.monotonic()
        self.assertEqual(self.s.check_save(APPS[0]), (ALLOW, 'allowed'))
        self.assertEqual(self.s.check_restore(APPS[0], LAUNCH), (ALLOW, 'allowed'))
        self.assertEqual(self.s.check_restore(APPS[0], RESTORE), (ASK, 'ask'))
        self.s.set_setting('max-age-days', GLib.Variant('i', 10))
        self.assertEqual(self.s.prop('MaxAgeDays'), 10)
        self.assertIn(APPS[0], self.s.list_state())
        other = self.s.session_bus.connect()
        other.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'CheckSave',
                        GLib.Variant('(s)', ('org.example.Other',)), None,
                        Gio.DBusCallFlags.NONE, 5000, None)
        self.assertLess(time.monotonic() - start, 5)
        self.assertEqual(login.answers, {})
        # Switching everything off answers the waiting checks at once.
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.assertEqual(login.wait(10), {app: (DENY, 'disabled') for app in APPS})
        self.s.wait_until(lambda: any(c['call'] == 'Close' for c in self.calls()),
                          what='the prompt to be closed')

    def test_login_restore_never_answers_at_once(self):
        # As a lock to "never" would (the same change of the value in
        # force; a file-db is not watched, so a lock cannot be added live
        # here), and a single excluded app first.
        self.prompt(hang=True)
        login = self.sim.start_login(APPS)
        self.s.wait_until(lambda: len(self.asks()) == 1, what='the prompt')
        self.s.call('SetAppExcluded', 'sb', APPS[1], True)
        self.s.wait_until(lambda: APPS[1] in login.answers, what='the excluded app')
        self.assertEqual(login.answers, {APPS[1]: (DENY, 'excluded')})
        self.assertFalse(any(c['call'] == 'Close' for c in self.calls()))
        self.s.gsettings('set', 'login-restore', 'never')
        self.assertEqual(login.wait(10), {APPS[0]: (DENY, 'login-off'), APPS[1]: (DENY, 'excluded'),
                                          APPS[2]: (DENY, 'login-off')})
        self.s.wait_until(lambda: any(c['call'] == 'Close' for c in self.calls()),
                          what='the prompt to be closed')

    def test_policyd_stopping_answers_the_waiting(self):
        self.prompt(hang=True)
        login = self.sim.start_login(APPS)
        self.s.wait_until(lambda: len(self.asks()) == 1, what='the prompt')
        self.assertEqual(self.s.stop_policyd(), 0)
        self.assertEqual(login.wait(10), {app: (DENY, 'ask-unavailable') for app in APPS})

    def test_remember_is_left_to_the_prompt(self):
        # policyd does not write the setting itself: the prompt does,
        # through SetSetting (and polkit), as the panel does.
        self.prompt(answer=[True, [], True])
        self.sim.login(APPS)
        self.assertEqual(self.s.gsettings_value('login-restore'), 'ask')


    def test_sandboxed_caller_cannot_open_it(self):
        self.prompt(answer=[True, [], False])
        self.assertEqual(self.sandboxed_check('org.example.Sandboxed'), ("(uint32 2, 'ask')", ''))
        self.assertEqual(self.asks(), [])
        # Not even once the user has answered for the host's apps.
        self.sim.login(APPS)
        self.assertEqual(self.sandboxed_check('org.example.Sandboxed'), ("(uint32 2, 'ask')", ''))
        out, err = self.sandboxed_check('org.example.Sandboxed', about=APPS[0])
        self.assertIn('NotAllowed', err)

    def test_sandboxed_prompt_is_not_asked(self):
        # A Flatpak app that owns the prompt's name (as --own-name would
        # let it) is told nothing and answers nothing.
        source = os.path.realpath(SOURCE_DIR)
        self.start_prompt(self.s.sandboxed_command(
            'org.example.Evil', binds=['--bind', self.prompt_dir, self.prompt_dir,
                                       '--ro-bind', source, source]),
            answer=[True, [], False])
        self.assertEqual(self.sim.login(APPS, timeout=20),
                         {app: (DENY, 'ask-unavailable') for app in APPS})
        self.assertEqual(self.asks(), [])
        self.assertIn('runs in a sandbox, as the app org.example.Evil', self.s.log())

    def test_another_users_prompt_is_not_asked(self):
        self.start_prompt(NOBODY, answer=[True, [], False])
        self.assertEqual(self.sim.login(APPS, timeout=20),
                         {app: (DENY, 'ask-unavailable') for app in APPS})
        self.assertEqual(self.asks(), [])
        self.assertIn('runs as another user (uid 65534)', self.s.log())





class NotThePanelTest(PromptBase):
    """policyd expects the panel (SR_PROMPT_EXECUTABLE, as the harness
    sets it: the build's): a host process of the user that is another
    program is not asked either."""
    prompt_executable = os.path.realpath(PANEL)

    def test_another_program_is_not_asked(self):
        self.prompt(answer=[True, [], False])
        self.assertEqual(self.sim.login(APPS, timeout=20),
                         {app: (DENY, 'ask-unavailable') for app in APPS})
        self.assertEqual(self.asks(), [])
        self.assertIn(f'it is {os.path.realpath(PYTHON)}, not {os.path.realpath(PANEL)}',
                      self.s.log())


class PromptTimeoutTest(PromptBase):
    prompt_timeout = 2

    def test_nobody_answers(self):
        self.prompt(hang=True)
        start = time.monotonic()
        self.assertEqual(self.sim.login(APPS, timeout=20),
                         {app: (DENY, 'ask-timeout') for app in APPS})
        self.assertGreaterEqual(time.monotonic() - start, 1.5)
        self.s.wait_until(lambda: any(c['call'] == 'Close' for c in self.calls()),
                          what='the prompt to be closed')

