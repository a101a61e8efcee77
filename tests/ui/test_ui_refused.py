"""The panel when polkit refuses changing settings and clearing outright
(asked as the panel starts, and again when polkitd says its rules changed): what would be
refused looks locked, the same lock as a dconf lock, before anyone tries;
what is allowed (listing) still works."""
from uitest import Atspi, PanelTestCase, write_state_file


class RefusedPanelTest(PanelTestCase):
    allowed = ('org.gnome.SessionRestore.list',)

    @classmethod
    def prepare(cls):
        write_state_file(cls.s, 'org.example.Files')

    def test_refused_controls_look_locked(self):
        crash = self.find('switch', 'Restore After a Crash')
        self.wait_until(lambda: not self.has_state(crash, Atspi.StateType.SENSITIVE),
                        'the switch to look locked')
        locks = self.find_all('label', 'Set by your administrator', root=self.find('list', 'When to Restore'))
        self.assertEqual(len(locks), 3)
        self.assertFalse(self.sensitive('switch', 'Save and Restore Apps'))
        # Clearing is refused too: the button is locked, not merely grey.
        self.find('label', '1 saved session (')
        self.assertFalse(self.sensitive('button', 'Clear Saved Sessions'))
        self.assertGreaterEqual(len(self.find_all('label', 'Set by your administrator')), 6)
        self.screenshot('refused')

    def test_listing_still_works(self):
        self.show_view('Apps')
        self.assertIn('1 window', self.row_text('Files'))
        switch = self.find('switch', 'Save and restore Files')
        self.assertFalse(self.has_state(switch, Atspi.StateType.SENSITIVE))
        self.show_view('Settings')

    def test_z_polkit_changing_its_mind_is_followed(self):
        # polkitd says its rules changed (its Changed signal): the panel asks
        # again, and what polkit now allows no longer looks locked; a
        # refusal then comes back the same way.
        crash = self.find('switch', 'Restore After a Crash')
        self.s.set_allowed(['org.gnome.SessionRestore.list', 'org.gnome.SessionRestore.configure',
                            'org.gnome.SessionRestore.clear'])
        self.s.emit_polkit_changed()
        self.wait_until(lambda: self.has_state(crash, Atspi.StateType.SENSITIVE), 'the switch to be unlocked')
        self.assertTrue(self.sensitive('button', 'Clear Saved Sessions'))
        self.s.set_allowed(['org.gnome.SessionRestore.list'])
        self.s.emit_polkit_changed()
        self.wait_until(lambda: not self.has_state(crash, Atspi.StateType.SENSITIVE), 'the switch to look locked')
