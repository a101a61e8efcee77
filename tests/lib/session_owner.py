"""An owner that keeps saving its gnome-session state file, as a process.

    session_owner.py PATH PERIOD_MS APP...

It rewrites PATH every PERIOD_MS milliseconds as gnome-session does (a
temporary file named as g_file_set_contents() names it, renamed over the
file), from memory: every APP with one instance, and a "serial" (t) that
grows by one with each save. It never listens to StoredStateCleared, so an
app cleared from the file comes back with its next save. An APP written
APP@DAYS has its instance's "saved-at" DAYS days back, as in
session-restore-portal's record, the others now; without any, no
"saved-at" at all, as in gnome-session's file.

Before each save it reads the file: what is there must be its own last
save, with or without some apps' entries (policyd may have removed them);
an older serial is a save of its own that someone replaced with an older
copy, a rollback. On SIGTERM it finishes the save under way and prints
"SERIAL ROLLBACKS": its last serial and the rollbacks it saw.

Standard library and gi only: the integration tests and the soak
benchmark (tests/bench/bench_soak.py) run it.
"""
import os
import random
import signal
import string
import sys
import time

import gi
gi.require_version('GLib', '2.0')
from gi.repository import GLib  # noqa: E402

STATE_TYPE = GLib.VariantType('a{sv}')


def instance(app, serial, ages):
    entry = {'instance-id': GLib.Variant('s', f'{app}-{serial}'),
             'crashed': GLib.Variant('b', False)}
    if ages:
        saved_at = int((time.time() - ages.get(app, 0) * 86400) * 1e6)
        entry['saved-at'] = GLib.Variant('x', saved_at)
    return entry


def state(serial, apps, ages=None):
    """ages: app → days since its save, for a record with "saved-at"."""
    instances = {app: ({'desktop-id': GLib.Variant('s', f'{app}.desktop')},
                       [instance(app, serial, ages)])
                 for app in apps}
    return GLib.Variant('a{sv}', {
        'version': GLib.Variant('u', 1),
        'dirty': GLib.Variant('b', False),
        'serial': GLib.Variant('t', serial),
        'instances': GLib.Variant('a{s(a{sv}aa{sv})}', instances),
    })


def serial_on_disk(path):
    """The serial of the file at path, or None when there is none."""
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except FileNotFoundError:
        return None
    value = GLib.Variant.new_from_bytes(STATE_TYPE, GLib.Bytes(data), False)
    found = value.lookup_value('serial', GLib.VariantType('t'))
    return found.get_uint64() if found is not None else None


def save(path, data):
    suffix = ''.join(random.choice(string.ascii_letters + string.digits) for _ in range(6))
    tmp = f'{path}.{suffix}'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.rename(tmp, path)


def main():
    path, period_ms = sys.argv[1], float(sys.argv[2])
    apps = [arg.split('@')[0] for arg in sys.argv[3:]]
    ages = {arg.split('@')[0]: float(arg.split('@')[1]) for arg in sys.argv[3:] if '@' in arg}
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    serial = 0
    rollbacks = 0
    while not stopping:
        if serial > 0:
            seen = serial_on_disk(path)
            if seen is not None and seen < serial:
                rollbacks += 1
        serial += 1
        save(path, state(serial, apps, ages).get_data_as_bytes().get_data())
        time.sleep(period_ms / 1000)
    print(serial, rollbacks, flush=True)


if __name__ == '__main__':
    main()
