#!/usr/bin/python3
"""session-restore-portal's SessionManager door against the real
gnome-session-service 51, GTK's RegisterRestore as the measure.

Two private sessions, each with its own bus: one where gnome-session 51
owns org.gnome.SessionManager (tests/lib/gnomesession.py: started, and
Initialized() called, as a login does), one where our backend owns it
(with policyd, every setting at its default). Both are given the same
APPS desktop files (gnome-session refuses an app without one), and the
calls go to each in alternating rounds, so that a busy machine slows both
alike; the app ids rotate, so that policyd's bound on one app's exit
reports (100 at once, then 10 a second) is never reached.

Two measures, each the ratio of the medians, ours over gnome-session's,
target <= 1.0x:
- Register + Unregister: RegisterRestore and UnregisterRestore of one
  app, on one connection, the pair timed (an app started and quit, as
  far as the session manager sees it; each Register is LAUNCH with the
  last instance's id again);
- Register from a fresh connection: RegisterRestore alone, timed, from a
  connection opened just before (untimed), as every GTK app does at
  start-up: the session manager meets a sender it has never seen; then
  UnregisterRestore and the connection closed, untimed.
After each round trip, untimed, a call answered on the manager's main
loop (Properties.Get RestoreSupported), so that what the last call left
it to do is done before the next is timed.

gnome-session writes its whole record with g_file_set_contents() inside
every one of these calls, before it answers: on a disk, the fsync of
that write is most of its time (2026-12-08, ext4: 25.7 ms a pair, 9.9 a
fresh Register). TMPDIR=/dev/shm puts both sessions on tmpfs, where what
is left is the calls' own handling (the same day: 3.65 and 1.99 ms;
ours 1.85 and 1.84).

SR_BENCH_SM_OTHER=<another session-restore-portal> measures that build as
well, in the same rounds (a before/after in one run; no target), with
its own build's libsessionrestore (LD_LIBRARY_PATH left out).
"""
import os
import statistics
import subprocess
import sys
import time

from gnomesession import LAUNCH, SM_IFACE, SM_NAME, SM_PATH, Apps, GnomeSession, owner_pid, wait_until
from srtest import BUILD_DIR, Gio, GLib, Session

BACKEND = os.path.join(BUILD_DIR, 'portal', 'session-restore-portal')
OTHER = os.environ.get('SR_BENCH_SM_OTHER')
ROUNDS = int(os.environ.get('SR_BENCH_ROUNDS', '30'))
PER_ROUND = 20
APPS = 100
TARGET = 1.0


def connect(address):
    return Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)


def call(conn, method, signature, *args):
    reply = conn.call_sync(SM_NAME, SM_PATH, SM_IFACE, method, GLib.Variant(f'({signature})', args),
                           None, Gio.DBusCallFlags.NO_AUTO_START, 30000, None)
    return reply.unpack()


class World:
    """A private session whose org.gnome.SessionManager is @kind's:
    'gnome-session', or a session-restore-portal run as @command."""

    def __init__(self, kind, command=None):
        self.kind = kind
        self.s = Session(polkit=None if kind == 'gnome-session' else 'mock')
        self.apps = Apps(self.s)
        self.app_ids = [f'org.example.Bench{i}' for i in range(APPS)]
        for app_id in self.app_ids:
            self.apps.install(app_id)
        self.gs = self.backend = None
        if kind == 'gnome-session':
            self.gs = GnomeSession(self.s).start()
        else:
            self.s.env['XDG_CURRENT_DESKTOP'] = 'sway'
            self.s.start_policyd()
            env = self.s.env
            if command[0] == OTHER:
                env = {k: v for k, v in env.items() if k != 'LD_LIBRARY_PATH'}
            self.log = open(f'/tmp/bench-sm-{kind}.log', 'w')
            self.backend = subprocess.Popen(command, env=env, stdout=self.log,
                                            stderr=subprocess.STDOUT)
            wait_until(lambda: self.backend.poll() is not None or
                       owner_pid(self.s.bus, SM_NAME) == self.backend.pid,
                       f'{command[0]} to own {SM_NAME} (see /tmp/bench-sm-{kind}.log)')
            if self.backend.poll() is not None:
                raise RuntimeError(f'{command[0]} exited (see /tmp/bench-sm-{kind}.log)')
        self.address = self.s.session_bus.address
        self.conn = connect(self.address)
        self.count = 0

    def next_app(self):
        self.count += 1
        return self.app_ids[self.count % APPS]

    def settle(self, conn):
        conn.call_sync(SM_NAME, SM_PATH, 'org.freedesktop.DBus.Properties', 'Get',
                       GLib.Variant('(ss)', (SM_IFACE, 'RestoreSupported')), None,
                       Gio.DBusCallFlags.NO_AUTO_START, 30000, None)

    def check(self, answer):
        reason, instance_id, cleanup = answer
        assert reason == LAUNCH and instance_id and not cleanup, (self.kind, answer)

    def pair(self):
        app_id = self.next_app()
        start = time.perf_counter()
        answer = call(self.conn, 'RegisterRestore', 'ss', app_id, '')
        call(self.conn, 'UnregisterRestore', 'ss', app_id, answer[1])
        elapsed = time.perf_counter() - start
        self.check(answer)
        self.settle(self.conn)
        return elapsed

    def fresh(self):
        app_id = self.next_app()
        conn = connect(self.address)
        start = time.perf_counter()
        answer = call(conn, 'RegisterRestore', 'ss', app_id, '')
        elapsed = time.perf_counter() - start
        self.check(answer)
        call(conn, 'UnregisterRestore', 'ss', app_id, answer[1])
        conn.close_sync(None)
        self.settle(self.conn)
        return elapsed

    def close(self):
        if self.gs is not None:
            self.gs.stop()
        if self.backend is not None:
            self.backend.terminate()
            self.backend.wait(30)
            self.log.close()
        self.s.close()


def spread(values):
    """Median, and the 10th and 90th percentiles, in ms."""
    q = statistics.quantiles(values, n=10)
    return statistics.median(values) * 1000, q[0] * 1000, q[-1] * 1000


def verdict(what, ratio, target):
    print(f'{what:<52} {ratio:5.2f}x   target <= {target:.2f}x   '
          f'{"PASS" if ratio <= target else "FAIL"}')
    return ratio <= target


def main():
    worlds = {}
    try:
        worlds['gnome-session'] = World('gnome-session')
        worlds['portal'] = World('portal', [BACKEND])
        if OTHER:
            worlds['other'] = World('other', [OTHER])
        measures = {'pair': {name: [] for name in worlds}, 'fresh': {name: [] for name in worlds}}
        order = list(worlds)
        for world in worlds.values():          # warm up: every app once, policyd's first answers
            for _ in range(APPS):
                world.pair()
        for i in range(ROUNDS):
            for measure in measures:
                for name in order[i % len(order):] + order[:i % len(order)]:
                    world = worlds[name]
                    step = world.pair if measure == 'pair' else world.fresh
                    measures[measure][name] += [step() for _ in range(PER_ROUND)]
    finally:
        for world in worlds.values():
            world.close()

    labels = {'gnome-session': 'gnome-session-service 51', 'portal': 'session-restore-portal',
              'other': 'SR_BENCH_SM_OTHER'}
    titles = {'pair': 'RegisterRestore + UnregisterRestore, one connection',
              'fresh': 'RegisterRestore from a fresh connection'}
    ok = True
    for measure, times in measures.items():
        print(f'{titles[measure]}: {ROUNDS} alternating rounds x {PER_ROUND} '
              '(ms: median, 10th-90th percentile)')
        for name, values in times.items():
            print('  {:<30} {:7.3f}  {:6.3f}-{:6.3f}'.format(labels[name], *spread(values)))
    for measure, times in measures.items():
        base = statistics.median(times['gnome-session'])
        if OTHER:
            print(f'  (SR_BENCH_SM_OTHER, {measure}: '
                  f'{statistics.median(times["other"]) / base:.2f}x)')
        ok &= verdict(f'{"Register + Unregister" if measure == "pair" else "Register, fresh connection"}'
                      ' / gnome-session', statistics.median(times['portal']) / base, TARGET)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
