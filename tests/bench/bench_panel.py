#!/usr/bin/python3
"""The panel at scale: time from exec to the first frame that shows the
filled app list, and peak memory (VmHWM), with 2,000 installed apps of
which 1,000 have stored state, against the same binary with 10 apps (5
with state), in one run. Targets: at most 2x the time, 1.5x the memory.

Run under an X server (xvfb-run does it in meson). The panel opens on its
Apps page so that the list is really drawn.
"""
import os
import statistics
import subprocess
import sys
import time

from srtest import BUILD_DIR, Session

PANEL = os.path.join(BUILD_DIR, 'panel', 'session-restore-panel')
ROUNDS = int(os.environ.get('SR_BENCH_ROUNDS', '5'))


def prepare(session, installed, stored):
    apps = os.path.join(session.data_home, 'applications')
    os.makedirs(apps, exist_ok=True)
    for i in range(installed):
        app_id = f'org.example.App{i:04d}'
        with open(os.path.join(apps, f'{app_id}.desktop'), 'w') as f:
            f.write(f'[Desktop Entry]\nType=Application\nName=Example App {i}\nExec=true\n'
                    'Icon=application-x-executable\n')
        if i < stored:
            with open(os.path.join(session.state_home, f'{app_id}@1.state'), 'wb') as f:
                f.write(b'\0' * 2048)


def measure(installed, stored):
    session = Session()
    try:
        prepare(session, installed, stored)
        session.start_policyd()
        env = dict(session.env, GSK_RENDERER='cairo', G_MESSAGES_DEBUG='sr-panel',
                   XDG_DATA_DIRS='/usr/share')
        start = time.monotonic_ns() // 1000
        # GLib prints debug messages on stdout.
        panel = subprocess.Popen([PANEL, '--page=apps'], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
        first_frame = None
        for line in panel.stdout:
            if 'first-frame-monotonic-usec=' in line:
                first_frame = int(line.rsplit('=', 1)[1])
                break
        time.sleep(1.0)
        with open(f'/proc/{panel.pid}/status') as f:
            hwm_kb = next(int(l.split()[1]) for l in f if l.startswith('VmHWM:'))
        panel.terminate()
        panel.communicate(timeout=10)
        if first_frame is None:
            raise RuntimeError('the panel never drew its first frame')
        return (first_frame - start) / 1000.0, hwm_kb / 1024.0
    finally:
        session.close()


def main():
    results = {'small': ([], []), 'large': ([], [])}
    for _ in range(ROUNDS):
        for case, (installed, stored) in (('small', (10, 5)), ('large', (2000, 1000))):
            ms, mib = measure(installed, stored)
            results[case][0].append(ms)
            results[case][1].append(mib)
    small_ms, small_mib = (statistics.median(v) for v in results['small'])
    large_ms, large_mib = (statistics.median(v) for v in results['large'])
    time_ratio, mem_ratio = large_ms / small_ms, large_mib / small_mib
    print(f'{ROUNDS} rounds, medians')
    print(f'10 apps (5 stored):        first frame {small_ms:7.1f} ms   peak RSS {small_mib:6.1f} MiB')
    print(f'2,000 apps (1,000 stored): first frame {large_ms:7.1f} ms   peak RSS {large_mib:6.1f} MiB')
    print(f'time   {time_ratio:.2f}x   target <= 2.00x   {"PASS" if time_ratio <= 2 else "FAIL"}')
    print(f'memory {mem_ratio:.2f}x   target <= 1.50x   {"PASS" if mem_ratio <= 1.5 else "FAIL"}')
    return 0 if time_ratio <= 2 and mem_ratio <= 1.5 else 1


if __name__ == '__main__':
    sys.exit(main())
