#!/usr/bin/python3
"""Register through the save/restore portal: an app's Register through the
stand-in frontend (tests/lib/portalfrontend.py) to session-restore-portal,
which asks policyd and writes its record, against the same path to a
backend that answers at once (bench-portal-baseline). Two private sessions,
one each, measured in alternating rounds so that a busy machine slows both
alike; each figure is a median. Each Register is followed by a voluntary
Close and a round trip through the backend's main loop (not timed), so
that the app's next launch is LAUNCH with its id again, as an app started
and quit over and over. The backend writes its record on a worker thread,
coalescing snapshots, so the writes overlap the next Registers as they do
on a desktop.

The target: session-restore-portal within 1.3x the do-nothing backend.
The backend's resident memory when idle afterwards is printed too.
"""
import os
import statistics
import subprocess
import sys
import time

from portalapp import PortalApp
from srtest import BUILD_DIR, PYTHON, SOURCE_DIR, Gio, GLib, Session

BACKEND = os.path.join(BUILD_DIR, 'portal', 'session-restore-portal')
BASELINE = (os.environ.get('SR_BENCH_PORTAL_BASELINE') or
            os.path.join(BUILD_DIR, 'tests', 'bench', 'bench-portal-baseline'))
BACKEND_NAME = 'org.freedesktop.impl.portal.SessionRestore'
FRONTEND = os.path.join(SOURCE_DIR, 'tests', 'lib', 'portalfrontend.py')
ROUNDS = int(os.environ.get('SR_BENCH_ROUNDS', '11'))
PER_ROUND = 40
TARGET = 1.3


def rss_kib(pid):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


class World:
    """A private session with a backend (@command) and the frontend."""

    def __init__(self, command, policyd):
        self.s = Session()
        self.s.env['XDG_CURRENT_DESKTOP'] = 'sway'
        if policyd:
            self.s.start_policyd()
        self.processes = []
        self.backend = self.start(command)
        self.s.wait_for_name(self.s.bus, BACKEND_NAME)
        self.start([PYTHON, FRONTEND, BACKEND_NAME])
        self.s.wait_for_name(self.s.bus, 'org.freedesktop.portal.Desktop')
        self.app = PortalApp(self.s.session_bus.address, self.s.state_home, 'org.example.Bench')
        self.app.call('org.freedesktop.portal.Session', 'Close', path=self.app.handle)
        self.count = 0

    def start(self, command):
        process = subprocess.Popen(command, env=self.s.env, stdout=subprocess.DEVNULL,
                                   stderr=open('/tmp/bench-portal-' + str(len(self.processes)) + '.log', 'w'))
        self.processes.append(process)
        return process

    def register(self):
        self.count += 1
        self.app.token = f'r{self.count}'
        start = time.perf_counter()
        registration = self.app.register()
        elapsed = time.perf_counter() - start
        assert registration['restore-reason'] in (1, 3), registration
        self.app.call('org.freedesktop.portal.Session', 'Close', path=self.app.handle)
        # Untimed: a round trip through the backend's main loop, so that
        # the close is handled (its record write may still be under way).
        self.s.bus.call_sync(BACKEND_NAME, '/org/freedesktop/portal/desktop',
                             'org.freedesktop.DBus.Properties', 'Get',
                             GLib.Variant('(ss)', ('org.freedesktop.impl.portal.SaveRestore', 'version')),
                             None, Gio.DBusCallFlags.NONE, 30000, None)
        return elapsed

    def close(self):
        for process in reversed(self.processes):
            process.terminate()
            process.wait(30)
        self.s.close()


def main():
    worlds = {}
    try:
        worlds['baseline'] = World([BASELINE, BACKEND_NAME], policyd=False)
        worlds['portal'] = World([BACKEND], policyd=True)
        times = {name: [] for name in worlds}
        order = list(worlds)
        for _ in range(3):            # warm up: pages, policyd's first answers
            for world in worlds.values():
                world.register()
        for i in range(ROUNDS):
            for name in order[i % 2:] + order[:i % 2]:
                times[name] += [worlds[name].register() for _ in range(PER_ROUND)]
        time.sleep(1)                 # idle: what it keeps
        rss = {name: rss_kib(world.backend.pid) for name, world in worlds.items()}

        ms = {name: statistics.median(values) * 1000 for name, values in times.items()}
        ratio = ms['portal'] / ms['baseline']
        print(f'{ROUNDS} rounds x {PER_ROUND} Registers each, through the stand-in frontend')
        print(f'do-nothing backend          median {ms["baseline"]:7.2f} ms   idle RSS {rss["baseline"]:6d} KiB')
        print(f'session-restore-portal      median {ms["portal"]:7.2f} ms   idle RSS {rss["portal"]:6d} KiB')
        print(f'portal / do-nothing   {ratio:.2f}x   target <= {TARGET:.2f}x   '
              f'{"PASS" if ratio <= TARGET else "FAIL"}')
        return 0 if ratio <= TARGET else 1
    finally:
        for world in worlds.values():
            world.close()


if __name__ == '__main__':
    sys.exit(main())
