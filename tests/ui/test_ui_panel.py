"""The panel, used through AT-SPI: each change is checked where it lands,
in gsettings and on disk."""
import os
import time

from simulator import Simulator
from srtest import GLib
from uitest import APPS, Atspi, PanelTestCase, is_gtk_state, write_desktop_files, write_state_file

EDITOR, FILES, TERMINAL = 'org.example.TextEditor', 'org.example.Files', 'org.example.Terminal'
ABACUS, ZOO, GONE = 'org.example.Abacus', 'org.example.Aardvark', 'org.example.Uninstalled'
ALL_ACTIONS = ['org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear',
               'org.gnome.SessionRestore.list']
RECOVER = 2


class PanelTest(PanelTestCase):
    @classmethod
    def prepare(cls):
        cls.sim = Simulator(cls.s)
        # Its id sorts first, its name last: the list must go by name.
        write_desktop_files(cls.s, {'org.example.Aardvark': 'Zoo Keeper'})
        # Found by its generic name and its keywords too.
        write_desktop_files(cls.s, {ABACUS: 'Abacus'},
                            extra='GenericName=Calculator\nKeywords=arithmetic;sums;\n')
        # A desktop file id without a dot, as Debian names many apps.
        write_desktop_files(cls.s, {'firefox-esr': 'Firefox ESR'})

    def tearDown(self):
        # A failed case must not leave a dialog over the next one.
        for button in self.find_all('button', 'Cancel'):
            self.act(button, 'click')

    def setUp(self):
        # Every case starts from defaults and three apps with saved sessions.
        self.s.gsettings('reset-recursively')
        self.s.set_allowed(ALL_ACTIONS)
        for name in os.listdir(self.s.state_home):
            if name.startswith((ABACUS, ZOO, GONE)):
                os.unlink(os.path.join(self.s.state_home, name))
        for app in APPS:
            self.sim.save(app, payload=b's' * 4000)
        self.show_view('Settings')
        self.wait_until(lambda: self.checked('Save and Restore Apps'), 'the switch to be on')

    def state_files(self):
        return sorted(n for n in os.listdir(self.s.state_home) if n.endswith('.state'))

    def test_master_switch_asks_then_clears_everything(self):
        self.screenshot('normal')
        # Cancel first: nothing happens. While it asks, the switch says
        # what is so: on.
        self.toggle('Save and Restore Apps')
        self.find('label', 'will be cleared')
        self.assertTrue(self.checked('Save and Restore Apps'))
        self.click_button('Cancel')
        self.gone('button', 'Turn Off')
        self.assertTrue(self.checked('Save and Restore Apps'))
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.assertEqual(len(self.state_files()), 4)

        self.toggle('Save and Restore Apps')
        dialog_text = self.find('label', 'will be cleared')
        self.assertIn('3 saved sessions', dialog_text.get_name())
        self.assertIn('cannot be undone', dialog_text.get_name())
        time.sleep(0.3)   # time enough to have moved
        self.assertTrue(self.checked('Save and Restore Apps'))
        self.click_button('Turn Off')
        self.wait_until(lambda: self.s.gsettings_value('enabled') is False, 'enabled=false in gsettings')
        self.wait_until(lambda: not self.checked('Save and Restore Apps'), 'the switch to follow')
        self.wait_until(lambda: [n for n in self.state_files() if is_gtk_state(n)] == [], 'state files to go')
        # What went, in the same count as the dialog.
        self.find('label', 'Cleared 3 saved sessions')
        # What no longer applies is insensitive, and the page says why.
        self.assertFalse(self.sensitive('switch', 'Restore After a Crash'))
        self.assertFalse(self.sensitive('button', 'Clear Saved Sessions'))
        self.find('label', 'Save and Restore Apps is off')

        # The Apps subpage says so too, and offers to turn it back on.
        self.show_view('Apps')
        self.find('label', 'Save and Restore Apps Is Off')
        self.assertFalse(self.find_all('switch', 'Save and restore Files'))
        self.click_button('Turn On')
        self.wait_until(lambda: self.s.gsettings_value('enabled') is True, 'enabled=true again')
        self.find('switch', 'Save and restore Files')
        self.show_view('Settings')
        self.assertTrue(self.sensitive('switch', 'Restore After a Crash'))

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

    def test_totals_and_consumers(self):
        # The test's simulator asked policyd: it is what uses it here, by
        # the Name of the system's python3.x.desktop where there is one
        # (test_ui_truth), else by its executable.
        self.find('label', 'Used by ')
        totals = self.find('label', '3 saved sessions (')
        self.assertIn('kB', totals.get_name())

    def test_opt_an_app_out_asks_first(self):
        self.show_view('Apps')
        self.find('label', 'Text Editor')
        self.screenshot('apps')
        # It has a saved session: turning it off asks, naming what goes.
        self.toggle('Save and restore Text Editor')
        body = self.find('label', 'will be cleared')
        self.assertIn('1 window', body.get_name())
        # While it asks, the switch says what is so: on.
        self.assertTrue(self.checked('Save and restore Text Editor'))
        self.click_button('Cancel')
        self.gone('label', 'will be cleared')
        self.assertTrue(self.checked('Save and restore Text Editor'))
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])

        self.toggle('Save and restore Text Editor')
        self.click_button('Turn Off')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == [EDITOR], 'excluded-apps')
        self.wait_until(lambda: not any(EDITOR in n for n in self.state_files()), 'its state to go')
        self.find('label', 'Cleared the saved session of Text Editor')
        self.assertTrue(any(FILES in n for n in self.state_files()))
        self.wait_until(lambda: not self.checked('Save and restore Text Editor'), 'the switch to follow')
        # Back in: nothing to lose, no question.
        self.toggle('Save and restore Text Editor')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == [], 'excluded-apps empty')

    def test_app_id_without_a_dot(self):
        self.show_view('Apps')
        self.toggle('Save and restore Firefox ESR')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == ['firefox-esr'],
                        'firefox-esr excluded')
        self.assertEqual(self.s.check_save('firefox-esr'), (0, 'excluded'))
        self.toggle('Save and restore Firefox ESR')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == [], 'excluded-apps empty')

    def test_forget_one_app_asks_first(self):
        self.show_view('Apps')
        self.click('button', 'Clear saved session of Files')
        body = self.find('label', 'will be cleared')
        self.assertIn('1 window', body.get_name())
        self.assertIn('kB', body.get_name())
        self.click_button('Clear')
        self.wait_until(lambda: not any(FILES in n for n in self.state_files()), 'its state to go')
        self.assertTrue(any(EDITOR in n for n in self.state_files()))
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        self.find('label', 'Cleared the saved session of Files')
        # Nothing saved now: no trash can on its row.
        self.gone('button', 'Clear saved session of Files')
        self.assertIn('Nothing saved', self.row_text('Files'))

    def test_expired_state_is_not_shown_as_valid(self):
        # Shortening the retention purges at once: 0 days keeps nothing.
        # State an owner writes afterwards is listed, as too old. (Saved
        # before an earlier case's clear, it would count as cleared.)
        self.s.gsettings('set', 'max-age-days', '0')
        self.wait_until(lambda: self.s.prop('MaxAgeDays') == 0, 'policyd to see max-age-days')
        self.s.list_state()      # queued behind the purge on the store worker
        write_state_file(self.s, ZOO)
        self.show_view('Apps')
        self.wait_until(lambda: 'Too old to be restored' in self.row_text('Zoo Keeper'),
                        f'Zoo Keeper expired (it says {self.row_text("Zoo Keeper")!r})')
        self.assertNotIn('reopens at login', self.row_text('Zoo Keeper'))
        # What was saved before is gone.
        self.assertIn('Nothing saved', self.row_text('Files'))

    def test_rows_say_what_will_come_back(self):
        write_state_file(self.s, ZOO)
        self.show_view('Apps')
        self.wait_until(lambda: 'comes back when you open it' in self.row_text('Zoo Keeper'),
                        'Zoo Keeper listed')
        self.assertIn('1 window', self.row_text('Files'))
        self.assertIn('reopens at login', self.row_text('Files'))
        self.assertIn('saved just now', self.row_text('Files'))
        self.assertIn('Nothing saved', self.row_text('Abacus'))
        self.assertFalse(self.find_all('button', 'Clear saved session of Abacus'))
        # Saved sessions first, the most recent first (each app's own save:
        # setUp saved Text Editor, Files, Terminal in turn, and the session
        # file they share says nothing of it); then the others by name.
        prefix = 'Save and restore '
        names = [n.get_name()[len(prefix):] for n in self.in_order(self.find_all('switch', prefix))]
        ours = [n for n in names if n in ('Abacus', 'Files', 'Terminal', 'Text Editor', 'Zoo Keeper')]
        self.assertEqual(ours, ['Zoo Keeper', 'Terminal', 'Files', 'Text Editor', 'Abacus'])
        rest = names[names.index('Text Editor') + 1:]
        self.assertEqual(rest, sorted(rest, key=str.casefold))

    def test_cleared_state_is_not_shown_as_valid(self):
        # An owner that did not listen writes state saved before the clear
        # back: it will not be restored, and the row says so.
        self.s.clear([FILES])
        write_state_file(self.s, FILES, age_seconds=60)
        self.show_view('Apps')
        self.wait_until(lambda: 'Cleared, will not be restored' in self.row_text('Files'),
                        'the row to say it was cleared')
        self.assertNotIn('reopens at login', self.row_text('Files'))

    def test_uninstalled_app_shows_until_nothing_is_left(self):
        write_state_file(self.s, GONE)
        self.show_view('Apps')
        self.wait_until(lambda: 'Not installed' in self.row_text(GONE), 'the row to say Not installed')
        self.click('button', f'Clear saved session of {GONE}')
        self.click_button('Clear')
        # Nothing saved and not excluded: nothing to show it for.
        self.gone('switch', f'Save and restore {GONE}')

    def test_crash_loop_row_and_reset(self):
        for _ in range(3):
            self.sim.exit(TERMINAL, False)
        self.assertEqual(self.s.check_restore(TERMINAL, RECOVER)[1], 'crash-loop')
        self.show_view('Apps')
        self.wait_until(lambda: 'Held back after repeated crashes' in self.row_text('Terminal'),
                        'the row to say it is held back')
        button = self.find('button', 'Allow Recovery')
        self.assertEqual(button.get_description(), 'Lets Terminal restore after a crash again')
        self.act(button, 'click')
        self.find('label', 'Terminal may restore after a crash')
        self.wait_until(lambda: 'Held back' not in self.row_text('Terminal'), 'the row to follow')
        self.assertEqual(self.s.check_restore(TERMINAL, RECOVER)[1], 'allowed')

    def test_search(self):
        self.show_view('Apps')
        entry = self.find('entry', 'Search apps')
        for text, found in (('termin', 'Terminal'), ('example.files', 'Files'),
                            ('calculator', 'Abacus'), ('  sums ', 'Abacus')):
            entry.set_text_contents(text)
            self.wait_until(lambda: not self.find_all('switch', 'Save and restore Text Editor'),
                            f'Text Editor hidden for {text!r}')
            self.find('switch', f'Save and restore {found}')
        entry.set_text_contents('no such app anywhere')
        self.find('label', 'No Results Found')
        entry.set_text_contents('')
        self.find('switch', 'Save and restore Files')
        self.assertFalse(self.find_all('label', 'No Results Found'))

    def test_clear_everything(self):
        self.click('button', 'Clear Saved Sessions')
        body = self.find('label', 'will be cleared')
        self.assertIn('3 saved sessions', body.get_name())
        self.screenshot('clear-dialog')
        self.click_button('Clear')
        self.wait_until(lambda: [n for n in self.state_files() if is_gtk_state(n)] == [], 'state files to go')
        self.find('label', 'Cleared 3 saved sessions')
        self.screenshot('after-clear')
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        # Nothing left to clear.
        self.wait_until(lambda: not self.sensitive('button', 'Clear Saved Sessions'),
                        'the button to be insensitive')
        self.find('label', 'Nothing saved')

    def test_denied_change_is_reported_and_not_pretended(self):
        self.s.set_allowed([])
        self.toggle('Restore After a Crash')
        self.find('label', 'Could not change Restore After a Crash: not allowed')
        self.wait_until(lambda: self.checked('Restore After a Crash'), 'the switch to spring back')
        self.assertEqual(self.s.gsettings_value('restore-after-crash'), True)

    def test_polkit_unreachable_is_a_fault_not_a_refusal(self):
        self.wait_until(lambda: not self.find_all('label', 'not allowed'), 'earlier toasts to go',
                        timeout=15)
        self.s.polkit.terminate()
        self.s.polkit.wait(10)
        try:
            # The details are one click away, not in the toast. The toast
            # goes after 5 s, which finding it can take on a loaded
            # machine: then the switch, back where it was, is tried again.
            for attempt in range(3):
                self.wait_until(lambda: self.checked('Restore After a Crash'), 'the switch to be on')
                self.toggle('Restore After a Crash')
                toast = self.find('label', 'Could not change Restore After a Crash: permissions cannot be checked')
                self.assertNotIn('polkit', toast.get_name())
                try:
                    self.click_button('Details', timeout=1)
                    break
                except (AssertionError, GLib.Error):
                    if attempt == 2:
                        raise
            self.find('label', 'What Went Wrong')
            self.find('label', 'polkit')
            self.key('Escape')
            self.gone('label', 'What Went Wrong')
            self.assertFalse(self.find_all('label', 'not allowed'))
            self.wait_until(lambda: self.checked('Restore After a Crash'), 'the switch to spring back')
        finally:
            self.s.start_mock_polkit(ALL_ACTIONS)

    def saved_session_labels(self):
        return [label.get_name() for label in self.find_all('label')
                if 'saved session' in (label.get_name() or '').lower()]

    def test_failed_listing_still_lists_the_apps(self):
        # polkit refuses the listing: the apps are listed all the same,
        # with their switches, and that their saved sessions are not shown
        # is said once; no row says it has none.
        self.s.set_allowed(['org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear'])
        self.show_view('Apps')
        self.find('label', 'You are not allowed to see saved sessions')
        self.find('label', 'Text Editor')
        self.screenshot('apps-listing-refused')
        self.assertEqual(self.saved_session_labels(), ['You are not allowed to see saved sessions'])
        self.assertFalse(self.find_all('label', 'Nothing saved'))
        self.assertFalse(self.find_all('label', 'reopens at login'))
        self.assertFalse(self.find_all('button', 'Clear saved session of'))
        self.assertFalse(self.find_all('label', 'make this change'))
        files = self.find('switch', 'Save and restore Files')
        self.assertTrue(self.has_state(files, Atspi.StateType.SENSITIVE))
        self.assertTrue(self.checked('Save and restore Files'))

        # Turning an app off would clear a saved session it may have: it
        # asks, saying that it is not known, and then turns it off.
        self.toggle('Save and restore Terminal')
        self.find('label', 'if it has one')
        self.assertTrue(self.checked('Save and restore Terminal'))
        self.click_button('Turn Off')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == [TERMINAL], 'excluded-apps')
        self.wait_until(lambda: not self.checked('Save and restore Terminal'), 'the switch to follow')
        self.gone('label', 'if it has one')
        self.assertEqual(self.saved_session_labels(), ['You are not allowed to see saved sessions'])
        self.toggle('Save and restore Terminal')
        self.wait_until(lambda: self.s.gsettings_value('excluded-apps') == [], 'excluded-apps empty')

        # Allowed again: Retry lists them.
        self.s.set_allowed(ALL_ACTIONS)
        self.click_button('Retry')
        self.gone('label', 'You are not allowed to see saved sessions')
        self.assertIn('reopens at login', self.row_text('Files'))
        self.assertFalse(self.find_all('button', 'Retry'))

    def test_shortening_retention_asks_when_the_listing_is_refused(self):
        # What would go cannot be counted: it asks all the same, and says so.
        self.s.set_allowed(['org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear'])
        self.show_view('Settings')
        self.choose_keep(['Up'], '7 Days')
        body = self.find('label', 'will be cleared')
        self.assertEqual(body.get_name(), 'Saved sessions older than 7 days will be cleared. They could '
                                          'not be counted. This cannot be undone.')
        self.assertEqual(self.find('combo box', 'Keep Saved Sessions For').get_description(), '30 Days')
        self.click_button('Cancel')
        self.gone('label', 'will be cleared')
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)

    def test_listing_polkit_cannot_answer_still_lists_the_apps(self):
        self.show_view('Apps')
        self.assertIn('reopens at login', self.row_text('Files'))
        self.s.polkit.terminate()
        self.s.polkit.wait(10)
        try:
            # Shown anew, the page lists again.
            self.show_view('Apps')
            notice = self.find('label', 'Could not read saved sessions: permissions cannot be checked')
            self.assertEqual(self.saved_session_labels(), [notice.get_name()])
            self.assertFalse(self.find_all('label', 'not allowed'))
            self.assertFalse(self.find_all('label', 'reopens at login'))
            self.assertFalse(self.find_all('label', 'Nothing saved'))
            self.find('switch', 'Save and restore Files')
            self.find('switch', 'Save and restore Abacus')
        finally:
            self.s.start_mock_polkit(ALL_ACTIONS)
        self.click_button('Retry')
        self.gone('label', 'Could not read saved sessions')
        self.assertIn('reopens at login', self.row_text('Files'))

    def test_every_control_has_a_name_and_takes_focus(self):
        # Toasts from earlier cases come and go while the tree is walked.
        self.wait_until(lambda: not any(self.inside(b, 'AdwToast') for b in self.find_all('button')),
                        'earlier toasts to time out', timeout=15)
        for view in ('Settings', 'Apps'):
            self.show_view(view)
            time.sleep(0.3)
            controls = [n for role in ('switch', 'button', 'combo box', 'entry')
                        for n in self.find_all(role)]
            self.assertGreater(len(controls), 4)
            for control in controls:
                try:
                    if self.inside(control, 'AdwToast'):
                        continue   # libadwaita 1.2's own toast close button has no name
                    # The inner button of a compound one (a menu button) is
                    # named and focused through its outer one.
                    parent = control.get_parent()
                    outer = parent if parent is not None and parent.get_role_name() == control.get_role_name() \
                        else control
                    name = outer.get_name() or ''
                except GLib.Error:
                    continue   # gone while the tree was walked (a toast that timed out)
                self.assertTrue(name and not name.startswith('Gtk'),
                                f'{control.get_role_name()} {name!r} has no name of its own')
                # No doubled mnemonic names ("_Retry Retry").
                self.assertNotIn('_', name, f'{name!r} reads its mnemonic')
                reachable = [n for n in (outer, *[outer.get_child_at_index(i)
                                                  for i in range(outer.get_child_count())])
                             if n is not None and self.has_state(n, Atspi.StateType.FOCUSABLE)]
                self.assertTrue(reachable, f'{name} cannot take the keyboard focus')
            # The page not shown is not in the accessibility tree.
            if view == 'Apps':
                self.assertFalse(self.find_all('switch', 'Restore After a Crash', showing=False))
            else:
                self.assertFalse(self.find_all('entry', 'Search apps', showing=False))
        self.show_view('Settings')

    def test_keyboard_only(self):
        self.key('ctrl+f')            # straight to the search on the Apps page
        self.type_text('termin')
        self.wait_until(lambda: not self.find_all('switch', 'Save and restore Files'), 'Files hidden')
        self.find('switch', 'Save and restore Terminal')
        self.key('ctrl+a', 'BackSpace')
        self.find('switch', 'Save and restore Files')
        # Enter goes into the list, onto its first row (the most recently
        # saved); Space flips it, which asks first: it has a saved session.
        first = self.in_order(self.find_all('switch', 'Save and restore '))[0]
        name = first.get_name()[len('Save and restore '):]
        self.key('Return', 'space')
        self.find('label', f'Turn Off {name}?')
        self.key('Escape')
        self.gone('button', 'Turn Off')
        self.assertEqual(self.s.gsettings_value('excluded-apps'), [])
        # Back to the settings, and the master switch by Tab alone.
        self.key('alt+Left')
        focused = self.focus_by_tab('switch', 'Save and Restore Apps')
        self.assertIsNotNone(focused)
        self.key('space')
        self.find('label', 'will be cleared')
        self.key('Escape')
        self.gone('button', 'Turn Off')
        self.assertEqual(self.s.gsettings_value('enabled'), True)
        self.wait_until(lambda: self.checked('Save and Restore Apps'), 'the switch unchanged')

    def test_help_falls_back_gracefully(self):
        # This machine has no help viewer and nothing that opens man: the
        # panel says where the help is: the manual page, not the README,
        # which is for developers.
        self.key('F1')
        body = self.find('label', 'No help viewer is installed')
        self.assertIn('man session-restore-panel', body.get_name())
        self.assertNotIn('README', body.get_name())
        self.key('Escape')
        self.gone('label', 'No help viewer is installed')

    def opened_by_f1(self, scheme):
        """Installs a handler for @scheme: URIs that records what it is
        given, presses F1 and returns the URI the panel opened."""
        marker = os.path.join(self.s.root, f'{scheme}-opened')
        desktop = os.path.join(self.s.data_home, 'applications', f'{scheme}-recorder.desktop')
        mimeapps = os.path.join(self.s.config_home, 'mimeapps.list')
        with open(desktop, 'w') as f:
            f.write(f'[Desktop Entry]\nType=Application\nName={scheme} recorder\nNoDisplay=true\n'
                    f'Exec=sh -c "echo %u > {marker}"\nMimeType=x-scheme-handler/{scheme};\n')
        with open(mimeapps, 'w') as f:
            f.write(f'[Default Applications]\nx-scheme-handler/{scheme}={scheme}-recorder.desktop\n')
        try:
            time.sleep(1)   # GIO notices new .desktop files by file monitor
            self.key('F1')
            self.wait_until(lambda: os.path.exists(marker), f'the {scheme}: handler to run')
            with open(marker) as f:
                return f.read().strip()
        finally:
            os.unlink(desktop)
            os.unlink(mimeapps)

    def test_help_without_yelp_opens_the_manual_page(self):
        # Nothing opens help: URIs, something opens man: ones (as KDE's
        # help centre or a terminal's handler does).
        self.assertEqual(self.opened_by_f1('man'), 'man:session-restore-panel(1)')
        self.assertEqual(self.find_all('label', 'No help viewer is installed'), [])

    def test_help_opens_the_help_uri(self):
        # A handler for help: URIs, as Yelp would be.
        self.assertEqual(self.opened_by_f1('help'), 'help:session-restore')

    def test_combo_rows(self):
        self.open_list('Reopen Apps at Login')
        self.key('Down', 'Return')
        self.wait_until(lambda: self.s.gsettings_value('login-restore') == 'ask', 'login-restore=ask')
        self.wait_until(lambda: self.find('combo box', 'Reopen Apps at Login').get_description() ==
                        'Ask every time', 'the row to say Ask every time')
        # The choice is a promise: a prompt will appear.
        self.find('label', 'A window at login lets you choose which apps come back')
        self.open_list('Keep Saved Sessions For')
        self.key('End', 'Return')              # the last choice: Forever
        self.wait_until(lambda: self.s.gsettings_value('max-age-days') == -1, 'max-age-days=-1')
        # A value set elsewhere shows as what it is.
        self.s.gsettings('set', 'max-age-days', '14')
        self.wait_until(lambda: self.find('combo box', 'Keep Saved Sessions For').get_description() ==
                        '14 Days', 'the row to show 14 Days')

    def test_narrow(self):
        self.resize(360, 700)
        try:
            # The title fits beside the window buttons; everything still works.
            title = self.find('label', 'Session Restore')
            self.assertGreaterEqual(title.get_extents(Atspi.CoordType.WINDOW).width, 100)
            self.find('switch', 'Save and Restore Apps')
            self.screenshot('narrow')
            self.show_view('Apps')
            # A row with a saved session wraps its description: its switch
            # stays inside the window.
            switch = self.find('switch', 'Save and restore Terminal')
            extents = switch.get_extents(Atspi.CoordType.WINDOW)
            self.assertLessEqual(extents.x + extents.width, 360)
            self.screenshot('narrow-apps')
        finally:
            self.resize(640, 760)
            time.sleep(0.3)
