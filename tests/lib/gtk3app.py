#!/usr/bin/python3
"""A GTK 3 application, through GTK 3's own library (libgtk-3.so.0,
called with ctypes: the world has GTK 3 but neither its headers nor its
GObject introspection data), for what no shipped GTK 3 example does:
holding an inhibitor, asking whether one is held, and registering with
the session manager (GtkApplication:register-session).

    gtk3app.py APP_ID [--register-session] [--inhibit FLAGS]

It opens one GtkApplicationWindow; with --inhibit, it then calls
gtk_application_inhibit() for the window with FLAGS (GtkApplicationInhibitFlags:
1 logout, 2 switch user, 4 suspend, 8 idle), gtk_application_is_inhibited()
for the same flags and, for a cookie other than 0, gtk_application_uninhibit(),
and prints "inhibit: COOKIE inhibited: 0|1". It prints "ready" once all
that is done, and quits on its app action "quit" (org.gtk.Actions) or when
its window is closed, exiting with g_application_run()'s status."""
import ctypes
import sys

gtk = ctypes.CDLL('libgtk-3.so.0')
gobject = ctypes.CDLL('libgobject-2.0.so.0')
gio = ctypes.CDLL('libgio-2.0.so.0')

P = ctypes.c_void_p
gtk.gtk_application_new.restype = P
gtk.gtk_application_new.argtypes = [ctypes.c_char_p, ctypes.c_int]
gtk.gtk_application_window_new.restype = P
gtk.gtk_application_window_new.argtypes = [P]
gtk.gtk_widget_show_all.argtypes = [P]
gtk.gtk_application_inhibit.restype = ctypes.c_uint
gtk.gtk_application_inhibit.argtypes = [P, P, ctypes.c_int, ctypes.c_char_p]
gtk.gtk_application_is_inhibited.restype = ctypes.c_int
gtk.gtk_application_is_inhibited.argtypes = [P, ctypes.c_int]
gtk.gtk_application_uninhibit.argtypes = [P, ctypes.c_uint]
gobject.g_object_set.argtypes = [P, ctypes.c_char_p, ctypes.c_int, P]
gobject.g_signal_connect_data.restype = ctypes.c_ulong
gobject.g_signal_connect_data.argtypes = [P, ctypes.c_char_p, P, P, P, ctypes.c_int]
gobject.g_object_unref.argtypes = [P]
gio.g_simple_action_new.restype = P
gio.g_simple_action_new.argtypes = [ctypes.c_char_p, P]
gio.g_action_map_add_action.argtypes = [P, P]
gio.g_application_run.restype = ctypes.c_int
gio.g_application_run.argtypes = [P, ctypes.c_int, P]
gio.g_application_quit.argtypes = [P]

ACTIVATE = ctypes.CFUNCTYPE(None, P, P)
QUIT = ctypes.CFUNCTYPE(None, P, P, P)


def main(argv):
    app_id = argv[1]
    register_session = '--register-session' in argv
    flags = int(argv[argv.index('--inhibit') + 1]) if '--inhibit' in argv else 0

    app = gtk.gtk_application_new(app_id.encode(), 0)
    if register_session:
        gobject.g_object_set(app, b'register-session', 1, None)

    def on_quit(action, parameter, data):
        gio.g_application_quit(app)

    def on_activate(application, data):
        window = gtk.gtk_application_window_new(application)
        gtk.gtk_widget_show_all(window)
        if flags:
            cookie = gtk.gtk_application_inhibit(application, window, flags, b'A test holds it')
            inhibited = gtk.gtk_application_is_inhibited(application, flags)
            if cookie:
                gtk.gtk_application_uninhibit(application, cookie)
            print(f'inhibit: {cookie} inhibited: {inhibited}', flush=True)
        print('ready', flush=True)

    # Kept referenced for as long as GTK may call them.
    callbacks = (QUIT(on_quit), ACTIVATE(on_activate))
    quit_action = gio.g_simple_action_new(b'quit', None)
    gobject.g_signal_connect_data(quit_action, b'activate', ctypes.cast(callbacks[0], P), None, None, 0)
    gio.g_action_map_add_action(app, quit_action)
    gobject.g_signal_connect_data(app, b'activate', ctypes.cast(callbacks[1], P), None, None, 0)
    status = gio.g_application_run(app, 0, None)
    gobject.g_object_unref(quit_action)
    gobject.g_object_unref(app)
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv))
