#!/usr/bin/python3
"""`session-restore-ctl list --json` against the bare ListStoredState round
trip, on the tree of bench_clear.py: 10,000 GTK state files across 1,000
apps.

Three figures, in rounds that rotate their order so that a busy machine
slows them alike; each is a median:
- the round trip on a connection that is already open and known to policyd
  (as bench_clear.py measures it; the reply is not decoded);
- the same round trip made by a program that does nothing else
  (bench-list-client: start, connect, call, exit): what any command pays
  before it can do anything with the answer;
- the tool: start, connect, the properties, the same call, the JSON
  written to a file.
The target is the tool within 1.2x the round trip as a program makes it.
The tool against the open connection is printed too: that ratio also
counts starting a process and policyd identifying a new caller, which no
command can avoid (the do-nothing program's own ratio shows how much).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench_clear import APPS, PER_APP, build
from srtest import BUS_NAME, IFACE, OBJECT_PATH, Gio, Session

BUILD = os.environ.get('SR_BUILD_DIR', '')
CTL = os.environ.get('SR_CTL') or os.path.join(BUILD, 'ctl', 'session-restore-ctl')
CLIENT = os.environ.get('SR_BENCH_LIST_CLIENT') or os.path.join(BUILD, 'tests', 'bench', 'bench-list-client')
ROUNDS = int(os.environ.get('SR_BENCH_ROUNDS', '21'))
TARGET = 1.2


def main():
    session = Session()
    try:
        session.start_policyd()
        build(session.state_home)

        def open_connection():
            start = time.perf_counter()
            session.bus.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'ListStoredState', None,
                                  None, Gio.DBusCallFlags.NONE, 30000, None)
            return time.perf_counter() - start

        def program(command, out):
            out.seek(0)
            out.truncate()
            start = time.perf_counter()
            subprocess.run(command, env=session.env, stdout=out, check=True)
            return time.perf_counter() - start

        with tempfile.TemporaryFile(mode='w+') as out:
            # Warm up: page cache, policyd's first walk, the programs' pages.
            open_connection()
            program([CLIENT], out)
            program([CTL, 'list', '--json'], out)
            out.seek(0)
            doc = json.load(out)
            assert len(doc['apps']) == APPS, len(doc['apps'])
            assert doc['total']['entries'] == APPS * PER_APP, doc['total']
            size = out.seek(0, os.SEEK_END)

            times = {'open': [], 'client': [], 'ctl': []}
            runs = [('open', open_connection),
                    ('client', lambda: program([CLIENT], out)),
                    ('ctl', lambda: program([CTL, 'list', '--json'], out))]
            for i in range(ROUNDS):
                for name, run in runs[i % 3:] + runs[:i % 3]:
                    times[name].append(run())

        ms = {name: statistics.median(values) * 1000 for name, values in times.items()}
        ratio = ms['ctl'] / ms['client']
        print(f'tree: {APPS} apps x {PER_APP} files = {APPS * PER_APP} files, {ROUNDS} rounds, '
              f'{size} bytes of JSON')
        print(f'ListStoredState, open connection           median {ms["open"]:8.1f} ms')
        print(f'ListStoredState, by a do-nothing program   median {ms["client"]:8.1f} ms'
              f'   ({ms["client"] / ms["open"]:.2f}x the open connection)')
        print(f'session-restore-ctl list --json            median {ms["ctl"]:8.1f} ms'
              f'   ({ms["ctl"] / ms["open"]:.2f}x the open connection, no target)')
        print(f'ctl / round trip by a program   {ratio:.2f}x   target <= {TARGET:.2f}x   '
              f'{"PASS" if ratio <= TARGET else "FAIL"}')
        return 0 if ratio <= TARGET else 1
    finally:
        session.close()


if __name__ == '__main__':
    sys.exit(main())
