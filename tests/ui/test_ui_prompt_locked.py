"""The login prompt when the administrator has locked login-restore to
"ask": no "Remember my choice" (it could not be changed), the rest as
usual."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_ui_prompt as base  # noqa: E402

from srtest import ALLOW, DENY  # noqa: E402
from uitest import APPS  # noqa: E402


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
