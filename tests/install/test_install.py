"""meson install gives a working system: install into a temporary prefix,
start a session bus whose service directory is the installed one, and get
an answer from policyd by D-Bus activation alone (nothing started by hand).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from srtest import SOURCE_DIR, Bus, Gio, GLib, install_project

EXPECTED = [
    'libexec/session-restore-policyd',
    'bin/session-restore-panel',
    'share/dbus-1/services/org.gnome.SessionRestore.Policy.service',
    'share/dbus-1/services/org.gnome.SessionRestore.service',
    'share/dbus-1/interfaces/org.gnome.SessionRestore.Policy.xml',
    'lib/systemd/user/session-restore-policyd.service',
    'lib/systemd/user/session-restore-prepare.service',
    'lib/systemd/user/gnome-session-pre.target.wants/session-restore-prepare.service',
    'share/glib-2.0/schemas/org.gnome.SessionRestore.gschema.xml',
    'share/glib-2.0/schemas/gschemas.compiled',
    'share/polkit-1/actions/org.gnome.SessionRestore.policy',
    'share/session-restore/stores.d/gtk.store',
    'share/session-restore/stores.d/gnome-session.store',
    'share/applications/org.gnome.SessionRestore.desktop',
    'share/metainfo/org.gnome.SessionRestore.metainfo.xml',
    'share/icons/hicolor/scalable/apps/org.gnome.SessionRestore.svg',
    'share/doc/session-restore/README.md',
    'share/man/man8/session-restore-policyd.8',
    'share/man/man1/session-restore-panel.1',
    'share/man/man8/session-restore-portal.8',
    'share/help/C/session-restore/index.page',
    'share/help/C/session-restore/other-desktops.page',
    'share/locale/de/LC_MESSAGES/session-restore.mo',
    'share/help/C/session-restore/examples/keep-one-day.keyfile',
    # libsessionrestore, for consumers outside the project
    'lib/libsessionrestore-1.so.0',
    'lib/pkgconfig/session-restore-1.pc',
    'include/session-restore-1/session-restore.h',
    'include/session-restore-1/sr-enum-types.h',
    'share/gir-1.0/SessionRestore-1.0.gir',
    'lib/girepository-1.0/SessionRestore-1.0.typelib',
    # session-restore-portal
    'libexec/session-restore-portal',
    'share/xdg-desktop-portal/portals/session-restore.portal',
    'share/dbus-1/services/org.freedesktop.impl.portal.SessionRestore.service',
    'lib/systemd/user/session-restore-portal.service',
    'lib/systemd/user/graphical-session.target.wants/session-restore-portal.service',
    'share/session-restore/stores.d/session-restore-portal.store',
    'etc/xdg/autostart/session-restore-portal-login.desktop',
    'share/applications/session-restore-portal.desktop',
]


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix='sr-install-')
        cls.prefix = install_project(cls.root)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root, ignore_errors=True)

    def test_files_are_installed(self):
        for path in EXPECTED:
            self.assertTrue(os.path.exists(os.path.join(self.prefix, path)), path)

    def caches(self):
        """What each cache says about the project: (schema known, icon
        known, desktop database written)."""
        share = os.path.join(self.prefix, 'share')
        schemas = subprocess.run(['gsettings', '--schemadir', os.path.join(share, 'glib-2.0', 'schemas'),
                                  'list-schemas'], capture_output=True, text=True).stdout.split()
        icon_cache = os.path.join(share, 'icons', 'hicolor', 'icon-theme.cache')
        icons = os.path.exists(icon_cache) and b'org.gnome.SessionRestore' in open(icon_cache, 'rb').read()
        mime_cache = os.path.join(share, 'applications', 'mimeinfo.cache')
        return ('org.gnome.SessionRestore' in schemas, icons, os.path.exists(mime_cache))

    def test_caches_refreshed_after_install_and_uninstall(self):
        """gnome.post_install refreshes the schema, icon and desktop caches
        (the tools are installed here); after `ninja uninstall`, the
        README's commands leave none naming what was removed."""
        self.assertEqual(self.caches(), (True, True, True))
        with open(os.path.join(SOURCE_DIR, 'README.md')) as f:
            readme = f.read()
        block = re.search(r'refresh them by hand[^\n]*\n\n((?:    .*\n)+)', readme).group(1)
        commands = [line.strip().replace(' /usr/', f' {self.prefix}/') for line in block.splitlines()]
        self.assertEqual([c.split()[0] for c in commands],
                         ['glib-compile-schemas', 'gtk-update-icon-cache', 'update-desktop-database'])
        build = os.path.join(self.root, 'build')
        try:
            subprocess.run(['ninja', '-C', build, 'uninstall'], capture_output=True)
            self.assertFalse(os.path.exists(os.path.join(self.prefix, EXPECTED[0])))
            for command in commands:
                subprocess.run(command.split(), check=True, capture_output=True)
            schema, icons, _ = self.caches()
            self.assertEqual((schema, icons), (False, False))
        finally:
            # The other tests need the installed tree.
            subprocess.run(['meson', 'install', '-C', build, '--quiet'], check=True,
                           capture_output=True)

    def test_tests_not_built_unless_asked(self):
        result = subprocess.run(['meson', 'introspect', '--buildoptions', 'meson.build'],
                                cwd=SOURCE_DIR, capture_output=True, text=True, check=True)
        options = {o['name']: o['value'] for o in json.loads(result.stdout)}
        self.assertIs(options['tests'], False)

    def test_setup_without_warnings(self):
        with open(os.path.join(self.root, 'build', 'meson-logs', 'meson-log.txt')) as f:
            log = f.read()
        self.assertNotIn('Could not find file LINGUAS', log)
        self.assertNotIn('WARNING', log)

    def test_man_pages_render(self):
        for page in ('man8/session-restore-policyd.8', 'man1/session-restore-panel.1',
                     'man8/session-restore-portal.8'):
            result = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-z',
                                     os.path.join(self.prefix, 'share', 'man', page)],
                                    capture_output=True, text=True)
            self.assertEqual((result.returncode, result.stderr), (0, ''), page)

    def test_prepare_unit_is_pulled_in_and_verifies(self):
        """session-restore-prepare.service comes enabled (gnome-session-pre.target
        wants it, through the link `systemctl --global enable` would make), and
        systemd finds nothing wrong in it: its program is the installed
        session-restore-ctl."""
        units = os.path.join(self.prefix, 'lib', 'systemd', 'user')
        unit = os.path.join(units, 'session-restore-prepare.service')
        link = os.path.join(units, 'gnome-session-pre.target.wants', 'session-restore-prepare.service')
        self.assertTrue(os.path.islink(link))
        self.assertEqual(os.path.realpath(link), os.path.realpath(unit))
        with open(unit) as f:
            self.assertIn(f'ExecStart={self.prefix}/bin/session-restore-ctl session prepare\n', f.read())
        result = subprocess.run(['systemd-analyze', 'verify', '--man=no', unit],
                                capture_output=True, text=True)
        self.assertEqual((result.returncode, result.stdout, result.stderr), (0, '', ''))

    def test_service_file_points_at_the_installed_daemon(self):
        with open(os.path.join(self.prefix, EXPECTED[2])) as f:
            text = f.read()
        self.assertIn(f'Exec={self.prefix}/libexec/session-restore-policyd', text)
        self.assertIn('SystemdService=session-restore-policyd.service', text)

    def test_activation_alone(self):
        home = os.path.join(self.root, 'home')
        os.makedirs(home, exist_ok=True)
        env = {
            'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
            'HOME': home,
            'XDG_CONFIG_HOME': os.path.join(home, '.config'),
            'XDG_STATE_HOME': os.path.join(home, '.local', 'state'),
            'XDG_DATA_HOME': os.path.join(home, '.local', 'share'),
            'XDG_RUNTIME_DIR': self.root,
            'GSETTINGS_SCHEMA_DIR': os.path.join(self.prefix, 'share', 'glib-2.0', 'schemas'),
            'GSETTINGS_BACKEND': 'dconf',
        }
        bus = Bus(os.path.join(self.root, 'bus'), 'session', env,
                  f'<servicedir>{self.prefix}/share/dbus-1/services</servicedir>'
                  '<standard_session_servicedirs/>')
        try:
            conn = bus.connect()
            reply = conn.call_sync('org.gnome.SessionRestore.Policy', '/org/gnome/SessionRestore/Policy',
                                   'org.gnome.SessionRestore.Policy', 'CheckRestore',
                                   GLib.Variant('(sua{sv})', ('org.example.App', 3, {})), None,
                                   Gio.DBusCallFlags.NONE, 20000, None)
            self.assertEqual(reply.unpack(), (1, 'allowed'))
            pid = conn.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                                 'GetConnectionUnixProcessID',
                                 GLib.Variant('(s)', ('org.gnome.SessionRestore.Policy',)), None,
                                 Gio.DBusCallFlags.NONE, 5000, None).unpack()[0]
            with open(f'/proc/{pid}/cmdline', 'rb') as f:
                self.assertTrue(f.read().startswith(self.prefix.encode()))
            # The installed drop-ins are the ones in use.
            conn.call_sync('org.gnome.SessionRestore.Policy', '/org/gnome/SessionRestore/Policy',
                           'org.gnome.SessionRestore.Policy', 'NoteExit',
                           GLib.Variant('(sb)', ('org.example.App', True)), None,
                           Gio.DBusCallFlags.NONE, 5000, None)
        finally:
            bus.stop()
