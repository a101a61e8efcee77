"""policyd under valgrind memcheck through a real workload (settings
changes by every route, checks, exits, listing, clearing, new and gone
client connections): no memory definitely or indirectly lost, and no
invalid accesses."""
import os
import re

from simulator import Simulator
from srtest import GLib, PolicydTestCase

SUPPRESSIONS = '/usr/share/glib-2.0/valgrind/glib.supp'


class ValgrindTest(PolicydTestCase):
    start = False

    def test_no_leaks(self):
        log = os.path.join(self.s.root, 'valgrind.log')
        # "possibly lost" is GLib's own thread pools and type system; not counted.
        wrapper = ['valgrind', '--leak-check=full', '--show-leak-kinds=definite,indirect',
                   '--errors-for-leak-kinds=definite,indirect',
                   f'--log-file={log}']
        if os.path.exists(SUPPRESSIONS):
            wrapper.append(f'--suppressions={SUPPRESSIONS}')
        os.environ['SR_POLICYD_WRAPPER'] = ' '.join(wrapper)
        self.addCleanup(os.environ.pop, 'SR_POLICYD_WRAPPER')
        self.s.start_policyd()

        sim = Simulator(self.s)
        for i in range(5):
            sim.save(f'org.example.App{i}')
        for i in range(20):
            conn = self.s.session_bus.connect()     # callers come and go
            conn.call_sync('org.gnome.SessionRestore.Policy', '/org/gnome/SessionRestore/Policy',
                           'org.gnome.SessionRestore.Policy', 'CheckSave',
                           GLib.Variant('(s)', (f'org.example.App{i}',)), None, 0, 10000, None)
            conn.close_sync(None)
        self.s.gsettings('set', 'max-age-days', '7')
        self.s.set_setting('restore-on-launch', GLib.Variant('b', False))
        self.s.call('SetAppExcluded', 'sb', 'org.example.App1', True)
        for reason in (1, 2, 3):
            self.s.check_restore('org.example.App2', reason, {'saved-at': GLib.Variant('x', 1)})
        self.s.call('NoteExit', 'sb', 'org.example.App3', False)
        self.s.call('NoteExit', 'sb', 'org.example.App3', True)
        self.s.list_state()
        self.s.clear(['org.example.App4'])
        self.s.clear()
        self.assertEqual(self.s.stop_policyd(), 0)

        with open(log) as f:
            report = f.read()
        self.assertIn('ERROR SUMMARY', report)
        for kind in ('definitely', 'indirectly'):
            match = re.search(rf'{kind} lost: ([\d,]+) bytes', report)
            self.assertTrue(match is None or match.group(1) == '0', report[-4000:])
        self.assertRegex(report, r'ERROR SUMMARY: 0 errors', report[-4000:])
