"""The login prompt, for real: login-restore "ask", a policyd, and the
panel made D-Bus-activatable on the test's session bus as an installed one
is. The consumer simulator logs in (several apps restoring at once with
"interactive"); policyd activates the panel, whose one window is answered
here through AT-SPI; every app gets the answer the user chose.

Each case starts a policyd of its own: an answer holds for a policyd's
life (a login)."""
import time

from narrowtest import assert_fits, dialog_of
from promptcase import HEADING, PromptCase
from srtest import ALLOW, DENY, ERROR, GLib
from uitest import APPS, Atspi


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
        self.addCleanup(self.s.gsettings, 'set', 'enabled', 'true')
        self.s.set_setting('enabled', GLib.Variant('b', False))
        self.assertEqual(self.answer(login), {app: (DENY, 'disabled') for app in APPS})
        self.gone('label', HEADING, timeout=20)
        self.prompt_went_cleanly()
