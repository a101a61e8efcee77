"""The panel without policyd: a status page with Retry; it comes back by
itself when the service returns, and goes again when it dies. Retry starts
the service by D-Bus activation once it can be activated."""
import os
import signal
import time

from srtest import BUS_NAME, POLICYD, GLib, Gio
from uitest import PanelTestCase


class MissingServiceTest(PanelTestCase):
    start_policyd = False

    def test_1_status_page_then_reconnects(self):
        self.find('label', 'Session Restore Is Not Running')
        self.screenshot('missing')
        # Retry with nothing to activate says why.
        self.click_button('Retry')
        self.find('label', 'Could not start the service')

        self.s.start_policyd()
        self.find('check box', 'Save and Restore Apps', timeout=20)
        self.assertFalse(self.find_all('label', 'Session Restore Is Not Running'))

        # A crash: back to the status page, by itself.
        self.s.stop_policyd(signal.SIGKILL)
        self.find('label', 'Session Restore Is Not Running', timeout=20)

    def test_2_retry_activates_the_service(self):
        self.find('label', 'Session Restore Is Not Running')
        # Make the service activatable on this bus, as an installed one is.
        services = os.path.join(self.s.data_home, 'dbus-1', 'services')
        os.makedirs(services, exist_ok=True)
        with open(os.path.join(services, f'{BUS_NAME}.service'), 'w') as f:
            f.write(f'[D-BUS Service]\nName={BUS_NAME}\nExec={POLICYD}\n')
        self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                             'ReloadConfig', None, None, Gio.DBusCallFlags.NONE, 5000, None)
        time.sleep(0.5)
        self.click_button('Retry')
        self.find('check box', 'Save and Restore Apps', timeout=20)
        pid = self.s.owner_pid()
        self.assertIsNotNone(pid)
        os.kill(pid, signal.SIGTERM)
        GLib.usleep(0)
