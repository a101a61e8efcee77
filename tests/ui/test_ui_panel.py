"""The panel, used through AT-SPI: each change is checked where it lands,
in gsettings and on disk."""
import os
import time

from simulator import Simulator
from srtest import GLib
from uitest import APPS, Atspi, PanelTestCase, write_desktop_files

EDITOR, FILES, TERMINAL = 'org.example.TextEditor', 'org.example.Files', 'org.example.Terminal'


class PanelTest(PanelTestCase):
    @classmethod
    def prepare(cls):
        cls.sim = Simulator(cls.s)
        # Its id sorts first, its name last: the list must go by name.
        write_desktop_files(cls.s, {'org.example.Aardvark': 'Zoo Keeper'})

    def tearDown(self):
        # A failed case must not leave a dialog over the next one.
        for button in self.find_all('push button', 'Cancel'):
            self.act(button, 'click')

    def setUp(self):
        # Every case starts from defaults and three apps with stored state.
        self.s.gsettings('reset-recursively')
        self.s.set_allowed(['org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear',
                            'org.gnome.SessionRestore.list'])
        for app in APPS:
            self.sim.save(app, payload=b's' * 4000)
        self.show_view('Settings')
        self.wait_until(lambda: self.checked('Save and Restore Apps'), 'the switch to be on')

    def state_files(self):
        return sorted(n for n in os.listdir(self.s.state_home) if n.endswith('.state'))

    def test_master_switch_asks_then_forgets_everything(self):
        self.screenshot('normal')
        # Cancel first: nothing happens.
        self.toggle('Save and Restore Apps')
        self.click_button('Cancel')
        self.gone('push button', 'Turn Off')
        self.assertTrue(self.checked('Save and Restore Apps'))
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertEqual(len(self.state_files()), 4)

        self.toggle('Save and Restore Apps')
        dialog_text = self.find('label', 'will be forgotten')
        self.assertIn('cannot be undone', dialog_text.get_name())
        self.click_button('Turn Off')
        self.wait_until(lambda: self.s.gsettings_value('enabled') is False, 'enabled=false in gsettings')
        self.wait_until(lambda: not self.checked('Save and Restore Apps'), 'the switch to follow')
        self.wait_until(lambda: [n for n in self.state_files() if '#' in n] == [], 'state files to go')
        # Everything below is insensitive now.
        self.assertFalse(self.sensitive('check box', 'Restore After a Crash'))
        self.assertFalse(self.sensitive('push button', 'Clear Saved Sessions'))

        self.toggle('Save and Restore Apps')
        self.wait_until(lambda: self.s.gsettings_value('enabled') is True, 'enabled=true again')
        self.assertTrue(self.sensitive('check box', 'Restore After a Crash'))

    def test_when_to_restore_switches(self):
        self.toggle('Restore After a Crash')
        self.wait_until(lambda: self.s.gsettings_value('restore-after-crash') is False, 'gsettings')
        self.assertFalse(self.checked('Restore After a Crash'))
        self.toggle('Restore on a Normal Launch')
        self.wait_until(lambda: self.s.gsettings_value('restore-on-launch') is False, 'gsettings')

    def test_changes_from_elsewhere_appear_live(self):
        self.s.gsettings('set', 'restore-on-launch', 'false')
        self.wait_until(lambda: not self.checked('Restore on a Normal Launch'), 'the switch to follow')
        self.s.set_setting('restore-on-launch', GLib.Variant('b', True))
        self.wait_until(lambda: self.checked('Restore on a Normal Launch'), 'the switch to follow')

    def test_opt_an_app_out(self):
        self.show_view('Apps')
        self.find('label', 'Text Editor')
        self.screenshot('apps')
        self.toggle('Save and restore Text Editor')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == [EDITOR], 'excluded-apps')
        self.wait_until(lambda: not any(EDITOR in n for n in self.state_files()), 'its state to go')
        self.assertTrue(any(FILES in n for n in self.state_files()))
        self.wait_until(lambda: not self.checked('Save and restore Text Editor'), 'the switch to follow')
        # And back in.
        self.toggle('Save and restore Text Editor')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == [], 'excluded-apps empty')

    def test_forget_one_app(self):
        self.show_view('Apps')
        self.click('push button', 'Forget stored state of Files')
        self.wait_until(lambda: not any(FILES in n for n in self.state_files()), 'its state to go')
        self.assertTrue(any(EDITOR in n for n in self.state_files()))
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        self.find('label', 'Forgot the saved state of Files')

    def test_apps_sorted_by_name(self):
        self.show_view('Apps')
        self.find('check box', 'Save and restore Zoo Keeper')
        prefix = 'Save and restore '
        names = [n.get_name()[len(prefix):] for n in self.find_all('check box', prefix)]
        ours = [n for n in names if n in ('Files', 'Terminal', 'Text Editor', 'Zoo Keeper')]
        self.assertEqual(ours, ['Files', 'Terminal', 'Text Editor', 'Zoo Keeper'])
        self.assertEqual(names, sorted(names, key=str.casefold))

    def test_search_filters_by_name_and_id(self):
        self.show_view('Apps')
        entry = self.find('entry', 'Search apps')
        entry.set_text_contents('termin')
        self.wait_until(lambda: not self.find_all('check box', 'Save and restore Files'), 'Files hidden')
        self.find('check box', 'Save and restore Terminal')
        entry.set_text_contents('example.files')
        self.find('check box', 'Save and restore Files')
        entry.set_text_contents('')

    def test_clear_everything(self):
        self.click('push button', 'Clear Saved Sessions')
        body = self.find('label', 'will be forgotten')
        self.assertIn('3 apps', body.get_name())
        self.screenshot('clear-dialog')
        self.click_button('Clear')
        self.screenshot('after-clear')
        self.wait_until(lambda: [n for n in self.state_files() if '#' in n] == [], 'state files to go')
        toast = self.find('label', 'Forgot saved sessions of 3 apps')
        self.assertIn('kB', toast.get_name())
        self.assertEqual(self.s.gsettings_value('enabled'), True)

    def test_denied_change_is_reported_and_not_pretended(self):
        self.s.set_allowed([])
        self.toggle('Restore After a Crash')
        self.find('label', 'You are not allowed to make this change')
        self.wait_until(lambda: self.checked('Restore After a Crash'), 'the switch to spring back')
        self.assertEqual(self.s.gsettings_value('restore-after-crash'), True)

    def test_every_control_has_a_name_and_takes_focus(self):
        # Toasts from earlier cases come and go while the tree is walked.
        self.wait_until(lambda: not any(self.inside(b, 'AdwToast') for b in self.find_all('push button')),
                        'earlier toasts to time out', timeout=15)
        for view in ('Settings', 'Apps'):
            self.show_view(view)
            time.sleep(0.3)
            controls = [n for role in ('check box', 'push button', 'combo box', 'entry', 'page tab')
                        for n in self.find_all(role)]
            self.assertGreater(len(controls), 4)
            for control in controls:
                if self.inside(control, 'AdwToast'):
                    continue   # libadwaita 1.2's own toast close button has no name
                # The inner button of a compound one (a menu button) is
                # named and focused through its outer one.
                parent = control.get_parent()
                outer = parent if parent is not None and parent.get_role_name() == control.get_role_name() \
                    else control
                name = outer.get_name() or ''
                self.assertTrue(name and not name.startswith('Gtk'),
                                f'{control.get_role_name()} {name!r} has no name of its own')
                reachable = [n for n in (outer, *[outer.get_child_at_index(i)
                                                  for i in range(outer.get_child_count())])
                             if n is not None and self.has_state(n, Atspi.StateType.FOCUSABLE)]
                self.assertTrue(reachable, f'{name} cannot take the keyboard focus')
        self.show_view('Settings')

    def test_keyboard_only(self):
        self.key('ctrl+f')            # straight to the search on the Apps view
        self.type_text('termin')
        self.wait_until(lambda: not self.find_all('check box', 'Save and restore Files'), 'Files hidden')
        self.find('check box', 'Save and restore Terminal')
        self.key('ctrl+a', 'BackSpace')
        self.find('check box', 'Save and restore Files')
        # Into the list and onto the first row's controls, by Tab alone.
        self.show_view('Settings')
        focused = self.focus_by_tab('check box', 'Save and Restore Apps')
        self.assertIsNotNone(focused)
        self.key('space')
        self.find('label', 'will be forgotten')
        self.key('Escape')
        self.gone('push button', 'Turn Off')
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.wait_until(lambda: self.checked('Save and Restore Apps'), 'the switch unchanged')

    def test_help_falls_back_gracefully(self):
        # This machine has no help viewer and nothing that opens Markdown:
        # the panel says where the help is.
        self.key('F1')
        self.find('label', 'No help viewer is installed')
        self.key('Escape')
        self.gone('label', 'No help viewer is installed')

    def test_help_opens_the_help_uri(self):
        # A handler for help: URIs, as Yelp would be, that records what it got.
        marker = os.path.join(self.s.root, 'help-opened')
        apps = os.path.join(self.s.data_home, 'applications')
        with open(os.path.join(apps, 'help-recorder.desktop'), 'w') as f:
            f.write('[Desktop Entry]\nType=Application\nName=Help Recorder\nNoDisplay=true\n'
                    f'Exec=sh -c "echo %u > {marker}"\nMimeType=x-scheme-handler/help;\n')
        with open(os.path.join(self.s.config_home, 'mimeapps.list'), 'w') as f:
            f.write('[Default Applications]\nx-scheme-handler/help=help-recorder.desktop\n')
        try:
            time.sleep(1)   # GIO notices new .desktop files by file monitor
            self.key('F1')
            self.wait_until(lambda: os.path.exists(marker), 'the help handler to run')
            with open(marker) as f:
                self.assertEqual(f.read().strip(), 'help:session-restore')
        finally:
            os.unlink(os.path.join(apps, 'help-recorder.desktop'))
            os.unlink(os.path.join(self.s.config_home, 'mimeapps.list'))

    def test_combo_rows(self):
        self.assertIsNotNone(self.focus_by_tab('combo box', 'Reopen Apps at Login'))
        self.key('Return')
        self.key('Down', 'Return')
        self.wait_until(lambda: self.s.gsettings_value('login-restore') == 'ask', 'login-restore=ask')
        self.assertIsNotNone(self.focus_by_tab('combo box', 'Keep Saved State For'))
        self.key('Return')
        self.key('End', 'Return')              # the last choice: Forever
        self.wait_until(lambda: self.s.gsettings_value('max-age-days') == -1, 'max-age-days=-1')
        # A value set elsewhere shows as what it is.
        self.s.gsettings('set', 'max-age-days', '14')
        self.wait_until(lambda: '14 Days' in (self.find('combo box', 'Keep Saved State For')
                                               .get_name() or '') or
                        self.find_all('label', '14 Days'), 'the row to show 14 Days')

    def test_narrow(self):
        self.resize(360, 700)
        try:
            # The view switcher moves to the bottom bar; everything still works.
            self.find('check box', 'Save and Restore Apps')
            self.screenshot('narrow')
            self.show_view('Apps')
            self.find('check box', 'Save and restore Terminal')
        finally:
            self.resize(640, 760)
            time.sleep(0.3)
