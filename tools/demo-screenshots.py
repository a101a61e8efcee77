#!/usr/bin/python3
"""Screenshots of the running demo (tools/run, headless): the main page,
the Apps page and the Clear dialog, saved in the directory given.

The panel is driven as a person would, through AT-SPI (as tests/lib/
uitest.py does), by what its widgets are called rather than how they are
laid out: Apps is opened by activating whatever is named "Apps" (a view
switcher button, or a row; what offers no action is clicked), the Clear dialog by pressing the button whose
name starts with "Clear". A step that cannot find its widget says which
screenshot it skipped, in one line, and the rest goes on; the dialog is
cancelled afterwards, so the demo is left as it was.
"""
import os
import subprocess
import sys
import time
import warnings

import gi
gi.require_version('Atspi', '2.0')
from gi.repository import Atspi, GLib  # noqa: E402

# Atspi.Action's methods, as GTK 4.8 offers them, are deprecated in name only.
warnings.filterwarnings('ignore', category=DeprecationWarning)

ACTIONS = ('click', 'activate', 'press', 'toggle')


def find_app(timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        desktop = Atspi.get_desktop(0)
        for i in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(i)
            if app is not None and app.get_name() == 'session-restore-panel':
                return app
        time.sleep(0.2)
    return None


def on_screen(node):
    """GTK 4.8 sets SHOWING on almost nothing: what is on screen has a
    size, and it and its ancestors are visible."""
    try:
        extents = node.get_extents(Atspi.CoordType.WINDOW)
        if extents.width <= 0 or extents.height <= 0:
            return False
        while node is not None and node.get_role_name() != 'application':
            if not node.get_state_set().contains(Atspi.StateType.VISIBLE):
                return False
            node = node.get_parent()
    except GLib.Error:
        return False
    return True


def label(node):
    """The name as a person reads it: GTK 4.8 names a widget with a
    mnemonic "_Label Label"."""
    name = (node.get_name() or '').replace('_', '')
    half = len(name) // 2
    if len(name) % 2 == 1 and name[:half] == name[half + 1:] and name[half] == ' ':
        return name[:half]
    return name


def actionable(app, matches, with_actions=True):
    found = []

    def walk(node, depth):
        if node is None or depth > 60:
            return
        try:
            if (node.get_n_actions() > 0 or not with_actions) and matches(label(node)) \
                    and on_screen(node):
                found.append(node)
            for i in range(node.get_child_count()):
                walk(node.get_child_at_index(i), depth + 1)
        except GLib.Error:
            return
    walk(app, 0)
    return found


def activate(app, matches, timeout=5):
    deadline = time.monotonic() + timeout
    while True:
        for node in actionable(app, matches):
            names = [node.get_action_name(i) for i in range(node.get_n_actions())]
            for action in ACTIONS:
                if action in names:
                    node.do_action(names.index(action))
                    return True
        if time.monotonic() > deadline:
            break
        time.sleep(0.2)
    # What offers no action (a row, in some GTK versions) is clicked where it
    # is: without a window manager, the window is at the screen's corner.
    for node in actionable(app, matches, with_actions=False):
        try:
            extents = node.get_extents(Atspi.CoordType.WINDOW)
        except GLib.Error:
            continue
        x, y = extents.x + extents.width // 2, extents.y + extents.height // 2
        if subprocess.run(['xdotool', 'mousemove', str(x), str(y), 'click', '1'],
                          capture_output=True).returncode == 0:
            return True
    return False


def shoot(directory, name):
    time.sleep(1.0)   # let the last frame land
    path = os.path.join(directory, f'{name}.png')
    subprocess.run(['import', '-window', 'root', path], check=True)
    return path


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    for old in ('main.png', 'apps.png', 'clear.png'):
        if os.path.exists(os.path.join(directory, old)):
            os.remove(os.path.join(directory, old))
    Atspi.init()
    app = find_app()
    if app is None:
        print('Screenshots skipped: the panel did not show up on the accessibility bus.')
        return
    # The settings come from policyd, the apps from its listing.
    time.sleep(2)
    print(f'Screenshot of the main page: {shoot(directory, "main")}')
    # What it says consults the settings: the portal backend, by the name
    # of its desktop file.
    for node in actionable(app, lambda text: text.startswith('Used by'), with_actions=False):
        print(f'The main page says: {label(node)}')

    if activate(app, lambda text: text == 'Apps'):
        print(f'Screenshot of the Apps page: {shoot(directory, "apps")}')
    else:
        print('Screenshot of the Apps page skipped: no widget named "Apps" to activate.')

    def is_clear(text):
        return text.startswith('Clear')

    if not actionable(app, is_clear):
        # Back to where the Clear button is: the main page.
        activate(app, lambda text: text in ('Settings', 'Back'), timeout=1) or \
            subprocess.run(['xdotool', 'key', 'Escape'], capture_output=True)
    if activate(app, is_clear):
        print(f'Screenshot of the Clear dialog: {shoot(directory, "clear")}')
        # Cancel: nothing is cleared by taking the picture.
        if not activate(app, lambda text: text == 'Cancel', timeout=3):
            subprocess.run(['xdotool', 'key', 'Escape'], capture_output=True)
    else:
        print('Screenshot of the Clear dialog skipped: no button whose name starts with "Clear".')


if __name__ == '__main__':
    main()
