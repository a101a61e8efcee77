#!/usr/bin/python3
"""A stand-in for the panel's login prompt (org.gnome.SessionRestore.Prompt),
for policyd's tests: D-Bus-activated like the real one, it does what the
JSON file given as its argument says when Ask comes, and logs every call
(one JSON line each) to that file's name + '.log'.

The file: {"answer": [restore, [declined apps], remember]} to answer at
once, after "delay" seconds if given; {"hang": true} never to answer;
{"crash": true} to exit without answering."""
import json
import os
import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

XML = '''<node><interface name="org.gnome.SessionRestore.Prompt">
  <method name="Ask"><arg name="apps" type="a(sa{sv})" direction="in"/>
    <arg name="restore" type="b" direction="out"/>
    <arg name="declined_apps" type="as" direction="out"/>
    <arg name="remember" type="b" direction="out"/></method>
  <method name="Close"/>
</interface></node>'''

config_path = sys.argv[1]
loop = GLib.MainLoop()


def log(entry):
    with open(config_path + '.log', 'a') as f:
        f.write(json.dumps(entry) + '\n')


def on_call(conn, sender, path, iface, method, params, invocation):
    with open(config_path) as f:
        config = json.load(f)
    if method == 'Close':
        log({'call': 'Close'})
        invocation.return_value(None)
        return
    apps = params.unpack()[0]
    log({'call': 'Ask', 'apps': [[app, info] for app, info in apps]})
    if config.get('crash'):
        os._exit(3)
    if config.get('hang'):
        hung.append(invocation)
        return
    restore, declined, remember = config['answer']

    def answer():
        invocation.return_value(GLib.Variant('(basb)', (restore, declined, remember)))
        return GLib.SOURCE_REMOVE
    GLib.timeout_add(int(config.get('delay', 0) * 1000), answer)


hung = []
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
bus.register_object('/org/gnome/SessionRestore/Prompt',
                    Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], on_call, None, None)
Gio.bus_own_name_on_connection(bus, 'org.gnome.SessionRestore', Gio.BusNameOwnerFlags.NONE,
                               None, lambda *a: loop.quit())
loop.run()
