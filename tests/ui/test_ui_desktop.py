"""On GNOME the main page says when the settings take effect: gnome-session
answers apps and asks nobody, and the settings reach its list only at the
next login (session-restore-ctl session prepare); a crash during the
session is its to handle. That line is shown once, in the main switch's
group, under what uses the settings, with XDG_CURRENT_DESKTOP naming GNOME
in any of its entries; on Sway, where Session Restore's own backend
answers apps, it is not shown."""
from uitest import Atspi, PanelTestCase

GNOME_LINE = ('On GNOME, changes take effect at the next login, and apps that crash during a '
              'session are restored as GNOME decides')
CONSUMERS = 'Nothing on this desktop has asked yet'


class DesktopLineTest(PanelTestCase):
    panel_env = {'XDG_CURRENT_DESKTOP': 'ubuntu:GNOME'}

    def restart_panel(self, desktop):
        self.panel.terminate()
        self.panel.wait(10)
        type(self).panel_env = {'XDG_CURRENT_DESKTOP': desktop}
        type(self).app = None
        self.start_panel()

    def mentions(self, text):
        """Every node showing that names or describes @text, as
        (role, 'name' or 'description')."""
        found = []
        for node in self.find_all(None):
            for what, value in (('name', node.get_name()), ('description', node.get_description())):
                if text in (value or ''):
                    found.append((node.get_role_name(), what))
        return found

    def test_1_gnome_says_next_login_once(self):
        label = self.find('label', GNOME_LINE)
        # One label: what uses the settings, then when they take effect.
        self.assertEqual(label.get_name(), CONSUMERS + ': your desktop may not restore apps\n' + GNOME_LINE)
        self.assertEqual(self.mentions(GNOME_LINE), [('label', 'name')])
        # In the main switch's group, above the switch.
        switch = self.find('switch', 'Save and Restore Apps')
        self.assertLess(label.get_extents(Atspi.CoordType.WINDOW).y,
                        switch.get_extents(Atspi.CoordType.WINDOW).y)
        self.screenshot('desktop-gnome')

    def test_2_not_on_sway(self):
        self.restart_panel('sway')
        self.find('label', CONSUMERS, timeout=20)
        self.assertEqual(self.mentions('On GNOME'), [])
        self.screenshot('desktop-sway')

