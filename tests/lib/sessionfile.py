"""A session file shared by many apps, written as its owner leaves it:
gnome-session's (no time per instance) or session-restore-portal's record
(a "saved-at" per instance). Its own time is whenever any app changed."""
import os

from gi.repository import GLib


def write_session_file(path, apps, written_us, extra=None, crashed=()):
    """apps: app id → list of the instances' saved-at (µs), None for an
    instance without one (gnome-session's). written_us: the file's time.
    extra: more top-level keys (name → GLib.Variant). crashed: the apps
    whose instances are recorded as crashed."""
    instances = {}
    for app, times in apps.items():
        entries = []
        for i, saved_at in enumerate(times):
            entry = {'instance-id': GLib.Variant('s', str(i + 1)),
                     'crashed': GLib.Variant('b', app in crashed)}
            if saved_at is not None:
                entry['saved-at'] = GLib.Variant('x', saved_at)
                entry['ended-at-session-end'] = GLib.Variant('b', True)
            entries.append(entry)
        instances[app] = ({}, entries)
    state = GLib.Variant('a{sv}', {
        'version': GLib.Variant('u', 1),
        'dirty': GLib.Variant('b', False),
        'instances': GLib.Variant('a{s(a{sv}aa{sv})}', instances),
        **(extra or {}),
    })
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as f:
        f.write(state.get_data_as_bytes().get_data())
    os.utime(path, ns=(written_us * 1000, written_us * 1000))
