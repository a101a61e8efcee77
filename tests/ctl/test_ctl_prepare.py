"""session-restore-ctl session prepare (PrepareSession): the settings applied
to gnome-session 51's record, in its real format, and to the GTK state files
and compositor files it names, between logout and the next login; against a
real policyd, real dconf and a real bus.

Every test first lets policyd's start-up purge run to its end (it removes
excluded, expired and switched-off state too, whatever gnome-session's
record says) and only then writes what gnome-session and GTK would have
written at logout: what goes, goes by session prepare."""
import os
import subprocess
import time

from ctltest import FAILED, OK, CtlTestCase
from srtest import (BUS_NAME, DESKTOP_SCHEMA, IFACE, OBJECT_PATH, PYTHON, SOURCE_DIR,
                    USEC_PER_DAY, GLib, now_us)

A, B, C = 'org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'
RECORD_TYPE = 'a{s(a{sv}aa{sv})}'


def store_pattern(name):
    with open(os.path.join(SOURCE_DIR, 'data', 'stores.d', name)) as f:
        return next(line.split('=', 1)[1].strip() for line in f if line.startswith('Pattern='))


def instance(instance_id, crashed=False):
    return {'instance-id': GLib.Variant('s', instance_id), 'crashed': GLib.Variant('b', crashed)}


def app_props(next_id=None, discarded=()):
    props = {}
    if next_id is not None:
        props['next-instance-id'] = GLib.Variant('s', next_id)
    if discarded:
        props['discarded-instance-ids'] = GLib.Variant('as', list(discarded))
    return props


def record_bytes(apps, dirty=False, version=1):
    """gnome-session 51's record: apps is a list of (app id, props, instances)
    in gnome-session's order."""
    return GLib.Variant('a{sv}', {
        'version': GLib.Variant('u', version),
        'dirty': GLib.Variant('b', dirty),
        'instances': GLib.Variant(RECORD_TYPE, {app: (props, instances)
                                                for app, props, instances in apps}),
    }).get_data_as_bytes().get_data()


def parse_record(data):
    return GLib.Variant.new_from_bytes(GLib.VariantType('a{sv}'), GLib.Bytes(data), False)


def record_apps(data):
    """app id → the serialized bytes of its entry, in the record's order."""
    instances = parse_record(data).lookup_value('instances', GLib.VariantType(RECORD_TYPE))
    apps = {}
    for i in range(instances.n_children()):
        entry = instances.get_child_value(i)
        apps[entry.get_child_value(0).get_string()] = \
            entry.get_child_value(1).get_data_as_bytes().get_data()
    return apps


def record_instance_ids(data):
    return {app: [i['instance-id'] for i in value[1]]
            for app, value in parse_record(data).unpack()['instances'].items()}


GTK_STATE = GLib.Variant('(a{sv}a{sv}a(a{sv}a{sv}))', ({}, {}, [])).get_data_as_bytes().get_data()


class PrepareTestCase(CtlTestCase):
    start = False

    def setUp(self):
        super().setUp()
        self.gtk_pattern = store_pattern('gtk.store')
        # The start-up purge's sign: an expired file of its own, gone once
        # it has run; a listing queued behind it returns once it is done.
        sentinel = self.gtk_path('org.example.Sentinel', '0')
        self.write(sentinel, GTK_STATE, age_days=400)
        self.start_policyd()
        self.s.wait_until(lambda: not os.path.exists(sentinel), what='the start-up purge')
        self.s.list_state()

    def start_policyd(self):
        self.s.start_policyd()

    # -- what gnome-session, GTK and mutter leave at logout -----------------

    def gtk_path(self, app, instance_id, flatpak=False):
        name = self.gtk_pattern.replace('{app}', app).replace('*', instance_id)
        if flatpak:
            return os.path.join(self.s.home, '.var', 'app', app, '.local', 'state', name)
        return os.path.join(self.s.state_home, name)

    def record_path(self, session='gnome'):
        return os.path.join(self.s.state_home, f'gnome-session@{session}.state')

    def write(self, path, data, age_days=0):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
        when = time.time() - age_days * 86400
        os.utime(path, (when, when))

    def write_gtk(self, app, *instance_ids, age_days=0, flatpak=False):
        for instance_id in instance_ids:
            self.write(self.gtk_path(app, instance_id, flatpak), GTK_STATE, age_days)

    def write_record(self, apps, session='gnome', dirty=False, version=1, age_days=0):
        path = self.record_path(session)
        self.write(path, record_bytes(apps, dirty, version), age_days)
        return path

    def snapshot(self, path):
        st = os.lstat(path)
        with open(path, 'rb') as f:
            return f.read(), st.st_mtime_ns, st.st_ino

    def read(self, path):
        with open(path, 'rb') as f:
            return f.read()

    def prepare(self, status=OK):
        return self.assertCtl(status, 'session', 'prepare')

    def assertPrepareChangesNothing(self, *paths):
        before = {path: self.snapshot(path) for path in paths}
        out = self.prepare().stdout
        self.assertIn('Nothing to change', out)
        self.assertEqual({path: self.snapshot(path) for path in paths}, before)


class ExcludedTest(PrepareTestCase):
    site = {'admin-excluded-apps': [C]}

    def test_excluded_apps_go_whole_with_their_files_the_others_stay_as_they_were(self):
        # The user opts Alpha out while gnome-session runs: policyd clears
        # it at once, and gnome-session writes it back from memory at logout.
        self.assertCtl(OK, 'exclude', A)
        b_entry = (B, app_props(next_id='b-next'), [instance('b1'), instance('b2', crashed=True)])
        path = self.write_record([
            (A, app_props(next_id='a-next', discarded=['a-old']), [instance('a1'), instance('a2')]),
            b_entry,
            (C, app_props(), [instance('c1')]),
        ])
        self.write_gtk(A, 'a1', 'a2', 'a-next', 'a-old')
        self.write_gtk(A, 'a1', flatpak=True)
        self.write_gtk(B, 'b1', 'b2', 'b-next')
        self.write_gtk(C, 'c1')
        before = self.read(path)
        mtime = os.stat(path).st_mtime_ns

        out = self.prepare().stdout
        self.assertRegex(out, r'org\.example\.Alpha +a1 +excluded')
        self.assertRegex(out, r'org\.example\.Gamma +c1 +excluded')
        self.assertIn('3 app instances will not come back at the next login (1 record rewritten)', out)

        after = self.read(path)
        self.assertEqual(list(record_apps(after)), [B])
        # Beta's entry, and the record's other keys, as they were.
        self.assertEqual(record_apps(after)[B], record_apps(before)[B])
        state = parse_record(after).unpack()
        self.assertEqual((state['version'], state['dirty']), (1, False))
        self.assertEqual(os.stat(path).st_mtime_ns, mtime)
        for instance_id in ('a1', 'a2', 'a-next', 'a-old'):
            self.assertFalse(os.path.exists(self.gtk_path(A, instance_id)), instance_id)
        self.assertFalse(os.path.exists(self.gtk_path(A, 'a1', flatpak=True)))
        self.assertFalse(os.path.exists(self.gtk_path(C, 'c1')))
        for instance_id in ('b1', 'b2', 'b-next'):
            self.assertTrue(os.path.exists(self.gtk_path(B, instance_id)), instance_id)
        self.assertIn('instance a1 will not come back (excluded)', self.s.log())

        # A second run finds nothing to do, and writes nothing.
        self.assertPrepareChangesNothing(path, self.gtk_path(B, 'b1'))


class CrashLoopTest(PrepareTestCase):
    def test_the_instances_it_would_recover_go_in_every_sessions_record(self):
        for _ in range(3):
            self.s.call('NoteExit', 'sb', A, False)
        clean = self.write_record([(A, app_props(), [instance('a1', crashed=True), instance('a2')]),
                                   (B, app_props(), [instance('b1', crashed=True)])])
        # A session that crashed: gnome-session recovers every instance.
        dirty = self.write_record([(A, app_props(), [instance('a3')])], session='other', dirty=True)
        self.write_gtk(A, 'a1', 'a2', 'a3')
        self.write_gtk(B, 'b1')

        out = self.prepare().stdout
        self.assertRegex(out, r'org\.example\.Alpha +a1 +crashed; held back by the crash-loop guard')
        self.assertIn('(2 records rewritten)', out)
        self.assertEqual(record_instance_ids(self.read(clean)), {A: ['a2'], B: ['b1']})
        self.assertEqual(record_instance_ids(self.read(dirty)), {A: []})
        self.assertTrue(parse_record(self.read(dirty)).unpack()['dirty'])
        self.assertFalse(os.path.exists(self.gtk_path(A, 'a1')))
        self.assertFalse(os.path.exists(self.gtk_path(A, 'a3')))
        self.assertTrue(os.path.exists(self.gtk_path(A, 'a2')))
        self.assertTrue(os.path.exists(self.gtk_path(B, 'b1')))
        self.assertPrepareChangesNothing(clean, dirty)


class AgeTest(PrepareTestCase):
    def test_expired_and_cleared_instances_go_by_their_own_files_time_or_the_records(self):
        # A Clear of Beta while gnome-session ran, which it wrote back.
        self.s.clear([B])
        time.sleep(0.01)
        path = self.write_record([
            (A, app_props(next_id='a-next'), [instance('old'), instance('new'), instance('nofile')]),
            (B, app_props(), [instance('before'), instance('after')]),
        ])
        self.write_gtk(A, 'old', age_days=40)
        self.write_gtk(A, 'new', age_days=1)
        self.write_gtk(A, 'a-next', age_days=40)
        self.write_gtk(B, 'before', age_days=0.01)
        self.write_gtk(B, 'after')
        # A session not logged into for 40 days: its instances without a
        # file of their own are as old as the record.
        stale = self.write_record([(C, app_props(), [instance('c1')])], session='stale', age_days=40)

        out = self.prepare().stdout
        self.assertRegex(out, r'org\.example\.Alpha +old +older than max-age-days')
        self.assertRegex(out, r'org\.example\.Beta +before +cleared')
        self.assertRegex(out, r'org\.example\.Gamma +c1 +older than max-age-days')
        self.assertEqual(record_instance_ids(self.read(path)), {A: ['new', 'nofile'], B: ['after']})
        self.assertEqual(record_instance_ids(self.read(stale)), {C: []})
        # The app keeps its own keys when only instances go.
        self.assertEqual(parse_record(self.read(path)).unpack()['instances'][A][0],
                         {'next-instance-id': 'a-next'})
        self.assertFalse(os.path.exists(self.gtk_path(A, 'old')))
        self.assertFalse(os.path.exists(self.gtk_path(B, 'before')))
        for app, instance_id in ((A, 'new'), (A, 'a-next'), (B, 'after')):
            self.assertTrue(os.path.exists(self.gtk_path(app, instance_id)), instance_id)
        self.assertPrepareChangesNothing(path, stale)


class SwitchedOffTest(PrepareTestCase):
    def write_logout(self):
        path = self.write_record([(A, app_props(next_id='a-next'), [instance('a1')]),
                                  (B, app_props(), [instance('b1', crashed=True)])], dirty=True)
        self.write_gtk(A, 'a1', 'a-next')
        self.write_gtk(B, 'b1', flatpak=True)
        self.gvdbs = [os.path.join(self.s.data_home, d, 'session.gvdb') for d in ('mutter', 'gnome-shell')]
        for gvdb in self.gvdbs:
            self.write(gvdb, b'GVariant' + b'\0' * 16)
        return path

    def assertAllGone(self, path):
        out = self.prepare().stdout
        self.assertRegex(out, r'org\.example\.Beta +b1 +saving is off')
        self.assertIn('Removed 5 saved session files', out)
        state = parse_record(self.read(path)).unpack()
        self.assertEqual(state, {'version': 1, 'dirty': True, 'instances': {}})
        for gone in (self.gtk_path(A, 'a1'), self.gtk_path(A, 'a-next'),
                     self.gtk_path(B, 'b1', flatpak=True), *self.gvdbs):
            self.assertFalse(os.path.exists(gone), gone)
        self.assertPrepareChangesNothing(path)

    def test_off_takes_everything_and_the_window_positions(self):
        self.assertCtl(OK, 'set', 'enabled', 'false')
        self.assertAllGone(self.write_logout())

    def test_gnomes_own_switch_off_too(self):
        self.s.gsettings('set', 'save-restore', 'false', schema=DESKTOP_SCHEMA)
        self.s.wait_until(lambda: self.s.prop('Enabled') is False, what='Enabled false')
        # Behind the clear the change queued.
        self.s.list_state()
        self.assertAllGone(self.write_logout())


OWNER_SCRIPT = '''
import sys
from gi.repository import Gio, GLib
Gio.bus_own_name(Gio.BusType.SESSION, sys.argv[1], Gio.BusNameOwnerFlags.NONE, None,
                 lambda *a: print('owned', flush=True), lambda *a: sys.exit(1))
GLib.MainLoop().run()
'''


class OwnerTestCase(PrepareTestCase):
    def own(self, name):
        """A process that owns @name on the session bus, as gnome-session
        (or the portal backend) owns org.gnome.SessionManager."""
        process = subprocess.Popen([PYTHON, '-c', OWNER_SCRIPT, name], env=self.s.env,
                                   stdout=subprocess.PIPE, text=True)
        self.addCleanup(process.wait, 10)
        self.addCleanup(process.terminate)
        self.assertEqual(process.stdout.readline().strip(), 'owned')
        return process

    def write_excluded(self):
        self.assertCtl(OK, 'exclude', A)
        path = self.write_record([(A, app_props(), [instance('a1')])])
        self.write_gtk(A, 'a1')
        return path


class OwnerTest(OwnerTestCase):
    def test_refused_while_gnome_session_runs(self):
        path = self.write_excluded()
        before = self.snapshot(path)
        owner = self.own('org.gnome.SessionManager')
        err = self.prepare(FAILED).stderr
        self.assertIn(f'gnome-session is running (process {owner.pid}', err)
        self.assertIn('nothing was changed', err)
        self.assertEqual(self.snapshot(path), before)
        self.assertTrue(os.path.exists(self.gtk_path(A, 'a1')))

        # Or the compositor, which writes its window positions back.
        owner.terminate()
        owner.wait(10)
        self.own('org.gnome.Mutter.DisplayConfig')
        self.assertIn('The compositor is running', self.prepare(FAILED).stderr)
        self.assertEqual(self.snapshot(path), before)


class PortalOwnerTest(OwnerTestCase):
    def start_policyd(self):
        # The program policyd takes for session-restore-portal: this
        # test's stand-in for it, which is Python.
        self.s.env['SR_PORTAL_EXECUTABLE'] = os.path.realpath(PYTHON)
        self.s.start_policyd()

    def test_the_portal_backends_session_manager_is_not_gnome_session(self):
        path = self.write_excluded()
        self.own('org.gnome.SessionManager')
        self.prepare()
        self.assertEqual(record_instance_ids(self.read(path)), {})
        self.assertFalse(os.path.exists(self.gtk_path(A, 'a1')))


class BadRecordTest(PrepareTestCase):
    def test_a_record_that_does_not_parse_is_left_as_it_is_and_the_others_prepared(self):
        self.assertCtl(OK, 'exclude', A)
        bad = self.record_path('bad')
        self.write(bad, b'\x01not a record')
        good = self.write_record([(A, app_props(), [instance('a1')])])
        before = self.snapshot(bad)
        result = self.prepare(FAILED)
        self.assertRegex(result.stderr, r'left as it was: .*gnome-session@bad\.state')
        self.assertIn('1 app instance will not come back', result.stdout)
        self.assertEqual(self.snapshot(bad), before)
        self.assertEqual(record_instance_ids(self.read(good)), {})

    def test_a_record_of_another_version_is_left_as_it_is(self):
        self.assertCtl(OK, 'exclude', A)
        path = self.write_record([(A, app_props(), [instance('a1')])], version=2)
        self.write_gtk(A, 'a1')
        before = self.snapshot(path)
        result = self.prepare(FAILED)
        self.assertIn('version 2', result.stderr)
        self.assertEqual(result.stdout, 'Nothing was changed.\n')
        self.assertEqual(self.snapshot(path), before)
        self.assertTrue(os.path.exists(self.gtk_path(A, 'a1')))

    def test_a_linked_record_is_not_followed(self):
        self.assertCtl(OK, 'exclude', A)
        target = os.path.join(self.s.root, 'elsewhere', 'record.state')
        self.write(target, record_bytes([(A, app_props(), [instance('a1')])]))
        os.symlink(target, self.record_path())
        self.write_gtk(A, 'a1')
        before = self.snapshot(target)
        self.assertRegex(self.prepare(FAILED).stderr, r'gnome-session@gnome\.state')
        self.assertTrue(os.path.islink(self.record_path()))
        self.assertEqual(self.snapshot(target), before)
        self.assertTrue(os.path.exists(self.gtk_path(A, 'a1')))


class SandboxedCallerTest(PrepareTestCase):
    def test_a_sandboxed_caller_is_refused(self):
        self.assertCtl(OK, 'exclude', A)
        path = self.write_record([(A, app_props(), [instance('a1')])])
        before = self.snapshot(path)
        result = subprocess.run(self.s.sandboxed_command(
            'org.example.Sandboxed', 'gdbus', 'call', '--session', '--dest', BUS_NAME,
            '--object-path', OBJECT_PATH, '--method', f'{IFACE}.PrepareSession'),
            env=self.s.env, capture_output=True, text=True, timeout=60)
        self.assertEqual(result.stdout, '')
        self.assertIn('org.gnome.SessionRestore.Error.NotAllowed', result.stderr)
        self.assertEqual(self.snapshot(path), before)


if __name__ == '__main__':
    import unittest
    unittest.main()
