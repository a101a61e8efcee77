#!/usr/bin/python3
"""A stand-in for xdg-desktop-portal's save/restore frontend (PR 1818 head),
for session-restore-portal's tests. It behaves as the real one was seen to
on the bus (docs: /work/notes is not shipped; README "Save/restore portal"):

- org.freedesktop.host.portal.Registry.Register(app_id): the app id of a
  host caller (else '', as for a process outside an app-*.scope);
- SaveRestore.Register({session_handle_token}): the handle is
  /org/freedesktop/portal/desktop/session/<sender without ':' and '.'→'_'>/<token>;
  the backend's Session "version" is read (GetAll) at that path *before*
  the backend's Register, which gets the options as {} and no timeout;
- Session.Close by the app → Close2{voluntary: true}; the app leaving the
  bus → Close2{voluntary: false}; Close() instead when the version read
  was below 2; Close2 may go out before the backend answered Register;
- DiscardedInstanceIds and SaveHintResponse are forwarded for any handle
  from anyone; the backend's SaveHint and Quit both go out as SaveHint to
  every client (no destination).

For the tests it also serves org.example.PortalFrontendTest.Call(path,
interface, method, args as av) → reply as av: the call made to the backend from the
frontend's own connection, as the frontend makes its calls (the backend
answers its impl interface for the frontend alone), and its answer or its
error handed back as they came.

Argument: the backend's bus name."""
import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402

PATH = '/org/freedesktop/portal/desktop'
PREFIX = PATH + '/session/'
XML = '''<node>
<interface name="org.freedesktop.portal.SaveRestore">
  <method name="Register"><arg type="a{sv}" direction="in"/>
    <arg type="o" direction="out"/><arg type="a{sv}" direction="out"/></method>
  <method name="DiscardedInstanceIds"><arg type="o" direction="in"/><arg type="as" direction="in"/></method>
  <method name="SaveHintResponse"><arg type="o" direction="in"/></method>
  <signal name="SaveHint"><arg type="o"/></signal>
  <signal name="Quit"><arg type="o"/></signal>
  <property name="version" type="u" access="read"/>
</interface>
<interface name="org.freedesktop.host.portal.Registry">
  <method name="Register"><arg type="s" direction="in"/><arg type="a{sv}" direction="in"/></method>
</interface>
<interface name="org.freedesktop.portal.Session">
  <method name="Close"/>
  <signal name="Closed"><arg type="a{sv}"/></signal>
  <property name="version" type="u" access="read"/>
</interface>
</node>'''
NODE = Gio.DBusNodeInfo.new_for_xml(XML)
TEST_NODE = Gio.DBusNodeInfo.new_for_xml('''<node>
<interface name="org.example.PortalFrontendTest">
  <method name="Call"><arg type="s" direction="in"/><arg type="s" direction="in"/>
    <arg type="s" direction="in"/><arg type="av" direction="in"/><arg type="av" direction="out"/></method>
</interface>
</node>''')
IMPL = 'org.freedesktop.impl.portal.SaveRestore'
IMPL_SESSION = 'org.freedesktop.impl.portal.Session'

backend = sys.argv[1]
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
app_ids = {}        # sender → app id
sessions = {}       # handle → {'sender', 'version', 'object'}


def impl_call(path, iface, method, params, callback=None, timeout=GLib.MAXINT):
    bus.call(backend, path, iface, method, params, None, Gio.DBusCallFlags.NONE, timeout, None,
             callback, None)


def close_session(handle, voluntary):
    session = sessions.pop(handle, None)
    if session is None:
        return
    bus.unregister_object(session['object'])
    if session['version'] >= 2:
        method, params = 'Close2', GLib.Variant('(a{sv})', ({'voluntary': GLib.Variant('b', voluntary)},))
    else:
        method, params = 'Close', None
    try:
        bus.call_sync(backend, handle, IMPL_SESSION, method, params, None,
                      Gio.DBusCallFlags.NONE, 25000, None)
    except GLib.Error as e:
        # A backend gone (killed) has nothing to close: the frontend logs it.
        print(f'portalfrontend: {method} {handle}: {e.message}', file=sys.stderr)


def on_session_call(conn, sender, path, iface, method, params, invocation):
    session = sessions.get(path)
    if session is None or session['sender'] != sender:
        invocation.return_dbus_error('org.freedesktop.DBus.Error.AccessDenied', 'Unmatched caller')
        return
    close_session(path, True)
    invocation.return_value(None)


def on_call(conn, sender, path, iface, method, params, invocation):
    if iface == 'org.freedesktop.host.portal.Registry':
        app_ids[sender] = params.unpack()[0]
        invocation.return_value(None)
        return
    if method == 'Register':
        options = params.unpack()[0]
        token = options.get('session_handle_token')
        if token is None:
            invocation.return_dbus_error('org.gtk.GDBus.UnmappedGError.Quark._g_2dio_2derror_2dquark.Code0',
                                         'Missing token')
            return
        handle = PREFIX + sender[1:].replace('.', '_') + '/' + token
        if handle in sessions:
            invocation.return_dbus_error('org.freedesktop.portal.Error.Failed', 'already exported')
            return
        # The impl Session proxy: GetAll before Register; a failure is ignored.
        try:
            props = bus.call_sync(backend, handle, 'org.freedesktop.DBus.Properties', 'GetAll',
                                  GLib.Variant('(s)', (IMPL_SESSION,)), None,
                                  Gio.DBusCallFlags.NONE, 25000, None).unpack()[0]
        except GLib.Error:
            props = {}
        version = props.get('version', 0)
        obj = bus.register_object(handle, NODE.interfaces[2], on_session_call, None, None)
        sessions[handle] = {'sender': sender, 'version': version, 'object': obj}

        def done(conn, result, data=None):
            try:
                registration = conn.call_finish(result).get_child_value(0)
            except GLib.Error as e:
                close_session(handle, False)
                invocation.return_gerror(e)
                return
            # Handed to the app unchanged.
            invocation.return_value(GLib.Variant.new_tuple(GLib.Variant('o', handle), registration))
        impl_call(PATH, IMPL, 'Register',
                  GLib.Variant('(osa{sv})', (handle, app_ids.get(sender, ''), {})), done)
        return
    if method == 'DiscardedInstanceIds':
        handle, ids = params.unpack()
        if handle not in sessions:
            invocation.return_dbus_error('org.freedesktop.DBus.Error.AccessDenied', 'Invalid session')
            return
        impl_call(PATH, IMPL, 'DiscardedInstanceIds', GLib.Variant('(oas)', (handle, ids)))
        invocation.return_value(None)
        return
    if method == 'SaveHintResponse':
        handle = params.unpack()[0]
        if handle not in sessions:
            invocation.return_dbus_error('org.freedesktop.DBus.Error.AccessDenied', 'Invalid session')
            return
        impl_call(PATH, IMPL, 'SaveHintResponse', GLib.Variant('(o)', (handle,)))
        invocation.return_value(None)


def get_property(conn, sender, path, iface, name):
    return GLib.Variant('u', 1)


def on_impl_signal(conn, sender, path, iface, name, params):
    handle = params.unpack()[0]
    if handle in sessions:
        # Quit comes out as SaveHint too, and to everyone.
        bus.emit_signal(None, PATH, 'org.freedesktop.portal.SaveRestore', 'SaveHint',
                        GLib.Variant('(o)', (handle,)))


def on_name_owner_changed(conn, sender, path, iface, name, params):
    gone, old, new = params.unpack()
    if gone.startswith(':') and new == '':
        app_ids.pop(gone, None)
        for handle in [h for h, s in sessions.items() if s['sender'] == gone]:
            close_session(handle, False)


def on_test_call(conn, sender, path, iface, method, params, invocation):
    target = params.get_child_value(0).get_string()
    target_iface = params.get_child_value(1).get_string()
    target_method = params.get_child_value(2).get_string()
    packed = params.get_child_value(3)
    args = [packed.get_child_value(i).get_variant() for i in range(packed.n_children())]
    message = Gio.DBusMessage.new_method_call(backend, target, target_iface, target_method)
    if args:
        message.set_body(GLib.Variant.new_tuple(*args))

    def done(conn, result, data=None):
        try:
            reply = conn.send_message_with_reply_finish(result)
        except GLib.Error as e:
            invocation.return_gerror(e)
            return
        if reply.get_message_type() == Gio.DBusMessageType.ERROR:
            body = reply.get_body()
            text = body.unpack()[0] if body is not None and body.n_children() > 0 else ''
            invocation.return_dbus_error(reply.get_error_name(), text)
            return
        body = reply.get_body()
        children = [] if body is None else [body.get_child_value(i) for i in range(body.n_children())]
        invocation.return_value(GLib.Variant.new_tuple(GLib.Variant.new_array(
            GLib.VariantType('v'), [GLib.Variant.new_variant(c) for c in children])))
    bus.send_message_with_reply(message, Gio.DBusSendMessageFlags.NONE, GLib.MAXINT, None, done, None)


bus.register_object('/org/example/PortalFrontendTest', TEST_NODE.interfaces[0], on_test_call, None, None)
bus.register_object(PATH, NODE.interfaces[0], on_call, get_property, None)
bus.register_object(PATH, NODE.interfaces[1], on_call, None, None)
for signal in ('SaveHint', 'Quit'):
    bus.signal_subscribe(backend, IMPL, signal, PATH, None, Gio.DBusSignalFlags.NONE, on_impl_signal)
bus.signal_subscribe('org.freedesktop.DBus', 'org.freedesktop.DBus', 'NameOwnerChanged',
                     '/org/freedesktop/DBus', None, Gio.DBusSignalFlags.NONE, on_name_owner_changed)
loop = GLib.MainLoop()
Gio.bus_own_name_on_connection(bus, 'org.freedesktop.portal.Desktop', Gio.BusNameOwnerFlags.NONE,
                               None, lambda *a: loop.quit())
loop.run()
