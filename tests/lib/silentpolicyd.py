#!/usr/bin/python3
"""A stand-in that owns org.gnome.SessionRestore.Policy, shows policyd's
properties at their defaults and never answers a method: for the tests
of what a client does with a call it sent to an owner that turns out not
to be trusted, which need not ever answer. It prints "owned" once it has
the name, and logs every method called (one line each) to LOG.

    silentpolicyd.py LOG"""
import os
import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

import fakepolicyd  # noqa: E402


def main(log_path):
    with open(fakepolicyd.XML) as f:
        interface = Gio.DBusNodeInfo.new_for_xml(f.read()).interfaces[0]
    unanswered = []

    def on_call(conn, sender, path, iface, name, params, invocation):
        with open(log_path, 'a') as f:
            f.write(name + '\n')
        unanswered.append(invocation)

    def on_get_property(conn, sender, path, iface, name):
        signature = interface.lookup_property(name).signature
        return GLib.Variant(signature, fakepolicyd.DEFAULTS.get(signature, 0))

    loop = GLib.MainLoop()
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    bus.register_object(fakepolicyd.OBJECT_PATH, interface, on_call, on_get_property, None)
    Gio.bus_own_name_on_connection(bus, fakepolicyd.BUS_NAME, Gio.BusNameOwnerFlags.DO_NOT_QUEUE,
                                   lambda *a: print('owned', flush=True), lambda *a: loop.quit())
    loop.run()


if __name__ == '__main__':
    main(sys.argv[1])
