#!/usr/bin/python3
"""Instructions executed by session-restore-portal, counted by callgrind:
stable on a noisy machine where bench_portal.py's wall-clock figures are
not.

Start-up: exec to the first answered Register (straight to the backend,
policyd running), against exec to the first answer of the minimal GDBus
service of bench-policyd (--minimal); callgrind is asked for a dump once
the answer has come (callgrind_control), as callgrind_policyd.py does.

Register: the backend's instructions per Register and voluntary Close
through the stand-in frontend (tests/lib/portalfrontend.py), against the
do-nothing backend's (bench-portal-baseline) for the same calls: the
difference of a run with CALLS more Registers and one with none, divided
by CALLS. policyd's share (one CheckRestore and one NoteExit per round)
is counted the same way, in policyd under callgrind.

Usage: callgrind_portal.py [CALLS]   (default 200)
"""
import os
import re
import subprocess
import sys
import time

from portalapp import PortalApp
from portaltest import own_frontend_name
from srtest import BUILD_DIR, POLICYD, PYTHON, SOURCE_DIR, Gio, GLib, Session

BACKEND = os.path.join(BUILD_DIR, 'portal', 'session-restore-portal')
BASELINE = (os.environ.get('SR_BENCH_PORTAL_BASELINE') or
            os.path.join(BUILD_DIR, 'tests', 'bench', 'bench-portal-baseline'))
MINIMAL = (os.environ.get('SR_BENCH_MINIMAL') or
           os.path.join(BUILD_DIR, 'tests', 'bench', 'bench-policyd'))
FRONTEND = os.path.join(SOURCE_DIR, 'tests', 'lib', 'portalfrontend.py')
BACKEND_NAME = 'org.freedesktop.impl.portal.SessionRestore'
MINIMAL_NAME = 'org.gnome.SessionRestore.Bench'
IMPL = 'org.freedesktop.impl.portal.SaveRestore'
DESKTOP_PATH = '/org/freedesktop/portal/desktop'


def callgrind(session, argv, out):
    return subprocess.Popen(['valgrind', '--tool=callgrind', f'--callgrind-out-file={out}', *argv],
                            env=session.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def totals(out, dumped):
    """The instructions of each part: the dump, then what followed."""
    parts = []
    for part in ([f'{out}.1'] if dumped else []) + [out]:
        with open(part) as f:
            parts.append(int(re.search(r'^(?:summary|totals): (\d+)', f.read(), re.M).group(1)))
        os.unlink(part)
    return parts


def first_answer(session, argv, name, path, iface, method, params):
    """Instructions from exec to the first answer of @method."""
    out = os.path.join(session.root, f'callgrind.start.{os.getpid()}.out')
    process = callgrind(session, argv, out)
    deadline = time.monotonic() + 60
    while True:
        try:
            session.bus.call_sync(name, path, iface, method, params, None,
                                  Gio.DBusCallFlags.NO_AUTO_START, 30000, None)
            break
        except GLib.Error:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)
    subprocess.run(['callgrind_control', '--dump=first-answer', str(process.pid)],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    process.terminate()
    process.wait(60)
    return totals(out, True)[0]


def registers(command, calls, watch_policyd):
    """Instructions of the backend (and of policyd) over @calls Registers,
    each followed by a voluntary Close, in a session of their own."""
    session = Session()
    session.env['XDG_CURRENT_DESKTOP'] = 'sway'
    processes = []
    outs = {}
    try:
        if watch_policyd:
            outs['policyd'] = os.path.join(session.root, 'callgrind.policyd.out')
            # G_SLICE set, or policyd starts itself again with it, and
            # callgrind does not follow.
            session.start_policyd(prefix=['env', 'G_SLICE=always-malloc',
                                          'valgrind', '--tool=callgrind',
                                          f'--callgrind-out-file={outs["policyd"]}'])
        outs['backend'] = os.path.join(session.root, 'callgrind.backend.out')
        processes.append(callgrind(session, command, outs['backend']))
        session.wait_for_name(session.bus, BACKEND_NAME, timeout=60)
        processes.append(subprocess.Popen([PYTHON, FRONTEND, BACKEND_NAME], env=session.env))
        session.wait_for_name(session.bus, 'org.freedesktop.portal.Desktop', timeout=60)
        app = PortalApp(session.session_bus.address, session.state_home, 'org.example.Bench')
        for i in range(calls + 1):
            if i > 0:
                app.token = f'r{i}'
                app.register()
            app.call('org.freedesktop.portal.Session', 'Close', path=app.handle)
            session.bus.call_sync(BACKEND_NAME, DESKTOP_PATH, 'org.freedesktop.DBus.Properties',
                                  'Get', GLib.Variant('(ss)', (IMPL, 'version')),
                                  None, Gio.DBusCallFlags.NONE, 30000, None)
        time.sleep(0.3)     # the record's last write, 100 ms after the last close
        app.conn.close_sync(None)
        for process in reversed(processes):
            process.terminate()
            process.wait(60)
        processes = []
        if watch_policyd:
            session.stop_policyd()
            session.policyd = None
        return {name: sum(totals(out, False)) for name, out in outs.items()}
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(60)
        session.close()


def per_register(command, calls, watch_policyd):
    none = registers(command, 0, watch_policyd)
    more = registers(command, calls, watch_policyd)
    return {name: (more[name] - none[name]) / calls for name in none}


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    session = Session()
    session.env['XDG_CURRENT_DESKTOP'] = 'sway'
    try:
        session.start_policyd()
        own_frontend_name(session)
        minimal = first_answer(session, [MINIMAL, '--minimal'], MINIMAL_NAME,
                               '/org/gnome/SessionRestore/Bench', MINIMAL_NAME, 'Nothing',
                               GLib.Variant('(sua{sv})', ('org.example.App', 3, {})))
        portal = first_answer(session, [BACKEND], BACKEND_NAME, DESKTOP_PATH, IMPL, 'Register',
                              GLib.Variant('(osa{sv})', (f'{DESKTOP_PATH}/session/1_99/cold',
                                                         'org.example.Cold', {})))
    finally:
        session.close()
    baseline = per_register([BASELINE, BACKEND_NAME], calls, False)
    backend = per_register([BACKEND], calls, True)

    print(f'callgrind, instructions: start-up, exec to the first answer')
    print(f'  minimal service           {minimal:14,}')
    print(f'  session-restore-portal    {portal:14,}   {portal / minimal:.2f}x')
    print(f'per Register and Close ({calls} rounds through the stand-in frontend)')
    print(f'  do-nothing backend        {baseline["backend"]:14,.0f}')
    print(f'  session-restore-portal    {backend["backend"]:14,.0f}   '
          f'{backend["backend"] / baseline["backend"]:.2f}x')
    print(f'  policyd, for the portal   {backend["policyd"]:14,.0f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
