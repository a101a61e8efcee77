"""What the documentation promises: the examples of the help's Scripts page
and of the README run as shown, the --json keys are the documented ones,
the completion completes, and the files install where they belong."""
import json
import os
import re
import subprocess
import unittest
import xml.etree.ElementTree as ET

from ctltest import CTL, OK, CtlTestCase
from simulator import Simulator
from srtest import BUILD_DIR, DESKTOP_SCHEMA, SOURCE_DIR

MALLARD = '{http://projectmallard.org/1.0/}'


def shell(session, line):
    """A documented command line, run as a user would type it, with the
    tool on PATH; (status, stdout and stderr together)."""
    env = dict(session.env)
    env['PATH'] = os.path.dirname(CTL) + ':' + env['PATH']
    result = subprocess.run(['bash', '-c', line], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL,
                            timeout=60)
    return result.returncode, result.stdout.strip()


def scripts_page_examples():
    """(command, expected output) from the Scripts page's screen."""
    page = ET.parse(os.path.join(SOURCE_DIR, 'help', 'C', 'scripts.page')).getroot()
    section = page.find(f"{MALLARD}section[@id='ctl']")
    examples = []
    for element in section.find(f'{MALLARD}screen'):
        if element.tag == f'{MALLARD}input':
            examples.append([element.text, ''])
        elif element.tag == f'{MALLARD}output' and element.get('style') != 'prompt':
            examples[-1][1] += element.text
    return examples


def readme_examples():
    with open(os.path.join(SOURCE_DIR, 'README.md')) as f:
        text = f.read()
    section = text.split('## The command line', 1)[1].split('\n## ', 1)[0]
    block = re.search(r'```sh\n(.*?)```', section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def documented_json_keys(command=None):
    """The keys the man page lists for list --json's apps, or for the
    --json of command; nested keys as "service.state", an array's items'
    as "consumers[].program"."""
    with open(os.path.join(SOURCE_DIR, 'man', 'session-restore-ctl.1')) as f:
        text = f.read()
    if command is None:
        block = text.split('are checked by tests/ctl.', 1)[1].split('end of app keys', 1)[0]
    else:
        block = text.split(f'The {command} keys between here', 1)[1]
        block = block.split(f'\n.\\" end of {command} keys', 1)[0]
    return re.findall(r'^\.TP\n\.B ([\w.\[\]]+)$', block, re.M)


def json_paths(value, prefix=''):
    """Every key of a JSON document as the man page names it."""
    paths = []
    if isinstance(value, dict):
        for key, item in value.items():
            path = prefix + key
            paths.append(path)
            paths.extend(json_paths(item, path + '.'))
    elif isinstance(value, list):
        for item in value:
            paths.extend(json_paths(item, prefix[:-1] + '[].'))
    return paths


class DocumentedExamplesTest(CtlTestCase):
    def setUp(self):
        super().setUp()
        # The apps the examples name are installed, as on the desktop they
        # describe: the tool warns of an app id that is neither installed
        # nor saved.
        applications = os.path.join(self.s.data_home, 'applications')
        os.makedirs(applications, exist_ok=True)
        for app in ('org.gnome.Terminal', 'org.gnome.TextEditor'):
            with open(os.path.join(applications, f'{app}.desktop'), 'w', encoding='utf-8') as f:
                f.write('[Desktop Entry]\nType=Application\nName=App\nExec=true\n')

    def test_scripts_page(self):
        examples = scripts_page_examples()
        self.assertGreaterEqual(len(examples), 8)
        for command, expected in examples:
            status, output = shell(self.s, command)
            if 'exit status' not in expected and '|' not in command:
                self.assertEqual(status, OK, command)
            self.assertEqual(output, expected.strip(), command)

    def test_scripts_page_switches_both_on(self):
        # GNOME's switch and ours: the page's gsettings lines switch
        # saving and restoring back on after the app switched both off.
        page = ET.parse(os.path.join(SOURCE_DIR, 'help', 'C', 'scripts.page')).getroot()
        lines = page.find(f'{MALLARD}screen').text.strip().splitlines()
        self.assertEqual(len(lines), 2)
        self.assertCtl(OK, 'set', 'enabled', 'false')
        self.assertEqual(self.s.gsettings_value('save-restore', DESKTOP_SCHEMA), False)
        for line in lines:
            self.assertEqual(shell(self.s, line), (OK, ''), line)
        self.s.wait_until(lambda: self.s.prop('Enabled') is True, what='Enabled true')

    def test_readme(self):
        lines = readme_examples()
        self.assertGreaterEqual(len(lines), 5)
        for line in lines:
            expected = re.search(r'# exit status (\d)', line)
            status, output = shell(self.s, line)
            self.assertEqual(status, int(expected.group(1)) if expected else OK, f'{line}\n{output}')
        # They did what they say.
        self.assertEqual(self.s.gsettings_value('restore-after-crash'), False)
        self.assertEqual(self.s.gsettings_value('max-age-days'), 30)
        self.assertEqual(self.s.gsettings_value('excluded-apps'), ['org.gnome.Terminal'])


class JsonKeysTest(CtlTestCase):
    def test_keys_are_the_documented_ones(self):
        keys = documented_json_keys()
        self.assertIn('app_id', keys)
        self.assertEqual(len(keys), len(set(keys)))
        sim = Simulator(self.s)
        sim.save('org.example.Alpha')
        doc = json.loads(self.ctl('list', '--json', 'org.example.Alpha', 'org.example.None').stdout)
        self.assertEqual(sorted(doc), ['apps', 'errors', 'total'])
        self.assertEqual(doc['errors'], {})
        self.assertEqual(sorted(doc['total']), ['apps', 'bytes', 'cleared', 'entries', 'expired'])
        self.assertEqual(len(doc['apps']), 2)
        for app in doc['apps']:
            self.assertEqual(list(app), keys)
        with open(os.path.join(SOURCE_DIR, 'help', 'C', 'scripts.page')) as f:
            page = f.read()
        for key in keys:
            self.assertIn(f'<code>{key}</code>', page)


class OtherJsonKeysTest(CtlTestCase):
    """status, get and check --json: the keys are the man page's."""

    def test_get(self):
        keys = documented_json_keys('get')
        self.assertEqual(keys, ['key', 'value', 'locked'])
        self.assertEqual(list(json.loads(self.ctl('get', '--json', 'enabled').stdout)), keys)

    def test_check(self):
        keys = documented_json_keys('check')
        self.assertIn('verdict', keys)
        for args in (('org.example.Alpha',), ('org.example.Alpha', '--reason', 'recover',
                                               '--saved-at', '1d')):
            self.assertEqual(list(json.loads(self.ctl('check', '--json', *args).stdout)), keys)

    def test_status(self):
        keys = documented_json_keys('status')
        self.assertIn('service.state', keys)
        Simulator(self.s).save('org.example.Alpha')   # a consumer, to name
        doc = json.loads(self.ctl('status', '--json').stdout)
        self.assertTrue(doc['consumers'])
        # Per setting: what get --json prints but the key, which names it.
        setting_keys = documented_json_keys('get')[1:]
        for value in doc['settings'].values():
            self.assertEqual(list(value), setting_keys)
        paths = [path for path in dict.fromkeys(json_paths(doc)) if not path.startswith('settings.')]
        self.assertEqual(paths, keys)


class CompletionTest(CtlTestCase):
    def complete(self, *words):
        """What bash completes for the words, the last being the one typed."""
        script = os.path.join(SOURCE_DIR, 'ctl', 'session-restore-ctl.bash')
        quoted = ' '.join(f"'{w}'" for w in ('session-restore-ctl',) + words)
        line = (f'source {script}; COMP_WORDS=({quoted}); COMP_CWORD={len(words)}; '
                f'_session_restore_ctl; printf "%s\\n" "${{COMPREPLY[@]}}"')
        status, output = shell(self.s, line)
        self.assertEqual(status, 0, output)
        return sorted(output.split())

    def test_commands_keys_values_and_apps(self):
        self.assertEqual(self.complete('c'), ['check', 'clear'])
        self.assertIn('monitor', self.complete(''))
        self.assertEqual(self.complete('get', 'max'), ['max-age-days'])
        # Only the keys set takes: not the administrator's list.
        self.assertEqual(len(self.complete('set', '')), 8)
        self.assertEqual(self.complete('reset', 'admin'), [])
        self.assertEqual(self.complete('get', 'admin'), ['admin-excluded-apps'])
        self.assertEqual(self.complete('set', 'login-restore', ''), ['always', 'ask', 'never'])
        self.assertEqual(self.complete('set', 'enabled', 'f'), ['false'])
        self.assertEqual(self.complete('check', 'org.example.Alpha', '--reason', 're'), ['recover', 'restore'])
        self.assertEqual(self.complete('list', '--'), ['--help', '--json'])
        self.assertEqual(self.complete('status', '--'), ['--help', '--json'])
        for command in ('exclude', 'include', 'allow-recovery', 'set', 'reset', 'monitor'):
            self.assertEqual(self.complete(command, '--'), ['--help', '--json'], command)
        self.assertEqual(self.complete('clear', '--'), ['--help', '--json', '--yes'])
        self.assertEqual(self.complete('get', '--'), ['--gvariant', '--help', '--json'])
        self.assertEqual(self.complete('check', '--'), ['--help', '--json', '--reason', '--saved-at'])
        # One command per action: allow-recovery's old name is not offered.
        self.assertEqual(self.complete('res'), ['reset'])
        self.assertEqual(self.complete('a'), ['allow-recovery'])
        self.assertEqual(self.complete('reset', 'crash-loop-'),
                         ['crash-loop-threshold', 'crash-loop-window'])
        self.assertEqual(self.complete('reset', 'enabled', ''), [])
        self.assertEqual(self.complete('help', 'reset'), ['reset'])
        sim = Simulator(self.s)
        sim.save('org.example.Alpha')
        sim.save('org.example.Beta')
        self.s.call('SetAppExcluded', 'sb', 'org.example.Gamma', True)
        self.assertEqual(self.complete('clear', 'org.example.'),
                         ['org.example.Alpha', 'org.example.Beta', 'org.example.Gamma'])
        self.assertEqual(self.complete('include', ''), ['org.example.Gamma'])
        for command in ('reset-crash-guard', 'allow-recovery'):
            self.assertEqual(self.complete(command, 'org.example.A'), ['org.example.Alpha'])


class InstallTest(unittest.TestCase):
    def test_installed_where_they_belong(self):
        result = subprocess.run(['meson', 'introspect', BUILD_DIR, '--installed'],
                                capture_output=True, text=True, check=True)
        installed = json.loads(result.stdout)
        options = {o['name']: o['value'] for o in json.loads(subprocess.run(
            ['meson', 'introspect', BUILD_DIR, '--buildoptions'],
            capture_output=True, text=True, check=True).stdout)}
        prefix = options['prefix']
        self.assertEqual(installed[os.path.join(BUILD_DIR, 'ctl', 'session-restore-ctl')],
                         os.path.join(prefix, options['bindir'], 'session-restore-ctl'))
        completion = installed[os.path.join(SOURCE_DIR, 'ctl', 'session-restore-ctl.bash')]
        pkgconfig = subprocess.run(['pkg-config', '--define-variable=prefix=' + prefix,
                                    '--variable=completionsdir', 'bash-completion'],
                                   capture_output=True, text=True)
        expected_dir = (pkgconfig.stdout.strip() if pkgconfig.returncode == 0
                        else os.path.join(prefix, options['datadir'], 'bash-completion', 'completions'))
        self.assertEqual(completion, os.path.join(expected_dir, 'session-restore-ctl'))
        self.assertTrue(installed[os.path.join(SOURCE_DIR, 'man', 'session-restore-ctl.1')]
                        .endswith('/man1/session-restore-ctl.1'))

    def test_man_page_renders(self):
        result = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-z',
                                 os.path.join(SOURCE_DIR, 'man', 'session-restore-ctl.1')],
                                capture_output=True, text=True)
        self.assertEqual((result.returncode, result.stderr), (0, ''))


# One vocabulary for what is kept: "saved sessions", and "Clear" for taking
# them away. The D-Bus and JSON names (StoredStateCleared, "stored") are the
# contract and are not read by people, so only the text people read counts.
OTHER_WORDS = re.compile(r'\b(?:stored|saved|app|session|window) state\b'
                         r'|\bforg[eo]t\w*\b(?! (?:the |its )?crashes| which apps were open)',
                         re.I)


def strings_in(path):
    """The C string literals of @path, joined where C joins them."""
    with open(path) as f:
        source = f.read()
    source = re.sub(r'/\*.*?\*/|//[^\n]*', '', source, flags=re.S)
    source = re.sub(r'"\s+"', '', source)
    # Words with no space between them are names (actions, keys), not text.
    return [text for text in re.findall(r'"((?:[^"\\\n]|\\.)*)"', source) if ' ' in text]


class VocabularyTest(unittest.TestCase):
    def assertOneVocabulary(self, where, text):
        text = re.sub(r'\s+', ' ', text)
        found = [m.group(0) for m in OTHER_WORDS.finditer(text)]
        self.assertEqual(found, [], f'{where} says {found}, not "saved sessions"/"clear"')

    def test_command_line_help(self):
        commands = re.findall(r'^  (\S+)  ', subprocess.run(
            [CTL, '--help'], capture_output=True, text=True, check=True).stdout, re.M)
        self.assertIn('clear', commands)
        for command in [None, *commands]:
            argv = [CTL, '--help'] if command is None else [CTL, command, '--help']
            result = subprocess.run(argv, capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, argv)
            self.assertOneVocabulary(' '.join(argv[1:]), result.stdout)

    def test_messages_of_the_tool_and_the_panel(self):
        for folder in ('ctl', 'panel', 'portal'):
            for name in sorted(os.listdir(os.path.join(SOURCE_DIR, folder))):
                if name.endswith('.c'):
                    path = os.path.join(SOURCE_DIR, folder, name)
                    self.assertOneVocabulary(path, ' | '.join(strings_in(path)))
                elif name.endswith('.ui'):
                    root = ET.parse(os.path.join(SOURCE_DIR, folder, name)).getroot()
                    self.assertOneVocabulary(name, ' | '.join(
                        e.text for e in root.iter() if e.get('translatable') == 'yes' and e.text))

    def test_pages_man_pages_and_polkit(self):
        help_dir = os.path.join(SOURCE_DIR, 'help', 'C')
        for name in sorted(os.listdir(help_dir)):
            if name.endswith('.page'):
                root = ET.parse(os.path.join(help_dir, name)).getroot()
                self.assertOneVocabulary(name, ' '.join(root.itertext()))
        for name in sorted(os.listdir(os.path.join(SOURCE_DIR, 'man'))):
            if re.search(r'\.[18]$', name):
                with open(os.path.join(SOURCE_DIR, 'man', name)) as f:
                    self.assertOneVocabulary(name, re.sub(r'\\f[BIRP]|\\-', '', f.read()))
        stores = os.path.join(SOURCE_DIR, 'data', 'stores.d')
        for name in sorted(os.listdir(stores)):
            with open(os.path.join(stores, name)) as f:
                self.assertOneVocabulary(name, ' | '.join(re.findall(r'^Description=(.*)$', f.read(), re.M)))
        policy = ET.parse(os.path.join(SOURCE_DIR, 'data', 'org.gnome.SessionRestore.policy.in'))
        self.assertOneVocabulary('the polkit actions', ' | '.join(
            e.text for e in policy.getroot().iter() if e.tag in ('description', 'message')))
