"""The login prompt's test world: login-restore "ask", the panel made
D-Bus-activatable on the test's session bus as an installed one is (policyd
activates it), a fresh policyd for each case (an answer holds for a
policyd's life, a login), and the consumer simulator's saved sessions for
the apps. PromptCase has no cases: the tests in tests/ui/ that drive the
prompt derive from it."""
import os
import time

from simulator import Simulator
from srtest import Gio, GLib, now_us, remote_error
from uitest import APPS, PANEL, Atspi, PanelTestCase

PROMPT_NAME = 'org.gnome.SessionRestore'
PROMPT_PATH = '/org/gnome/SessionRestore/Prompt'
PROMPT_IFACE = 'org.gnome.SessionRestore.Prompt'
HEADING = 'Restore Apps From Your Last Session?'


class PromptCase(PanelTestCase):
    """The session, the panel activatable, and a fresh policyd for each
    case; no cases."""
    # The prompt's apps are check boxes.
    toggle_role = 'check box'
    start_policyd = False

    @classmethod
    def setUpClass(cls):
        # The panel is not started here: policyd activates it.
        cls.panel_path = '/bin/true'
        super().setUpClass()
        log = os.path.join(cls.s.root, 'prompt-panel.log')
        services = os.path.join(cls.s.data_home, 'dbus-1', 'services')
        os.makedirs(services, exist_ok=True)
        with open(os.path.join(services, f'{PROMPT_NAME}.service'), 'w') as f:
            f.write(f'[D-BUS Service]\nName={PROMPT_NAME}\n'
                    f'Exec=/bin/sh -c "exec env GSK_RENDERER=cairo {PANEL} --gapplication-service '
                    f'>>{log} 2>&1"\n')
        cls.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                            'ReloadConfig', None, None, Gio.DBusCallFlags.NONE, 5000, None)

    @classmethod
    def wait_for_app(cls, timeout=30):
        return None   # /bin/true: nothing to wait for

    @classmethod
    def tearDownClass(cls):
        try:
            with open(os.path.join(cls.s.root, 'prompt-panel.log')) as f:
                for line in f.read().splitlines()[-40:]:
                    print(f'# prompt: {line}')
        except FileNotFoundError:
            pass
        super().tearDownClass()

    def setUp(self):
        self.s.start_policyd()
        self.addCleanup(self.s.stop_policyd)
        if 'login-restore' not in self.locks:
            self.s.gsettings('set', 'login-restore', 'ask')
        self.s.wait_until(lambda: self.s.prop('LoginRestore') == 'ask', what='ask mode')
        self.sim = Simulator(self.s)
        for app in APPS:
            self.sim.memory[app] = {'1': {'saved_at': now_us() - 1000000, 'flatpak': False,
                                          'payload': b''}}
        self.sim.write_back()

    def wait_for_prompt(self, role='label', name=HEADING):
        """Until the prompt, activated by the bus, shows @name."""
        deadline = time.monotonic() + 30
        while True:
            self.s.wait_until(lambda: True, timeout=0.2)
            try:
                type(self).app = PanelTestCase.wait_for_app(timeout=1)
                if self.find_all(role, name):
                    return
            except AssertionError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError('the prompt did not show')

    def open_prompt(self):
        """A login of the three apps; returns it once the prompt shows."""
        login = self.sim.start_login(sorted(APPS))
        self.wait_for_prompt()
        self.assertEqual(login.answers, {})
        return login

    def prompts(self):
        return len(self.find_all('label', HEADING))

    def tick(self, name):
        """Toggles a check box, by whatever action GTK gives it."""
        node = self.find('check box', name)
        was = self.has_state(node, Atspi.StateType.CHECKED)
        # GTK 4.8 gives check buttons no AT-SPI action: by keyboard, as
        # a screen reader user does.
        self.assertIsNotNone(self.focus_by_tab('check box', name, presses=12), f'{name} by Tab')
        self.key('space')
        self.wait_until(lambda: self.has_state(node, Atspi.StateType.CHECKED) != was,
                        f'{name} toggled')

    def answer(self, login):
        return login.wait(30)

    def call_prompt(self, bus, method, params=None):
        """A call to the prompt on @bus; the D-Bus error name it failed
        with, or None."""
        try:
            bus.call_sync(PROMPT_NAME, PROMPT_PATH, PROMPT_IFACE, method, params, None,
                          Gio.DBusCallFlags.NO_AUTO_START, 10000, None)
        except GLib.Error as e:
            return remote_error(e) or e.message
        return None

    def prompt_went_cleanly(self):
        """Once its window has gone, the prompt leaves the bus (nothing holds
        the application), having said nothing critical: a critical warning
        would have been its last words."""
        def has_owner():
            return self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus',
                                        'org.freedesktop.DBus', 'NameHasOwner',
                                        GLib.Variant('(s)', (PROMPT_NAME,)), None,
                                        Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
        self.wait_until(lambda: not has_owner(), 'the prompt to leave the bus', timeout=20)
        with open(os.path.join(self.s.root, 'prompt-panel.log')) as f:
            self.assertNotIn('CRITICAL', f.read())
