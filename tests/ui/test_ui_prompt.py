"""The login prompt, for real: login-restore "ask", a policyd, and the
panel made D-Bus-activatable on the test's session bus as an installed one
is. The consumer simulator logs in (several apps restoring at once with
"interactive"); policyd activates the panel, whose one window is answered
here through AT-SPI; every app gets the answer the user chose.

Each case starts a policyd of its own: an answer holds for a policyd's
life (a login)."""
import os
import time

from narrowtest import assert_fits, dialog_of
from promptcase import HEADING, PromptCase
from srtest import ALLOW, DENY, ERROR, GLib, now_us
from uitest import APPS, Atspi

NO_ANSWER = ('If you do not answer, the apps are not reopened now; '
             'their saved sessions are kept.')


class PromptTest(PromptCase):
    def test_0_every_control_named_once(self):
        # GTK 4.8 read these "Files Files", "_Restore Restore".
        login = self.open_prompt()
        problems = self.misnamed()
        self.assertFalse(problems, '; '.join(problems))
        for name in APPS.values():
            self.assertEqual(self.find('check box', name).get_name(), name)
        self.assertEqual(self.find('check box', 'Remember').get_name(), 'Remember my choice')
        for label in ('Restore', 'Don’t Restore'):
            self.assertTrue([b for b in self.find_all('button', label) if b.get_name() == label],
                            f'no button named {label!r}')
        self.click_button('Restore')
        self.assertEqual(self.answer(login), {app: (ALLOW, 'allowed') for app in APPS})

    def test_1_one_prompt_for_three_apps_restore(self):
        login = self.open_prompt()
        for name in APPS.values():
            self.find('check box', name)
            self.assertTrue(self.checked(name))
        self.screenshot('prompt')
        # It chooses its own width: one that fits 360 px.
        assert_fits(self, dialog_of(self.find('label', HEADING)), 'the prompt')
        time.sleep(1)
        self.assertEqual(self.prompts(), 1)
        self.click_button('Restore')
        self.assertEqual(self.answer(login), {app: (ALLOW, 'allowed') for app in APPS})
        # Later apps of the same login are not asked again.
        self.assertEqual(self.sim.login(['org.example.Late'], timeout=10),
                         {'org.example.Late': (ALLOW, 'allowed')})

    def test_2_unticked_app_declined(self):
        login = self.open_prompt()
        self.tick('Files')
        self.assertFalse(self.checked('Files'))
        self.click_button('Restore')
        self.assertEqual(self.answer(login), {'org.example.TextEditor': (ALLOW, 'allowed'),
                                              'org.example.Files': (DENY, 'declined'),
                                              'org.example.Terminal': (ALLOW, 'allowed')})

    def test_3_dont_restore(self):
        login = self.open_prompt()
        self.click_button('Don’t Restore')
        self.assertEqual(self.answer(login), {app: (DENY, 'declined') for app in APPS})

    def test_4_remember_my_choice(self):
        login = self.open_prompt()
        self.tick('Remember my choice')
        self.click_button('Restore')
        self.assertEqual(self.answer(login), {app: (ALLOW, 'allowed') for app in APPS})
        self.s.wait_until(lambda: self.s.gsettings('get', 'login-restore') == "'always'",
                          what='login-restore to be remembered')

    def test_5_keyboard_escape_is_dont_restore(self):
        login = self.open_prompt()
        check = self.find('check box', 'Terminal')
        self.assertTrue(self.has_state(check, Atspi.StateType.FOCUSABLE))
        self.key('Escape')
        self.assertEqual(self.answer(login), {app: (DENY, 'declined') for app in APPS})

    def test_6_other_programs_cannot_answer(self):
        # Another program of the user (this test's connection), not the
        # owner of the policy's name: its Close does not answer for the
        # user, and its Ask shows nothing.
        login = self.open_prompt()
        self.assertEqual(self.call_prompt(self.s.bus, 'Close'), ERROR + 'NotAllowed')
        evil = GLib.Variant('(a(sa{sv}))', ([('org.example.Evil', {})],))
        self.assertEqual(self.call_prompt(self.s.bus, 'Ask', evil), ERROR + 'NotAllowed')
        self.assertEqual(self.prompts(), 1)
        self.assertEqual(self.find_all('check box', 'org.example.Evil'), [])
        self.assertEqual(login.answers, {})
        self.click_button('Restore')
        self.assertEqual(self.answer(login), {app: (ALLOW, 'allowed') for app in APPS})

    def test_7_closed_by_policyd(self):
        # Switching everything off answers the waiting apps: policyd closes
        # the prompt, which goes without a critical warning (the prompt
        # runs with G_DEBUG=fatal-criticals, as every test program does).
        login = self.open_prompt()
        # Switched on again through this policyd, as it was switched off,
        # before the next case's starts: the cases after this one need it.
        self.addCleanup(self.s.wait_until, lambda: self.s.prop('Enabled'), what='switched on again')
        self.addCleanup(self.s.set_setting, 'enabled', GLib.Variant('b', True))
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.assertEqual(self.answer(login), {app: (DENY, 'disabled') for app in APPS})
        self.gone('label', HEADING, timeout=20)
        self.prompt_went_cleanly()

    def test_8a_says_what_no_answer_does(self):
        # It says so, and it is so: policyd answers "ask-timeout" when
        # nobody does, nothing reopens at this login, and the saved
        # sessions stay for later.
        self.s.stop_policyd()
        self.s.env['SR_PROMPT_TIMEOUT'] = '15'
        self.addCleanup(self.s.env.pop, 'SR_PROMPT_TIMEOUT')
        self.s.start_policyd()
        self.s.wait_until(lambda: self.s.prop('LoginRestore') == 'ask', what='ask mode')
        login = self.open_prompt()
        self.find('label', NO_ANSWER)
        self.assertEqual(self.answer(login), {app: (DENY, 'ask-timeout') for app in APPS})
        self.gone('label', HEADING, timeout=20)
        self.assertEqual(sorted(self.s.list_state()), sorted(APPS))

    def test_8b_window_named_by_its_question(self):
        # A screen reader announces the window by the question it asks,
        # not by the app's name.
        login = self.open_prompt()
        window = dialog_of(self.find('label', HEADING))
        self.assertEqual(window.get_name(), HEADING)
        self.click_button('Restore')
        self.assertEqual(self.answer(login), {app: (ALLOW, 'allowed') for app in APPS})

    def test_8c_boxes_described_by_window_count(self):
        # Files saved two windows, the others one each (the simulator
        # writes one window an instance).
        self.sim.memory['org.example.Files']['2'] = {'saved_at': now_us() - 1000000,
                                                     'flatpak': False, 'payload': b''}
        self.sim.write_back()
        self.addCleanup(os.unlink, self.sim.gtk_path('org.example.Files', '2'))
        login = self.open_prompt()
        for app, name in APPS.items():
            box = self.find('check box', name)
            self.assertEqual(box.get_name(), name)
            self.assertEqual(box.get_description(),
                             '2 windows' if app == 'org.example.Files' else '1 window', name)
        self.click_button('Restore')
        self.assertEqual(self.answer(login), {app: (ALLOW, 'allowed') for app in APPS})
