#!/usr/bin/python3
"""Instructions executed by policyd, counted by callgrind: stable on a
noisy machine where wall-clock figures are not.

For policyd and for the do-nothing service of bench-policyd (the floor for
a GDBus service), runs the service under callgrind twice in a private
session: once started and stopped with a single call, once with CALLS more
calls. The difference divided by CALLS is the cost of one call. The first
run is the cost of start-up and exit, told apart by a dump that callgrind
is asked for once the first answer has come (callgrind_control): start-up
is exec to the first answer (and what the service does in the moment
before the dump), exit what follows. Then policyd's start-up once more,
with 10,000 excluded apps. Prints them and their ratios; the figures go
into the README's "Performance" table.

Usage: callgrind_policyd.py [CALLS]   (default 2,000)
"""
import os
import re
import subprocess
import sys
import time

from srtest import BUILD_DIR, BUS_NAME, IFACE, OBJECT_PATH, POLICYD, Gio, GLib, Session

MINIMAL = os.path.join(BUILD_DIR, 'tests', 'bench', 'bench-policyd')
MINIMAL_NAME = 'org.gnome.SessionRestore.Bench'
MINIMAL_PATH = '/org/gnome/SessionRestore/Bench'


def params():
    return GLib.Variant('(sua{sv})', ('org.example.App', 3,
                                      {'saved-at': GLib.Variant('x', int(time.time() * 1e6) - 1000000)}))


TARGETS = {
    'minimal, do-nothing method': ([MINIMAL, '--minimal'], MINIMAL_NAME, MINIMAL_PATH, MINIMAL_NAME, 'Nothing'),
    'policyd CheckRestore': ([POLICYD], BUS_NAME, OBJECT_PATH, IFACE, 'CheckRestore'),
}


def instructions(session, argv, name, path, iface, method, calls):
    out = os.path.join(session.root, f'callgrind.{os.getpid()}.{calls}.out')
    process = subprocess.Popen(['valgrind', '--tool=callgrind', f'--callgrind-out-file={out}', *argv],
                               env=session.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bus = session.session_bus.connect()
    deadline = time.monotonic() + 180
    while True:
        try:
            bus.call_sync(name, path, iface, method, params(), None,
                          Gio.DBusCallFlags.NO_AUTO_START, 30000, None)
            break
        except GLib.Error:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    subprocess.run(['callgrind_control', '--dump=first-answer', str(process.pid)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    p = params()
    for _ in range(calls):
        bus.call_sync(name, path, iface, method, p, None, Gio.DBusCallFlags.NO_AUTO_START, 30000, None)
    bus.close_sync(None)
    process.terminate()
    process.wait(60)
    parts = []
    for part in (f'{out}.1', out):
        with open(part) as f:
            parts.append(int(re.search(r'^(?:summary|totals): (\d+)', f.read(), re.M).group(1)))
        os.unlink(part)
    return parts[0], sum(parts)


def set_exclusions(session, n):
    """Through dconf load on stdin: 10,000 ids do not fit on a command line."""
    apps = ', '.join(f"'org.example.Excluded{i:05}'" for i in range(n))
    keyfile = f'[/]\nexcluded-apps={"[" + apps + "]" if n else "@as []"}\n'
    subprocess.run(['dconf', 'load', '/org/gnome/session-restore/'], input=keyfile.encode(),
                   env=session.env, check=True)


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    session = Session(polkit=None)
    try:
        results = {}
        for label, target in TARGETS.items():
            start, once = instructions(session, *target, 0)
            more = instructions(session, *target, calls)[1]
            results[label] = (start, once - start, (more - once) / calls)
        # GLib 2.74 read a list from dconf in time quadratic in its length.
        set_exclusions(session, 10000)
        excluded_start = instructions(session, *TARGETS['policyd CheckRestore'], 0)[0]
        set_exclusions(session, 0)
    finally:
        session.close()

    print(f'callgrind, instructions executed ({calls} calls)  start-up to answer        exit     per call')
    for label, (start, exit_, per_call) in results.items():
        print(f'  {label:40} {start:14,} {exit_:11,} {per_call:12,.0f}')
    (m_start, m_exit, m_call), (p_start, p_exit, p_call) = results.values()
    print(f'  policyd / minimal: start-up {p_start / m_start:.2f}x, start-up and exit '
          f'{(p_start + p_exit) / (m_start + m_exit):.2f}x, per call {p_call / m_call:.2f}x')
    print(f'  policyd start-up to answer with 10,000 excluded apps {excluded_start:14,}: '
          f'{excluded_start / p_start:.2f}x that with none')
    return 0


if __name__ == '__main__':
    sys.exit(main())
