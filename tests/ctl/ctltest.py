"""Running session-restore-ctl inside a test Session (srtest)."""
import collections
import os
import select
import subprocess
import time

from srtest import NOBODY, VALGRIND, VALGRIND_SUPPRESSIONS, PolicydTestCase

CTL = os.environ.get('SR_CTL') or os.path.join(os.environ.get('SR_BUILD_DIR', ''), 'ctl',
                                               'session-restore-ctl')

# SR_VALGRIND=1 (meson test --setup valgrind) runs the tool under memcheck
# in every run_ctl, as srtest runs every policyd: a memory error or memory
# definitely lost fails the test (the run ends with this status). Only
# "definitely" counts: list keeps its reply reachable until exit on
# purpose. Runs that do not go through run_ctl (on a terminal, monitor,
# through bash) are not checked; test_ctl_commands and test_ctl_settings
# run every command through it.
MEMCHECK_FAILED = 99
MEMCHECK = ['valgrind', '-q', '--leak-check=full', '--show-leak-kinds=definite',
            '--errors-for-leak-kinds=definite', f'--error-exitcode={MEMCHECK_FAILED}',
            *VALGRIND_SUPPRESSIONS]

# session-restore-ctl(1), EXIT STATUS.
OK, DENIED, ASK, INVALID, LOCKED, NOT_ALLOWED, UNAVAILABLE, FAILED = range(8)

Result = collections.namedtuple('Result', 'status stdout stderr')


def run_ctl(session, *args, stdin=None, user=None, env=None, raw=False):
    """Runs the tool with the session's environment; as nobody (for the
    real polkitd, which always authorizes root) with only the bus address;
    under memcheck with SR_VALGRIND. raw: stdout and stderr as bytes."""
    command = [*(MEMCHECK if VALGRIND else ()), CTL, *args]
    environment = dict(session.env)
    if user == 'nobody':
        command = NOBODY + command
        environment = {'DBUS_SESSION_BUS_ADDRESS': session.env['DBUS_SESSION_BUS_ADDRESS'],
                       'PATH': session.env['PATH'], 'LANG': 'C.UTF-8'}
    environment.update(env or {})
    result = subprocess.run(command, env=environment, capture_output=True, text=not raw,
                            stdin=stdin if stdin is not None else subprocess.DEVNULL,
                            cwd='/', timeout=120)
    if result.returncode == MEMCHECK_FAILED:
        raise AssertionError(f'memcheck: session-restore-ctl {" ".join(args)}:\n{result.stderr!s}')
    return Result(result.returncode, result.stdout, result.stderr)


class CtlTestCase(PolicydTestCase):
    def ctl(self, *args, **kwargs):
        return run_ctl(self.s, *args, **kwargs)

    def assertCtl(self, expected_status, *args, **kwargs):
        result = self.ctl(*args, **kwargs)
        self.assertEqual(result.status, expected_status,
                         f'session-restore-ctl {" ".join(args)}:\n{result.stdout}\n{result.stderr}')
        # Errors are one line; success says nothing on stderr.
        if expected_status in (INVALID, LOCKED, NOT_ALLOWED, UNAVAILABLE, FAILED):
            lines = [line for line in result.stderr.splitlines() if not line.startswith('Try ')]
            self.assertEqual(len(lines), 1, result.stderr)
            self.assertTrue(lines[0].startswith('session-restore-ctl: '), result.stderr)
        return result


class Lines:
    """Lines of a pipe as they come, with a timeout; reads the fd itself, so
    that no line waits in a file object's buffer while select() says
    there is nothing to read."""

    def __init__(self, pipe):
        self.fd = pipe.fileno()
        self.buffer = b''

    def next(self, timeout=20):
        deadline = time.monotonic() + timeout
        while b'\n' not in self.buffer:
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self.fd], [], [], max(remaining, 0))
            if not ready:
                raise AssertionError(f'no line within {timeout} s (so far: {self.buffer!r})')
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise AssertionError(f'the pipe closed (so far: {self.buffer!r})')
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b'\n')
        return line.decode()
