"""Load: 64 clients x 6,000 CheckSave/CheckRestore calls (sr-load) while
this test churns the settings through gsettings and the D-Bus API. Every
call must be answered, every answer must be the one the rules give for
settings that could have been in force while the call was out, and at the
end the properties must equal gsettings.

The rules are modelled here, from DESIGN.md, for the settings that are
churned, GNOME's own switch (org.gnome.desktop.session save-restore, which
the test world has) among them; policyd's own sr-decide.c is not used: the
point is an independent check. Crash loops, clear points and max-age stay out of it:
nothing calls NoteExit, and the saved-at that sr-load passes lies in the
future.

Soundness: write i is issued at issued[i] and seen (its PropertiesChanged)
at observed[i]; the writes are serialized (the next is issued only once the
last was seen). State i can therefore be in force from issued[i] to
observed[i+1], and nowhere else. A call is right when its answer is the
rules' answer for one of the states that could be in force at some moment
between its sending and its reply.
"""
import array
import bisect
import collections
import os
import random
import subprocess
import time
import unittest

from srtest import (BUILD_DIR, BUS_NAME, DESKTOP_SCHEMA, IFACE, OBJECT_PATH,
                    Gio, GLib, Session)

SR_LOAD = os.environ.get('SR_LOAD_EXE', os.path.join(BUILD_DIR, 'tests', 'load', 'sr-load'))
CLIENTS = int(os.environ.get('SR_LOAD_CLIENTS', '64'))
CALLS = int(os.environ.get('SR_LOAD_CALLS', '6000'))
SEED = int(os.environ.get('SR_LOAD_SEED', '0')) or random.randrange(1, 1 << 30)
# Mean pause between settings changes (s): long enough that most calls are
# judged against one state; SR_LOAD_PAUSE=0 churns flat out (for hunting).
# Under the sanitizers each change takes longer to reach policyd and back
# (54% of the calls fell in a transition window at 0.2 s in one CI run, 24%
# without them): the pause grows with it.
PAUSE = float(os.environ.get('SR_LOAD_PAUSE', '0.5' if os.environ.get('SR_SANITIZED') == '1' else '0.2'))
CHANGE_TIMEOUT = 60
BURST = 40

# What sr-load asks about, by index; one more app is excluded at times and
# never asked about: excluding it must change no answer.
APPS = [f'org.example.LoadApp{i}' for i in range(4)]
OTHER = 'org.example.LoadOther'
SAVE, LAUNCH, RECOVER, RESTORE = 0, 1, 2, 3

# The churned settings: (key, D-Bus property)
PROPS = {
    'enabled': 'Enabled',
    'excluded-apps': 'ExcludedApps',
    'restore-after-crash': 'RestoreAfterCrash',
    'restore-on-launch': 'RestoreOnLaunch',
    'login-restore': 'LoginRestore',
}
# GNOME's switch has no property of its own: it shows in Enabled.
SCHEMAS = {'save-restore': DESKTOP_SCHEMA}
WATCHED = dict(PROPS, **{'save-restore': 'Enabled'})
# Every key with a property, for the final comparison with gsettings.
ALL_KEYS = dict(PROPS, **{
    'admin-excluded-apps': 'AdminExcludedApps',
    'max-age-days': 'MaxAgeDays',
    'crash-loop-threshold': 'CrashLoopThreshold',
    'crash-loop-window': 'CrashLoopWindow',
})

# enabled: ours; desktop: GNOME's save-restore.
FIELDS = {'enabled': 'enabled', 'save-restore': 'desktop'}
State = collections.namedtuple('State', 'enabled desktop excluded after_crash on_launch login')
DEFAULTS = State(True, True, frozenset(), True, True, 'always')


def switched_on(state):
    """DESIGN.md, "Settings": the effective switch is both keys ANDed."""
    return state.enabled and state.desktop


def now_us():
    """CLOCK_MONOTONIC in µs, the clock of g_get_monotonic_time()."""
    return time.monotonic_ns() // 1000


def expected(state, app, kind):
    """DESIGN.md, "Decisions", rules 2 to 4 and 6."""
    if not switched_on(state):
        return (0, 'disabled')
    if app in state.excluded:
        return (0, 'excluded')
    if kind == LAUNCH and not state.on_launch:
        return (0, 'launch-off')
    if kind == RECOVER and not state.after_crash:
        return (0, 'recover-off')
    if kind == RESTORE and state.login == 'never':
        return (0, 'login-off')
    if kind == RESTORE and state.login == 'ask':
        return (2, 'ask')
    return (1, 'allowed')


class Timeline:
    """The states in the order they were written, each with the times its
    write was issued and observed."""

    def __init__(self, initial):
        self.states = [initial]
        self.issued = [float('-inf')]
        self.ends = [float('inf')]       # ends[i] = observed[i + 1]
        self.answers = [self._answers(initial)]

    @staticmethod
    def _answers(state):
        return {(a, k): expected(state, APPS[a], k) for a in range(len(APPS)) for k in range(4)}

    def add(self, state, issued, observed):
        assert issued >= self.issued[-1] and observed >= issued
        self.ends[-1] = observed
        self.states.append(state)
        self.issued.append(issued)
        self.ends.append(float('inf'))
        self.answers.append(self._answers(state))

    def candidates(self, sent, replied):
        """The indexes of the states that could be in force at some time in
        [sent, replied]: issued[i] <= replied and observed[i+1] >= sent."""
        lo = bisect.bisect_left(self.ends, sent)
        hi = bisect.bisect_right(self.issued, replied) - 1
        return range(lo, hi + 1)


Record = collections.namedtuple('Record', 'client sent replied app kind verdict why')


def parse(line):
    client, sent, replied, app, kind, verdict, why = line.split()
    return Record(int(client), int(sent), int(replied), int(app), int(kind), int(verdict), why)


class Verdicts:
    """What verify() found."""

    def __init__(self):
        self.checked = 0
        self.failed = 0
        self.in_transition = 0
        self.wrong = []
        self.latencies = array.array('q')
        self.first_sent = None
        self.last_replied = None
        self.steady_sample = None        # a right call with one candidate state


def verify(records, timeline):
    result = Verdicts()
    for r in records:
        result.latencies.append(r.replied - r.sent)
        result.first_sent = r.sent if result.first_sent is None else min(result.first_sent, r.sent)
        result.last_replied = max(result.last_replied or r.replied, r.replied)
        if r.verdict < 0:
            result.failed += 1
            continue
        result.checked += 1
        states = timeline.candidates(r.sent, r.replied)
        if len(states) > 1:
            result.in_transition += 1
        allowed = {timeline.answers[i][(r.app, r.kind)] for i in states}
        if (r.verdict, r.why) not in allowed:
            result.wrong.append((r, [timeline.states[i] for i in states], allowed))
        elif len(states) == 1 and result.steady_sample is None:
            result.steady_sample = r
    return result


def percentile(sorted_values, fraction):
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))]


class Churner:
    """Walks the settings through a seeded random sequence of states, one
    write at a time, by gsettings, SetSetting and SetAppExcluded, and
    records each write's issue and observation time."""

    def __init__(self, session, seed):
        self.s = session
        self.rng = random.Random(seed)
        self.state = DEFAULTS
        self.timeline = Timeline(DEFAULTS)
        self.routes = collections.Counter()
        self.context = GLib.MainContext.default()
        self.waiting = None               # (property, predicate on its value)
        self.observed = None
        self.reply = None
        self.subscription = session.bus.signal_subscribe(
            BUS_NAME, 'org.freedesktop.DBus.Properties', 'PropertiesChanged', OBJECT_PATH,
            IFACE, Gio.DBusSignalFlags.NONE, self._on_properties_changed, None)

    def close(self):
        self.s.bus.signal_unsubscribe(self.subscription)

    def _on_properties_changed(self, conn, sender, path, iface, name, params, data):
        seen = now_us()
        _, changed, invalidated = params.unpack()
        if self.waiting is not None and self.observed is None:
            prop, predicate = self.waiting
            if prop in invalidated:
                # App lists are announced by invalidation only (a sandboxed
                # app hears PropertiesChanged too): read the value. One
                # write is in flight at a time, so it is this write's.
                changed = {prop: self.s.prop(prop)}
            if prop in changed and predicate(changed[prop]):
                self.observed = seen

    def _iterate(self, until, what):
        deadline = time.monotonic() + CHANGE_TIMEOUT
        while not until():
            if time.monotonic() > deadline:
                raise AssertionError(f'timed out waiting for {what}; policyd log:\n{self.s.log()[-4000:]}')
            self.context.iteration(False) or time.sleep(0.0005)

    def pause(self, seconds):
        deadline = time.monotonic() + seconds
        self._iterate(lambda: time.monotonic() >= deadline, 'a pause')

    def _next_change(self):
        """(key, route, new state, D-Bus or gsettings arguments)."""
        st, rng = self.state, self.rng
        # Off clears everything and answers everything alike: keep it
        # short. Every change turns the effective switch over, or no
        # PropertiesChanged would say it was seen: on again by SetSetting
        # (both keys), or by gsettings on the one key that is off.
        if not switched_on(st):
            off = [key for key, value in (('enabled', st.enabled), ('save-restore', st.desktop))
                   if not value]
            if len(off) == 2 or rng.random() < 0.5:
                return 'enabled', 'SetSetting', st._replace(enabled=True, desktop=True)
            return off[0], 'gsettings', st._replace(**{FIELDS[off[0]]: True})
        what = rng.choices(
            ['enabled', 'app', 'list', 'restore-after-crash', 'restore-on-launch', 'login-restore'],
            weights=[1, 3, 2, 2, 2, 2])[0]
        if what == 'enabled':
            route = rng.choice(['gsettings', 'gsettings-desktop', 'SetSetting'])
            if route == 'SetSetting':
                return 'enabled', route, st._replace(enabled=False, desktop=False)
            if route == 'gsettings':
                return 'enabled', route, st._replace(enabled=False)
            return 'save-restore', 'gsettings', st._replace(desktop=False)
        if what == 'app':
            app = rng.choice(APPS + [OTHER])
            return 'excluded-apps', 'SetAppExcluded', st._replace(excluded=st.excluded ^ {app}), app
        if what == 'list':
            while True:
                apps = frozenset(a for a in APPS + [OTHER] if rng.random() < 0.4)
                if apps != st.excluded:
                    break
            return 'excluded-apps', rng.choice(['gsettings', 'gsettings', 'SetSetting']), st._replace(excluded=apps)
        if what == 'restore-after-crash':
            return what, rng.choice(['gsettings', 'SetSetting']), st._replace(after_crash=not st.after_crash)
        if what == 'restore-on-launch':
            return what, rng.choice(['gsettings', 'SetSetting']), st._replace(on_launch=not st.on_launch)
        login = rng.choice([v for v in ('always', 'ask', 'never') if v != st.login])
        return what, rng.choice(['gsettings', 'SetSetting']), st._replace(login=login)

    @staticmethod
    def value_of(key, state):
        return {
            'enabled': GLib.Variant('b', state.enabled),
            'save-restore': GLib.Variant('b', state.desktop),
            'excluded-apps': GLib.Variant('as', sorted(state.excluded)),
            'restore-after-crash': GLib.Variant('b', state.after_crash),
            'restore-on-launch': GLib.Variant('b', state.on_launch),
            'login-restore': GLib.Variant('s', state.login),
        }[key]

    def _on_reply(self, conn, result, data):
        try:
            conn.call_finish(result)
            self.reply = 'ok'
        except GLib.Error as e:
            self.reply = e.message

    def step(self):
        key, route, new, *extra = self._next_change()
        value = self.value_of(key, new)
        target = switched_on(new) if WATCHED[key] == 'Enabled' else value.unpack()
        prop = WATCHED[key]
        if key == 'excluded-apps':
            self.waiting = (prop, lambda v: sorted(v) == target)
        else:
            self.waiting = (prop, lambda v: v == target)
        self.observed = None
        self.reply = None

        issued = now_us()
        if route == 'gsettings':
            process = subprocess.Popen(['gsettings', 'set', SCHEMAS.get(key, 'org.gnome.SessionRestore'),
                                        key, value.print_(False)],
                                       env=self.s.env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True)
            self._iterate(lambda: self.observed is not None and process.poll() is not None,
                          f'gsettings set {key} {value.print_(False)}')
            stderr = process.stderr.read()
            process.stderr.close()
            if process.returncode != 0:
                raise AssertionError(f'gsettings set {key}: {stderr}')
        else:
            if route == 'SetAppExcluded':
                method, params = route, GLib.Variant('(sb)', (extra[0], extra[0] in new.excluded))
            else:
                method, params = route, GLib.Variant('(sv)', (key, value))
            self.s.bus.call(BUS_NAME, OBJECT_PATH, IFACE, method, params, None,
                            Gio.DBusCallFlags.NONE, CHANGE_TIMEOUT * 1000, None,
                            self._on_reply, None)
            self._iterate(lambda: self.observed is not None and self.reply is not None,
                          f'{method}{params.print_(False)}')
            if self.reply != 'ok':
                raise AssertionError(f'{method}{params.print_(False)}: {self.reply}')

        self.timeline.add(new, issued, self.observed)
        self.state = new
        self.waiting = None
        self.routes[route] += 1

    def burst(self, count):
        """count writes at once by every route, none waiting for another:
        the order they land in is up to dconf, and no state is tracked."""
        processes, replies = [], []
        for _ in range(count):
            key, route, new, *extra = self._next_change()
            value = self.value_of(key, new)
            if route == 'gsettings':
                processes.append(subprocess.Popen(
                    ['gsettings', 'set', SCHEMAS.get(key, 'org.gnome.SessionRestore'), key,
                     value.print_(False)],
                    env=self.s.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            else:
                if route == 'SetAppExcluded':
                    method, params = route, GLib.Variant('(sb)', (extra[0], self.rng.random() < 0.5))
                else:
                    method, params = route, GLib.Variant('(sv)', (key, value))
                self.s.bus.call(BUS_NAME, OBJECT_PATH, IFACE, method, params, None,
                                Gio.DBusCallFlags.NONE, CHANGE_TIMEOUT * 1000, None,
                                self._on_burst_reply, replies)
            # Only for drawing the next write: what lands last is unknown.
            self.state = new
        self._iterate(lambda: all(p.poll() is not None for p in processes) and
                      len(replies) + len(processes) == count, 'the burst of writes')
        return [p.returncode for p in processes] + replies

    @staticmethod
    def _on_burst_reply(conn, result, replies):
        try:
            conn.call_finish(result)
            replies.append(0)
        except GLib.Error as e:
            replies.append(e.message)


class VerifierTest(unittest.TestCase):
    """The checker itself: a test that cannot fail is a defect."""

    def test_model_follows_design(self):
        off = DEFAULTS._replace(enabled=False, excluded=frozenset({APPS[0]}))
        self.assertEqual(expected(off, APPS[0], SAVE), (0, 'disabled'))
        self.assertEqual(expected(DEFAULTS._replace(desktop=False), APPS[1], SAVE), (0, 'disabled'))
        self.assertEqual(expected(DEFAULTS._replace(excluded=frozenset({APPS[0]}), login='ask'),
                                  APPS[0], RESTORE), (0, 'excluded'))
        self.assertEqual(expected(DEFAULTS._replace(on_launch=False), APPS[1], LAUNCH), (0, 'launch-off'))
        self.assertEqual(expected(DEFAULTS._replace(on_launch=False), APPS[1], SAVE), (1, 'allowed'))
        self.assertEqual(expected(DEFAULTS._replace(after_crash=False), APPS[1], RECOVER), (0, 'recover-off'))
        self.assertEqual(expected(DEFAULTS._replace(login='never'), APPS[1], RESTORE), (0, 'login-off'))
        self.assertEqual(expected(DEFAULTS._replace(login='ask'), APPS[1], RESTORE), (2, 'ask'))
        self.assertEqual(expected(DEFAULTS._replace(login='ask'), APPS[1], LAUNCH), (1, 'allowed'))
        self.assertEqual(expected(DEFAULTS, APPS[3], RECOVER), (1, 'allowed'))

    def test_windows(self):
        # Off issued at 100, seen at 200; on again issued at 300, seen at 400.
        timeline = Timeline(DEFAULTS)
        timeline.add(DEFAULTS._replace(enabled=False), 100, 200)
        timeline.add(DEFAULTS, 300, 400)
        on, off = (1, 'allowed'), (0, 'disabled')
        cases = [
            ((50, 90), on, True), ((50, 90), off, False),       # before: on only
            ((150, 160), on, True), ((150, 160), off, True),    # in the first write
            ((90, 110), off, True),                             # overlaps its issue
            ((250, 260), off, True), ((250, 260), on, False),   # between: off only
            ((210, 350), on, True),                             # overlaps the second write
            ((401, 500), on, True), ((401, 500), off, False),   # after: on only
        ]
        for (sent, replied), answer, right in cases:
            with self.subTest(sent=sent, replied=replied, answer=answer):
                r = Record(0, sent, replied, 0, SAVE, *answer)
                result = verify([r], timeline)
                self.assertEqual(len(result.wrong), 0 if right else 1)
        self.assertEqual(verify([Record(0, 150, 160, 0, SAVE, 1, 'allowed')], timeline).in_transition, 1)
        self.assertEqual(verify([Record(0, 250, 260, 0, SAVE, 0, 'disabled')], timeline).in_transition, 0)
        # A why that no rule gives is wrong even with the right verdict.
        self.assertEqual(len(verify([Record(0, 50, 90, 0, SAVE, 1, 'yes')], timeline).wrong), 1)


class LoadTest(unittest.TestCase):
    def setUp(self):
        self.s = Session(polkit='mock')
        self.addCleanup(self.s.close)
        self.s.start_policyd()

    def test_load_with_settings_churn(self):
        s = self.s
        self.assertTrue(os.access(SR_LOAD, os.X_OK), f'{SR_LOAD} is not built')
        print(f'# seed {SEED} (SR_LOAD_SEED to repeat the churn), {CLIENTS} clients x {CALLS} calls',
              flush=True)
        churner = Churner(s, SEED)
        self.addCleanup(churner.close)
        rng = random.Random(SEED + 1)
        output = os.path.join(s.root, 'calls.txt')
        log = open(os.path.join(s.root, 'sr-load.log'), 'w+')
        self.addCleanup(log.close)

        load = subprocess.Popen([SR_LOAD, output, str(CLIENTS), str(CALLS)], env=s.env,
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            while load.poll() is None:
                churner.step()
                churner.pause(rng.uniform(PAUSE / 2, PAUSE * 1.5))
        finally:
            if load.poll() is None:
                load.kill()
            load.wait()
        log.seek(0)
        load_log = log.read()
        self.assertEqual(load.returncode, 0, f'sr-load failed:\n{load_log}')
        self.assertIsNone(s.policyd.poll(), 'policyd exited')
        warnings = [line for line in s.log().splitlines() if 'WARNING' in line or 'CRITICAL' in line]
        self.assertEqual(warnings, [], 'policyd warned under load')

        with open(output) as f:
            result = verify(map(parse, f), churner.timeline)
        latencies = sorted(result.latencies)
        elapsed = (result.last_replied - result.first_sent) / 1e6
        routes = ', '.join(f'{route} {n}' for route, n in sorted(churner.routes.items()))
        print(f'# {load_log.strip()}', flush=True)
        print(f'# calls: {len(latencies)} total, {len(latencies) / elapsed:.0f}/s; latency under load: '
              f'p50 {percentile(latencies, 0.5) / 1000:.2f} ms, p99 {percentile(latencies, 0.99) / 1000:.2f} ms, '
              f'max {latencies[-1] / 1000:.1f} ms', flush=True)
        print(f'# settings changes applied: {sum(churner.routes.values())} ({routes}); '
              f'calls checked {result.checked}, in a transition window {result.in_transition}, '
              f'wrong verdicts {len(result.wrong)}', flush=True)

        self.assertEqual(len(latencies), CLIENTS * CALLS)
        self.assertEqual(result.failed, 0)
        self.assertEqual(result.checked, CLIENTS * CALLS)
        if result.wrong:
            self.fail(f'{len(result.wrong)} wrong verdicts (seed {SEED}), the first:\n' + '\n'.join(
                f'{r}: could be {sorted(allowed)} from {states}' for r, states, allowed in result.wrong[:5]))
        # The churn must really have happened during the load, by every route.
        self.assertEqual(set(churner.routes), {'gsettings', 'SetSetting', 'SetAppExcluded'})
        self.assertGreaterEqual(sum(churner.routes.values()), 20)
        self.assertLess(churner.timeline.issued[1], result.last_replied)
        # Most calls must be judged against one state, or the check is weak.
        if PAUSE >= 0.2:
            self.assertLess(result.in_transition, result.checked / 2)

        # Self-check: the same verifier flags a corrupted copy of a right answer.
        sample = result.steady_sample
        self.assertIsNotNone(sample)
        for verdict in [(0, 'disabled'), (1, 'allowed'), (2, 'ask'), (0, 'excluded')]:
            if verdict != (sample.verdict, sample.why):
                corrupted = sample._replace(verdict=verdict[0], why=verdict[1])
                self.assertEqual(len(verify([corrupted], churner.timeline).wrong), 1, corrupted)

        # At the end, the properties are what gsettings says, and what was
        # written last (its PropertiesChanged has been seen).
        self.assertPropertiesAreGsettings()
        props = s.all_props()
        for key, prop in PROPS.items():
            want = (switched_on(churner.state) if key == 'enabled'
                    else Churner.value_of(key, churner.state).unpack())
            got = sorted(props[prop]) if key == 'excluded-apps' else props[prop]
            self.assertEqual(got, want, key)

        # And after writes that race each other, they come to agree again.
        self.assertEqual(churner.burst(BURST), [0] * BURST)
        burst_done, looks = time.monotonic(), []
        s.wait_until(lambda: looks.append(1) or self.propertiesAreGsettings(), timeout=20,
                     what='the properties to equal gsettings after a burst of writes')
        print(f'# then {BURST} racing writes: the properties equal gsettings '
              f'{(time.monotonic() - burst_done) * 1000:.0f} ms after the last returned '
              f'(look {len(looks)})', flush=True)
        self.assertPropertiesAreGsettings()

    def gsettings_all(self):
        """{key: value} by one `gsettings list-recursively`; "enabled" the
        effective switch, ours and GNOME's ANDed."""
        values = {}
        for line in self.s.gsettings('list-recursively').splitlines():
            _, key, text = line.split(' ', 2)
            values[key] = GLib.Variant.parse(None, text, None, None).unpack()
        values['enabled'] = values['enabled'] and self.s.gsettings_value('save-restore', DESKTOP_SCHEMA)
        return values

    def propertiesAreGsettings(self):
        props, values = self.s.all_props(), self.gsettings_all()
        return all(props[prop] == values[key] for key, prop in ALL_KEYS.items())

    def assertPropertiesAreGsettings(self):
        props, values = self.s.all_props(), self.gsettings_all()
        for key, prop in ALL_KEYS.items():
            self.assertEqual(props[prop], values[key], key)
        self.assertEqual(props['Version'], 5)
        self.assertEqual(props['LockedSettings'], [])
