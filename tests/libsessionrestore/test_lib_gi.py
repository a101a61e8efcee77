"""libsessionrestore through GObject-Introspection (SessionRestore-1.0),
as a Python or GJS consumer uses it, against a real policyd, real dconf
and a real session bus: the checks' verdicts and reasons, a setting
changed with gsettings arriving as a notification, stored-state-cleared
after a Clear, and an owner of the service's name in a sandbox believed
in nothing and sent nothing."""
import os
import subprocess

import gi
gi.require_version('SessionRestore', '1.0')
from gi.repository import GLib, SessionRestore as Sr  # noqa: E402

import fakepolicyd  # noqa: E402
from srtest import SOURCE_DIR, PolicydTestCase  # noqa: E402

A = 'org.example.Alpha'
B = 'org.example.Beta'


class ClientTestCase(PolicydTestCase):
    def client(self, flags=Sr.PolicyClientFlags.NONE):
        client = Sr.PolicyClient.new_for_bus_sync(self.s.bus, flags, None)
        self.addCleanup(client.run_dispose)
        return client


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

    def test_sandboxed_owner_is_untrusted(self):
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
