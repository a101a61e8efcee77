"""The rows bench_panel_startup.py hands its baseline are the panel's own
words. The benchmark words them with Python copies of the panel's wording
(consumers_line(), keep_label(), the totals and the app rows' subtitles
in baseline_rows()): in the benchmark's own world (its 30 apps, 6 saved
sessions and consumer), the panel opened on the settings page shows the
ROWS file's consumers line, totals line and "Keep Saved Sessions For"
choice, and opened on the Apps page each app's name with its subtitle,
word for word. Where a copy drifts from the panel, this fails, rather
than the benchmark timing two different screens."""
import os
import time

# On the PYTHONPATH tests/ui/meson.build gives this test.
import bench_panel_startup as bench
from uitest import PanelTestCase


class BenchRowsTest(PanelTestCase):
    # The benchmark's world alone: bench.prepare() writes its apps and
    # saves their sessions through policyd, which therefore starts first.
    apps = {}
    start_policyd = False
    panel_args = ('--page=settings',)

    @classmethod
    def prepare(cls):
        cls.s.start_policyd()
        bench.prepare(cls.s)
        path = os.path.join(cls.s.root, 'rows')
        bench.baseline_rows(path, cls.s)
        with open(path) as f:
            cls.rows = f.read().splitlines()
        # The panel's environment as the benchmark gives it.
        cls.panel_env = {'XDG_DATA_DIRS': bench.share_dir(cls.s.root)}

    def assert_shows(self, line, what, shown, timeout=10):
        """Waits for shown() (the panel's text where @line belongs, or a
        collection of texts) to be or to hold @line exactly; fails naming
        the ROWS line the panel does not show, and what it shows instead."""
        deadline = time.monotonic() + timeout
        while True:
            now = shown()
            if now == line or not isinstance(now, str) and line in now:
                return
            if time.monotonic() > deadline:
                self.fail(f'the panel does not show the baseline\'s {what} {line!r}: it shows {now!r}')
            time.sleep(0.2)

    def test_1_settings_page(self):
        consumers, totals, keep = self.rows[:3]
        self.find('switch', 'Save and Restore Apps', timeout=20)

        def labels():
            return sorted({label.get_name() or '' for label in self.find_all('label')})
        self.assert_shows(consumers, 'consumers line', labels)
        self.assert_shows(totals, 'Saved Sessions totals line', labels)
        combo = self.find('combo box', 'Keep Saved Sessions For')
        self.assert_shows(keep, '"Keep Saved Sessions For" choice', combo.get_description)

    def test_2_apps_page(self):
        # Opened again, on the Apps page and at the default size, as the
        # benchmark opens it.
        self.panel.terminate()
        self.panel.wait(10)
        ini = os.path.join(self.s.config_home, 'session-restore', 'panel.ini')
        if os.path.exists(ini):
            os.unlink(ini)
        self.start_panel('--page=apps')
        entry = self.find('entry', 'Search apps', timeout=20)
        apps = [line.split('\t') for line in self.rows[3:]]
        self.assertEqual(len(apps), len(bench.SAVED) + len(bench.OTHERS))
        for _, name, subtitle in apps:
            # Only some 13 rows fit the window: each app searched for by
            # its name has its row on screen.
            entry.set_text_contents(name)

            def row_text():
                try:
                    return self.row_text(name, timeout=0)
                except AssertionError:
                    return 'no row'
            self.assert_shows(subtitle, f'subtitle of {name}', row_text)
