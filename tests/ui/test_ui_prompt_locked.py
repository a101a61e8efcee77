"""The login prompt when the administrator has locked login-restore to
"ask": no "Remember my choice" (it could not be changed), the rest as
usual."""
import promptcase as base

from srtest import ALLOW, DENY


class LockedPromptTest(base.PromptCase):
    site = {'login-restore': 'ask'}
    locks = ('login-restore',)

    def test_no_remember_when_locked(self):
        login = self.open_prompt()
        self.find('check box', 'Terminal')
        self.assertEqual(self.find_all('check box', 'Remember my choice'), [])
        self.tick('Terminal')
        self.click_button('Restore')
        self.assertEqual(self.answer(login), {'org.example.TextEditor': (ALLOW, 'allowed'),
                                              'org.example.Files': (ALLOW, 'allowed'),
                                              'org.example.Terminal': (DENY, 'declined')})
