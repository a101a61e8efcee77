"""The panel at 360 px wide, in whichever language a test's WORDS are:
every screen and dialog fits, no combo value collapses to "…" and no
row's description runs past three lines. A PanelTestCase mixes it in with
WORDS, the strings it looks for, and runs the cases it defines."""
import subprocess
import time

from simulator import Simulator
from srtest import GLib
from uitest import Atspi, write_state_file

DAY = 86400

ENGLISH = {
    'title': 'Session Restore',
    'settings': 'Save and Restore Apps',
    'search': 'Search apps',
    'allow': 'Allow Recovery',
    'clear one': 'Clear saved session of Files',
    'clear all': 'Clear Saved Sessions',
    'keep': 'Keep Saved Sessions For',
    'seven days': '7 Days',
    'cleared': 'will be cleared',
    'cancel': 'Cancel',
    'values': {'30 Days', 'Ask every time'},
}

GERMAN = {
    'title': 'Sitzungswiederherstellung',
    'settings': 'Apps speichern und wiederherstellen',
    'search': 'Apps suchen',
    'allow': 'Wiederherstellung erlauben',
    'clear one': 'Gespeicherte Sitzung von Files löschen',
    'clear all': 'Gespeicherte Sitzungen löschen',
    'keep': 'Gespeicherte Sitzungen behalten für',
    'seven days': '7 Tage',
    'cleared': 'gelöscht',
    'cancel': 'Abbrechen',
    'values': {'30 Tage', 'Nachfragen'},
}


def overflowing(case, root=None, width=360):
    """What a PanelTestCase shows beyond its window's (or dialog's)
    edges. The edges are the window's own node's: GTK 4.24 counts window
    coordinates from inside the client-side border, so that node starts
    at -5; nothing may reach further left than a pixel (the header bar's
    edge, at -6), nor more than @width to the right of it."""
    nodes = case.find_all(None, root=root)
    windows = [n for n in nodes if n.get_role_name() in ('frame', 'dialog', 'window', 'alert')]
    if not windows:
        raise AssertionError('no window is showing')
    left = windows[0].get_extents(Atspi.CoordType.WINDOW).x
    found = []
    for node in nodes:
        try:
            e = node.get_extents(Atspi.CoordType.WINDOW)
            if e.x < left - 1 or e.x + e.width > left + width:
                found.append(f'{node.get_role_name()} {node.get_name()!r} at {e.x}+{e.width}')
        except GLib.Error:
            continue
    return found


def dialog_of(node):
    """The dialog (or window) @node is in."""
    while node.get_role_name() not in ('dialog', 'frame', 'window', 'alert'):
        node = node.get_parent()
    return node


def assert_fits(case, window, what, width=360):
    """@window is at most @width wide, and nothing in it shows beyond it."""
    case.assertLessEqual(window.get_extents(Atspi.CoordType.SCREEN).width, width, what)
    case.assertEqual(overflowing(case, window, width), [], what)


class NarrowChecks:
    WORDS = ENGLISH

    def show(self, view):
        self.act(self.find('frame', self.WORDS['title']),
                 {'Apps': 'win.show-apps', 'Settings': 'win.show-settings'}[view])
        self.find('entry' if view == 'Apps' else 'switch',
                  self.WORDS['search' if view == 'Apps' else 'settings'])
        time.sleep(0.5)   # laid out

    def assert_dialog_fits(self, text, shot):
        """The dialog showing a label with @text fits, and is cancelled."""
        assert_fits(self, dialog_of(self.find('label', text)), shot)
        self.screenshot(shot)
        self.click_button(self.WORDS['cancel'])
        self.gone('label', text)

    def combo_value_widths(self):
        """Each combo row's value: how wide its label shows, by value. An
        ellipsized value is narrower than when there was room."""
        widths = {}
        for combo in self.find_all('combo box'):
            value = self.find('list item', None, root=combo)
            label = self.find('label', None, root=value)
            widths[combo.get_description()] = label.get_extents(Atspi.CoordType.WINDOW).width
        return widths

    def description_height(self, app):
        return self.row_description(app).get_extents(Atspi.CoordType.WINDOW).height

    def crash_looping_files(self):
        """Files and Terminal saved, Files in a crash loop: Allow Recovery,
        clear and switch on one row."""
        sim = Simulator(self.s)
        sim.save('org.example.Files', payload=b's' * 4000)
        sim.save('org.example.Terminal', payload=b's' * 4000)
        for _ in range(3):
            self.s.call('NoteExit', 'sb', 'org.example.Files', False)
        self.show('Apps')
        self.wait_until(lambda: self.WORDS['allow'] in
                        [b.get_name() for b in self.find_all('button')], 'Allow Recovery on Files')

    def test_narrow_fits(self):
        self.s.gsettings('set', 'login-restore', 'ask')
        self.show('Settings')
        wide_values = self.combo_value_widths()
        self.assertEqual(set(wide_values), self.WORDS['values'])
        self.crash_looping_files()
        # Older than 7 days: shortening "Keep Saved Sessions For" asks.
        write_state_file(self.s, 'org.example.TextEditor', age_seconds=10 * DAY)

        self.resize(360, 700)
        try:
            self.show('Settings')
            self.assertEqual(overflowing(self), [])
            # No value collapses to "…": each is as wide as when there was room.
            self.assertEqual(self.combo_value_widths(), wide_values)
            self.screenshot(f'{self.SHOTS}-narrow-main')

            self.click('button', self.WORDS['clear all'])
            self.assert_dialog_fits(self.WORDS['cleared'], f'{self.SHOTS}-narrow-clear-all-dialog')

            self.open_list(self.WORDS['keep'])
            self.key('Up', 'Return')
            self.assert_dialog_fits(self.WORDS['cleared'], f'{self.SHOTS}-narrow-retention-dialog')

            self.show('Apps')
            self.assertEqual(overflowing(self), [])
            self.screenshot(f'{self.SHOTS}-narrow-apps')

            self.click('button', self.WORDS['clear one'])
            self.assert_dialog_fits(self.WORDS['cleared'], f'{self.SHOTS}-narrow-clear-dialog')
            self.show('Settings')
        finally:
            self.resize(1000, 700)

    def test_narrow_descriptions(self):
        self.crash_looping_files()
        # One line: Text Editor has nothing saved.
        line = self.description_height('Text Editor')
        self.screenshot(f'{self.SHOTS}-wide-apps')
        self.resize(360, 700)
        try:
            self.show('Apps')
            for app in ('Files', 'Terminal'):
                self.assertLessEqual(self.description_height(app), 3 * line + 2, app)
        finally:
            self.resize(1000, 700)
