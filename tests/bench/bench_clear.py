#!/usr/bin/python3
"""Clearing and listing stored state at scale, against rm -rf.

10,000 GTK state files across 1,000 apps. Each round builds two identical
trees: policyd clears one through Clear([]) (over D-Bus, clear point and
all), rm -rf removes the other. The ratio of the medians is the figure;
the target is at most 1.5. ListStoredState on the same tree: target under
100 ms. Timings are wall-clock medians of several rounds in one run.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

from srtest import BUS_NAME, IFACE, OBJECT_PATH, GLib, Gio, Session

APPS, PER_APP, ROUNDS = 1000, 10, int(os.environ.get('SR_BENCH_ROUNDS', '7'))
# A real GTK state file, 173 bytes, one window: policyd reads some of these
# to count windows.
PAYLOAD = GLib.Variant('(a{sv}a{sv}a(a{sv}a{sv}))', (
    {'app-id': GLib.Variant('s', 'org.example.App0000')},
    {'data': GLib.Variant('ay', b'x' * 64)},
    [({'maximized': GLib.Variant('b', False)},
      {'width': GLib.Variant('i', 800), 'height': GLib.Variant('i', 600)})],
)).get_data_as_bytes().get_data()


def build(directory):
    os.makedirs(directory, exist_ok=True)
    for a in range(APPS):
        for i in range(PER_APP):
            with open(os.path.join(directory, f'org.example.App{a:04d}@{i:08x}.state'), 'wb') as f:
                f.write(PAYLOAD)
    subprocess.run(['sync'], check=True)


def main():
    session = Session()
    try:
        session.start_policyd()
        state = session.state_home
        copy = os.path.join(session.root, 'rm-tree')
        clear_times, rm_times, list_times = [], [], []
        for _ in range(ROUNDS):
            build(state)
            build(copy)
            # The round trip, as a client sees it; decoding the reply into
            # Python objects is the client's own cost and is not counted.
            start = time.perf_counter()
            reply = session.bus.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'ListStoredState', None,
                                          None, Gio.DBusCallFlags.NONE, 30000, None)
            list_times.append(time.perf_counter() - start)
            listing = dict(reply.unpack()[0])
            assert len(listing) == APPS and all(v['entries'] == PER_APP for v in listing.values())
            # policyd reads the first 1,000 GTK files of a store only, and
            # gives an app's windows only when it read all of its files.
            counted = [v['windows'] for v in listing.values() if 'windows' in v]
            assert all(w == PER_APP for w in counted), counted

            start = time.perf_counter()
            report = session.clear()
            clear_times.append(time.perf_counter() - start)
            assert report['entries'] == APPS * PER_APP, report['entries']

            start = time.perf_counter()
            subprocess.run(['rm', '-rf', copy], check=True)
            rm_times.append(time.perf_counter() - start)
            shutil.rmtree(copy, ignore_errors=True)

        clear_ms = statistics.median(clear_times) * 1000
        rm_ms = statistics.median(rm_times) * 1000
        list_ms = statistics.median(list_times) * 1000
        ratio = clear_ms / rm_ms
        print(f'tree: {APPS} apps x {PER_APP} files = {APPS * PER_APP} files, {ROUNDS} rounds')
        print(f'Clear([])        median {clear_ms:8.1f} ms')
        print(f'rm -rf           median {rm_ms:8.1f} ms')
        print(f'Clear / rm -rf   {ratio:.2f}x   target <= 1.50x   {"PASS" if ratio <= 1.5 else "FAIL"}')
        print(f'ListStoredState  median {list_ms:8.1f} ms   target < 100 ms   '
              f'{"PASS" if list_ms < 100 else "FAIL"}')
        return 0 if ratio <= 1.5 and list_ms < 100 else 1
    finally:
        session.close()


if __name__ == '__main__':
    sys.exit(main())
