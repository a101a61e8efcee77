#!/usr/bin/python3
"""A stand-in that owns org.gnome.SessionRestore.Policy and answers as
policyd would on a good day: every check "allowed", every change and
clear a success, the settings at their defaults. For the tests of the
clients' trust: run sandboxed or as another user, it must not be
believed. It prints "owned" once it has the name, and logs every method
called (one line each) to the file given as its second argument.

For the tests of a consumer's timing, a Clear emits StoredStateCleared
before its reply, and while a file LOG.hold exists CheckRestore gets no
answer until SIGUSR1 (then "allowed").

    fakepolicyd.py INTERFACE_XML LOG

Tests import it for command() and calls()."""
import os
import signal
import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

BUS_NAME = 'org.gnome.SessionRestore.Policy'
OBJECT_PATH = '/org/gnome/SessionRestore/Policy'
SOURCE_DIR = os.path.realpath(os.path.join(os.path.dirname(__file__), '..', '..'))
XML = os.path.join(SOURCE_DIR, 'data', 'org.gnome.SessionRestore.Policy.xml')


def command(log_path):
    """The stand-in's command line, logging to @log_path."""
    return [sys.executable, os.path.realpath(__file__), XML, log_path]


def calls(log_path):
    """The methods the stand-in was called with, in order."""
    try:
        with open(log_path) as f:
            return f.read().split()
    except FileNotFoundError:
        return []

# Plausible values by type: a policy that allows everything.
DEFAULTS = {'b': True, 'u': 2, 'i': 30, 's': 'always', 'as': [], 'a(sx)': []}


def reply_for(interface, method):
    if method.name in ('CheckSave', 'CheckRestore'):
        return GLib.Variant('(us)', (1, 'allowed'))
    if method.name == 'Clear':
        return GLib.Variant('(a{sv})', ({},))
    if method.name == 'ListStoredState':
        return GLib.Variant('(a(sa{sv}))', ([],))
    return None


def main(xml_path, log_path):
    with open(xml_path) as f:
        interface = Gio.DBusNodeInfo.new_for_xml(f.read()).interfaces[0]

    held = []

    def on_call(conn, sender, path, iface, name, params, invocation):
        with open(log_path, 'a') as f:
            f.write(name + '\n')
        if name == 'CheckRestore' and os.path.exists(log_path + '.hold'):
            held.append(invocation)
            return
        if name == 'Clear':
            conn.emit_signal(None, OBJECT_PATH, iface, 'StoredStateCleared', params)
        invocation.return_value(reply_for(interface, interface.lookup_method(name)))

    def release():
        while held:
            held.pop(0).return_value(reply_for(interface, interface.lookup_method('CheckRestore')))
        return GLib.SOURCE_CONTINUE

    def on_get_property(conn, sender, path, iface, name):
        signature = interface.lookup_property(name).signature
        return GLib.Variant(signature, DEFAULTS.get(signature, 0))

    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, release)
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    bus.register_object(OBJECT_PATH, interface, on_call, on_get_property, None)
    Gio.bus_own_name_on_connection(bus, BUS_NAME, Gio.BusNameOwnerFlags.DO_NOT_QUEUE,
                                   lambda *a: print('owned', flush=True), lambda *a: loop.quit())
    loop.run()


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
