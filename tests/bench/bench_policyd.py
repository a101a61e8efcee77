#!/usr/bin/python3
"""Runs bench-policyd (C) inside a private session: HOME, real dconf, a
session bus. See bench-policyd.c for what it measures."""
import os
import subprocess
import sys

from srtest import BUILD_DIR, POLICYD, Session


def main():
    session = Session(polkit=None)
    try:
        env = dict(session.env, SR_BENCH_POLICYD=POLICYD,
                   SR_BENCH_PERMISSION_STORE='/usr/libexec/xdg-permission-store')
        for passthrough in ('SR_BENCH_CALLS', 'SR_BENCH_QUICK', 'SR_BENCH_COLD_ONLY',
                            'SR_BENCH_COLD_STARTS', 'SR_BENCH_DUMP'):
            if passthrough in os.environ:
                env[passthrough] = os.environ[passthrough]
        return subprocess.run([os.path.join(BUILD_DIR, 'tests', 'bench', 'bench-policyd')],
                              env=env).returncode
    finally:
        session.close()


if __name__ == '__main__':
    sys.exit(main())
