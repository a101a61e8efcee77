"""libsessionrestore through GObject-Introspection (SessionRestore-1.0),
as a Python or GJS consumer uses it, against a real policyd, real dconf
and a real session bus: the checks' verdicts and reasons, a setting
changed with gsettings arriving as a notification, stored-state-cleared
after a Clear, an owner of the service's name in a sandbox believed
in nothing and sent no call (only the GetAll of the properties, asked
while it is found and verified and not taken), the settings read from a
service the client starts, calls pipelined before the client's
initialization, answered only by the verified owner, calls that name an
app never pipelined, and pipelined calls that an owner not to be trusted
holds failed at once; and a policyd that crashed started again by the
next call, or that call failing at once, saying why, when it cannot be."""
import os
import signal
import subprocess
import sys
import time

import gi
gi.require_version('SessionRestore', '1.0')
from gi.repository import GLib, SessionRestore as Sr  # noqa: E402

import fakepolicyd  # noqa: E402
from simulator import Simulator  # noqa: E402
from srtest import NOBODY, POLICYD, SLOW, SOURCE_DIR, PolicydTestCase  # noqa: E402

A = 'org.example.Alpha'
B = 'org.example.Beta'
SILENT_POLICYD = os.path.join(os.path.dirname(os.path.realpath(fakepolicyd.__file__)), 'silentpolicyd.py')
# What answers "at once" within: a verification, not a call's timeout.
AT_ONCE = 1.0 * SLOW

# The calls a test makes, by name: (begin, finish) with the client's
# methods, as an app naming A makes them (or none, for the listings).
CALLS = {
    'check-save': (lambda c, cb: c.check_save_async(A, None, cb),
                   lambda c, r: c.check_save_finish(r)),
    'check-restore': (lambda c, cb: c.check_restore_async(A, Sr.RestoreReason.LAUNCH, 0,
                                                          Sr.CallFlags.NONE, None, cb),
                      lambda c, r: c.check_restore_finish(r)),
    # In "ask" mode at login the answer could wait for the user.
    'check-restore-interactive': (lambda c, cb: c.check_restore_async(
                                      A, Sr.RestoreReason.RESTORE, 0,
                                      Sr.CallFlags.ALLOW_INTERACTION, None, cb),
                                  lambda c, r: c.check_restore_finish(r)),
    'note-exit': (lambda c, cb: c.note_exit_async(A, False, None, cb),
                  lambda c, r: c.note_exit_finish(r)),
    'exclude': (lambda c, cb: c.set_app_excluded_async(A, True, Sr.CallFlags.NONE, None, cb),
                lambda c, r: c.set_app_excluded_finish(r)),
    'list': (lambda c, cb: c.list_stored_state_async(Sr.CallFlags.NONE, None, cb),
             lambda c, r: c.list_stored_state_finish(r)),
    'list-interactive': (lambda c, cb: c.list_stored_state_async(Sr.CallFlags.ALLOW_INTERACTION,
                                                                 None, cb),
                         lambda c, r: c.list_stored_state_finish(r)),
}


class ClientTestCase(PolicydTestCase):
    def client(self, flags=Sr.PolicyClientFlags.NONE):
        client = Sr.PolicyClient.new_for_bus_sync(self.s.bus, flags, None)
        self.addCleanup(client.run_dispose)
        return client

    def list_while_initializing(self, flags=Sr.PolicyClientFlags.NONE):
        """A pipelining client asked for the listing before it initializes:
        the client, and the listing or the error it failed with."""
        client = Sr.PolicyClient.new(self.s.bus, flags | Sr.PolicyClientFlags.PIPELINE)
        self.addCleanup(client.run_dispose)
        loop = GLib.MainLoop()
        results = {}

        def on_listed(source, result):
            try:
                results['listing'] = source.list_stored_state_finish(result)
            except GLib.Error as e:
                results['listing'] = e
            if 'init' in results:
                loop.quit()

        def on_initialized(source, result):
            results['init'] = source.init_finish(result)
            if 'listing' in results:
                loop.quit()
        client.list_stored_state_async(Sr.CallFlags.NONE, None, on_listed)
        client.init_async(GLib.PRIORITY_DEFAULT, None, on_initialized)
        loop.run()
        self.assertTrue(results['init'])
        return client, results['listing']

    def run_calls(self, client, names, before=lambda: None, timeout=10):
        """Makes the calls of CALLS named, then before(), and waits for
        their answers (at most @timeout s): {name: (the result or the
        GLib.Error, seconds it took)}."""
        loop = GLib.MainLoop()
        results = {}

        def call(name):
            begin, finish = CALLS[name]
            started = time.monotonic()

            def on_done(source, result):
                try:
                    value = finish(source, result)
                except GLib.Error as e:
                    value = e
                results[name] = (value, time.monotonic() - started)
                if len(results) == len(names):
                    loop.quit()
            begin(client, on_done)
        for name in names:
            call(name)
        before()
        guard = GLib.timeout_add(int(timeout * SLOW * 1000), loop.quit)
        loop.run()
        if len(results) == len(names):
            GLib.source_remove(guard)
        self.assertEqual(sorted(results), sorted(names),
                         f'calls not answered within {timeout} s')
        return results

    def calls_while_initializing(self, names, flags=Sr.PolicyClientFlags.NONE, timeout=10):
        """A pipelining client, made the calls of CALLS named before it
        initializes, then initialized: the client, and run_calls()'
        answers."""
        client = Sr.PolicyClient.new(self.s.bus, flags | Sr.PolicyClientFlags.PIPELINE)
        self.addCleanup(client.run_dispose)
        initialized = []
        results = self.run_calls(
            client, names, timeout=timeout,
            before=lambda: client.init_async(GLib.PRIORITY_DEFAULT, None,
                                             lambda c, r: initialized.append(c.init_finish(r))))
        self.s.wait_until(lambda: initialized, what='the initialization')
        return client, results

    def assertRefusedAtOnce(self, results, code, text):
        for name, (value, seconds) in results.items():
            self.assertIsInstance(value, GLib.Error, name)
            self.assertTrue(value.matches(Sr.error_quark(), code), (name, value.message))
            self.assertIn(text, value.message, name)
            self.assertLess(seconds, AT_ONCE, name)


class ChecksTest(ClientTestCase):
    def test_check_save_and_restore(self):
        client = self.client()
        self.assertEqual(client.get_service_state(), Sr.ServiceState.RUNNING)
        self.assertEqual(client.check_save_sync(A, None), (Sr.Verdict.ALLOW, Sr.Why.ALLOWED))
        self.assertEqual(client.check_restore_sync(A, Sr.RestoreReason.RESTORE, 0,
                                                   Sr.CallFlags.NONE, None),
                         (Sr.Verdict.ALLOW, Sr.Why.ALLOWED))

        self.s.gsettings('set', 'excluded-apps', f"['{B}']")
        self.s.gsettings('set', 'restore-after-crash', 'false')
        self.s.wait_until(lambda: client.get_excluded_apps() == [B] and
                          not client.props.restore_after_crash, what='the settings')
        self.assertEqual(client.check_save_sync(B, None), (Sr.Verdict.DENY, Sr.Why.EXCLUDED))
        self.assertEqual(client.check_restore_sync(A, Sr.RestoreReason.RECOVER, 0,
                                                   Sr.CallFlags.NONE, None),
                         (Sr.Verdict.DENY, Sr.Why.RECOVER_OFF))
        self.assertEqual(Sr.why_to_string(Sr.Why.RECOVER_OFF), 'recover-off')

    def test_async_and_errors(self):
        loop = GLib.MainLoop()
        results = []

        def on_client(source, result):
            results.append(Sr.PolicyClient.new_for_bus_finish(result))
            loop.quit()
        Sr.PolicyClient.new_for_bus_async(self.s.bus, Sr.PolicyClientFlags.NONE, None, on_client)
        loop.run()
        client = results[0]
        self.addCleanup(client.run_dispose)
        self.assertEqual(client.props.service_state, Sr.ServiceState.RUNNING)
        self.assertEqual(client.props.login_restore, Sr.LoginRestore.ALWAYS)
        # The service's named errors arrive as SrError codes.
        with self.assertRaises(GLib.Error) as ctx:
            client.check_save_sync('bad id', None)
        self.assertTrue(ctx.exception.matches(Sr.error_quark(), Sr.Error.INVALID_ARGS),
                        ctx.exception.message)


class NotifyTest(ClientTestCase):
    def test_setting_changed_with_gsettings_is_notified(self):
        client = self.client()
        seen = []
        client.connect('notify::max-age-days', lambda c, p: seen.append(c.props.max_age_days))
        client.connect('notify::excluded-apps', lambda c, p: seen.append(c.props.excluded_apps))
        self.s.gsettings('set', 'max-age-days', '7')
        self.s.wait_until(lambda: 7 in seen, what='notify::max-age-days')
        self.assertEqual(client.get_max_age_days(), 7)
        # Only invalidated by the service: the client reads it again.
        self.s.gsettings('set', 'excluded-apps', f"['{A}']")
        self.s.wait_until(lambda: [A] in seen, what='notify::excluded-apps')
        self.assertEqual(client.dup_value('max-age-days').unpack(), 7)

    def test_settings_read_from_the_service_it_starts(self):
        # The client asks for the properties before it knows who owns the
        # name; a service it had to start was not there to answer, and is
        # asked again. The settings are in once the client is made.
        self.s.stop_policyd()
        self.s.gsettings('set', 'max-age-days', '9')
        self.s.gsettings('set', 'excluded-apps', f"['{B}']")
        self.s.activatable()
        client = self.client()
        self.addCleanup(lambda: os.kill(self.s.owner_pid(), 15) if self.s.owner_pid() else None)
        self.assertEqual(client.get_service_state(), Sr.ServiceState.RUNNING)
        self.assertEqual(client.get_max_age_days(), 9)
        self.assertEqual(client.get_excluded_apps(), [B])

    def test_service_going_and_coming(self):
        client = self.client()
        self.s.stop_policyd()
        self.s.wait_until(lambda: client.props.service_state == Sr.ServiceState.MISSING,
                          what='MISSING')
        with self.assertRaises(GLib.Error) as ctx:
            client.check_save_sync(A, None)
        self.assertTrue(ctx.exception.matches(Sr.error_quark(), Sr.Error.UNAVAILABLE))
        self.s.start_policyd()
        self.s.wait_until(lambda: client.props.service_state == Sr.ServiceState.RUNNING,
                          what='RUNNING again')
        self.assertEqual(client.check_save_sync(A, None), (Sr.Verdict.ALLOW, Sr.Why.ALLOWED))


class RestartTest(ClientTestCase):
    """policyd crashed: the next call that finds it missing has the bus
    start it again, and goes to it once it is verified; nothing else
    starts it."""

    def activatable_counted(self):
        """policyd made activatable, each start noted in a file: the file."""
        starts = os.path.join(self.s.root, 'starts')
        self.s.activatable(f'/bin/sh -c "echo started >> {starts}; exec {POLICYD}"')
        return starts

    def starts(self, path):
        with open(path) as f:
            return len(f.readlines())

    def crash_policyd(self, client):
        """SIGKILL to the running policyd, by its pid, and the client told
        that it is gone: its pid."""
        pid = self.s.policyd.pid
        os.kill(pid, signal.SIGKILL)
        self.s.policyd.wait(10)
        self.s.policyd = None
        self.s.wait_until(lambda: client.props.service_state == Sr.ServiceState.MISSING,
                          what='MISSING')
        # Not started again by the client on its own.
        self.s.settle(0.2)
        self.assertIsNone(self.s.owner_pid())
        return pid

    def started_again(self, old_pid):
        """The policyd the bus started: its unique name, stopped at the
        end of the test."""
        pid = self.s.owner_pid()
        self.assertIsNotNone(pid)
        self.assertNotEqual(pid, old_pid)
        self.addCleanup(lambda: self.s.owner_pid() == pid and os.kill(pid, signal.SIGTERM))
        return self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                    'org.freedesktop.DBus', 'GetNameOwner',
                                    GLib.Variant('(s)', (fakepolicyd.BUS_NAME,)), None,
                                    0, 5000, None).unpack()[0]

    def test_sync_call_starts_policyd_again(self):
        client = self.client()
        starts = self.activatable_counted()
        old = self.crash_policyd(client)
        self.assertEqual(client.check_save_sync(A, None), (Sr.Verdict.ALLOW, Sr.Why.ALLOWED))
        self.assertEqual(self.starts(starts), 1)
        owner = self.started_again(old)
        self.assertEqual(client.get_service_state(), Sr.ServiceState.RUNNING)
        self.assertEqual(client.get_service_owner(), owner)

    def test_async_calls_start_policyd_again_once(self):
        for flags in (Sr.PolicyClientFlags.NONE, Sr.PolicyClientFlags.PIPELINE):
            with self.subTest(flags=flags):
                if self.s.policyd is None:
                    self.s.start_policyd()
                client = self.client(flags)
                starts = self.activatable_counted()
                old = self.crash_policyd(client)
                results = self.run_calls(client, ['check-restore', 'note-exit', 'list'])
                # One start for the three.
                self.assertEqual(self.starts(starts), 1)
                os.unlink(starts)
                self.assertEqual(results['check-restore'][0], (Sr.Verdict.ALLOW, Sr.Why.ALLOWED))
                self.assertIs(results['note-exit'][0], True)
                self.assertIsInstance(results['list'][0], GLib.Variant, results['list'][0])
                self.assertEqual(client.get_service_state(), Sr.ServiceState.RUNNING)
                self.assertEqual(client.get_service_owner(), self.started_again(old))
                os.kill(self.s.owner_pid(), signal.SIGTERM)
                self.s.wait_until(lambda: client.props.service_state == Sr.ServiceState.MISSING,
                                  what='MISSING')

    def assertNotStarted(self, client, reason):
        """Each call, sync or not, fails at once with @reason and the
        service stays missing: started once per call, not in a loop."""
        for attempt in range(2):
            started = time.monotonic()
            with self.assertRaises(GLib.Error) as ctx:
                client.check_save_sync(A, None)
            self.assertLess(time.monotonic() - started, 5 * SLOW)
            self.assertTrue(ctx.exception.matches(Sr.error_quark(), Sr.Error.UNAVAILABLE),
                            ctx.exception.message)
            self.assertIn('is not running and could not be started: ' + reason,
                          ctx.exception.message)
            results = self.run_calls(client, ['check-save', 'list'], timeout=5)
            for name, (value, _) in results.items():
                self.assertIsInstance(value, GLib.Error, name)
                self.assertIn(reason, value.message, name)
            self.assertEqual(client.get_service_state(), Sr.ServiceState.MISSING)
            self.assertIsNone(self.s.owner_pid())

    def test_calls_fail_when_policyd_is_not_activatable(self):
        client = self.client()
        self.crash_policyd(client)
        self.assertNotStarted(client, 'The name org.gnome.SessionRestore.Policy was not '
                                      'provided by any .service files')

    def test_calls_fail_when_policyd_exits_at_once(self):
        client = self.client()
        self.s.activatable('/bin/false')
        self.crash_policyd(client)
        self.assertNotStarted(client, 'Process org.gnome.SessionRestore.Policy exited with status 1')

    def test_not_started_for_a_client_told_not_to(self):
        client = self.client(Sr.PolicyClientFlags.DO_NOT_AUTO_START)
        self.s.activatable()
        self.crash_policyd(client)
        with self.assertRaises(GLib.Error) as ctx:
            client.check_save_sync(A, None)
        self.assertEqual(ctx.exception.message,
                         'The Session Restore service (org.gnome.SessionRestore.Policy) is not running')
        results = self.run_calls(client, ['check-save'])
        self.assertIsInstance(results['check-save'][0], GLib.Error)
        self.assertIsNone(self.s.owner_pid())


class PipelineTest(ClientTestCase):
    def test_call_before_initialization_answered(self):
        # A GTK state file, as the listing reads it.
        data = Simulator.gtk_state(None, A, '1', b'x' * 100)
        with open(os.path.join(self.s.state_home, f'{A}@1.state'), 'wb') as f:
            f.write(data.get_data_as_bytes().get_data())
        client, listing = self.list_while_initializing()
        self.assertEqual(client.get_service_state(), Sr.ServiceState.RUNNING)
        self.assertIsInstance(listing, GLib.Variant, listing)
        self.assertEqual([app for app, _ in listing.unpack()], [A])

    def test_calls_naming_apps_wait_and_are_answered(self):
        client, results = self.calls_while_initializing(['check-save', 'note-exit', 'list'])
        self.assertEqual(client.get_service_state(), Sr.ServiceState.RUNNING)
        self.assertEqual(results['check-save'][0], (Sr.Verdict.ALLOW, Sr.Why.ALLOWED))
        self.assertIs(results['note-exit'][0], True)
        self.assertIsInstance(results['list'][0], GLib.Variant, results['list'][0])

    def test_call_to_a_service_not_running_yet_answered(self):
        # The listing sent before the client started policyd reached no
        # one (the bus answered it): it is sent again to the policyd
        # started and verified, not failed.
        self.s.stop_policyd()
        self.s.activatable()
        client, results = self.calls_while_initializing(['list', 'check-save'])
        self.addCleanup(lambda: os.kill(self.s.owner_pid(), 15) if self.s.owner_pid() else None)
        self.assertEqual(client.get_service_state(), Sr.ServiceState.RUNNING)
        self.assertIsInstance(results['list'][0], GLib.Variant, results['list'][0])
        self.assertEqual(results['check-save'][0], (Sr.Verdict.ALLOW, Sr.Why.ALLOWED))


class ClearedTest(ClientTestCase):
    def test_stored_state_cleared_after_clear(self):
        client = self.client()
        cleared = []
        client.connect('stored-state-cleared', lambda c, apps: cleared.append(list(apps)))
        report = client.clear_sync([A], Sr.CallFlags.NONE, None)
        self.assertIn('entries', report.unpack())
        self.s.wait_until(lambda: cleared, what='stored-state-cleared')
        self.assertEqual(cleared, [[A]])
        client.clear_sync(None, Sr.CallFlags.NONE, None)
        self.s.wait_until(lambda: len(cleared) == 2, what='stored-state-cleared for all')
        self.assertEqual(cleared[1], [])


class UntrustedTest(ClientTestCase):
    start = False

    def start_fake(self):
        """A stand-in for policyd in a sandbox owns the name: its log."""
        log_dir = os.path.join(self.s.root, 'fake')
        os.makedirs(log_dir)
        log = os.path.join(log_dir, 'calls')
        source = os.path.realpath(SOURCE_DIR)
        wrap = self.s.sandboxed_command('org.example.Evil',
                                        binds=['--ro-bind', source, source,
                                               '--bind', log_dir, log_dir])
        fake = subprocess.Popen([*wrap, *fakepolicyd.command(log)], env=self.s.env,
                                stdout=subprocess.PIPE, text=True)
        self.addCleanup(fake.wait, 10)
        self.addCleanup(fake.terminate)
        self.assertEqual(fake.stdout.readline().strip(), 'owned')
        return log

    def test_sandboxed_owner_is_untrusted(self):
        log = self.start_fake()
        client = self.client(Sr.PolicyClientFlags.DO_NOT_AUTO_START)
        self.assertEqual(client.get_service_state(), Sr.ServiceState.UNTRUSTED)
        self.assertIn('it runs in a sandbox, as the app org.example.Evil', client.get_distrust())
        # What it announced is not taken: the defaults stand.
        self.assertFalse(client.props.enabled)
        for call in (lambda: client.check_save_sync(A, None),
                     lambda: client.check_restore_sync(A, Sr.RestoreReason.LAUNCH, 0,
                                                       Sr.CallFlags.NONE, None),
                     lambda: client.clear_sync(None, Sr.CallFlags.NONE, None),
                     lambda: client.set_setting_sync('enabled', GLib.Variant('b', False),
                                                     Sr.CallFlags.NONE, None)):
            with self.assertRaises(GLib.Error) as ctx:
                call()
            self.assertTrue(ctx.exception.matches(Sr.error_quark(), Sr.Error.NOT_ALLOWED),
                            ctx.exception.message)
            self.assertIn('not to be trusted', ctx.exception.message)
        self.assertEqual(fakepolicyd.calls(log), [])

    def test_pipelined_answer_of_sandboxed_owner_refused(self):
        # The call made before the client initialized reached the stand-in,
        # which answered with an (empty) listing: not taken.
        log = self.start_fake()
        client, listing = self.list_while_initializing(Sr.PolicyClientFlags.DO_NOT_AUTO_START)
        self.assertEqual(client.get_service_state(), Sr.ServiceState.UNTRUSTED)
        self.assertIsInstance(listing, GLib.Error, listing)
        self.assertTrue(listing.matches(Sr.error_quark(), Sr.Error.NOT_ALLOWED), listing.message)
        # As the answer came before the stand-in was identified, or not.
        self.assertRegex(listing.message, 'Its answer (was not used|is not waited for)')
        self.s.wait_until(lambda: fakepolicyd.calls(log), what='the stand-in to note the call')
        self.assertEqual(fakepolicyd.calls(log), ['ListStoredState'])

    def test_pipelined_calls_naming_apps_not_sent_to_sandboxed_owner(self):
        # The stand-in would hold CheckRestore for ever: the interactive
        # one, without an answer, would wait as long.
        log = self.start_fake()
        open(log + '.hold', 'w').close()
        names = ['check-save', 'check-restore', 'check-restore-interactive', 'note-exit', 'exclude']
        client, results = self.calls_while_initializing(
            names + ['list'], Sr.PolicyClientFlags.DO_NOT_AUTO_START)
        self.assertEqual(client.get_service_state(), Sr.ServiceState.UNTRUSTED)
        # Only the call that names no app, the last one made, was sent
        # before the owner was identified (it arrives after any made
        # before it); its answer is not used.
        self.s.wait_until(lambda: 'ListStoredState' in fakepolicyd.calls(log),
                          what='the stand-in to note the listing')
        self.assertEqual(fakepolicyd.calls(log), ['ListStoredState'])
        self.assertRefusedAtOnce({n: results[n] for n in names}, Sr.Error.NOT_ALLOWED,
                                 'it runs in a sandbox, as the app org.example.Evil. '
                                 'Nothing was sent to it.')
        self.assertRefusedAtOnce({'list': results['list']}, Sr.Error.NOT_ALLOWED, 'Its answer ')

    def test_pipelined_calls_held_by_another_user_fail_at_once(self):
        # The stand-in never answers: the calls it got fail once it is
        # found not to be trusted, not when they would time out (60 s, and
        # never with interaction).
        log_dir = os.path.join(self.s.root, 'silent')
        os.makedirs(log_dir)
        os.chmod(log_dir, 0o777)
        log = os.path.join(log_dir, 'calls')
        silent = subprocess.Popen([*NOBODY, sys.executable, SILENT_POLICYD, log], env=self.s.env,
                                  stdout=subprocess.PIPE, text=True)
        self.addCleanup(silent.wait, 10)
        self.addCleanup(silent.terminate)
        self.assertEqual(silent.stdout.readline().strip(), 'owned')
        client, results = self.calls_while_initializing(
            ['list', 'list-interactive', 'check-save'], Sr.PolicyClientFlags.DO_NOT_AUTO_START)
        self.assertEqual(client.get_service_state(), Sr.ServiceState.UNTRUSTED)
        # It got the listings (they may come after they were given up).
        self.s.wait_until(lambda: len(fakepolicyd.calls(log)) == 2, what='the stand-in to note them')
        self.assertEqual(fakepolicyd.calls(log), ['ListStoredState', 'ListStoredState'])
        self.assertRefusedAtOnce({n: results[n] for n in ('list', 'list-interactive')},
                                 Sr.Error.NOT_ALLOWED,
                                 'it runs as another user (uid 65534). Its answer is not waited for.')
        self.assertRefusedAtOnce({'check-save': results['check-save']}, Sr.Error.NOT_ALLOWED,
                                 'Nothing was sent to it.')


class ResetTest(ClientTestCase):
    def test_reset_setting_sync_and_async(self):
        client = self.client()
        client.set_setting_sync('max-age-days', GLib.Variant('i', 7), Sr.CallFlags.NONE, None)
        client.set_setting_sync('login-restore', GLib.Variant('s', 'never'), Sr.CallFlags.NONE, None)
        self.assertTrue(client.reset_setting_sync('max-age-days', Sr.CallFlags.NONE, None))
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        self.s.wait_until(lambda: client.get_max_age_days() == 30, what='notify::max-age-days')

        loop = GLib.MainLoop()
        results = []

        def on_reset(source, result):
            results.append(source.reset_setting_finish(result))
            loop.quit()
        client.reset_setting_async('login-restore', Sr.CallFlags.NONE, None, on_reset)
        loop.run()
        self.assertEqual(results, [True])
        self.assertEqual(self.s.gsettings_value('login-restore'), 'always')

        with self.assertRaises(GLib.Error) as ctx:
            client.reset_setting_sync('no-such-key', Sr.CallFlags.NONE, None)
        self.assertTrue(ctx.exception.matches(Sr.error_quark(), Sr.Error.INVALID_ARGS),
                        ctx.exception.message)

