#!/usr/bin/python3
"""Instructions the panel executes to its first filled frame, counted by
callgrind, against bench-panel-baseline.c the same way: stable on a noisy
machine where bench_panel_startup.py's wall-clock figures are not.

The world and the rows are bench_panel_startup.py's. Each program runs
once natively first (fontconfig writes its cache on the first run in a
new HOME), then ROUNDS times per page under callgrind, which dumps
its counts as the handler that logs the first frame returns (both
programs name it on_after_paint_cb): what either does after that frame is
not counted. The panel's count varies from run to run (whether policyd's
listing or the installed apps come first, whether the window showed its
spinner before them), so medians. Prints them and their ratios; the
README's panel start-up table gives them beside the wall-clock figures.
"""
import os
import re
import statistics
import subprocess
import sys

import bench_panel_startup as bench
from srtest import Session

ROUNDS = int(os.environ.get('SR_BENCH_ROUNDS', '3'))


def instructions(argv, env, out):
    process = subprocess.Popen(['valgrind', '--tool=callgrind', '--dump-after=on_after_paint_cb',
                                f'--callgrind-out-file={out}', *argv],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        if not any('first-frame-monotonic-usec=' in line for line in process.stdout):
            raise RuntimeError(f'{argv[0]} never drew its first frame')
    finally:
        process.terminate()
        process.communicate(timeout=60)
    with open(f'{out}.1') as f:
        count = int(re.search(r'^(?:summary|totals): (\d+)', f.read(), re.M).group(1))
    for name in os.listdir(os.path.dirname(out)):
        if name.startswith(os.path.basename(out)):
            os.unlink(os.path.join(os.path.dirname(out), name))
    return count


def main():
    session = Session()
    results = {}
    try:
        session.start_policyd()
        bench.prepare(session)
        rows = os.path.join(session.root, 'rows')
        bench.baseline_rows(rows, session)
        env = dict(session.env, GSK_RENDERER='cairo', XDG_DATA_DIRS=bench.share_dir(session.root))
        panel_env = dict(env, G_MESSAGES_DEBUG='sr-panel')
        bench.run_once([bench.PANEL], panel_env)
        bench.run_once([bench.BASELINE, 'settings', rows], env)
        for _ in range(ROUNDS):
            for page in ('settings', 'apps'):
                config = os.path.join(session.config_home, 'session-restore', 'panel.ini')
                if os.path.exists(config):
                    os.unlink(config)
                panel, baseline = results.setdefault(page, ([], []))
                panel.append(instructions([bench.PANEL, f'--page={page}'], panel_env,
                                          os.path.join(session.root, f'callgrind.panel.{page}')))
                baseline.append(instructions([bench.BASELINE, page, rows], env,
                                             os.path.join(session.root, f'callgrind.baseline.{page}')))
    finally:
        session.close()

    print(f'callgrind, instructions from exec to the first filled frame, medians of {ROUNDS}')
    for page, runs in results.items():
        panel, baseline = (statistics.median(r) for r in runs)
        print(f'  {page:8} page: panel {panel:15,.0f}  baseline {baseline:15,.0f}  {panel / baseline:.3f}x'
              f'   (panel {min(runs[0]):,}–{max(runs[0]):,})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
