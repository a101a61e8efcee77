"""Running session-restore-ctl inside a test Session (srtest)."""
import collections
import os
import subprocess

from srtest import NOBODY, PolicydTestCase

CTL = os.environ.get('SR_CTL') or os.path.join(os.environ.get('SR_BUILD_DIR', ''), 'ctl',
                                               'session-restore-ctl')

# session-restore-ctl(1), EXIT STATUS.
OK, DENIED, ASK, INVALID, LOCKED, NOT_ALLOWED, UNAVAILABLE, FAILED = range(8)

Result = collections.namedtuple('Result', 'status stdout stderr')


def run_ctl(session, *args, stdin=None, user=None, env=None):
    """Runs the tool with the session's environment; as nobody (for the
    real polkitd, which always authorizes root) with only the bus address."""
    command = [CTL, *args]
    environment = dict(session.env)
    if user == 'nobody':
        command = NOBODY + command
        environment = {'DBUS_SESSION_BUS_ADDRESS': session.env['DBUS_SESSION_BUS_ADDRESS'],
                       'PATH': session.env['PATH'], 'LANG': 'C.UTF-8'}
    environment.update(env or {})
    result = subprocess.run(command, env=environment, capture_output=True, text=True,
                            stdin=stdin if stdin is not None else subprocess.DEVNULL,
                            cwd='/', timeout=60)
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
