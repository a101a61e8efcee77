"""The contract and integration files in data/ say what the code does."""
import configparser
import os
import re
import subprocess
import unittest
import xml.etree.ElementTree as ET

SOURCE_DIR = os.environ['SR_SOURCE_DIR']
BUILD_DIR = os.environ['SR_BUILD_DIR']
DATA = os.path.join(SOURCE_DIR, 'data')
BUS_NAME = 'org.gnome.SessionRestore.Policy'
IFACE = 'org.gnome.SessionRestore.Policy'


def camel(key):
    return ''.join(part.capitalize() for part in key.split('-'))


def read_ini(path):
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read(path)
    return parser


class InterfaceXmlTest(unittest.TestCase):
    path = os.path.join(DATA, 'org.gnome.SessionRestore.Policy.xml')

    def test_every_member_is_documented(self):
        # ElementTree drops comments by default; keep them to pair each
        # member with the comment before it.
        parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
        root = ET.parse(self.path, parser).getroot()
        iface = root.find(f"interface[@name='{IFACE}']")
        self.assertIsNotNone(iface)
        previous = None
        members = 0
        for child in iface:
            if child.tag in ('method', 'property', 'signal'):
                members += 1
                self.assertTrue(previous is not None and previous.tag is ET.Comment,
                                f'{child.tag} {child.get("name")} has no comment before it')
                self.assertIn(child.get('name'), previous.text,
                              f'the comment before {child.get("name")} does not name it')
                for arg in child.findall('arg'):
                    self.assertIn(f'@{arg.get("name")}', previous.text,
                                  f'{child.get("name")}: argument {arg.get("name")} undocumented')
            if child.tag is ET.Comment or child.tag in ('method', 'property', 'signal'):
                previous = child
        self.assertGreater(members, 10)

    def test_errors_are_documented(self):
        with open(self.path) as f:
            text = f.read()
        with open(os.path.join(SOURCE_DIR, 'libsessionrestore', 'sr-error.c')) as f:
            registered = re.findall(r'"(org\.gnome\.SessionRestore\.Error\.\w+)"', f.read())
        self.assertEqual(len(registered), 5)
        for name in registered:
            self.assertIn(name, text)

    def test_every_setting_has_a_property(self):
        root = ET.parse(self.path).getroot()
        props = {p.get('name'): p.get('type')
                 for p in root.find(f"interface[@name='{IFACE}']").findall('property')}
        schema = ET.parse(os.path.join(DATA, 'org.gnome.SessionRestore.gschema.xml')).getroot()
        for key in schema.find('schema').findall('key'):
            name = camel(key.get('name'))
            self.assertIn(name, props, key.get('name'))
            self.assertEqual(props[name], key.get('type') or 's', key.get('name'))
        self.assertEqual(props['LockedSettings'], 'as')
        self.assertEqual(props['Version'], 'u')


class SchemaTest(unittest.TestCase):
    def test_every_key_is_described(self):
        schema = ET.parse(os.path.join(DATA, 'org.gnome.SessionRestore.gschema.xml')).getroot()
        keys = schema.find('schema').findall('key')
        self.assertEqual(sorted(k.get('name') for k in keys), sorted([
            'enabled', 'login-restore', 'restore-after-crash', 'restore-on-launch',
            'excluded-apps', 'admin-excluded-apps', 'max-age-days',
            'crash-loop-threshold', 'crash-loop-window']))
        for key in keys:
            self.assertTrue(key.findtext('summary'), key.get('name'))
            self.assertTrue(key.findtext('description'), key.get('name'))


class PolkitPolicyTest(unittest.TestCase):
    path = os.path.join(BUILD_DIR, 'data', 'org.gnome.SessionRestore.policy')

    def test_validates_against_dtd(self):
        subprocess.run(['xmllint', '--noout', '--dtdvalid', '/usr/share/polkit-1/policyconfig-1.dtd',
                        self.path], check=True)

    def test_actions_and_defaults(self):
        root = ET.parse(self.path).getroot()
        actions = {a.get('id'): a for a in root.findall('action')}
        self.assertEqual(sorted(actions), ['org.gnome.SessionRestore.clear',
                                           'org.gnome.SessionRestore.configure',
                                           'org.gnome.SessionRestore.list'])
        for action in actions.values():
            defaults = action.find('defaults')
            self.assertEqual([defaults.findtext(n) for n in ('allow_any', 'allow_inactive', 'allow_active')],
                             ['yes', 'yes', 'yes'], action.get('id'))
            self.assertTrue(action.findtext('message'))
            self.assertTrue(action.findtext('description'))


class ServiceFilesTest(unittest.TestCase):
    def test_dbus_service_and_unit_agree(self):
        service = read_ini(os.path.join(BUILD_DIR, 'data', 'org.gnome.SessionRestore.Policy.service'))
        unit = read_ini(os.path.join(BUILD_DIR, 'data', 'session-restore-policyd.service'))
        entry = service['D-BUS Service']
        self.assertEqual(entry['Name'], BUS_NAME)
        self.assertTrue(entry['Exec'].startswith('/'))
        self.assertTrue(entry['Exec'].endswith('/session-restore-policyd'))
        self.assertEqual(entry['SystemdService'], 'session-restore-policyd.service')
        self.assertEqual(unit['Service']['Type'], 'dbus')
        self.assertEqual(unit['Service']['BusName'], BUS_NAME)
        self.assertEqual(unit['Service']['ExecStart'], entry['Exec'])

    def test_prepare_unit_runs_before_gnome_session_reads_its_record(self):
        """session-restore-prepare.service runs session prepare once per
        GNOME login, before gnome-session-pre.target, which gnome-session
        51's own manager unit (the world's) starts after: the record is
        prepared before it is read. Wanted, not required: a failure never
        stops a login."""
        unit = read_ini(os.path.join(BUILD_DIR, 'data', 'session-restore-prepare.service'))
        self.assertEqual(unit['Service']['Type'], 'oneshot')
        self.assertTrue(unit['Service']['ExecStart'].startswith('/'))
        self.assertTrue(unit['Service']['ExecStart'].endswith('/session-restore-ctl session prepare'))
        self.assertNotIn('RemainAfterExit', unit['Service'])
        self.assertIn('gnome-session-pre.target', unit['Unit']['Before'].split())
        self.assertEqual(unit['Install']['WantedBy'], 'gnome-session-pre.target')
        for key in ('Requires', 'RequiredBy', 'BindsTo'):
            self.assertNotIn(key, unit['Unit'])
            self.assertNotIn(key, unit['Install'])
        manager = read_ini('/usr/lib/systemd/user/gnome-session-manager@.service')
        self.assertIn('gnome-session-pre.target', manager['Unit']['After'].split())


class MetainfoTest(unittest.TestCase):
    def test_screenshots_are_in_the_tree(self):
        root = ET.parse(os.path.join(DATA, 'org.gnome.SessionRestore.metainfo.xml.in')).getroot()
        images = [i.text for i in root.iter('image')]
        self.assertGreaterEqual(len(images), 3)
        for url in images:
            path = os.path.join(DATA, 'screenshots', os.path.basename(url))
            self.assertTrue(os.path.isfile(path), path)
            with open(path, 'rb') as f:
                self.assertEqual(f.read(8), b'\x89PNG\r\n\x1a\n', path)

    def test_desktop_file_names_the_app(self):
        desktop = read_ini(os.path.join(BUILD_DIR, 'data', 'org.gnome.SessionRestore.desktop'))
        entry = desktop['Desktop Entry']
        self.assertEqual(entry['Icon'], 'org.gnome.SessionRestore')
        self.assertEqual(entry['Exec'], 'session-restore-panel')
        self.assertTrue(os.path.isfile(os.path.join(
            DATA, 'icons', 'hicolor', 'scalable', 'apps', 'org.gnome.SessionRestore.svg')))


class TranslationTest(unittest.TestCase):
    def test_german_is_complete(self):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            pot = os.path.join(tmp, 'fresh.pot')
            subprocess.run(['xgettext', '--files-from=po/POTFILES.in', '--from-code=UTF-8',
                            '--keyword=_', '--keyword=N_', '--keyword=ngettext:1,2',
                            '--keyword=C_:1c,2', '--add-comments=Translators', '-o', pot],
                           cwd=SOURCE_DIR, check=True, capture_output=True)
            result = subprocess.run(['msgcmp', '--use-untranslated', os.path.join(SOURCE_DIR, 'po', 'de.po'), pot],
                                    capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
        result = subprocess.run(['msgfmt', '--check', '--statistics', '-o', '/dev/null',
                                 os.path.join(SOURCE_DIR, 'po', 'de.po')], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn('untranslated', result.stderr)
        self.assertNotIn('fuzzy', result.stderr)

    def test_merged_files_are_translated(self):
        desktop = read_ini(os.path.join(BUILD_DIR, 'data', 'org.gnome.SessionRestore.desktop'))
        self.assertEqual(desktop['Desktop Entry']['Name[de]'], 'Sitzungswiederherstellung')
        policy = ET.parse(os.path.join(BUILD_DIR, 'data', 'org.gnome.SessionRestore.policy')).getroot()
        messages = {m.get('{http://www.w3.org/XML/1998/namespace}lang'): m.text
                    for m in policy.find("action[@id='org.gnome.SessionRestore.clear']").findall('message')}
        self.assertIn('Legitimierung', messages['de'])


class PotfilesTest(unittest.TestCase):
    """A source file with translatable strings that POTFILES.in misses
    would never be translated."""

    def test_potfiles_complete(self):
        with open(os.path.join(SOURCE_DIR, 'po', 'POTFILES.in')) as f:
            listed = {line.strip() for line in f if line.strip() and not line.startswith('#')}
        for path in listed:
            self.assertTrue(os.path.exists(os.path.join(SOURCE_DIR, path)), f'{path} is listed but missing')
        files = subprocess.run(['git', 'ls-files'], cwd=SOURCE_DIR, capture_output=True,
                               text=True).stdout.split()
        if not files:
            files = [os.path.relpath(os.path.join(d, n), SOURCE_DIR)
                     for d, _, names in os.walk(SOURCE_DIR) for n in names]
        patterns = {
            '.c': re.compile(r'\b(N_|_|C_|NC_|g_dngettext)\s*\('),
            '.ui': re.compile(r'translatable="yes"'),
            '.gschema.xml': re.compile(r'<summary>|<description>'),
            '.policy.in': re.compile(r'<message>|<description>'),
            '.desktop.in': re.compile(r'^(Name|Comment|Keywords)=', re.M),
            '.metainfo.xml.in': re.compile(r'<summary>|<p>'),
        }
        for path in files:
            if path.startswith(('tests/', 'build')):
                continue
            for suffix, pattern in patterns.items():
                if path.endswith(suffix):
                    with open(os.path.join(SOURCE_DIR, path), errors='replace') as f:
                        if pattern.search(f.read()):
                            self.assertIn(path, listed, f'{path} has translatable strings')


class TestLayoutTest(unittest.TestCase):
    def test_tests_find_their_helpers_on_the_path_meson_gives(self):
        """Shared test code lives in tests/lib, which meson puts on
        PYTHONPATH: no test reaches for another test file by editing
        sys.path."""
        offenders = []
        for folder, _, names in os.walk(os.path.join(SOURCE_DIR, 'tests')):
            for name in names:
                if name.endswith('.py'):
                    with open(os.path.join(folder, name)) as f:
                        if re.search(r'sys\.path\.(?:insert|append)\(', f.read()):
                            offenders.append(os.path.relpath(os.path.join(folder, name), SOURCE_DIR))
        self.assertEqual(offenders, [])
