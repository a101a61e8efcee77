"""libsessionrestore through GObject-Introspection (SessionRestore-1.0),
as a Python or GJS consumer uses it, against a real policyd, real dconf
and a real session bus: the checks' verdicts and reasons, a setting
changed with gsettings arriving as a notification, stored-state-cleared
after a Clear, an owner of the service's name in a sandbox believed
in nothing and sent no call (only the GetAll of the properties, asked
while it is found and verified and not taken), the settings read from a
service the client starts, and calls pipelined before the client's
initialization, answered only by the verified owner."""
import os
import subprocess

import gi
gi.require_version('SessionRestore', '1.0')
from gi.repository import GLib, SessionRestore as Sr  # noqa: E402

import fakepolicyd  # noqa: E402
from simulator import Simulator  # noqa: E402
from srtest import SOURCE_DIR, PolicydTestCase  # noqa: E402

A = 'org.example.Alpha'
B = 'org.example.Beta'


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


class PipelineTest(ClientTestCase):
    def test_call_before_initialization_answered(self):
        # A GTK state file, as the listing reads it.
        data = Simulator.gtk_state(None, A, '1', b'x' * 100)
        with open(os.path.join(self.s.state_home, f'{A}#1.state'), 'wb') as f:
            f.write(data.get_data_as_bytes().get_data())
        client, listing = self.list_while_initializing()
        self.assertEqual(client.get_service_state(), Sr.ServiceState.RUNNING)
        self.assertIsInstance(listing, GLib.Variant, listing)
        self.assertEqual([app for app, _ in listing.unpack()], [A])


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
        self.assertIn('Its answer was not used', listing.message)
        self.assertEqual(fakepolicyd.calls(log), ['ListStoredState'])


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

