"""What a screen reader or voice control user meets: every screen of the
panel (the settings, the Apps list, each dialog, a toast, the status
pages) walked through AT-SPI, and every interactive node on it named once,
in words (not empty, not a GTK class, not "_Cancel Cancel"); the Apps
list's rows named after their app and what it has saved; a button named
after what it shows; and the keyboard: F10 for the main menu, Escape in
the search, Ctrl+W, the retention list opening on its value. The login prompt's walk is in
test_ui_prompt."""
from simulator import Simulator
from uitest import Atspi, PanelTestCase

ALL_ACTIONS = ['org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear',
               'org.gnome.SessionRestore.list']
TERMINAL, FILES = 'org.example.Terminal', 'org.example.Files'


class AccessibilityTest(PanelTestCase):
    @classmethod
    def prepare(cls):
        cls.sim = Simulator(cls.s)

    def setUp(self):
        self.s.gsettings('reset-recursively')
        self.s.set_allowed(ALL_ACTIONS)
        for app in (FILES, TERMINAL):
            self.sim.save(app, payload=b's' * 4000)
        self.show_view('Settings')
        self.wait_until(lambda: self.checked('Save and Restore Apps'), 'the switch to be on')

    def tearDown(self):
        for button in self.find_all('button', 'Cancel'):
            self.act(button, 'click')

    def no_toasts(self):
        self.wait_until(lambda: not self.find_all('button', 'Dismiss') and
                        not any(self.inside(b, 'AdwToast') for b in self.find_all('button')),
                        'earlier toasts to time out', timeout=15)

    def test_settings_page(self):
        self.no_toasts()
        self.assert_well_named('the settings page')
        # Nothing is locked: the lock notice is not there for a screen
        # reader either, not merely slid away.
        self.assertEqual(self.find_all('label', 'Some settings are managed by your administrator',
                                       showing=False), [])

    def test_apps_rows_and_buttons(self):
        for _ in range(3):
            self.sim.exit(TERMINAL, False)
        self.show_view('Apps')
        self.wait_until(lambda: 'Held back after repeated crashes' in self.row_text('Terminal'),
                        'the row to say it is held back')
        self.no_toasts()
        self.assert_well_named('the Apps page')
        # The row, where the focus lands, reads as the app and what it has.
        cells = [c.get_name() for c in self.find_all('table cell')]
        row = [n for n in cells if n.startswith('Terminal, ')]
        self.assertEqual(len(row), 1, cells)
        self.assertIn('Held back after repeated crashes', row[0])
        self.assertIn('1 window', row[0])
        # Voice control: "click Allow Recovery" finds the button.
        button = self.find('button', 'Allow Recovery')
        self.assertTrue(button.get_name().startswith('Allow Recovery'), button.get_name())
        self.screenshot('a11y-apps-crash-loop')
        # Every button shows what its name says.
        for other in self.find_all('button'):
            for i in range(other.get_child_count()):
                child = other.get_child_at_index(i)
                if child.get_role_name() == 'label':
                    self.assertIn(child.get_name(), other.get_name())
        self.act(button, 'click')
        self.wait_until(lambda: 'Held back' not in self.row_text('Terminal'), 'the row to follow')

    def test_clear_dialog(self):
        self.click('button', 'Clear Saved Sessions')
        self.find('label', 'will be cleared')
        self.assert_well_named('the Clear dialog')
        self.screenshot('a11y-clear-dialog')
        self.click_button('Cancel')
        self.gone('label', 'will be cleared')

    def test_turn_off_dialog(self):
        self.show_view('Apps')
        self.toggle('Save and restore Files')
        self.find('label', 'Turn Off Files?')
        self.assert_well_named('the Turn Off dialog')
        self.screenshot('a11y-turn-off-dialog')
        self.key('Escape')
        self.gone('label', 'Turn Off Files?')

    def test_help_and_about(self):
        # No help viewer here: the dialog that says where the help is.
        self.key('F1')
        self.find('label', 'No help viewer is installed')
        self.assert_well_named('the help dialog')
        self.key('Escape')
        self.gone('label', 'No help viewer is installed')
        self.find('button', 'Main Menu')
        # The menu button's inner button is the one that clicks.
        inner = [b for b in self.find_all('toggle button', 'Main Menu')
                 if any(b.get_action_name(i) == 'click' for i in range(b.get_n_actions()))]
        self.act(inner[0], 'click')
        self.find('menu item', 'About Session Restore')
        self.assert_well_named('the main menu')
        self.click('menu item', 'About Session Restore')
        self.find('label', 'The Session Restore developers')
        self.assert_well_named('the About window')
        self.screenshot('a11y-about')
        self.key('Escape')
        self.gone('label', 'The Session Restore developers')

    def test_main_menu_from_the_keyboard(self):
        # F10 opens the main menu, whose popover is made as it first opens.
        self.key('F10')
        self.find('menu item', 'Help')
        self.find('menu item', 'About Session Restore')
        self.assert_well_named('the main menu, from F10')
        self.key('Escape')
        self.gone('menu item', 'About Session Restore')

    def test_toast(self):
        self.s.set_allowed([])
        self.toggle('Restore After a Crash')
        self.find('label', 'Could not change Restore After a Crash: not allowed')
        # Named first: the toast goes after 5 s, and the walk below takes
        # seconds on a loaded machine.
        self.find('button', 'Dismiss')
        self.screenshot('a11y-toast')
        self.assert_well_named('a toast')

    def test_combo_rows_say_their_value(self):
        self.s.gsettings('set', 'max-age-days', '30')
        self.s.gsettings('set', 'login-restore', 'ask')
        for title, value in (('Keep Saved Sessions For', '30 Days'),
                             ('Reopen Apps at Login', 'Ask every time')):
            combo = self.find('combo box', title)
            self.wait_until(lambda: value in (combo.get_name() or '') + (combo.get_description() or ''),
                            f'{title} to say {value}')

    def test_status_pages(self):
        self.s.gsettings('set', 'enabled', 'false')
        self.show_view('Apps')
        self.find('label', 'Save and Restore Apps Is Off')
        self.assert_well_named('the Apps page, off')
        self.s.gsettings('set', 'enabled', 'true')
        self.s.set_allowed(['org.gnome.SessionRestore.configure'])
        self.click('button', 'Back')
        # GTK 4.8 clicks an activated button a quarter second later: the
        # Apps page asked for before that would be left at once.
        self.gone('entry', 'Search apps')
        self.show_view('Apps')
        self.find('label', 'You are not allowed to see saved sessions')
        self.find('switch', 'Save and restore Files')
        self.no_toasts()
        self.assert_well_named('the Apps page, failed')
        self.s.set_allowed(ALL_ACTIONS)
        self.show_view('Settings')
        self.s.stop_policyd()
        try:
            self.find('label', 'Cannot Reach the Session Restore Service', timeout=20)
            self.assert_well_named('the missing service page')
        finally:
            self.s.start_policyd()
        self.find('switch', 'Save and Restore Apps', timeout=20)

    # -- the keyboard ------------------------------------------------------------

    def test_search_escape_clears_then_leaves(self):
        self.key('ctrl+f')
        self.type_text('termin')
        entry = self.find('entry', 'Search apps')
        self.wait_until(lambda: not self.find_all('switch', 'Save and restore Files'), 'Files hidden')
        self.key('Escape')
        self.wait_until(lambda: Atspi.Text.get_text(entry, 0, -1) == '', 'the search to clear')
        self.find('switch', 'Save and restore Files')
        self.assertTrue(self.find_all('entry', 'Search apps'), 'the first Escape left the page')
        self.key('Escape')
        self.find('switch', 'Save and Restore Apps')
        self.assertFalse(self.find_all('entry', 'Search apps'))

    def test_retention_list_opens_on_its_value(self):
        self.s.gsettings('set', 'max-age-days', '30')
        combo = self.find('combo box', 'Keep Saved Sessions For')
        self.wait_until(lambda: combo.get_description() == '30 Days', 'the row to say 30 Days')
        self.open_list('Keep Saved Sessions For')
        self.find('label', 'Forever')
        # A popup left open would take the next case's keys.
        self.addCleanup(lambda: self.find_all('label', 'Forever') and self.key('Escape'))

        def focused():
            for node in self.find_all(None):
                if self.has_state(node, Atspi.StateType.FOCUSED) and \
                        node.get_role_name() not in ('frame', 'window'):
                    return node
            return None
        self.wait_until(lambda: focused() is not None and '30 Days' in self.text_of(focused()),
                        'the focus on 30 Days')
        self.screenshot('a11y-retention-open')
        # Up from there is the choice above: the focus is really there.
        self.key('Up', 'Return')
        self.wait_until(lambda: self.s.gsettings_value('max-age-days') == 7, 'max-age-days=7')

    def text_of(self, node):
        """A node's name and its descendants'."""
        names = [node.get_name() or '']
        for i in range(node.get_child_count()):
            names.append(self.text_of(node.get_child_at_index(i)))
        return ' '.join(names)

    def test_z_ctrl_w_closes_the_window(self):
        # Last: the panel goes with its window.
        self.key('ctrl+w')
        self.wait_until(lambda: self.panel.poll() is not None, 'the panel to quit')
        self.assertEqual(self.panel.returncode, 0)
        with open(self.panel_log.name) as f:
            self.assertNotIn('CRITICAL', f.read())
