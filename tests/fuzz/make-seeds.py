#!/usr/bin/python3
"""Writes the hand-made seeds of tests/fuzz/corpus/. Run it with the test
harness on the path, from anywhere:

    PYTHONPATH=tests/lib tests/fuzz/make-seeds.py

Valid inputs in the real formats (the shipped drop-ins; gnome-session and
GTK state written the way tests/lib/simulator.py writes them) and
broken ones: truncated, wrong types, huge counts. Rewrites only the files it
names (seed-*); reproducers of bugs that fuzzing found (crash-*, leak-*,
timeout-*) are added by hand and left alone.
"""
import os
import struct
import types

from simulator import Simulator
from srtest import GLib

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, '..', '..')


def write(target, name, data):
    directory = os.path.join(HERE, 'corpus', target)
    os.makedirs(directory, exist_ok=True)
    if isinstance(data, str):
        data = data.encode('utf-8', 'surrogateescape')
    with open(os.path.join(directory, f'seed-{name}'), 'wb') as f:
        f.write(data)


def variant_bytes(type_string, value):
    return GLib.Variant(type_string, value).get_data_as_bytes().get_data()


def truncations(target, name, data):
    for cut in (1, 2, len(data) // 2):
        if 0 < cut < len(data):
            write(target, f'{name}-truncated-{cut}', data[:-cut])


def app_ids():
    seeds = {
        'valid': 'org.gnome.TextEditor',
        'valid-dash': 'org.example.my-app',
        'valid-underscore': 'org.example.App_2',
        'flatpak': 'com.github.example.App',
        'single-element': 'example',
        'empty': '',
        'slash': 'org/example/App',
        'dotdot': 'org..example',
        'dotdot-path': '../../etc/passwd',
        'leading-dot': '.org.example',
        'trailing-dot': 'org.example.',
        'digit-element': 'org.1example.App',
        'control': 'org.example\x01.App',
        'newline': 'org.example.App\n',
        'tab': 'org.example.\tApp',
        'del': 'org.example.App\x7f',
        'non-ascii': 'org.exämple.App',
        'invalid-utf8': b'org.ex\xff\xfe.App',
        'nul-inside': b'org.example.App\0../x',
        'max-length': 'a.' + 'b' * 253,
        'too-long': 'a.' + 'b' * 254,
        'hash': 'org.example.App#1',
        'list': 'org.example.A\norg.example.B\norg.example.C',
        'list-one-bad': 'org.example.A\n../x\norg.example.C',
        'list-empty-line': 'org.example.A\n\norg.example.C',
        'list-long': '\n'.join(f'org.example.App{i}' for i in range(200)),
    }
    for name, value in seeds.items():
        write('app-id', name, value)


SHIPPED_MATCHES = {
    'gtk': 'org.gnome.TextEditor@a1b2c3.state',
    'gtk-flatpak': 'org.gnome.TextEditor@fallback.state',
    'gnome-session': 'gnome-session@gnome.state',
    'mutter': 'session.gvdb',
    'gnome-shell': 'session.gvdb',
    'session-restore-portal': 'session-restore-portal@gnome.state',
    'session-restore-portal-unreadable': 'session-restore-portal@gnome.state.20261207T101500Z.unreadable',
}

# Files beside GTK's that are no app's: its stores never take them.
GTK_NOT_APPS = {
    'gnome-session': 'gnome-session@gnome.state',
    'portal-record': 'session-restore-portal@sway.state',
    'dotless': 'firefox-esr@1.state',
    'mid-write': 'org.gnome.TextEditor@a1b2c3.state.QX3ZK2',
}


def stores():
    dropins = os.path.join(SOURCE, 'data', 'stores.d')
    for file_name in sorted(os.listdir(dropins)):
        name = file_name[:-len('.store')]
        with open(os.path.join(dropins, file_name), 'rb') as f:
            text = f.read()
        write('store-dropin', f'shipped-{name}', text)
        write('store-dropin', f'shipped-{name}-match', text + b'\0' + SHIPPED_MATCHES[name].encode())
        write('store-dropin', f'shipped-{name}-nomatch', text + b'\0' + b'.hidden@1.state')
        if name.startswith('gtk'):
            for what, file_name in GTK_NOT_APPS.items():
                write('store-dropin', f'shipped-{name}-{what}-nomatch', text + b'\0' + file_name.encode())

    files = '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME\nPattern={app}@*.state\n'
    seeds = {
        'files-app-dir': '[Store]\nKind=files\nDirectory=$HOME/.var/app/{app}/.local/state\n'
                         'Pattern=*.state\n\0x.state',
        'files-app-dir-last': '[Store]\nKind=files\nDirectory=$XDG_DATA_HOME/{app}\nPattern=*\n',
        'files-app-dir-double-slash': '[Store]\nKind=files\nDirectory=$HOME/{app}//x\nPattern=*\n',
        'files-no-format-match': files + '\0org.example.App@1.state',
        'files-bad-app-match': files + '\0../x@1.state',
        'files-invalid-utf8-name': files.encode() + b'\0org.ex\xff.App@1.state',
        'files-unknown-format': files + 'Format=sqlite\n',
        'entries-no-format': '[Store]\nKind=entries\nDirectory=$HOME\nPattern=*.state\n',
        'entries-app': '[Store]\nKind=entries\nDirectory=$HOME\nPattern={app}.state\n'
                       'Format=gnome-session\n',
        'whole-file-format': '[Store]\nKind=whole-file\nDirectory=$HOME\nPattern=x\nFormat=gtk\n',
        'whole-file-app': '[Store]\nKind=whole-file\nDirectory=$HOME\nPattern={app}.gvdb\n',
        'whole-file-root': '[Store]\nKind=whole-file\nDirectory=/\nPattern=*\n',
        'garbage': 'this is not a key file [[[',
        'empty': '',
        'no-kind': '[Store]\nDirectory=$HOME\nPattern={app}.x\n',
        'no-pattern': '[Store]\nKind=files\nDirectory=$HOME\n',
        'bad-kind': '[Store]\nKind=everything\nDirectory=$HOME\nPattern={app}.x\n',
        'dotdot': '[Store]\nKind=files\nDirectory=$HOME/../../tmp\nPattern={app}@*.state\n',
        'dot': '[Store]\nKind=files\nDirectory=$HOME/./x\nPattern={app}\n',
        'relative': '[Store]\nKind=files\nDirectory=relative/dir\nPattern={app}@*.state\n',
        'slash-pattern': '[Store]\nKind=files\nDirectory=$HOME\nPattern=../{app}\n',
        'unknown-var': '[Store]\nKind=files\nDirectory=$SECRET\nPattern={app}\n',
        'empty-var': '[Store]\nKind=files\nDirectory=$/x\nPattern={app}\n',
        'lowercase-var': '[Store]\nKind=files\nDirectory=$home\nPattern={app}\n',
        'no-app': '[Store]\nKind=files\nDirectory=$HOME\nPattern=*.state\n',
        'app-twice': '[Store]\nKind=files\nDirectory=$HOME\nPattern={app}{app}\n',
        'app-in-dir-and-pattern': '[Store]\nKind=files\nDirectory=$HOME/{app}\nPattern={app}@*\n'
                                  '\0org.example.A@1',
        'app-part-of-component': '[Store]\nKind=files\nDirectory=$HOME/x{app}/y\nPattern=*.state\n',
        'app-root': '[Store]\nKind=files\nDirectory=/{app}\nPattern=*.state\n',
        'lone-braces': '[Store]\nKind=files\nDirectory=$HOME\nPattern={{app}}{ap{p}*\n'
                       '\0{org.example.A}{ap{p}x',
        'regex-chars': '[Store]\nKind=files\nDirectory=$HOME\nPattern={app}.(x)+[y]?\\\\$^|\n'
                       '\0org.example.A.(x)+[y]?\\$^|',
        'many-stars': '[Store]\nKind=files\nDirectory=$HOME\nPattern={app}' + '*a' * 40 + '\n'
                      '\0org.example.A' + 'a' * 80 + 'b',
        'long-pattern': '[Store]\nKind=files\nDirectory=$HOME\nPattern={app}' + 'x' * 3000 + '\n',
        'invalid-utf8-value': b'[Store]\nKind=files\nDirectory=$HOME/\xff\nPattern={app}\n',
        'escapes': '[Store]\nKind=files\nDirectory=$HOME/a\\sb\\t\\n\nPattern={app}\\s#*\n',
        'locale-keys': files + 'Description[de]=GTK-Zustand\nDescription=GTK state\n',
        'other-groups': '[Other]\nKind=whole-file\n\n' + files + '[Store]\nKind=whole-file\n',
        'duplicate-key': files + 'Kind=entries\n',
        # Issue 22: what a user's drop-in may no longer declare, what no
        # drop-in may, and app ids with "+".
        'user-whole-file': '[Store]\nKind=whole-file\nDirectory=$XDG_STATE_HOME/x\n'
                           'Pattern=*.odt\n\0Thesis.odt',
        'user-files-no-format': '[Store]\nKind=files\nDirectory=$XDG_DATA_HOME/{app}\n'
                                'Pattern=*.keyring\n\0login.keyring',
        'user-files-gtk-keyring': '[Store]\nKind=files\nDirectory=$XDG_DATA_HOME/{app}\n'
                                  'Pattern=*.keyring\nFormat=gtk\n\0login.keyring',
        'own-state': '[Store]\nKind=whole-file\nDirectory=$XDG_STATE_HOME/session-restore\n'
                     'Pattern=clear-points\n\0clear-points',
        'own-state-below': '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME/session-restore/{app}\n'
                           'Pattern=*.state\nFormat=gtk\n',
        'own-state-spelled': '[Store]\nKind=whole-file\n'
                             'Directory=$XDG_STATE_HOME//session-restore/\nPattern=clear-points\n',
        'own-state-next-door': '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME/session-restore2\n'
                               'Pattern={app}.state\nFormat=gtk\n',
        'own-state-by-app': '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME/{app}\n'
                            'Pattern=clear-points\nFormat=gtk\n\0clear-points',
        'root-double-slash': '[Store]\nKind=whole-file\nDirectory=//var//lib/\nPattern=x.gvdb\n',
        'root-only-slashes': '[Store]\nKind=whole-file\nDirectory=//\nPattern=x.gvdb\n',
        'base-below-link': '[Store]\nKind=files\nDirectory=$XDG_STATE_HOME/link/Documents/{app}\n'
                           'Pattern=*.state\nFormat=gtk\n',
        'plus-app-match': files + 'Format=gtk\n\0org.example.foo+bar@1.state',
    }
    for name, value in seeds.items():
        write('store-dropin', name, value)


def session_state(memory):
    holder = types.SimpleNamespace(memory=memory)
    return Simulator.session_state(holder).get_data_as_bytes().get_data()


def gnome_session():
    instance = {'saved_at': 0, 'flatpak': False, 'payload': b''}
    real = session_state({
        'org.gnome.TextEditor': {'1': instance, '2': instance},
        'org.gnome.Nautilus': {'a1b2': instance},
        'com.github.example.App': {'x': instance},
    })
    write('format-gnome-session', 'real', real)
    truncations('format-gnome-session', 'real', real)
    write('format-gnome-session', 'real-bit-flipped', real[:40] + bytes([real[40] ^ 0x80]) + real[41:])
    write('format-gnome-session', 'empty-session', session_state({}))
    write('format-gnome-session', 'one-app', session_state({'org.example.A': {'1': instance}}))
    write('format-gnome-session', 'many-apps',
          session_state({f'org.example.App{i}': {'1': instance, '2': instance} for i in range(300)}))
    write('format-gnome-session', 'empty-file', b'')
    write('format-gnome-session', 'empty-dict', variant_bytes('a{sv}', {}))
    write('format-gnome-session', 'wrong-top-type', variant_bytes('(a{sv}a{sv}a(a{sv}a{sv}))', ({}, {}, [])))
    write('format-gnome-session', 'instances-wrong-type',
          variant_bytes('a{sv}', {'instances': GLib.Variant('s', 'x')}))
    write('format-gnome-session', 'instances-old-shape',
          variant_bytes('a{sv}', {'instances': GLib.Variant('a{sas}', {'org.example.A': ['1']})}))
    bad_keys = GLib.Variant('a{s(a{sv}aa{sv})}', {
        '../bad': ({}, [{'instance-id': GLib.Variant('s', '1')}]),
        '': ({}, []),
        'org.example.Good': ({}, [{'instance-id': GLib.Variant('s', '1')}]),
        'no-dots': ({}, []),
    })
    write('format-gnome-session', 'invalid-app-keys', variant_bytes('a{sv}', {'instances': bad_keys}))
    # Keys repeat: GVariant allows it; a lookup sees the first.
    entry = GLib.Variant('(a{sv}aa{sv})', ({}, [{'instance-id': GLib.Variant('s', '1')}]))
    builder = GLib.VariantBuilder(GLib.VariantType('a{s(a{sv}aa{sv})}'))
    for app in ('org.example.A', 'org.example.B', 'org.example.A'):
        builder.add_value(GLib.Variant.new_dict_entry(GLib.Variant('s', app), entry))
    repeated = builder.end()
    top = GLib.VariantBuilder(GLib.VariantType('a{sv}'))
    for key, value in (('instances', repeated), ('version', GLib.Variant('u', 1)),
                       ('instances', GLib.Variant('s', 'second')), ('instances', repeated)):
        top.add_value(GLib.Variant.new_dict_entry(GLib.Variant('s', key), GLib.Variant('v', value)))
    write('format-gnome-session', 'repeated-keys', top.end().get_data_as_bytes().get_data())
    # Variants inside variants, as deep as GVariant lets them be.
    deep = GLib.Variant('s', 'bottom')
    for _ in range(60):
        deep = GLib.Variant('v', deep)
    write('format-gnome-session', 'deep-variants',
          variant_bytes('a{sv}', {'nested': deep, 'instances': bad_keys}))
    # Framing offsets that claim more than there is.
    write('format-gnome-session', 'huge-offsets', real[:-8] + b'\xff' * 8)
    write('format-gnome-session', 'offsets-backwards', bytes(range(255, 0, -1)))
    write('format-gnome-session', 'all-zeros', b'\0' * 180)
    write('format-gnome-session', 'all-ff', b'\xff' * 300)
    write('format-gnome-session', 'offset-size-8',
          b'\0' * 65536 + struct.pack('<Q', 2 ** 63) + struct.pack('<Q', 65536))


def gtk_state(app, windows=1, payload=b''):
    state = Simulator.gtk_state(None, app, '1', payload)
    if windows == 1:
        return state.get_data_as_bytes().get_data()
    app_state, instance, window = state.unpack()
    return GLib.Variant('(a{sv}a{sv}a(a{sv}a{sv}))', (
        {'app-id': GLib.Variant('s', app), 'data': GLib.Variant('ay', payload)},
        {'instance-id': GLib.Variant('s', '1')},
        [({'title': GLib.Variant('s', f'window {i}')},
          {'width': GLib.Variant('i', 800), 'height': GLib.Variant('i', 600)})
         for i in range(windows)],
    )).get_data_as_bytes().get_data()


def gtk():
    real = gtk_state('org.gnome.TextEditor', payload=b'draft')
    write('format-gtk', 'real', real)
    truncations('format-gtk', 'real', real)
    write('format-gtk', 'real-bit-flipped', real[:30] + bytes([real[30] ^ 0x40]) + real[31:])
    write('format-gtk', 'no-windows', gtk_state('org.example.A', windows=0))
    write('format-gtk', 'three-windows', gtk_state('org.example.A', windows=3))
    write('format-gtk', 'many-windows', gtk_state('org.example.A', windows=2000))
    write('format-gtk', 'big-payload', gtk_state('org.example.A', payload=b'x' * 70000))
    write('format-gtk', 'empty-file', b'')
    write('format-gtk', 'empty-state', variant_bytes('(a{sv}a{sv}a(a{sv}a{sv}))', ({}, {}, [])))
    write('format-gtk', 'wrong-type', variant_bytes('a{sv}', {'windows': GLib.Variant('u', 3)}))
    write('format-gtk', 'session-file', session_state({}))
    # GVariant takes this for 178 empty windows, and for normal form.
    write('format-gtk', 'all-zeros', b'\0' * 180)
    write('format-gtk', 'all-ff', b'\xff' * 300)
    write('format-gtk', 'huge-offsets', real[:-4] + b'\xff\xff\xff\x7f')
    write('format-gtk', 'offset-size-4', b'\0' * 70000 + struct.pack('<II', 0xffffffff, 2))


def string_arrays():
    """Serialized 'as' values, as dconf hands them to GSettings."""
    def raw(strings, width=1, offsets=None):
        body = b''.join(strings)
        ends = offsets
        if ends is None:
            ends, end = [], 0
            for string in strings:
                end += len(string)
                ends.append(end)
        return body + b''.join(e.to_bytes(width, 'little') for e in ends)

    one = variant_bytes('as', ['org.gnome.TextEditor'])
    three = variant_bytes('as', ['org.gnome.TextEditor', 'org.example.App', ''])
    write('string-array', 'empty', b'')
    write('string-array', 'one', one)
    write('string-array', 'three', three)
    truncations('string-array', 'three', three)
    # Offsets of each width: the value below 2^8, 2^16 and 2^32 bytes.
    write('string-array', 'offsets-2', variant_bytes('as', [f'org.example.App{i}' for i in range(20)]))
    # Few long strings: GLib, the oracle, reads many short ones in n² time.
    write('string-array', 'offsets-4', variant_bytes('as', ['org.example.' + 'A' * 40000, 'B' * 30000]))
    write('string-array', 'offset-past-end', raw([b'a\0', b'b\0'], offsets=[2, 200]))
    write('string-array', 'offsets-backwards', raw([b'ab\0', b'c\0', b'd\0'], offsets=[3, 1, 7]))
    write('string-array', 'offsets-equal', raw([b'a\0', b'', b'b\0'], offsets=[2, 2, 4]))
    write('string-array', 'no-nul', raw([b'org.a', b'org.b\0']))
    write('string-array', 'nul-inside', raw([b'org\0a\0', b'org.b\0']))
    write('string-array', 'not-utf8', raw([b'org.\xff\xfe\0', b'org.b\0']))
    write('string-array', 'table-not-whole', raw([b'a\0'], offsets=[2]) + b'\x01')
    write('string-array', 'all-ff', b'\xff' * 300)
    write('string-array', 'all-zeros', b'\0' * 70)


app_ids()
stores()
gnome_session()
gtk()
string_arrays()
