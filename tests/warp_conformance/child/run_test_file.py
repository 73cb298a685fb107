"""Child process of the conformance runner: import one Warp test module, run its unittest cases,
and append one JSON line per event to the results file (so a crash loses nothing recorded).

    python run_test_file.py --module warp.tests.test_vec --out results.jsonl [--hook] [--skip ids.txt]

Lines written: {"header": ...} once the module imported (with every case id), {"start": id}
before each case, {"case": id, "status": ..., "reason": ...} after it, {"import_error": ...} if
the module does not import, {"done": true} at the end. Statuses: pass, fail, error, skip.
"""

import argparse
import faulthandler
import json
import os
import re
import sys
import time
import traceback
import unittest

_PATH = re.compile(r"(?<![\w.])(?:/[\w.+-]+)+/([\w.+-]+)")


def _first_line(text):
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()
    return ""


def summarize(exc_type, exc, tb, test_file=None, limit=300):
    """'ExcType: first line of message [file.py:line in func]', the frame being the last one in
    the test file (or the last one at all when the test file is not on the stack)."""
    name = exc_type.__name__ if exc_type is not None else "Error"
    msg = _first_line(exc) if exc is not None else ""
    # absolute paths differ between machines: keep the file name
    msg = _PATH.sub(lambda m: m.group(1), msg)
    head = f"{name}: {msg}" if msg else name
    if len(head) > limit:
        head = head[: limit - 3] + "..."
    frames = traceback.extract_tb(tb) if tb is not None else []
    where = None
    if test_file:
        test_file = os.path.realpath(test_file)
        for fr in frames:
            if os.path.realpath(fr.filename) == test_file:
                where = fr
    if where is None and frames:
        where = frames[-1]
    if where is not None:
        head += f" [{os.path.basename(where.filename)}:{where.lineno} in {where.name}]"
    return head


def case_id(test):
    # unittest ids are module.Class.method; the runner names cases Class.method
    parts = test.id().split(".")
    return ".".join(parts[-2:])


_RANK = {None: 0, "pass": 1, "skip": 2, "fail": 3, "error": 3}  # a worse outcome replaces a better one


class RecordingResult(unittest.TestResult):
    def __init__(self, writer, test_file):
        super().__init__()
        self.writer = writer
        self.test_file = test_file
        self.current = {}
        self.fixture_errors = []

    def _reason(self, err):
        return summarize(err[0], err[1], err[2], self.test_file)

    def startTest(self, test):
        super().startTest(test)
        cid = case_id(test)
        self.current[cid] = {"status": None, "reason": "", "t0": time.perf_counter()}
        self.writer({"start": cid})

    def _set(self, test, status, reason=""):
        test = getattr(test, "test_case", test)  # a skipped subTest reports itself
        if not isinstance(test, unittest.TestCase) or case_id(test) not in self.current:
            # an error outside a test: setUpClass/setUpModule/tearDownClass (an _ErrorHolder)
            self.fixture_errors.append(f"{test}: {reason}")
            self.writer({"fixture_error": str(test), "reason": reason})
            return
        rec = self.current[case_id(test)]
        # the first failure (a subTest's or the test's own) is the reason; pass never overrides
        if _RANK[status] > _RANK[rec["status"]]:
            rec["status"], rec["reason"] = status, reason

    def addSuccess(self, test):
        super().addSuccess(test)
        self._set(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._set(test, "fail", self._reason(err))

    def addError(self, test, err):
        super().addError(test, err)
        self._set(test, "error", self._reason(err))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._set(test, "skip", _first_line(reason)[:300])

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._set(test, "pass", "expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._set(test, "fail", "unexpected success of an expectedFailure test")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            status = "fail" if issubclass(err[0], test.failureException) else "error"
            self._set(test, status, f"subTest {subtest._subDescription()}: {self._reason(err)}")

    def stopTest(self, test):
        super().stopTest(test)
        cid = case_id(test)
        rec = self.current.pop(cid, None)
        if rec is None:
            return
        status = rec["status"] or "error"
        reason = rec["reason"] if rec["status"] else "the test reported no outcome"
        self.writer({"case": cid, "status": status, "reason": reason,
                     "time": round(time.perf_counter() - rec["t0"], 3)})


def iter_tests(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from iter_tests(item)
        else:
            yield item


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hook", action="store_true", help="resolve warp to warp_nb")
    ap.add_argument("--skip", help="file with case ids (Class.method) not to run")
    args = ap.parse_args()

    out = open(args.out, "a", buffering=1, encoding="utf-8")  # noqa: SIM115  (open until os._exit)

    def write(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()
        os.fsync(out.fileno())

    faulthandler.enable()  # a crash prints the Python stack into the log
    if args.hook:
        import warp_conformance_hook

        warp_conformance_hook.install()

    import importlib
    import importlib.util

    t0 = time.perf_counter()
    test_file = None
    try:
        spec = importlib.util.find_spec(args.module)
        test_file = spec.origin if spec else None
        module = importlib.import_module(args.module)
        loader = unittest.TestLoader()
        suite = loader.loadTestsFromModule(module)
        tests, seen = [], set()
        for t in iter_tests(suite):
            # only the module's own TestCase classes (not ones it imported) and each case once
            if type(t).__module__ != module.__name__ and not t.id().startswith("unittest.loader"):
                continue
            cid = case_id(t)
            if cid in seen:
                continue
            seen.add(cid)
            tests.append(t)
    except BaseException as e:  # noqa: BLE001  (SystemExit from a test module counts too)
        write({"import_error": summarize(type(e), e, e.__traceback__, test_file),
               "time": round(time.perf_counter() - t0, 3)})
        traceback.print_exc()
        write({"done": True})
        return 0

    import warp

    write({"header": {"module": args.module, "file": getattr(module, "__file__", None),
                      "warp": getattr(warp, "__file__", None), "warp_name": warp.__name__,
                      "warp_version": getattr(warp, "__version__", None),
                      "cases": [case_id(t) for t in tests],
                      "import_time": round(time.perf_counter() - t0, 3)}})

    skip = set()
    if args.skip and os.path.exists(args.skip):
        with open(args.skip, encoding="utf-8") as f:
            skip = {line.strip() for line in f if line.strip()}
    to_run = unittest.TestSuite([t for t in tests if case_id(t) not in skip])
    result = RecordingResult(write, getattr(module, "__file__", None))
    to_run.run(result)
    # cases that never started (their setUpClass failed) are errors with the fixture's reason
    write({"done": True, "fixture_errors": result.fixture_errors})
    out.close()
    sys.stdout.flush()
    sys.stderr.flush()
    # skip interpreter teardown: some native libraries crash in atexit handlers, which would
    # turn a finished run into a 'crash'
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
