"""The panel without policyd: a status page that says what is missing,
with Retry, no way into pages that cannot work and the main menu on F10; it comes back by itself
when the service returns, and goes again when it dies. Retry starts the
service by D-Bus activation once it can be activated, and says in a
sentence why it could not. The window opens at the size it was closed at."""
import os
import signal
import subprocess

from srtest import BUS_NAME, POLICYD, GLib, Gio
from uitest import Atspi, PanelTestCase


class MissingServiceTest(PanelTestCase):
    start_policyd = False

    def test_1_status_page_then_reconnects(self):
        self.find('label', 'Cannot Reach the Session Restore Service')
        self.screenshot('missing')
        # No page navigation where no page can work.
        self.assertFalse(self.find_all('button', 'Back'))
        self.assertFalse(self.find_all('switch'))
        # Retry with nothing to activate says why, in words.
        self.click_button('Retry')
        self.find('label', 'Could not start the service: it is not installed on this computer')

        # F10 opens the main menu here too (Help is what is left to do).
        self.key('F10')
        self.find('menu item', 'Help')
        self.screenshot('missing-menu')
        self.key('Escape')
        self.gone('menu item', 'Help')

        self.s.start_policyd()
        self.find('switch', 'Save and Restore Apps', timeout=20)
        self.assertFalse(self.find_all('label', 'Cannot Reach the Session Restore Service'))
        # And on the page that replaced it, the menu that is shown: one.
        self.key('F10')
        self.find('menu item', 'Help')
        self.assertEqual(len(self.find_all('menu item', 'Help')), 1)
        self.key('Escape')
        self.gone('menu item', 'Help')

        # A crash: back to the status page, by itself.
        self.s.stop_policyd(signal.SIGKILL)
        self.find('label', 'Cannot Reach the Session Restore Service', timeout=20)

    def test_2_retry_activates_the_service(self):
        self.find('label', 'Cannot Reach the Session Restore Service')
        # Make the service activatable on this bus, as an installed one is.
        services = os.path.join(self.s.data_home, 'dbus-1', 'services')
        os.makedirs(services, exist_ok=True)
        with open(os.path.join(services, f'{BUS_NAME}.service'), 'w') as f:
            f.write(f'[D-BUS Service]\nName={BUS_NAME}\nExec={POLICYD}\n')
        self.s.bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                             'ReloadConfig', None, None, Gio.DBusCallFlags.NONE, 5000, None)
        # dbus-daemon answers ReloadConfig once it has read the service
        # files again: no waiting.
        self.click_button('Retry')
        self.find('switch', 'Save and Restore Apps', timeout=20)
        pid = self.s.owner_pid()
        self.assertIsNotNone(pid)
        os.kill(pid, signal.SIGTERM)
        GLib.usleep(0)

    def test_3_window_keeps_its_size(self):
        self.resize(500, 600)
        width = self.find('frame', 'Session Restore').get_extents(Atspi.CoordType.WINDOW).width
        self.assertNotEqual(width, 640)
        self.key('ctrl+q')
        self.panel.wait(10)
        ini = os.path.join(self.s.config_home, 'session-restore', 'panel.ini')
        with open(ini) as f:
            text = f.read()
        self.assertIn('width=500', text)
        self.assertIn('height=600', text)
        # Opened again, it comes back at that size.
        type(self).panel = subprocess.Popen([self.panel_path], env=dict(self.s.env, GSK_RENDERER='cairo'),
                                            stdout=self.panel_log, stderr=subprocess.STDOUT)
        type(self).app = self.wait_for_app()
        frame = self.find('frame', 'Session Restore')
        self.wait_until(lambda: frame.get_extents(Atspi.CoordType.WINDOW).width == width,
                        f'the window to open {width} wide, not {frame.get_extents(Atspi.CoordType.WINDOW).width}')
