"""Save and Restore Apps switched off and locked by the administrator:
the Apps page offers nothing that cannot work (no Turn On) and says who
turned it off, not "until you turn it on"."""
from uitest import PanelTestCase


class LockedOffTest(PanelTestCase):
    """Save and Restore Apps switched off and locked: the Apps page offers
    nothing that cannot work and says who turned it off."""
    site = {'enabled': False}
    locks = ('enabled',)

    def test_apps_page_offers_no_turn_on(self):
        self.show_view('Apps')
        self.find('label', 'Save and Restore Apps Is Off')
        self.find('label', 'Your administrator turned off saving and restoring apps')
        self.assertEqual(self.find_all('button', 'Turn On'), [])
        self.assertEqual(self.find_all('label', 'until you turn it on'), [])
        self.screenshot('apps-locked-off')
