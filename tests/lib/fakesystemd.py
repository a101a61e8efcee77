#!/usr/bin/python3
"""A stand-in for the systemd user manager's StartTransientUnit, for the
tests of what session-restore-portal launches at login: it owns
org.freedesktop.systemd1 on the session bus, answers StartTransientUnit
as systemd does (the unit's object path), and logs each call, one JSON
line {"unit", "mode", "properties"} to the file given as its argument.
It prints "owned" once it has the name."""
import json
import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

XML = '''<node><interface name="org.freedesktop.systemd1.Manager">
  <method name="StartTransientUnit">
    <arg type="s" direction="in"/><arg type="s" direction="in"/>
    <arg type="a(sv)" direction="in"/><arg type="a(sa(sv))" direction="in"/>
    <arg type="o" direction="out"/>
  </method>
</interface></node>'''


def on_call(conn, sender, path, iface, method, params, invocation):
    unit, mode, properties, _ = params.unpack()
    with open(sys.argv[1], 'a') as f:
        f.write(json.dumps({'unit': unit, 'mode': mode, 'properties': dict(properties)}) + '\n')
    invocation.return_value(GLib.Variant('(o)', ('/org/freedesktop/systemd1/job/1',)))


bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
bus.register_object('/org/freedesktop/systemd1', Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0],
                    on_call, None, None)
loop = GLib.MainLoop()
Gio.bus_own_name_on_connection(bus, 'org.freedesktop.systemd1', Gio.BusNameOwnerFlags.NONE,
                               lambda *a: print('owned', flush=True), lambda *a: loop.quit())
loop.run()
