"""Driving session-restore-panel as a person would: through AT-SPI, on a
real X server (Xvfb, started by the meson test through xvfb-run), with a
private session bus, the real dconf backend and a real policyd.

AT-SPI binds to one session bus per process, so each test module is one
process with one Session, shared by its test cases (setUpClass); cases
reset the settings and the stored state they need.
"""
import os
import re
import subprocess
import time
import unittest

import gi
gi.require_version('Atspi', '2.0')
from gi.repository import Atspi, Gio, GLib  # noqa: E402

from srtest import BUILD_DIR, Session  # noqa: E402

PANEL = os.path.join(BUILD_DIR, 'panel', 'session-restore-panel')
SHOTS = os.path.join(BUILD_DIR, 'screenshots')

# What a screen reader or voice control user can land on or act on, by
# the role names of at-spi2-core 2.62 and GTK 4.24.
INTERACTIVE = ('button', 'toggle button', 'switch', 'check box', 'radio button', 'combo box', 'list item',
               'entry', 'password text', 'spin button', 'table cell', 'link', 'menu item',
               'check menu item', 'radio menu item', 'page tab')
# What holds or shows them. A role in neither list fails a walk (misnamed())
# and a search (find_all()): a role renamed by a new AT-SPI or GTK is then
# noticed, not silently never matched.
PASSIVE = ('application', 'frame', 'dialog', 'alert', 'window', 'panel', 'grouping', 'filler',
           'label', 'heading', 'image', 'icon', 'list', 'table', 'scroll pane', 'scroll bar',
           'separator', 'menu', 'popup menu', 'tool tip', 'text', 'status bar', 'section',
           'landmark', 'progress bar', 'level bar', 'notification', 'page tab list', 'tree table')
ROLES = INTERACTIVE + PASSIVE
CLASS_NAME = re.compile(r'^(Gtk|Adw)[A-Z]')


def badly_named(name):
    """Why an accessible name would not do, or None: empty, a GTK or
    libadwaita class name, or a label read twice ("_Cancel Cancel",
    "Retry Retry") or with its mnemonic's underscore."""
    if not name.strip():
        return 'no name'
    if CLASS_NAME.match(name):
        return 'a class name'
    if '_' in name:
        return 'a mnemonic underscore'
    words = name.split(' ')
    half = len(words) // 2
    if len(words) % 2 == 0 and words[:half] == words[half:]:
        return 'doubled'
    return None


APPS = {
    'org.example.TextEditor': 'Text Editor',
    'org.example.Files': 'Files',
    'org.example.Terminal': 'Terminal',
}


def write_desktop_files(session, apps, extra=''):
    directory = os.path.join(session.data_home, 'applications')
    os.makedirs(directory, exist_ok=True)
    for app_id, name in apps.items():
        with open(os.path.join(directory, f'{app_id}.desktop'), 'w') as f:
            f.write(f'[Desktop Entry]\nType=Application\nName={name}\nExec=true\n'
                    f'Icon=application-x-executable\n{extra}')


def is_gtk_state(name):
    """Whether @name is a GTK state file's, <app-id>@<instance-id>.state:
    an app id has a dot, and gnome-session@gnome.state, say, is no app's."""
    app, at, _ = name.partition('@')
    return bool(at) and '.' in app and name.endswith('.state')


def write_state_file(session, app_id, age_seconds=0, instance='1'):
    """A GTK state file for the app, as if saved age_seconds ago, written
    behind policyd's back (no CheckSave): a store as it is on disk."""
    from simulator import Simulator  # noqa: E402
    path = os.path.join(session.state_home, f'{app_id}@{instance}.state')
    data = Simulator.gtk_state(None, app_id, instance, b'x' * 2000)
    with open(path, 'wb') as f:
        f.write(data.get_data_as_bytes().get_data())
    when = time.time() - age_seconds
    os.utime(path, (when, when))
    return path


FUNCTION_KEY = re.compile(r'^F([1-9]|1[0-2])$')


def send_key(key):
    """Presses and releases @key (xdotool's name: 'Tab', 'ctrl+w') in the
    focused window. xdotool presses Alt with a function key under the
    keymaps of xkeyboard-config 2.4x, whose F1 to F12 end in a level for
    Ctrl+Alt (XF86Switch_VT_1): GTK then sees Alt+F1. Those go through
    AT-SPI's keyboard synthesis, by keysym, which adds no modifier."""
    if FUNCTION_KEY.match(key):
        Atspi.generate_keyboard_event(0xffbd + int(key[1:]), None, Atspi.KeySynthType.SYM)
    else:
        subprocess.run(['xdotool', 'key', '--clearmodifiers', key], check=True)
    time.sleep(0.05)


class PanelTestCase(unittest.TestCase):
    site = {}
    locks = ()
    allowed = ('org.gnome.SessionRestore.configure', 'org.gnome.SessionRestore.clear',
               'org.gnome.SessionRestore.list')
    start_policyd = True
    desktop_key = True
    panel_env = {}
    panel_path = PANEL
    panel_args = ()
    # The installed apps written into the world (write_desktop_files()):
    # none where prepare() writes its own.
    apps = APPS
    # The main window's title, in the panel's language: xdotool finds it so.
    window_title = 'Session Restore'
    # What toggle() and checked() act on: the panel's are switches.
    toggle_role = 'switch'

    @classmethod
    def setUpClass(cls):
        cls.s = Session(site=cls.site, locks=cls.locks, allowed=cls.allowed,
                        desktop_key=cls.desktop_key)
        if cls.apps:
            write_desktop_files(cls.s, cls.apps)
        cls.prepare()
        if cls.start_policyd:
            cls.s.start_policyd()
        os.environ['DBUS_SESSION_BUS_ADDRESS'] = cls.s.session_bus.address
        # Start the accessibility bus, and wait for it, before the panel
        # looks for it: a panel that finds none stays inaccessible.
        cls.s.bus.call_sync('org.a11y.Bus', '/org/a11y/bus', 'org.a11y.Bus', 'GetAddress',
                            None, None, Gio.DBusCallFlags.NONE, 20000, None)
        Atspi.init()
        # libatspi gives up on a call after 0.8 s: on two loaded cores the
        # panel sometimes takes longer, and a walk failed with "Did not
        # receive a reply".
        Atspi.set_timeout(10000, 15000)
        Atspi.get_desktop(0).get_child_count()
        cls.panel_log = open(os.path.join(cls.s.root, 'panel.log'), 'w')
        cls.start_panel(*cls.panel_args)

    @classmethod
    def start_panel(cls, *args):
        """Starts the panel with @args, logging to panel.log, and waits for
        it on the accessibility bus."""
        env = dict(cls.s.env, GSK_RENDERER='cairo', **cls.panel_env)
        cls.panel = subprocess.Popen([cls.panel_path, *args], env=env, stdout=cls.panel_log,
                                     stderr=subprocess.STDOUT)
        try:
            cls.app = cls.wait_for_app()
        except AssertionError:
            cls.tearDownClass()
            raise

    @classmethod
    def prepare(cls):
        """Subclasses put state in place before anything starts."""

    @classmethod
    def tearDownClass(cls):
        status = cls.panel.poll()
        cls.panel.terminate()
        cls.panel.wait(10)
        cls.panel_log.close()
        # What the panel said goes into the test log, for when a case failed.
        with open(os.path.join(cls.s.root, 'panel.log')) as f:
            lines = f.read().splitlines()
            # A sanitizer report is long and all of it matters.
            keep = lines if any('Sanitizer' in l for l in lines) else lines[-40:]
            for line in keep:
                print(f'# panel: {line}')
        if status is not None:
            print(f'# panel had exited with status {status}')
        cls.s.close()

    @classmethod
    def wait_for_app(cls, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            desktop = Atspi.get_desktop(0)
            for i in range(desktop.get_child_count()):
                app = desktop.get_child_at_index(i)
                if app is not None and app.get_name() == 'session-restore-panel':
                    return app
            time.sleep(0.1)
        names = [desktop.get_child_at_index(i).get_name() for i in range(desktop.get_child_count())]
        raise AssertionError(f'the panel did not show up on the accessibility bus (there: {names})')

    # -- finding things ---------------------------------------------------------

    def find_all(self, role, name=None, root=None, showing=True):
        """Every node under @root (or in the whole application) of @role
        and with @name in its name (None: any); with @showing, those on
        screen alone. GTK 4.8 marks hidden stack pages visible but not
        showing, and sets SHOWING on almost nothing: what is on screen has
        a size, and it and its ancestors below the application are
        visible. Each ancestor's state is asked for once in a walk, when a
        match needs it, and what is under one found not visible is not
        walked further: each match asking for all its ancestors' states
        made a walk of every node thousands of calls (1.5 s for the
        settings page's 108 nodes, 0.15 s so)."""
        if role is not None and role not in ROLES:
            raise AssertionError(f'no role is named {role!r} (uitest.ROLES)')
        found = []
        # The nodes from @root down to the one walked: [node, visible (None
        # until asked), is the application].
        path = []
        above = []   # whether @root's own ancestors are visible, once asked

        def visible(entry):
            if entry[1] is None:
                try:
                    entry[1] = entry[0].get_state_set().contains(Atspi.StateType.VISIBLE)
                except GLib.Error:
                    entry[1] = False   # gone meanwhile
            return entry[1]

        def shown():
            for entry in reversed(path):
                if entry[2]:
                    return True
                if not visible(entry):
                    return False
            if not above:
                try:
                    above.append(self.ancestors_visible(root))
                except GLib.Error:
                    above.append(False)   # gone (the prompt, once answered)
            return above[0]

        def walk(node, depth):
            if node is None or depth > 60:
                return
            try:
                node_role = node.get_role_name()
            except GLib.Error:
                node_role = None
            path.append([node, None, node_role == 'application'])
            try:
                # Not pruned by size: GtkStackPage accessibles have none,
                # yet their children may be on screen.
                if (role is None or node_role == role) and (name is None or name in (node.get_name() or '')) \
                        and (not showing or self.has_size(node) and shown()):
                    found.append(node)
            except GLib.Error:
                pass   # no extents at all (a stack page, the application)
            try:
                if not (showing and any(entry[1] is False for entry in path)):
                    for i in range(node.get_child_count()):
                        walk(node.get_child_at_index(i), depth + 1)
            except GLib.Error:
                pass
            path.pop()
        root = root or self.app
        walk(root, 0)
        return found

    def find(self, role, name=None, timeout=10, root=None):
        deadline = time.monotonic() + timeout
        while True:
            found = self.find_all(role, name, root)
            if found:
                return found[0]
            if time.monotonic() > deadline:
                raise AssertionError(f'no {role} named {name!r} is showing')
            time.sleep(0.1)

    def gone(self, role, name, timeout=10):
        self.wait_until(lambda: not self.find_all(role, name), f'{role} {name!r} to go away', timeout)

    def wait_until(self, predicate, what, timeout=10):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f'timed out waiting for {what}')
            time.sleep(0.1)

    # -- acting -------------------------------------------------------------------

    def act(self, node, action):
        for i in range(node.get_n_actions()):
            if node.get_action_name(i) == action:
                node.do_action(i)
                return
        raise AssertionError(f'{node.get_name()!r} has no action {action}')

    def click(self, role, name):
        self.act(self.find(role, name), 'click')

    def click_button(self, label, timeout=10):
        """A button by its exact label. GTK 4.8 names a button with a
        mnemonic "_Label Label", so both forms are accepted."""
        def matches(node):
            name = node.get_name() or ''
            return name == label or name.endswith(' ' + label) and \
                name[:-len(label) - 1].replace('_', '') == label
        # Found and clicked in one look: a toast's button can time out
        # between two.
        found = []
        self.wait_until(lambda: found.extend(b for b in self.find_all('button', label)
                                             if matches(b)) or found,
                        f'a button labelled {label!r}', timeout)
        self.act(found[0], 'click')

    def toggle(self, name):
        self.act(self.find(self.toggle_role, name), 'toggle')

    def show_view(self, title):
        """'Apps' opens the Apps subpage, as its row on the settings page
        does; 'Settings' goes back."""
        action = {'Apps': 'win.show-apps', 'Settings': 'win.show-settings'}[title]
        self.act(self.find('frame', 'Session Restore'), action)
        if title == 'Apps':
            self.find('entry', 'Search apps')
        else:
            self.find('switch', 'Save and Restore Apps')

    # -- reading --------------------------------------------------------------------

    @staticmethod
    def has_size(node):
        extents = node.get_extents(Atspi.CoordType.WINDOW)
        return extents.width > 0 and extents.height > 0

    @staticmethod
    def ancestors_visible(node):
        """Whether every ancestor of @node below the application is visible."""
        if node.get_role_name() == 'application':
            return True
        node = node.get_parent()
        while node is not None and node.get_role_name() != 'application':
            if not node.get_state_set().contains(Atspi.StateType.VISIBLE):
                return False
            node = node.get_parent()
        return True

    @staticmethod
    def inside(node, name_prefix):
        try:
            node = node.get_parent()
            while node is not None and node.get_role_name() != 'application':
                if (node.get_name() or '').startswith(name_prefix):
                    return True
                node = node.get_parent()
        except GLib.Error:
            return True   # went away meanwhile (a toast timing out)
        return False

    @staticmethod
    def inside_role(node, role):
        node = node.get_parent()
        while node is not None and node.get_role_name() != 'application':
            if node.get_role_name() == role:
                return True
            node = node.get_parent()
        return False

    @staticmethod
    def has_state(node, state):
        return node.get_state_set().contains(state)

    def checked(self, name):
        return self.has_state(self.find(self.toggle_role, name), Atspi.StateType.CHECKED)

    @staticmethod
    def in_order(nodes):
        """As on screen, top to bottom: a list view's rows are recycled, so
        the accessibility tree's order is not the list's."""
        return sorted(nodes, key=lambda n: n.get_extents(Atspi.CoordType.WINDOW).y)

    def row_description(self, name, timeout=10):
        """The description label of the Apps list's row for the app, once
        the row is showing: the label after the app's name in a list's cell."""
        deadline = time.monotonic() + timeout
        while True:
            for label in self.find_all('label', name):
                parent = label.get_parent()
                if label.get_name() != name or parent is None or not self.inside_role(label, 'table cell'):
                    continue
                following = parent.get_child_at_index(label.get_index_in_parent() + 1)
                if following is not None and following.get_role_name() == 'label':
                    return following
            if time.monotonic() > deadline:
                raise AssertionError(f'no row for {name} is showing')
            time.sleep(0.1)

    def row_text(self, name, timeout=10):
        """The description line of the Apps list's row for the app."""
        return self.row_description(name, timeout).get_name() or ''

    def misnamed(self, root=None):
        """Every interactive node showing (under @root, or in the whole
        application) whose name will not do, and every list or filler
        named after its class, as "role 'name' (why)"."""
        found = []
        for node in self.find_all(None, root=root):
            try:
                role, name = node.get_role_name(), node.get_name() or ''
            except GLib.Error:
                continue   # gone meanwhile (a toast timing out, a dialog's buttons rearranged)
            why = badly_named(name) if role in INTERACTIVE else \
                'a class name' if role in ('list', 'filler', 'table') and CLASS_NAME.match(name) else \
                'a role uitest does not know' if role not in PASSIVE else None
            if why is not None:
                found.append(f'{role} {name!r} ({why})')
        return found

    def assert_well_named(self, screen):
        """Once the screen has settled: nothing on it misnamed."""
        time.sleep(0.3)
        problems = self.misnamed()
        self.assertFalse(problems, f'misnamed on {screen}: ' + '; '.join(problems))

    def sensitive(self, role, name):
        return self.has_state(self.find(role, name), Atspi.StateType.SENSITIVE)

    def screenshot(self, name):
        os.makedirs(SHOTS, exist_ok=True)
        time.sleep(0.5)   # let the last frame land
        path = os.path.join(SHOTS, f'{name}.png')
        subprocess.run(['import', '-window', 'root', path], check=True)
        return path

    def key(self, *keys, focus=False):
        """Presses @keys in the panel's window, and gives the panel 0.3 s
        to act on them; with @focus, a key that moves the keyboard focus
        (one), until the focus has landed (AT-SPI's event), for at most
        2 s: a Tab lands in 0.05 to 0.15 s on a loaded machine."""
        subprocess.run(['xdotool', 'search', '--name', f'^{self.window_title}$', 'windowfocus', '--sync'],
                       capture_output=True)
        if focus:
            assert len(keys) == 1, 'which key\'s focus would be waited for?'
            focused = self.focus_events()
            focused.clear()
        for key in keys:
            send_key(key)
        if not focus:
            time.sleep(0.3)
            return
        context = GLib.MainContext.default()
        deadline = time.monotonic() + 2
        while not focused and time.monotonic() < deadline:
            while context.iteration(False):
                pass
            time.sleep(0.01)

    @classmethod
    def focus_events(cls):
        """The nodes that gained the keyboard focus since the list was last
        cleared, as AT-SPI reports them while the default main context
        runs; listened to from the first call on."""
        if getattr(cls, 'focus_listener', None) is None:
            cls.focused = []
            cls.focus_listener = Atspi.EventListener.new(
                lambda event: event.detail1 and cls.focused.append(event.source))
            cls.focus_listener.register('object:state-changed:focused')
        return cls.focused

    def type_text(self, text):
        subprocess.run(['xdotool', 'type', '--delay', '50', text], check=True)
        time.sleep(0.3)

    def focus_by_tab(self, role, name, presses=40):
        """Tabs until the control has the keyboard focus; returns it."""
        for _ in range(presses):
            for node in self.find_all(role, name):
                if self.has_state(node, Atspi.StateType.FOCUSED):
                    return node
            self.key('Tab', focus=True)
        return None

    def open_list(self, name):
        """Opens the list of the combo row @name from the keyboard; it
        opens on the value in force. A fixed 0.3 s, not focus=True: the
        popup's first focus event comes before its list has the focus, and
        under ASan a key after it went astray."""
        self.assertIsNotNone(self.focus_by_tab('combo box', name))
        self.key('Return')

    def choose_keep(self, keys, description):
        """Picks a value of "Keep Saved Sessions For" from its list, which
        opens on the value in force, by @keys, until the row says
        @description, or, when it asks first (the row then still says the
        value in force), until it asks."""
        self.open_list('Keep Saved Sessions For')
        self.key(*keys, 'Return')
        self.wait_until(lambda: self.find_all('label', 'will be cleared') or
                        self.find('combo box', 'Keep Saved Sessions For').get_description() ==
                        description, f'the row to say {description}, or a question')

    def resize(self, width, height):
        subprocess.run(['xdotool', 'search', '--sync', '--name', f'^{self.window_title}$',
                        'windowsize', '--sync', str(width), str(height)],
                       check=True, capture_output=True, timeout=30)
        time.sleep(0.5)
