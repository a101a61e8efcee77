"""One huge message: policyd answers it, gives the memory back at once,
and keeps answering others. dbus-daemon passes messages of up to
max_message_size (1 GB on a session bus); GDBus parses all of it on its
worker thread before anything of policyd's runs, so the time is spent
whatever policyd does; the memory need not stay spent."""
import array
import os
import threading
import time

from srtest import BUS_NAME, OBJECT_PATH, IFACE, SLOW, VALGRIND, GLib, Gio, PolicydTestCase

STRINGS = 8 * 1024 * 1024      # one-byte strings: 64 MiB on the wire
# policyd's resident memory, once it has answered: what it had before, and
# this much more at most. It trims its heap right after a large message;
# what stays is GDBus's read buffer, which keeps the size of the largest
# message read (64 MiB), and a little. Without the trim and plain malloc,
# 1.4 GiB stayed.
GROWTH_MIB = 64 + 24


def strings(n):
    """(as) of n strings "a", built as its serialized GVariant: a
    PyGObject list of millions would take longer than the test."""
    data = b'a\0' * n + array.array('I', range(2, 2 * n + 1, 2)).tobytes()
    return GLib.Variant.new_from_bytes(GLib.VariantType('(as)'), GLib.Bytes(data), True)


def rss_mib(pid):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) / 1024
    raise AssertionError('no VmRSS')


class HugeMessageTest(PolicydTestCase):
    # Started as D-Bus activation without systemd would: without G_SLICE,
    # which policyd then sets for itself (main.c).
    start = False

    def test_64_mib_clear(self):
        if not VALGRIND:         # whose checks would end at the exec
            self.s.env.pop('G_SLICE', None)
        self.s.start_policyd()
        self.s.check_save('org.example.Warm')
        # Memory is judged only with glibc's allocator, measured after the
        # first trim (TRIM_DELAY_SECS, sr-fast-path.c): under valgrind
        # and the sanitizers, no waiting for it.
        judged = not VALGRIND and os.environ.get('SR_SANITIZED') != '1'
        if judged:
            time.sleep(2.5)
            before = rss_mib(self.s.policyd.pid)
        # Under valgrind, one of 4 MiB: still a large message, in minutes
        # rather than hours.
        body = strings(STRINGS // 16 if VALGRIND else STRINGS)
        with self.assertRaises(GLib.Error) as ctx:
            self.s.bus.call_sync(BUS_NAME, OBJECT_PATH, IFACE, 'Clear', body, None,
                                 Gio.DBusCallFlags.NONE, 120000 * SLOW, None)
        self.assertIn('org.gnome.SessionRestore.Error.InvalidArgs', ctx.exception.message)
        del body
        self.assertAlive()
        if not judged:
            return       # allocators that are not glibc's, or keep what is freed
        self.s.wait_until(lambda: rss_mib(self.s.policyd.pid) < before + GROWTH_MIB, timeout=10,
                          what="the memory to come back")
        after = rss_mib(self.s.policyd.pid)
        self.assertLess(after, before + GROWTH_MIB, f'{before:.1f} MiB before, {after:.1f} after')
        print(f'# policyd RSS: {before:.1f} MiB before, {after:.1f} MiB after a 64 MiB message')
