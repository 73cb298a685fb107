"""Test setup: an isolated kernel cache per test session (so compile counts are meaningful and
the user's cache is untouched), the IR verifier on between compiler stages, skips for what this
machine lacks, tests marked `run_last` moved to the end (they look at what the whole session
compiled), Warp's conformance run started in the background when the session will check it, the
summaries tests report printed after the run, and each test's time kept in pytest's cache
(`.pytest_cache/v/warp_nb/durations`: the slowest first, to keep CI under its time without a
`--durations` that would change the README's command)."""

import os
import shutil
import tempfile

import pytest

_CACHE = tempfile.mkdtemp(prefix="warp_nb_test_cache_")
os.environ["WARP_NB_CACHE_DIR"] = _CACHE

import warp_nb as wp  # noqa: E402  (after the cache directory is chosen)

wp.config.kernel_cache_dir = _CACHE
wp.config.verify_ir = True  # every test checks the IR invariants between stages

_HAS_CXX = bool(os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or shutil.which("clang++"))


def pytest_addoption(parser):
    parser.addoption("--fuzz-count", default=None, help="kernels the differential fuzzer generates (tests/fuzz)")
    parser.addoption("--fuzz-seed", default=None, help="seed of the differential fuzzer (tests/fuzz)")


def pytest_collection_modifyitems(config, items):
    skip_cxx = pytest.mark.skip(reason="no C++ compiler on this machine (install g++ or set CXX)")
    for item in items:
        if "needs_cxx" in item.keywords and not _HAS_CXX:
            item.add_marker(skip_cxx)
    # stable: the rest keep their order; last the one that waits for the background conformance run
    items.sort(key=lambda item: 2 if item.nodeid.endswith("::test_warp_conformance") else int("run_last" in item.keywords))


def pytest_collection_finish(session):
    # Warp's suite starts now, in the background, when the session will check it (it overlaps the rest)
    from tests.warp_conformance import background
    if not session.config.option.collectonly:
        background.start(session.items)


def pytest_terminal_summary(terminalreporter):
    from tests.support.report import SUMMARIES
    for text in SUMMARIES:
        terminalreporter.write_line(text)


@pytest.fixture
def fresh_cache(tmp_path):
    """A private, empty kernel cache for one test (restores the session cache afterwards)."""
    old = wp.config.kernel_cache_dir
    wp.config.kernel_cache_dir = str(tmp_path / "cache")
    try:
        yield tmp_path / "cache"
    finally:
        wp.config.kernel_cache_dir = old


_DURATIONS: dict = {}


def pytest_runtest_logreport(report):
    _DURATIONS[report.nodeid] = _DURATIONS.get(report.nodeid, 0.0) + report.duration  # setup, call, teardown


def pytest_sessionfinish(session, exitstatus):
    from tests.warp_conformance import background
    cache = getattr(session.config, "cache", None)
    if cache is not None and _DURATIONS:
        slowest = sorted(_DURATIONS.items(), key=lambda kv: -kv[1])
        cache.set("warp_nb/durations", {"total_s": round(sum(_DURATIONS.values()), 1),
                                        "slowest": [[node, round(t, 2)] for node, t in slowest[:300]]})
    background.stop()  # (a session that never reached the conformance test)
    shutil.rmtree(_CACHE, ignore_errors=True)
