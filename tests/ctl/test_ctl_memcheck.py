"""Every command of session-restore-ctl under valgrind memcheck, against a
real policyd: no memory error, nothing definitely lost. (list keeps its
reply reachable until exit on purpose.)"""
from ctltest import MEMCHECK, MEMCHECK_FAILED, CtlTestCase
from simulator import Simulator

COMMANDS = (
    ('status',), ('list',), ('list', '--json', 'org.example.A', 'org.example.Z'),
    ('get', 'login-restore'), ('set', 'max-age-days', '7'), ('set', 'login-restore', 'ask'),
    ('set', 'enabled', 'maybe'), ('check', 'org.example.A'),
    ('check', 'org.example.A', '--reason', 'restore', '--saved-at', '2026-01-01'),
    ('exclude', 'org.example.A'), ('include', 'org.example.A'), ('clear', 'org.example.B'),
    ('clear',), ('_complete', 'values', 'login-restore'), ('_complete', 'apps'), ('help', 'check'),
)


class MemcheckTest(CtlTestCase):
    site = {'max-age-days': 1}
    locks = ('max-age-days',)

    def test_every_command(self):
        sim = Simulator(self.s)
        sim.save('org.example.A')
        sim.save('org.example.B', flatpak=True)
        for args in COMMANDS:
            # run_ctl fails the test on a memcheck finding.
            self.ctl(*args, wrapper=MEMCHECK)
