#!/usr/bin/python3
"""Runs one test module's unittest cases and reports them as TAP.

Each case is its own TAP line, so meson counts (and CI sees) every case;
a skip is reported as a skip, never as a pass.
"""
import importlib.util
import os
import sys
import traceback
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.number = 0
        self.failed_subtests = []   # the running case's, as diagnostics

    def _line(self, ok, test, directive=''):
        self.number += 1
        print(f"{'ok' if ok else 'not ok'} {self.number} - {test.id()}{directive}", flush=True)
        self._flush_subtests()

    def _flush_subtests(self):
        for text in self.failed_subtests:
            self._diag(text)
        self.failed_subtests = []

    def startTest(self, test):
        super().startTest(test)
        self.lines_before = self.number

    # unittest reports a case whose subTest failed through this alone: no
    # addFailure follows, so without stopTest's line the case would have
    # none, and its diagnostics would be lost.
    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.failed_subtests.append(f'{subtest.id()}:\n' + ''.join(traceback.format_exception(*err)))

    def stopTest(self, test):
        if self.number == self.lines_before and self.failed_subtests:
            self._line(False, test)
        super().stopTest(test)

    def _diag(self, text):
        for line in text.rstrip().splitlines():
            print(f'# {line}', flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(False, test)
        self._diag(''.join(traceback.format_exception(*err)))

    def addError(self, test, err):
        super().addError(test, err)
        self._line(False, test)
        self._diag(''.join(traceback.format_exception(*err)))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._line(True, test, f' # SKIP {reason}')

    # TAP's TODO: "not ok # TODO" is the expected failure; "ok # TODO" an
    # unexpected pass, which meson counts as a failure of the test.
    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._line(False, test, ' # TODO expected failure')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._line(True, test, ' # TODO passed, but was expected to fail')


def load(path):
    """The test module at path, under its own name (so that test ids read
    test_settings.SettingsTest.test_...). What it imports comes from
    PYTHONPATH (tests/lib), which tests/meson.build sets."""
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def chosen(suite, spec):
    """The cases of suite whose id (module.Class.test_name) holds one of
    spec's comma-separated parts; with a leading "!", those that hold none
    of them. The meson.build files run a long file as several tests, one
    per group of cases, and the last group as "!" the others: a case added
    later is never left out."""
    exclude = spec.startswith('!')
    parts = spec.lstrip('!').split(',')
    flat = []

    def walk(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                walk(t)
            elif any(part in t.id() for part in parts) != exclude:
                flat.append(t)
    walk(suite)
    return unittest.TestSuite(flat)


def main():
    module = load(os.path.abspath(sys.argv[1]))
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    if len(sys.argv) > 2:
        suite = chosen(suite, sys.argv[2])
        if suite.countTestCases() == 0:
            # A group that lost its cases (a class renamed) is a mistake,
            # not a pass.
            print(f'Bail out! no case matches {sys.argv[2]!r}', flush=True)
            return 1
    print(f'1..{suite.countTestCases()}', flush=True)
    result = TapResult()
    suite.run(result)
    return 0 if result.wasSuccessful() else 1


if __name__ == '__main__':
    sys.exit(main())
