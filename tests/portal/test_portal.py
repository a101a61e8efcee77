"""session-restore-portal end to end: apps (tests/lib/portalapp.py) register
through a stand-in of xdg-desktop-portal's frontend
(tests/lib/portalfrontend.py) with the real backend, which asks a real
policyd with real dconf."""
import itertools
import json
import os
import random
import re
import signal
import subprocess

import fakepolicyd
from portalapp import IFACE as PORTAL_IFACE, PortalApp, state_path
from simulator import Simulator
from portaltest import (APP, BACKEND, BACKEND_NAME, CONTROL, CTL, FAKE_PROMPT, FRONTEND_NAME,
                        IMPL_SESSION, PortalTestCase, parse_record)
from srtest import (LAUNCH, NOBODY, POLICYD, PRISTINE, PYTHON, RECOVER, RESTORE, GLib, Gio,
                    remote_error)


class TestReasons(PortalTestCase):
    def test_launch_then_recover_after_crash_then_launch_after_quit(self):
        a = self.app('org.example.Editor')
        self.assertEqual(a.reason, LAUNCH)
        first = a.instance_id
        self.assertRegex(first, r'^[0-9a-f]{12}$')
        a.crash()
        self.sync_frontend()
        b = self.app('org.example.Editor')
        self.assertEqual((b.reason, b.instance_id), (RECOVER, first))
        b.quit()
        self.sync_frontend()
        c = self.app('org.example.Editor')
        self.assertEqual((c.reason, c.instance_id), (LAUNCH, first))

    def test_second_concurrent_instance_gets_a_new_id(self):
        a = self.app('org.example.Editor')
        b = self.app('org.example.Editor')
        self.assertNotEqual(a.instance_id, b.instance_id)

    def test_empty_app_id_is_pristine_without_an_id(self):
        a = self.app('')
        self.assertEqual(a.reason, PRISTINE)
        self.assertNotIn('instance-id', a.registration)

    def test_ids_differ_between_desktops(self):
        a = self.app('org.example.Editor')
        a.quit()
        self.sync_frontend()
        self.stop(self.backend)
        self.s.env['XDG_CURRENT_DESKTOP'] = 'Hyprland'
        self.start_backend()
        b = self.app('org.example.Editor')
        self.assertEqual(b.reason, LAUNCH)
        self.assertNotEqual(a.instance_id, b.instance_id)


class TestStartUp(PortalTestCase):
    def test_register_while_policyd_starts_gets_its_answer(self):
        # Started with policyd stopped, and policyd a second slow to
        # start: the first Register gets policyd's answer, not the PRISTINE
        # of a policyd not found yet.
        self.stop(self.backend)
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.policyd = None
        self.s.activatable(f'/bin/sh -c "sleep 1; exec {POLICYD}"')
        self.start_backend()
        a = self.app('org.example.Editor')
        self.assertEqual(a.reason, LAUNCH)
        self.assertIsNotNone(a.instance_id)

    def test_untrusted_policyd_is_told_nothing(self):
        # Another user's program owns policyd's name when the backend
        # starts, and would allow everything. The backend identifies it
        # while it takes its own name, and a Register that comes before it
        # is done (the bus hands over the one that started the backend as
        # soon as the name is taken) waits: it must not be named to the
        # stand-in. PRISTINE, and not one call reaches it.
        self.stop(self.backend)
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.policyd = None
        log_dir = os.path.join(self.s.root, 'fake')
        os.makedirs(log_dir)
        os.chmod(log_dir, 0o777)
        log = os.path.join(log_dir, 'calls')
        fake = subprocess.Popen([*NOBODY, *fakepolicyd.command(log)], env=self.s.env,
                                stdout=subprocess.PIPE, text=True)
        self.addCleanup(self.stop, fake)
        self.assertEqual(fake.stdout.readline(), 'owned\n')
        self.s.activatable(BACKEND, name=BACKEND_NAME)
        registration = self.backend_call(
            '/org/freedesktop/portal/desktop', 'org.freedesktop.impl.portal.SaveRestore',
            'Register', GLib.Variant('(osa{sv})', ('/org/freedesktop/portal/desktop/session/9_9/first',
                                                    'org.example.Editor', {})))[0]
        pid = self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                   'org.freedesktop.DBus', 'GetConnectionUnixProcessID',
                                   GLib.Variant('(s)', (BACKEND_NAME,)), None,
                                   Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        self.addCleanup(lambda: subprocess.run(['kill', str(pid)]))
        self.assertEqual(registration['restore-reason'], PRISTINE)
        a = self.app('org.example.Editor')
        self.assertEqual(a.reason, PRISTINE)
        a.quit()
        self.sync_frontend()
        self.assertEqual(fakepolicyd.calls(log), [])


class TestSessionObject(PortalTestCase):
    def test_version_two_before_register(self):
        path = '/org/freedesktop/portal/desktop/session/1_99/never'
        props = self.backend_call(path, 'org.freedesktop.DBus.Properties', 'GetAll',
                                  GLib.Variant('(s)', (IMPL_SESSION,)))[0]
        self.assertEqual(props, {'version': 2})
        # Answered by the backend's filter as GDBus would: Get, and an
        # error for what the interface does not have.
        self.assertEqual(self.backend_call(path, 'org.freedesktop.DBus.Properties', 'Get',
                                           GLib.Variant('(ss)', (IMPL_SESSION, 'version'))),
                         (2,))
        props = 'org.freedesktop.DBus.Properties'
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.backend_call, path,
                             props, 'Get', GLib.Variant('(ss)', (IMPL_SESSION, 'nothing')))
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.backend_call, path,
                             props, 'Set', GLib.Variant('(ssv)', (IMPL_SESSION, 'version',
                                                                  GLib.Variant('u', 3))))

    def log_of_a_bad_register(self, token):
        """What the backend wrote, once it has refused a Register naming
        no app."""
        self.backend_call('/org/freedesktop/portal/desktop', 'org.freedesktop.impl.portal.SaveRestore',
                          'Register', GLib.Variant('(osa{sv})', (
                              f'/org/freedesktop/portal/desktop/session/1_99/{token}', 'not an app', {})))
        self.backend_log.flush()
        with open(os.path.join(self.s.root, 'backend.log'), encoding='utf-8') as f:
            return f.read()

    def test_messages_in_the_users_character_set(self):
        # The backend takes LC_CTYPE (C.UTF-8 here) only when it writes:
        # its messages are still written in it, not as "?".
        self.assertIn('Register: “not an app” is not a valid application id', self.log_of_a_bad_register('q'))

    def test_messages_in_ascii_where_the_locale_has_no_more(self):
        # Under LANG=C the backend's typographic quotes become their ASCII
        # look-alikes (common/sr-log.c, as policyd's), not "?".
        self.stop(self.backend)
        self.start_backend(LANG='C', LC_ALL='C')
        self.assertIn('Register: "not an app" is not a valid application id', self.log_of_a_bad_register('c'))

    def test_a_bad_app_id_is_logged_short_and_on_one_line(self):
        # A caller on the host names the app: its words go to the log only
        # as the reason the id is refused.
        for token, app_id in (('long', 'org.example.' + 'x' * (1 << 20)),
                              ('forged', 'x\nsr-portal-register-Message: forged line')):
            self.assertEqual(self.backend_call('/org/freedesktop/portal/desktop',
                                               'org.freedesktop.impl.portal.SaveRestore', 'Register',
                                               GLib.Variant('(osa{sv})', (
                                                   f'/org/freedesktop/portal/desktop/session/1_99/{token}',
                                                   app_id, {})))[0], {'restore-reason': PRISTINE})
        self.backend_log.flush()
        with open(os.path.join(self.s.root, 'backend.log'), encoding='utf-8') as f:
            log = f.read()
        self.assertLess(len(log), 4096)
        self.assertIn('Register: The app id is 1048588 bytes long; at most 255 are allowed', log)
        self.assertIn('Register: The app id contains a control character', log)
        self.assertNotIn('forged line', log)

    def test_register_refuses_bad_calls(self):
        # Register is taken by the backend's filter: its errors are its own.
        def register(handle, signature='(osa{sv})', args=None):
            return self.backend_call('/org/freedesktop/portal/desktop',
                                     'org.freedesktop.impl.portal.SaveRestore', 'Register',
                                     GLib.Variant(signature, args or (handle, 'org.example.Editor', {})))
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', register,
                             '/org/freedesktop/portal/desktop/elsewhere')
        self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', register, None,
                             '(os)', ('/org/freedesktop/portal/desktop/session/1_99/a', 'x'))
        handle = '/org/freedesktop/portal/desktop/session/1_99/twice'
        self.assertEqual(register(handle)[0]['restore-reason'], LAUNCH)
        message = self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', register, handle)
        self.assertIn('registered already', message)

    def test_close_is_unknown_not_a_crash(self):
        a = self.app('org.example.Editor')
        self.backend_call(a.handle, IMPL_SESSION, 'Close')
        b = self.app('org.example.Editor', token='u')
        self.assertEqual((b.reason, b.instance_id), (LAUNCH, a.instance_id))

    def test_close2_before_register_reply(self):
        # The login prompt holds policyd's answer: the app leaves meanwhile.
        self.s.gsettings('set', 'login-restore', 'ask')
        a = self.app('org.example.Editor')
        a.crash()
        self.sync_frontend()
        handle = '/org/freedesktop/portal/desktop/session/9_9/x'
        # Close2 first, Register after: the late Register finds it closed.
        self.backend_call(handle, IMPL_SESSION, 'Close2',
                          GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', False)},)))
        reply = self.backend_call('/org/freedesktop/portal/desktop',
                                  'org.freedesktop.impl.portal.SaveRestore', 'Register',
                                  GLib.Variant('(osa{sv})', (handle, 'org.example.Editor', {})))[0]
        self.assertEqual(reply['restore-reason'], RECOVER)
        # Its session is closed: the next one takes the same instance, crashed again.
        b = self.app('org.example.Editor')
        self.assertEqual((b.reason, b.instance_id), (RECOVER, reply['instance-id']))

    def test_close2_before_register_after_many_never_registered(self):
        # Close2 of 1,100 sessions whose Register never comes (as a
        # sandboxed app makes them past its bound on sessions: each
        # Register refused, then the frontend's Close2). The backend kept
        # the first 1,024 for good and remembered no later one, so the
        # next app to leave as it registered was taken for running.
        a = self.app('org.example.Editor')
        a.crash()
        self.sync_frontend()
        for i in range(1100):
            self.backend_call(f'/org/freedesktop/portal/desktop/session/7_{i}/gone', IMPL_SESSION,
                              'Close2', GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', False)},)))
        handle = '/org/freedesktop/portal/desktop/session/9_9/x'
        self.backend_call(handle, IMPL_SESSION, 'Close2',
                          GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', False)},)))
        reply = self.backend_call('/org/freedesktop/portal/desktop',
                                  'org.freedesktop.impl.portal.SaveRestore', 'Register',
                                  GLib.Variant('(osa{sv})', (handle, 'org.example.Editor', {})))[0]
        self.assertEqual(reply['restore-reason'], RECOVER)
        # Its session is closed: the next one takes the same instance.
        b = self.app('org.example.Editor')
        self.assertEqual((b.reason, b.instance_id), (RECOVER, reply['instance-id']))
        # The objects of the senders forgotten are not served either.
        self.assertLessEqual(len(self.session_nodes()), 1024 + 1)

    def test_register_and_close_in_quick_succession(self):
        # Register and Close2 are handled on GDBus's worker thread, while the
        # main loop may be taking a snapshot of the record after Register:
        # they must take turns (SrPortal.lock). Memcheck (or, in a sanitizer
        # build, ASan) sees it when they do not.
        log = os.path.join(self.s.root, 'memcheck.log')
        if os.environ.get('SR_SANITIZED') != '1':
            self.stop(self.backend)
            self.start_backend(prefix=['valgrind', '--error-exitcode=99', f'--log-file={log}'])
        a = self.app('org.example.Editor')
        first = a.instance_id
        for i in range(150):
            a.call('org.freedesktop.portal.Session', 'Close', path=a.handle)
            a.token = f'again{i}'
            a.register()
            self.assertEqual((a.reason, a.instance_id), (LAUNCH, first))
        self.stop(self.backend)
        self.assertEqual(self.backend.returncode, 0)
        if os.path.exists(log):
            with open(log) as f:
                self.assertIn('ERROR SUMMARY: 0 errors', f.read())

    def test_sessions_closed_around_register_leave_no_object(self):
        # An app that leaves as it registers: the frontend's Close2 comes
        # before Register, or while policyd is asked. Each such sender's
        # objects stayed served for good, a few hundred bytes a connection.
        def close2(handle):
            self.backend_call(handle, IMPL_SESSION, 'Close2',
                              GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', False)},)))

        def register(handle, callback=None):
            args = ('/org/freedesktop/portal/desktop', 'org.freedesktop.impl.portal.SaveRestore',
                    'Register', GLib.Variant('(osa{sv})', (handle, 'org.example.Editor', {})))
            if callback is None:
                return self.backend_call(*args)
            self.relay_async(*args, callback, timeout=30000)
        replies = []
        for i in range(10):
            close2(f'/org/freedesktop/portal/desktop/session/1_{i}/before')
            register(f'/org/freedesktop/portal/desktop/session/1_{i}/before')
            register(f'/org/freedesktop/portal/desktop/session/2_{i}/during', replies.append)
            close2(f'/org/freedesktop/portal/desktop/session/2_{i}/during')
        self.s.wait_until(lambda: len(replies) == 10, what='the Registers closed meanwhile')
        a = self.app('org.example.Editor')
        a.quit()
        self.sync_frontend()
        self.assertEqual(self.session_nodes(), [])

    def test_a_sender_s_objects_are_served_while_one_of_its_sessions_is(self):
        # Whether a session's removal takes its sender's objects away is
        # counted per sender, not looked for among every app's sessions:
        # the sender's three sessions (of two apps and an unidentified one)
        # close in every order, one path is registered again meanwhile,
        # and another sender's session stays open throughout.
        sender = '/org/freedesktop/portal/desktop/session/1_50/'
        introspect = ('org.freedesktop.DBus.Introspectable', 'Introspect')
        other = self.app('org.example.Other')
        self.backend_call(other.handle, *introspect)
        other_node = other.handle.split('/')[-2]
        apps = {'a': 'org.example.Editor', 'b': 'org.example.Viewer', 'c': ''}
        for round_, order in enumerate(itertools.permutations('abc')):
            for token, app_id in apps.items():
                self.backend_call('/org/freedesktop/portal/desktop',
                                  'org.freedesktop.impl.portal.SaveRestore', 'Register',
                                  GLib.Variant('(osa{sv})', (sender + token, app_id, {})))
            # Served from the first message to one of its paths on.
            self.backend_call(sender + order[-1], *introspect)
            open_ = set(apps)
            for i, token in enumerate(order):
                self.assertIn('1_50', self.session_nodes())
                self.backend_call(sender + token, IMPL_SESSION, 'Close2', GLib.Variant(
                    '(a{sv})', ({'voluntary': GLib.Variant('b', (round_ + i) % 2 == 0)},)))
                open_.discard(token)
                if i == 0:
                    self.backend_call('/org/freedesktop/portal/desktop',
                                      'org.freedesktop.impl.portal.SaveRestore', 'Register',
                                      GLib.Variant('(osa{sv})', (sender + token, apps[token], {})))
                    self.assertIn('1_50', self.session_nodes())
                    self.backend_call(sender + token, IMPL_SESSION, 'Close')
                nodes = self.session_nodes()
                self.assertEqual('1_50' in nodes, bool(open_), (order, token))
                self.assertIn(other_node, nodes)
        other.quit()
        self.sync_frontend()
        self.assertEqual(self.session_nodes(), [])

    def test_calls_to_made_up_paths_leave_nothing_served(self):
        # A sender's objects are served from its first session on and go
        # with the last (the test above); calls to paths of senders with
        # no session (an Introspect, a Set, an unknown method, a Ping) are
        # answered as at a session's path, and leave nothing registered
        # that no close would take away again.
        introspect = ('org.freedesktop.DBus.Introspectable', 'Introspect')
        properties = 'org.freedesktop.DBus.Properties'
        a = self.app('org.example.Editor')
        served = self.backend_call(a.handle, *introspect)[0]
        interfaces = re.findall(r'<interface name="([^"]+)"', served)
        self.assertIn(IMPL_SESSION, interfaces)
        for i in range(40):
            path = f'/org/freedesktop/portal/desktop/session/9_{i}/made_up'
            xml = self.backend_call(path, *introspect)[0]
            self.assertEqual(re.findall(r'<interface name="([^"]+)"', xml), interfaces)
            self.assertIn('<property type="u" name="version" access="read"', xml)
            self.assertEqual(self.backend_call(path, properties, 'Get',
                                               GLib.Variant('(ss)', (IMPL_SESSION, 'version'))), (2,))
            # The errors GDBus gives at a served path; a close with the
            # wrong arguments or no interface is none.
            for at in (a.handle, path):
                self.assertDBusError('org.freedesktop.DBus.Error.UnknownMethod', self.backend_call, at,
                                     properties, 'Get', GLib.Variant('(s)', ('x',)))
                self.assertDBusError('org.freedesktop.DBus.Error.UnknownMethod', self.backend_call, at,
                                     properties, 'Frobnicate')
                self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.backend_call, at,
                                     properties, 'Set', GLib.Variant(
                                         '(ssv)', (IMPL_SESSION, 'version', GLib.Variant('u', 3))))
                self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.backend_call, at,
                                     properties, 'GetAll', GLib.Variant('(s)', ('org.example.Nothing',)))
                self.assertDBusError('org.freedesktop.DBus.Error.UnknownMethod', self.backend_call, at,
                                     IMPL_SESSION, 'Frobnicate')
                self.backend_call(at, 'org.freedesktop.DBus.Peer', 'Ping')
                self.assertDBusError('org.freedesktop.DBus.Error.InvalidArgs', self.backend_call, at,
                                     IMPL_SESSION, 'Close2', GLib.Variant('(s)', ('x',)))
                # A close from anyone but the frontend is refused, whatever
                # interface it names, or none.
                message = Gio.DBusMessage.new_method_call(BACKEND_NAME, at, None, 'Close')
                reply, _ = self.s.bus.send_message_with_reply_sync(
                    message, Gio.DBusSendMessageFlags.NONE, 30000, None)
                self.assertEqual(reply.get_error_name(), 'org.freedesktop.DBus.Error.AccessDenied')
        self.assertEqual(self.session_nodes(), [a.handle.split('/')[-2]])
        a.quit()
        self.sync_frontend()
        self.assertEqual(self.session_nodes(), [])

    def test_path_reused_after_close(self):
        a = self.app('org.example.Editor')
        handle = a.handle
        a.call('org.freedesktop.portal.Session', 'Close', path=handle)
        a.register()
        self.assertEqual(a.handle, handle)
        self.assertEqual(a.reason, LAUNCH)


class TestPolicy(PortalTestCase):
    def test_opt_out_is_pristine_and_the_app_deletes_its_state(self):
        a = self.app('org.example.Editor')
        old = a.instance_id
        a.save()
        self.s.call('SetAppExcluded', 'sb', 'org.example.Editor', True)
        self.s.round_trip()
        self.sync_backend()
        a.save()       # GTK writes again from memory
        a.quit()
        self.sync_frontend()
        b = self.app('org.example.Editor')
        self.assertEqual(b.reason, PRISTINE)
        self.assertIn(old, b.registration['discard-instance-ids'])
        self.sync_frontend()
        leftovers = [n for n in os.listdir(self.s.state_home) if n.startswith('org.example.Editor#')]
        self.assertEqual(leftovers, [])

    def test_clear_while_running_holds(self):
        a = self.app('org.example.Editor')
        a.save()
        other = self.app('org.example.Mail')
        other.crash()
        self.sync_frontend()
        self.assertIn('org.example.Editor', self.record_apps())
        self.s.clear(['org.example.Editor'])
        self.sync_backend()
        a.crash()          # its close must not bring it back
        other2 = self.app('org.example.Mail')
        other2.quit()
        self.sync_frontend()
        self.assertNotIn('org.example.Editor', self.record_apps())
        self.assertFalse(os.path.exists(state_path(self.s.state_home, 'org.example.Editor', a.instance_id)))

    def test_clear_while_register_waits_for_policyd(self):
        # The app's state is cleared after Register picked the instance to
        # restore and before policyd's answer: whatever the answer, that
        # instance is gone, so the app must not use its id. policyd answers
        # checks faster than it clears (polkit), so a stand-in
        # (tests/lib/fakepolicyd.py) holds the answer meanwhile.
        fake, log, old, replies = self.register_held_by_fake_policyd('cleared')
        # StoredStateCleared reaches the backend before the answer.
        self.s.bus.call_sync('org.gnome.SessionRestore.Policy', '/org/gnome/SessionRestore/Policy',
                             'org.gnome.SessionRestore.Policy', 'Clear',
                             GLib.Variant('(as)', (['org.example.Editor'],)), None,
                             Gio.DBusCallFlags.NONE, 5000, None)
        os.unlink(log + '.hold')
        fake.send_signal(signal.SIGUSR1)
        self.s.wait_until(lambda: replies, what='the Register')
        reply = replies[0]
        self.assertEqual(reply['restore-reason'], PRISTINE)
        self.assertIn(old, reply['discard-instance-ids'])
        self.assertNotEqual(reply['instance-id'], old)
        # Nothing of the cleared instance comes back with the next launch.
        b = self.app('org.example.Editor', token='next')
        self.assertNotEqual(b.instance_id, old)
        self.assertIn(old, b.registration['discard-instance-ids'])

    def register_held_by_fake_policyd(self, token):
        """policyd's stand-in (tests/lib/fakepolicyd.py) in its place, an
        app run once with it, and a second Register of the app (handle
        …/9_9/@token) whose CheckRestore the stand-in holds: the stand-in,
        its log, the first instance's id, and the list the second
        Register's answer will be put in."""
        self.stop(self.backend)
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.policyd = None
        log = os.path.join(self.s.root, 'fakepolicyd.log')
        fake = subprocess.Popen(fakepolicyd.command(log), env=self.s.env, stdout=subprocess.PIPE,
                                text=True)
        self.addCleanup(self.stop, fake)
        self.assertEqual(fake.stdout.readline(), 'owned\n')
        self.start_backend()
        a = self.app('org.example.Editor')
        a.save()
        a.quit()
        self.sync_frontend()
        open(log + '.hold', 'w').close()
        replies = []
        self.relay_async('/org/freedesktop/portal/desktop', 'org.freedesktop.impl.portal.SaveRestore',
                         'Register',
                         GLib.Variant('(osa{sv})', (f'/org/freedesktop/portal/desktop/session/9_9/{token}',
                                                    'org.example.Editor', {})),
                         lambda answer: replies.append(answer[0]), timeout=30000)
        self.s.wait_until(lambda: fakepolicyd.calls(log).count('CheckRestore') == 2,
                          what='the CheckRestore of the second Register')
        return fake, log, a.instance_id, replies

    def test_register_answered_when_policyd_leaves_without_answering(self):
        # policyd goes away while it holds a Register's CheckRestore: the
        # bus answers the check for it (NoReply), and the Register is
        # answered at once, restoring nothing, not at the check's time
        # limit (a minute). Nothing said no: the instance and its state
        # are kept, not discarded (they were, and the record kept asking
        # the app to delete them), and the app runs under a fresh id.
        fake, log, old, replies = self.register_held_by_fake_policyd('left')
        fake.kill()
        fake.wait(30)
        self.s.wait_until(lambda: replies, what='the Register')
        self.assertEqual(replies[0]['restore-reason'], PRISTINE)
        self.assertNotEqual(replies[0]['instance-id'], old)
        self.assertEqual(replies[0]['discard-instance-ids'], [])
        self.assertTrue(os.path.exists(state_path(self.s.state_home, 'org.example.Editor', old)))
        with open(os.path.join(self.s.root, 'backend.log')) as f:
            self.assertIn('org.example.Editor: not restoring (launch), keeping its state: ', f.read())
        # The state is the app's next launch's once policyd answers again.
        self.s.start_policyd()
        self.sync_backend()
        props, instances = self.record_apps()['org.example.Editor']
        self.assertEqual(props.get('discarded-instance-ids', []), [])
        self.assertIn(old, [props.get('next-instance-id')] + [i['instance-id'] for i in instances])
        b = self.app('org.example.Editor', token='after')
        self.assertEqual((b.reason, b.instance_id), (LAUNCH, old))
        self.assertEqual(b.registration['discard-instance-ids'], [])

    def test_a_burst_of_refused_exit_reports_is_one_warning_and_a_count(self):
        # 300 instances of an app close at once: policyd takes 200 exit
        # reports from a connection at once, then 20 a second, of one app
        # half of that, and refuses the rest (sr-fast-path.c). The backend
        # logs the first refusal, then how many more there were once 5 s
        # have passed, not a warning each;
        # as it exits, what it has counted meanwhile.
        count = 300
        answered = []

        def call_all(method, path, params):
            del answered[:]
            for handle in handles:
                self.relay_async(path(handle), *method, params(handle), answered.append)
            self.s.wait_until(lambda: len(answered) == count, timeout=60, what=method[1])
        def burst(name):
            handles[:] = [f'/org/freedesktop/portal/desktop/session/7_7/{name}{i}'
                          for i in range(count)]
            call_all(('org.freedesktop.impl.portal.SaveRestore', 'Register'),
                     lambda handle: '/org/freedesktop/portal/desktop',
                     lambda handle: GLib.Variant('(osa{sv})', (handle, 'org.example.Burst', {})))
            call_all((IMPL_SESSION, 'Close2'), lambda handle: handle,
                     lambda handle: GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', True)},)))
        handles = []

        def lines():
            self.backend_log.flush()
            with open(os.path.join(self.s.root, 'backend.log'), encoding='utf-8') as f:
                return [line for line in f if 'Could not tell policyd' in line]
        burst('a')
        self.s.wait_until(lambda: any(' more exits in 5 s' in line for line in lines()),
                          timeout=30, what='the count of the exit reports refused')
        found = lines()
        first = [line for line in found if 'Could not tell policyd of an exit: ' in line]
        counts = [line for line in found if ' more exits in 5 s; the last: ' in line]
        self.assertIn('Too many exit reports of this app from this connection', first[0])
        self.assertIn('Too many exit reports of this app from this connection', counts[0])
        # Without the count, a line for each refusal: some 190 of them. A
        # slow run (valgrind) may spread the burst over a second period.
        self.assertLessEqual(len(found), 4, found)
        self.assertEqual(len(found), len(first) + len(counts), found)

        # Another burst, and the backend stops before 5 s have passed.
        before = len(found)
        burst('b')
        self.s.wait_until(lambda: len(lines()) > before, what='the first refusal of the second burst')
        self.stop(self.backend)
        found = lines()[before:]
        self.assertIn('Could not tell policyd of an exit: ', found[0])
        self.assertIn(' more exits in 5 s; the last: ', found[-1])
        self.assertLessEqual(len(found), 4, found)

    def test_crash_loop_then_voluntary_close(self):
        for _ in range(3):
            a = self.app('org.example.Editor')
            a.crash()
            self.sync_frontend()
        # Held by the crash-loop guard: nothing restored, and nothing
        # discarded (a hold only keeps the state from coming back now);
        # the app runs under a fresh id.
        b = self.app('org.example.Editor')
        self.assertEqual(b.reason, PRISTINE)
        self.assertEqual(b.registration['discard-instance-ids'], [])
        self.assertNotEqual(b.instance_id, a.instance_id)
        self.assertIn(a.instance_id, [i['instance-id'] for i in self.record_apps()['org.example.Editor'][1]])
        # Its clean run's state is what the next launch gets, not the
        # state that crashed it.
        b.save()
        b.quit()
        self.sync_frontend()
        c = self.app('org.example.Editor')
        self.assertEqual((c.reason, c.instance_id), (LAUNCH, b.instance_id))

    def test_spoofed_discard_confirmation_is_ignored(self):
        a = self.app('org.example.Editor')
        a.crash()
        self.sync_frontend()
        # A second instance of the editor, registered before anything was to
        # be discarded: it is never asked to discard.
        c = self.app('org.example.Editor', token='c')
        self.s.call('SetAppExcluded', 'sb', 'org.example.Editor', True)
        self.s.round_trip()
        self.sync_backend()
        b = PortalApp(self.s.session_bus.address, self.s.state_home, 'org.example.Editor',
                      register=False)
        mallory = self.app('org.example.Mail')
        b.register(obey=False)
        ids = b.registration['discard-instance-ids']
        self.assertTrue(ids)
        # Others confirm, each with its own handle, what they were never
        # asked: another app, and the unasked instance of the same app.
        for liar in (mallory, c):
            liar.call('org.freedesktop.portal.SaveRestore', 'DiscardedInstanceIds', '(oas)',
                      (liar.handle, ids))
        self.sync_frontend()
        d = self.app('org.example.Editor', token='again')
        for instance_id in ids:
            self.assertIn(instance_id, d.registration['discard-instance-ids'])


class TestSessionEnd(PortalTestCase):
    APPS = ['org.example.Editor', 'org.example.Mail', 'org.example.Terminal']

    def desktop_files(self, app_ids):
        self.launch_log = os.path.join(self.s.root, 'launched.log')
        applications = os.path.join(self.s.data_home, 'applications')
        os.makedirs(applications, exist_ok=True)
        for app_id in app_ids:
            with open(os.path.join(applications, f'{app_id}.desktop'), 'w') as f:
                f.write(f'[Desktop Entry]\nType=Application\nName={app_id}\n'
                        f'Exec={PYTHON} {APP} {app_id} {self.launch_log}\n')

    def relaunched(self):
        """The processes the login started (their command names the log)."""
        pids = []
        for pid in filter(str.isdigit, os.listdir('/proc')):
            try:
                with open(f'/proc/{pid}/cmdline', 'rb') as f:
                    if self.launch_log.encode() in f.read():
                        pids.append(int(pid))
            except OSError:
                pass
        return pids

    def launched(self):
        try:
            with open(self.launch_log) as f:
                return [json.loads(line) for line in f]
        except FileNotFoundError:
            return []

    def logout_and_login(self, mode, expected, kept_open=(), before_login=None):
        """Three apps (Mail opted out, Terminal crashed earlier) and
        @kept_open are open when the session ends; at the next login, in
        @mode, @expected are relaunched, with these reasons."""
        self.desktop_files(self.APPS + list(kept_open))
        crashed = self.app('org.example.Terminal')
        crashed.crash()
        self.sync_frontend()
        apps = [self.app(a) for a in self.APPS + list(kept_open)]
        self.s.call('SetAppExcluded', 'sb', 'org.example.Mail', True)
        self.s.round_trip()
        apps[2].crash()       # crashed earlier, not open at the end
        self.sync_frontend()
        self.backend.send_signal(signal.SIGTERM)      # the unit stopped with the session
        self.s.wait_until(lambda: self.backend.poll() is not None, timeout=30, what='backend exit')
        for a in apps[:2] + apps[3:]:
            self.assertEqual(a.save_hints, 1)
        self.s.gsettings('set', 'login-restore', mode)
        self.s.wait_until(lambda: self.s.prop('LoginRestore') == mode, what=mode)
        if before_login:
            before_login()
        self.start_backend()
        self.backend_call(*CONTROL, 'Login', timeout=60000)
        # Login returns once it has spawned what it reopens: nothing more
        # will start.
        if not expected:
            self.assertEqual(self.relaunched(), [])
        if expected:
            self.s.wait_until(lambda: len(self.launched()) >= len(expected), timeout=30,
                              what='the relaunched apps')
        self.sync_backend()
        got = {e['app']: e['registration']['restore-reason'] for e in self.launched()}
        for e in self.launched():
            self.addCleanup(lambda pid=e['pid']: os.kill(pid, signal.SIGTERM))
        self.assertEqual(got, expected)
        return apps

    def stand_in_prompt(self, answer):
        """A new login's policyd, whose prompt (tests/lib/fakeprompt.py,
        D-Bus-activated) answers @answer and logs what it was asked."""
        prompt_dir = os.path.join(self.s.root, 'prompt')
        os.makedirs(prompt_dir, exist_ok=True)
        self.prompt_config = os.path.join(prompt_dir, 'prompt.json')
        with open(self.prompt_config, 'w') as f:
            json.dump({'answer': answer}, f)
        services = os.path.join(self.s.data_home, 'dbus-1', 'services')
        os.makedirs(services, exist_ok=True)
        with open(os.path.join(services, 'org.gnome.SessionRestore.service'), 'w') as f:
            f.write('[D-BUS Service]\nName=org.gnome.SessionRestore\n'
                    f'Exec={PYTHON} {FAKE_PROMPT} {self.prompt_config}\n')
        self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                             'ReloadConfig', None, None, Gio.DBusCallFlags.NONE, 5000, None)
        # policyd takes the prompt's owner for the prompt only if it runs this program.
        self.s.stop_policyd()
        self.s.env['SR_PROMPT_EXECUTABLE'] = os.path.realpath(PYTHON)
        self.s.start_policyd()

    def prompt_asks(self):
        with open(self.prompt_config + '.log') as f:
            return [c for c in map(json.loads, f) if c['call'] == 'Ask']

    def test_logout_login_always(self):
        self.logout_and_login('always', {'org.example.Editor': RESTORE})

    def test_logout_login_never(self):
        self.logout_and_login('never', {})

    def test_logout_login_ask_one_prompt_relaunches_what_the_user_kept(self):
        # The user unticks Notes in the one prompt.
        apps = self.logout_and_login(
            'ask', {'org.example.Editor': RESTORE}, kept_open=['org.example.Notes'],
            before_login=lambda: self.stand_in_prompt([True, ['org.example.Notes'], False]))
        asks = self.prompt_asks()
        self.assertEqual(len(asks), 1, asks)
        asked = {app for app, _ in asks[0]['apps']}
        self.assertLessEqual({'org.example.Editor', 'org.example.Notes'}, asked)
        self.assertNotIn('org.example.Mail', asked)
        # Declined for this login only: its state stays for its next launch.
        notes = self.app('org.example.Notes', token='later')
        self.assertEqual((notes.reason, notes.instance_id), (LAUNCH, apps[3].instance_id))
        self.assertEqual(len(self.prompt_asks()), 1)

    def test_save_hint_at_explicit_session_end(self):
        a = self.app('org.example.Editor')
        done = []
        self.s.bus.call(BACKEND_NAME, *CONTROL, 'EndSession', None, None, Gio.DBusCallFlags.NONE,
                        30000, None, lambda c, r: done.append(c.call_finish(r)))
        self.s.wait_until(lambda: done and a.save_hints == 1, what='SaveHint and the end')
        record = self.record_apps()['org.example.Editor'][1]
        self.assertTrue(record[0]['ended-at-session-end'])
        a.crash()          # leaving while the session ends: no crash
        self.sync_frontend()
        self.assertFalse(self.record_apps()['org.example.Editor'][1][0]['crashed'])

    def test_ctl_session_end(self):
        a = self.app('org.example.Editor')
        ctl = subprocess.Popen([CTL, 'session', 'end'], env=self.s.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        # The app answers SaveHint from this loop: the command waits for it.
        self.s.wait_until(lambda: ctl.poll() is not None, timeout=30, what='session end')
        self.assertEqual((ctl.returncode, ctl.stdout.read()),
                         (0, 'Ended: the open apps are recorded for the next login.\n'))
        self.assertEqual(a.save_hints, 1)
        self.assertTrue(self.record_apps()['org.example.Editor'][1][0]['ended-at-session-end'])

    def test_ctl_session_end_without_the_backend(self):
        self.stop(self.backend)
        result = subprocess.run([CTL, 'session', 'end'], env=self.s.env, capture_output=True,
                                text=True, timeout=60)
        self.assertEqual((result.returncode, result.stdout),
                         (0, 'session-restore-portal is not running: no app to save.\n'))
        result = subprocess.run([CTL, 'session', 'begin'], env=self.s.env, capture_output=True,
                                text=True, timeout=60)
        self.assertEqual(result.returncode, 3, result.stderr)


class TestExpired(PortalTestCase):
    def test_expired_is_pristine_and_discarded(self):
        a = self.app('org.example.Editor')
        a.crash()
        self.sync_frontend()
        old = a.instance_id
        # Its state was saved 40 days ago (max-age-days is 30). policyd's
        # start-up purge, which takes such an entry from the record, has
        # run first: the record is written back as between two purges.
        self.stop(self.backend)
        self.assertEqual(self.s.stop_policyd(), 0)
        self.s.gsettings('set', 'excluded-apps', "['org.example.Sentinel']")
        Simulator(self.s).start_policyd_after_purge('org.example.Sentinel')
        with open(self.record, 'rb') as f:
            record = parse_record(f.read()).unpack()
        props, instances = record['instances']['org.example.Editor']
        instances[0]['saved-at'] -= 40 * 86400 * 1000000
        new = GLib.Variant('a{sv}', {
            'version': GLib.Variant('u', 1), 'dirty': GLib.Variant('b', False),
            'instances': GLib.Variant('a{s(a{sv}aa{sv})}', {'org.example.Editor': (
                {}, [{'instance-id': GLib.Variant('s', i['instance-id']),
                      'crashed': GLib.Variant('b', True),
                      'saved-at': GLib.Variant('x', i['saved-at'])} for i in instances])})})
        with open(self.record, 'wb') as f:
            f.write(new.get_data_as_bytes().get_data())
        self.start_backend()
        b = self.app('org.example.Editor', token='b')
        self.assertEqual(b.reason, PRISTINE)
        self.assertIn(old, b.registration['discard-instance-ids'])
        self.assertNotEqual(b.instance_id, old)


class TestRecordDurability(PortalTestCase):
    def slow_disk(self, delay_ms=400):
        """The backend again, each write of its record taking @delay_ms, as
        on a busy disk; returns the file the writes are logged to."""
        self.stop(self.backend)
        writes = os.path.join(self.s.root, 'writes.log')
        env = {'LD_PRELOAD': os.environ['SR_DIE_MID_WRITE_MODULE'],
               'SR_DIE_MID_WRITE': os.path.realpath(self.record),
               'SR_WRITE_DELAY_MS': str(delay_ms), 'SR_WRITE_LOG': writes}
        if 'ASAN_OPTIONS' in self.s.env:
            env['ASAN_OPTIONS'] = self.s.env['ASAN_OPTIONS'] + ':verify_asan_link_order=0'
        self.start_backend(**env)
        return writes

    def test_session_end_reports_done_once_the_record_is_on_disk(self):
        self.slow_disk()
        a = self.app('org.example.Editor')
        self.backend_call(*CONTROL, 'EndSession')
        record = self.record_apps()['org.example.Editor']
        self.assertEqual(record[1][0]['instance-id'], a.instance_id)
        self.assertTrue(record[1][0]['ended-at-session-end'])

    def test_slow_disk_delays_no_register_and_writes_coalesce(self):
        writes = self.slow_disk()
        a = self.app('org.example.Editor')
        start = GLib.get_monotonic_time()
        for i in range(5):             # ten changes of the record
            a.call('org.freedesktop.portal.Session', 'Close', path=a.handle)
            a.token = f'again{i}'
            a.register()
        elapsed = (GLib.get_monotonic_time() - start) / 1e6
        # On the main thread the ten writes would take 4 s.
        self.assertLess(elapsed, 1.6)
        self.sync_frontend()
        # Sync returned once the newest state was on disk...
        self.assertEqual(self.record_apps()['org.example.Editor'][1][0]['instance-id'],
                         a.instance_id)
        # ...written in a few writes, not ten.
        with open(writes) as f:
            files = set(f.read().split())
        self.assertLessEqual(len(files), 5, files)

    def test_changes_close_together_make_one_write(self):
        writes = self.slow_disk(delay_ms=0)
        start = GLib.get_monotonic_time()
        a = self.app('org.example.Editor')
        for i in range(10):            # twenty changes of the record
            a.call('org.freedesktop.portal.Session', 'Close', path=a.handle)
            a.token = f'again{i}'
            a.register()
        self.sync_frontend()
        elapsed_ms = (GLib.get_monotonic_time() - start) / 1000
        self.assertEqual(self.record_apps()['org.example.Editor'][1][0]['instance-id'],
                         a.instance_id)
        # A write a tenth of a second after a change, with every change
        # made meanwhile, and Sync's: not one or two per Register.
        with open(writes) as f:
            count = len(f.read().split())
        self.assertLessEqual(count, elapsed_ms // 100 + 2, f'{count} writes in {elapsed_ms:.0f} ms')

    def test_killed_mid_write_leaves_the_old_record(self):
        a = self.app('org.example.Editor')
        a.quit()
        self.sync_frontend()
        self.stop(self.backend)
        with open(self.record, 'rb') as f:
            old = f.read()
        # Its next write of the record stops halfway: SIGKILL.
        env = {'LD_PRELOAD': os.environ['SR_DIE_MID_WRITE_MODULE'],
               'SR_DIE_MID_WRITE': os.path.realpath(self.record)}
        if 'ASAN_OPTIONS' in self.s.env:     # a sanitizer build: its runtime is not first
            env['ASAN_OPTIONS'] = self.s.env['ASAN_OPTIONS'] + ':verify_asan_link_order=0'
        self.start_backend(**env)
        b = PortalApp(self.s.session_bus.address, self.s.state_home, 'org.example.Mail',
                      register=False)
        try:
            b.register()      # the record is written after the reply, or before
        except GLib.Error:
            pass
        self.s.wait_until(lambda: self.backend.poll() is not None, timeout=30, what='the kill')
        self.assertEqual(self.backend.returncode, -signal.SIGKILL)
        with open(self.record, 'rb') as f:
            self.assertEqual(f.read(), old)
        # The next backend reads it: the editor's state is still its.
        self.start_backend()
        c = self.app('org.example.Editor', token='c')
        self.assertEqual((c.reason, c.instance_id), (LAUNCH, a.instance_id))


class TestBounds(PortalTestCase):
    """What one app can make the record keep (sr-portal-record.c's
    MAX_INSTANCES and MAX_DISCARD): without a bound a sandboxed app grows
    its entry with every session it opens and every quit it leaves
    unconfirmed, until the record passes the size the next start reads,
    which then loses every app's state."""
    MAX_INSTANCES = 64
    MAX_DISCARD = 128
    MAX_APP_SESSIONS = 1024

    def app_entry(self, app_id):
        props, instances = self.record_apps()[app_id]
        return props, [i['instance-id'] for i in instances]

    def test_instances_of_one_app_are_bounded(self):
        editor = self.app('org.example.Editor')
        editor.quit()
        self.sync_frontend()
        kept = self.record_apps()['org.example.Editor']
        mallory = self.app('org.example.Mallory', token='first')
        first = mallory.registration
        opened = self.open_sessions(mallory, self.MAX_INSTANCES + 6, 'm')
        ids = [r.get('instance-id') for r in [first] + [r for _, r in opened]]
        given = [i for i in ids if i is not None]
        self.assertEqual(len(given), self.MAX_INSTANCES)
        self.assertEqual(len(set(given)), len(given))
        # Past the bound: PRISTINE, and no id to save anything under.
        for _, registration in opened[self.MAX_INSTANCES - 1:]:
            self.assertEqual(registration['restore-reason'], PRISTINE)
            self.assertNotIn('instance-id', registration)
        mallory.crash()
        self.sync_frontend()
        _, instances = self.app_entry('org.example.Mallory')
        self.assertEqual(sorted(instances), sorted(given))
        # The editor's entry is untouched; the next Register takes one of
        # the crashed instances (under a fresh id, as policyd's crash-loop
        # guard holds the app back) rather than adding one.
        self.assertEqual(self.record_apps()['org.example.Editor'], kept)
        again = self.app('org.example.Mallory', token='again')
        self.sync_frontend()
        _, instances = self.app_entry('org.example.Mallory')
        self.assertEqual(len(instances), self.MAX_INSTANCES)
        self.assertIn(again.instance_id, instances)

    def test_unconfirmed_discards_are_bounded(self):
        mallory = self.app('org.example.Mallory', token='first')
        mallory.quit()
        self.sync_frontend()
        # Opted out: each Register of an instance with state puts its id
        # to discard; rounds of sessions, never confirming one.
        self.s.call('SetAppExcluded', 'sb', 'org.example.Mallory', True)
        self.s.round_trip()
        rounds = []
        for round_ in range(3):
            mallory = PortalApp(self.s.session_bus.address, self.s.state_home,
                                'org.example.Mallory', register=False)
            opened = self.open_sessions(mallory, self.MAX_INSTANCES, f'r{round_}_')
            self.assertTrue(all('instance-id' in r for _, r in opened))
            rounds.append([r['instance-id'] for _, r in opened])
            prefix = mallory.handle[:mallory.handle.rindex('/') + 1]
            for token, _ in opened:
                mallory.call('org.freedesktop.portal.Session', 'Close', path=prefix + token)
            mallory.crash()
            self.sync_frontend()
        props, _ = self.app_entry('org.example.Mallory')
        discard = props['discarded-instance-ids']
        self.assertEqual(len(discard), self.MAX_DISCARD)
        self.assertEqual(len(set(discard)), self.MAX_DISCARD)
        # The newest are kept: those the last round was handed and the
        # next launch had to discard.
        self.assertLessEqual(set(rounds[1]), set(discard))
        last = self.app('org.example.Mallory', token='last')
        asked = last.registration['discard-instance-ids']
        # Its bound's worth, and beside them the one id the opt-out
        # cleared (policyd clears an app it opts out).
        self.assertEqual(len(set(asked)), len(asked))
        self.assertLessEqual(len(asked), self.MAX_DISCARD + 1)

    def register_directly(self, app_id, handles):
        """Registers each of @handles for @app_id with the backend, sent by
        the stand-in frontend as it sends its own (without its GetAll
        first), 64 at a time: a thousand apps' Registers take too long. Returns the
        answers in order: each a registration, or the GLib.Error."""
        answers = {}

        def done(handle, answer):
            answers[handle] = answer if isinstance(answer, GLib.Error) else answer[0]
        for start in range(0, len(handles), 64):
            batch = handles[start:start + 64]
            for handle in batch:
                self.relay_async('/org/freedesktop/portal/desktop',
                                 'org.freedesktop.impl.portal.SaveRestore', 'Register',
                                 GLib.Variant('(osa{sv})', (handle, app_id, {})),
                                 lambda answer, handle=handle: done(handle, answer))
            self.s.wait_until(lambda: all(h in answers for h in batch), timeout=60,
                              what='the Registers answered')
        return [answers[h] for h in handles]

    def test_sessions_of_one_app_are_bounded(self):
        # Each Register with a new token made a session, and nothing
        # bounded them: one sandboxed app grew the backend as it liked.
        mallory = self.app('org.example.Mallory', token='first')
        handles = [f'/org/freedesktop/portal/desktop/session/1_{77 + i % 2}/m{i}'
                   for i in range(self.MAX_APP_SESSIONS - 1)]
        answers = self.register_directly('org.example.Mallory', handles)
        self.assertEqual([a for a in answers if not isinstance(a, dict)], [])
        self.sync_frontend()
        entry = self.app_entry('org.example.Mallory')
        self.assertEqual(len(entry[1]), self.MAX_INSTANCES)
        # One more is refused, and the frontend tells the app why.
        mallory.token = 'past'
        message = self.assertDBusError('org.freedesktop.DBus.Error.LimitsExceeded', mallory.register)
        self.assertIn(f'{self.MAX_APP_SESSIONS} sessions open already', message)
        # Its Close before the refused Register is not kept, nor its
        # sender's objects, which had no other session.
        refused = '/org/freedesktop/portal/desktop/session/1_79/x'
        self.backend_call(refused, IMPL_SESSION, 'Close2',
                          GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', False)},)))
        self.assertIn('1_79', self.session_nodes())
        self.assertIsInstance(self.register_directly('org.example.Mallory', [refused])[0], GLib.Error)
        self.assertNotIn('1_79', self.session_nodes())
        # Nothing else is lost: another app registers as ever, Mallory's
        # entry in the record is as it was, and its sessions still close.
        editor = self.app('org.example.Editor')
        self.assertEqual(editor.reason, LAUNCH)
        self.assertIsNotNone(editor.instance_id)
        self.sync_frontend()
        self.assertEqual(self.app_entry('org.example.Mallory'), entry)
        mallory.quit()
        self.backend_call(handles[-1], IMPL_SESSION, 'Close2',
                          GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', True)},)))
        # Two closed, two more: one through the frontend, one directly;
        # then the bound again.
        again = self.app('org.example.Mallory', token='again')
        self.assertIn(again.reason, (LAUNCH, PRISTINE))
        last = self.register_directly('org.example.Mallory', [handles[-1], refused])
        self.assertIsInstance(last[0], dict)
        self.assertEqual(remote_error(last[1]), 'org.freedesktop.DBus.Error.LimitsExceeded')
        self.assertEqual(editor.reason, LAUNCH)
        # The log says so the first time, not at each of the three
        # refusals, nor when the app comes back to the bound.
        said = self.bound_said()
        self.assertEqual(len(said), 1, said)
        self.assertIn(f'org.example.Mallory: {self.MAX_APP_SESSIONS} sessions open', said[0])

    def test_apps_not_identified_are_bounded_each_by_itself(self):
        # The apps the frontend could not identify shared one bound: one
        # of them opening its 1,024 sessions left none for the others.
        handles = [f'/org/freedesktop/portal/desktop/session/1_83/u{i}'
                   for i in range(self.MAX_APP_SESSIONS + 1)]
        answers = self.register_directly('', handles)
        self.assertEqual([a for a in answers[:-1] if not isinstance(a, dict)], [])
        self.assertEqual(remote_error(answers[-1]), 'org.freedesktop.DBus.Error.LimitsExceeded')
        other = self.register_directly('', ['/org/freedesktop/portal/desktop/session/1_84/v'])[0]
        self.assertEqual(other, {'restore-reason': PRISTINE})
        said = self.bound_said()
        self.assertEqual(len(said), 1, said)
        self.assertIn('An app not identified: ', said[0])

    def bound_said(self):
        """The lines of the backend's log saying an app is at its bound."""
        self.backend_log.flush()
        with open(os.path.join(self.s.root, 'backend.log'), encoding='utf-8') as f:
            return [line for line in f if 'the most one app may have' in line]

    def test_the_bound_is_said_again_once_the_app_has_closed_every_session(self):
        # The apps whose refusals were logged are remembered while they
        # hold sessions, not for good: app ids brought to the bound one
        # after another, each closed again, grew the table as they liked.
        handles = [f'/org/freedesktop/portal/desktop/session/1_81/b{i}'
                   for i in range(self.MAX_APP_SESSIONS + 1)]
        for round_ in range(2):
            answers = self.register_directly('org.example.Bounded', handles)
            self.assertEqual([a for a in answers[:-1] if not isinstance(a, dict)], [])
            self.assertEqual(remote_error(answers[-1]), 'org.freedesktop.DBus.Error.LimitsExceeded')
            self.assertEqual(len(self.bound_said()), round_ + 1)
            closed = []
            for start in range(0, len(handles) - 1, 64):
                for handle in handles[start:start + 64]:
                    self.relay_async(handle, IMPL_SESSION, 'Close', None, closed.append)
                self.s.wait_until(lambda: len(closed) == min(start + 64, len(handles) - 1),
                                  timeout=60, what='the sessions closed')
            self.assertEqual([e for e in closed if isinstance(e, GLib.Error)], [])
        self.assertEqual(self.session_nodes(), [])

    def start_on_crashes(self, order, others=()):
        """A record written before the bound, and a backend started on it:
        org.example.Mallory with a crashed instance for each i of @order,
        in that order, saved len(@order) - i seconds ago (beside the
        entries of @others). Mallory registers (RECOVER); returns it and
        its entry in the record then."""
        now = GLib.get_real_time()
        instances = GLib.Variant('a{s(a{sv}aa{sv})}', {
            **dict(others),
            'org.example.Mallory': ({}, [{'instance-id': GLib.Variant('s', f'{i:012x}'),
                                          'crashed': GLib.Variant('b', True),
                                          'saved-at': GLib.Variant('x', now - (len(order) - i) * 1000000)}
                                         for i in order])})
        with open(self.record, 'wb') as f:
            f.write(GLib.Variant('a{sv}', {'version': GLib.Variant('u', 1), 'dirty': GLib.Variant('b', False),
                                           'instances': instances}).get_data_as_bytes().get_data())
        self.start_backend()
        a = PortalApp(self.s.session_bus.address, self.s.state_home, 'org.example.Mallory',
                      register=False)
        a.register(obey=False)
        self.assertEqual(a.reason, RECOVER)
        self.sync_frontend()
        return (a, *self.app_entry('org.example.Mallory'))

    def test_an_oversized_entry_is_cut_down_at_the_next_start(self):
        editor = self.app('org.example.Editor')
        editor.quit()
        self.sync_frontend()
        self.stop(self.backend)
        # A record written before the bound: 200 crashed instances.
        props, _ = self.app_entry('org.example.Editor')
        _, props, instances = self.start_on_crashes(range(200), others={
            'org.example.Editor': ({'next-instance-id': GLib.Variant('s', props['next-instance-id']),
                                    'next-saved-at': GLib.Variant('x', props['next-saved-at'])}, [])})
        # The 64 saved last stay, the 136 others are to be deleted.
        self.assertEqual(sorted(instances), [f'{i:012x}' for i in range(136, 200)])
        self.assertEqual(len(props['discarded-instance-ids']), 128)
        b = self.app('org.example.Editor', token='b')
        self.assertEqual((b.reason, b.instance_id), (LAUNCH, editor.instance_id))

    def test_the_newest_instances_of_a_record_are_kept_in_any_order(self):
        # A record written before the bound, its instances in no order of
        # saved-at (70 of them, the oldest read last): the 64 newest stay,
        # and the 6 oldest are to be deleted. The last 64 read stayed.
        self.stop(self.backend)
        order = list(range(1, 70))
        random.Random(int(os.environ.get('SR_SEED', '1234'))).shuffle(order)
        a, props, instances = self.start_on_crashes(order + [0])
        self.assertEqual(sorted(instances), [f'{i:012x}' for i in range(6, 70)])
        self.assertEqual(sorted(props['discarded-instance-ids']), [f'{i:012x}' for i in range(6)])
        self.assertEqual(sorted(a.registration['discard-instance-ids']),
                         [f'{i:012x}' for i in range(6)])

    def test_a_record_past_the_size_read_at_start_is_not_written(self):
        # Within the bounds, many instances (of many apps, in a real
        # session) still make a large record: the limit lowered to 2 KiB
        # (SR_PORTAL_RECORD_MAX_SIZE in test builds) for 40 sessions.
        self.stop(self.backend)
        log_start = os.path.getsize(os.path.join(self.s.root, 'backend.log'))
        self.start_backend(SR_PORTAL_RECORD_MAX_SIZE='2048')
        editor = self.app('org.example.Editor')
        editor.quit()
        self.sync_frontend()
        kept = self.record_apps()['org.example.Editor']
        mallory = self.app('org.example.Mallory', token='first')
        self.open_sessions(mallory, 40, 'm')
        mallory.crash()
        # Sync says so: it said the record was on disk.
        self.sync_frontend(written=False)
        self.assertLessEqual(os.path.getsize(self.record), 2048)
        self.assertEqual(self.record_apps()['org.example.Editor'], kept)
        self.stop(self.backend)
        with open(os.path.join(self.s.root, 'backend.log'), 'rb') as f:
            f.seek(log_start)
            log = f.read().decode()
        # The SIGTERM ended the session.
        self.assert_not_written_said_once_each(log)
        self.assertNotIn('Ignoring ', log)
        # The next start reads it: the editor's state is still its own.
        self.start_backend(SR_PORTAL_RECORD_MAX_SIZE='2048')
        again = self.app('org.example.Editor', token='again')
        self.assertEqual((again.reason, again.instance_id), (LAUNCH, editor.instance_id))

    def end_session(self, max_size, sessions, fits):
        """The backend again, its record's limit @max_size bytes, the
        editor and @sessions of Mallory's open (a record that @fits in
        it or not), then session-restore-ctl
        session end; returns the command's exit status, output and errors,
        and the backend's log from its start to its exit."""
        self.stop(self.backend)
        self.start_backend(SR_PORTAL_RECORD_MAX_SIZE=str(max_size))
        log_start = os.path.getsize(os.path.join(self.s.root, 'backend.log'))
        editor = self.app('org.example.Editor')
        self.open_sessions(self.app('org.example.Mallory', token='first'), sessions, 'm')
        self.sync_frontend(written=fits)
        with open(self.record, 'rb') as f:
            self.before = f.read()
        ctl = subprocess.Popen([CTL, 'session', 'end'], env=self.s.env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        self.s.wait_until(lambda: ctl.poll() is not None, timeout=30, what='session end')
        self.assertEqual(editor.save_hints, 1)
        ended = (ctl.returncode, ctl.stdout.read(), ctl.stderr.read())
        self.stop(self.backend)
        with open(os.path.join(self.s.root, 'backend.log'), 'rb') as f:
            f.seek(log_start)
            return (*ended, f.read().decode())

    def test_a_session_end_not_written_does_not_say_it_was(self):
        # The session's end said "the open apps are recorded" (the backend's
        # log, and session-restore-ctl) when the record was too large to be
        # written, and the disk kept an older one without them.
        status, out, err, log = self.end_session(2048, 40, fits=False)
        self.assertEqual(out, '')
        self.assertNotEqual(status, 0)
        self.assertRegex(err, r'^session-restore-ctl: .*session-restore-portal@[^ ]*'
                              r'\.state was not written: \d+ bytes, more than the 2048 '
                              r'read at the next start; it keeps what it held before\n$')
        with open(self.record, 'rb') as f:
            self.assertEqual(f.read(), self.before)
        self.assertIn("Could not record the apps open at the session's end: ", log)
        self.assertNotIn('the open apps are recorded', log)

    def test_a_session_end_written_says_so(self):
        # The same, the record within its limit.
        status, out, err, log = self.end_session(65536, 2, fits=True)
        self.assertEqual((status, out, err),
                         (0, 'Ended: the open apps are recorded for the next login.\n', ''))
        self.assertIn('The session ended; the open apps are recorded', log)
        self.assertNotIn('Could not record', log)


class LateApp(PortalApp):
    """An app that answers SaveHint only when told to (answer())."""

    def _on_save_hint(self, conn, sender, path, iface, name, params):
        if params.unpack()[0] == self.handle:
            self.save_hints += 1

    def answer(self):
        self.call(PORTAL_IFACE, 'SaveHintResponse', '(o)', (self.handle,))


class TestLogind(PortalTestCase):
    """logind (python-dbusmock's template) on the test's system bus."""

    def setUp(self):
        super().setUp()
        self.logind = subprocess.Popen([PYTHON, '-m', 'dbusmock', '--system', '--template', 'logind'],
                                       env=self.s.env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.addCleanup(self.stop, self.logind)
        self.system = self.s.system_bus.connect()
        self.s.wait_for_name(self.system, 'org.freedesktop.login1')
        # A backend started with logind there takes its delay inhibitor.
        self.stop(self.backend)
        self.start_backend()
        self.s.wait_until(self.inhibited, what='the delay inhibitor')

    def inhibitors(self):
        reply = self.system.call_sync('org.freedesktop.login1', '/org/freedesktop/login1',
                                      'org.freedesktop.login1.Manager', 'ListInhibitors', None,
                                      None, Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        return [(what, who, mode) for what, who, _, mode, _, _ in reply]

    def inhibited(self):
        return self.inhibitors() == [('shutdown:sleep', 'Session Restore', 'delay')]

    def emit(self, name, value):
        self.system.call_sync('org.freedesktop.login1', '/org/freedesktop/login1',
                              'org.freedesktop.DBus.Mock', 'EmitSignal',
                              GLib.Variant('(sssav)', ('org.freedesktop.login1.Manager', name, 'b',
                                                       [GLib.Variant('b', value)])),
                              None, Gio.DBusCallFlags.NONE, 5000, None)

    def late_app(self, app_id):
        return LateApp(self.s.session_bus.address, self.s.state_home, app_id)

    def test_shutdown_waits_for_the_save_hint_round_and_ends_the_session(self):
        a = self.late_app('org.example.Editor')
        self.emit('PrepareForShutdown', True)
        self.s.wait_until(lambda: a.save_hints == 1, what='SaveHint')
        self.sync_backend()
        self.assertTrue(self.inhibited())      # the shutdown waits for the app
        a.answer()
        self.s.wait_until(lambda: self.inhibitors() == [], what='the inhibitor released')
        with open(self.record, 'rb') as f:
            record = parse_record(f.read()).unpack()
        self.assertFalse(record['dirty'])
        self.assertTrue(record['instances']['org.example.Editor'][1][0]['ended-at-session-end'])
        a.crash()          # leaving as the system goes down: no crash
        self.sync_frontend()
        self.assertFalse(self.record_apps()['org.example.Editor'][1][0]['crashed'])
        # Cancelled: the next shutdown waits too.
        self.emit('PrepareForShutdown', False)
        self.s.wait_until(self.inhibited, what='the inhibitor taken again')

    def test_a_cancelled_shutdown_does_not_end_the_session(self):
        # logind cancelled the shutdown, and the session never stopped
        # ending: a crash was not counted and got LAUNCH, and an app the
        # user closed reopened at the next login.
        a = self.app('org.example.Editor')
        closed = self.app('org.example.Mail')
        self.emit('PrepareForShutdown', True)
        self.s.wait_until(lambda: a.save_hints == 1 and self.inhibitors() == [],
                          what='the session ended')
        self.emit('PrepareForShutdown', False)
        self.s.wait_until(self.inhibited, what='the inhibitor taken again')
        self.backend_log.flush()
        with open(os.path.join(self.s.root, 'backend.log'), encoding='utf-8') as f:
            self.assertIn("The session's end was called off (the shutdown was cancelled): "
                          "2 apps run on", f.read())
        closed.quit()
        a.crash()
        self.sync_frontend()
        b = self.app('org.example.Editor', token='b')
        self.assertEqual((b.reason, b.instance_id), (RECOVER, a.instance_id))
        props, instances = self.record_apps()['org.example.Mail']
        self.assertEqual(instances, [])
        self.assertEqual(props['next-instance-id'], closed.instance_id)

    def test_shutdown_with_a_record_too_large_says_so_once(self):
        self.stop(self.backend)
        self.s.wait_until(lambda: self.inhibitors() == [], what='the old inhibitor released')
        log_start = os.path.getsize(os.path.join(self.s.root, 'backend.log'))
        self.start_backend(SR_PORTAL_RECORD_MAX_SIZE='2048')
        self.s.wait_until(self.inhibited, what='the delay inhibitor')
        self.open_sessions(self.app('org.example.Mallory', token='first'), 40, 'm')
        self.sync_backend(written=False)
        self.emit('PrepareForShutdown', True)
        self.s.wait_until(lambda: self.inhibitors() == [], what='the inhibitor released')
        self.sync_backend(written=False)
        with open(os.path.join(self.s.root, 'backend.log'), 'rb') as f:
            f.seek(log_start)
            log = f.read().decode()
        self.assert_not_written_said_once_each(log)

    def test_the_first_register_takes_the_inhibitor(self):
        # A backend whose fallback would wait ten minutes: only the first
        # answered Register can have it connect to logind in time.
        self.stop(self.backend)
        self.s.wait_until(lambda: self.inhibitors() == [], what='the old inhibitor released')
        self.start_backend(SR_PORTAL_LOGIND_DELAY_MS='600000')
        self.sync_backend()
        self.app('org.example.Editor')
        self.s.wait_until(self.inhibited, what='the delay inhibitor after the first Register')

    def test_sleep_sends_save_hint_only(self):
        a = self.late_app('org.example.Editor')
        self.emit('PrepareForSleep', True)
        self.s.wait_until(lambda: a.save_hints == 1, what='SaveHint')
        self.sync_backend()
        self.assertTrue(self.inhibited())      # the suspend waits for the app
        a.answer()
        self.s.wait_until(lambda: self.inhibitors() == [], what='the inhibitor released')
        self.emit('PrepareForSleep', False)
        self.s.wait_until(self.inhibited, what='the inhibitor taken again after resume')
        with open(self.record, 'rb') as f:
            self.assertTrue(parse_record(f.read()).unpack()['dirty'])   # the session goes on
        a.crash()          # after resume, a crash is a crash
        self.sync_frontend()
        b = self.app('org.example.Editor', token='b')
        self.assertEqual((b.reason, b.instance_id), (RECOVER, a.instance_id))
