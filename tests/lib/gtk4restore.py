#!/usr/bin/python3
"""A GTK 4.24 application with GTK's dormant save and restore switched on,
for what it does at start-up: RegisterRestore on org.gnome.SessionManager,
the removal of the state files of the ids it is given to clean up, and
DeletedInstanceIds.

    gtk4restore.py APP_ID

GTK 4.24 has no way to switch it on (no API, setting or variable; its
GtkApplication:register-session is kept but not read): the switch is a
field of GtkApplication's private data that nothing sets, the gboolean
at offset 0x48 in 4.24.1, which gtk_application_startup() hands to the
D-Bus implementation's start-up. This sets it, after checking the offset
against the one field it can see (register-session, at 0x24). Run it
with GTK_DEBUG=session-mgmt: GTK then says "Registered restore, reason
REASON instance-id ID" and which ids it cleans up. It prints "ready"
once running and is to be killed: 4.24's saving is unfinished, and any
quit (which collects the state to save) aborts in collect_state(), as
an autosave would after 15 s with a focused window, so it opens none.
"""
import ctypes
import sys

import gi
gi.require_version('Gtk', '4.0')
from gi.repository import Gio, Gtk  # noqa: E402

# GtkApplicationPrivate in GTK 4.24.1.
REGISTER_SESSION = 0x24
SUPPORT_SAVE = 0x48


def private_data(app):
    gobject = ctypes.CDLL('libgobject-2.0.so.0')
    gtk = ctypes.CDLL('libgtk-4.so.1')
    gtk.gtk_application_get_type.restype = ctypes.c_size_t
    gobject.g_type_class_ref.restype = ctypes.c_void_p
    gobject.g_type_class_ref.argtypes = [ctypes.c_size_t]
    gobject.g_type_class_get_instance_private_offset.restype = ctypes.c_int
    gobject.g_type_class_get_instance_private_offset.argtypes = [ctypes.c_void_p]
    ctypes.pythonapi.PyCapsule_GetPointer.restype = ctypes.c_void_p
    ctypes.pythonapi.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    instance = ctypes.pythonapi.PyCapsule_GetPointer(app.__gpointer__, None)
    klass = gobject.g_type_class_ref(gtk.gtk_application_get_type())
    return instance + gobject.g_type_class_get_instance_private_offset(klass)


def field(address):
    return ctypes.c_int.from_address(address)


def main(argv):
    if (Gtk.get_major_version(), Gtk.get_minor_version()) != (4, 24):
        raise SystemExit(f'gtk4restore.py knows GTK 4.24\'s private data, not '
                         f'{Gtk.get_major_version()}.{Gtk.get_minor_version()}\'s')
    app = Gtk.Application(application_id=argv[1], flags=Gio.ApplicationFlags.NON_UNIQUE)
    priv = private_data(app)
    for value in (True, False):
        app.props.register_session = value
        if field(priv + REGISTER_SESSION).value != int(value) or field(priv + SUPPORT_SAVE).value != 0:
            raise SystemExit('GtkApplication\'s private data is not laid out as in GTK 4.24.1')
    field(priv + SUPPORT_SAVE).value = 1

    def activate(application):
        application.hold()
        print('ready', flush=True)

    app.connect('activate', activate)
    return app.run([])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
