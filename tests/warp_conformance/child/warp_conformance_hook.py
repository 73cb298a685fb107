"""Import hook that makes Warp's own test files run against warp_nb with only the import changed.

Installed in every child process of the conformance runner (tests/warp_conformance/run.py):

- ``import warp`` gives the ``warp_nb`` module object itself, so ``warp.foo is warp_nb.foo``;
- ``warp.X`` (and ``warp.X.Y``) is ``warp_nb.X`` when warp_nb has that submodule; otherwise the
  import fails with a plain ModuleNotFoundError naming what warp_nb lacks;
- ``warp.tests`` and ``warp.examples`` are the packages unpacked from the pinned warp-lang wheel
  (directory given by the WARP_NB_CONFORMANCE_DATA environment variable, which holds ``warp/``),
  so ``from warp.tests.unittest_utils import *`` works.

Processes started by the tests themselves (``python -c "import warp ..."``) get the same hook
through ``child/shim/warp/__init__.py`` on PYTHONPATH.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

TARGET = "warp_nb"
DATA_PACKAGES = ("tests", "examples")  # taken from the unpacked wheel, never from warp_nb
DATA_ENV = "WARP_NB_CONFORMANCE_DATA"


class _AliasLoader(importlib.abc.Loader):
    """Loads ``warp.<name>`` as the already importable module ``warp_nb.<name>`` (same object)."""

    def __init__(self, target):
        self.target = target
        self._spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        # the import machinery overwrites __spec__ on the module it is handed; put it back in
        # exec_module so that warp_nb.X keeps describing itself
        self._spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module):
        if self._spec is not None:
            module.__spec__ = self._spec


class WarpAliasFinder(importlib.abc.MetaPathFinder):
    def __init__(self, data_dir):
        self.data_dir = data_dir

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "warp" and not fullname.startswith("warp."):
            return None
        parts = fullname.split(".")
        if len(parts) >= 2 and parts[1] in DATA_PACKAGES:
            if len(parts) > 2:
                return None  # found by the normal path finder through warp.tests.__path__
            pkg_dir = os.path.join(self.data_dir, "warp", parts[1])
            init = os.path.join(pkg_dir, "__init__.py")
            if not os.path.isfile(init):
                raise ModuleNotFoundError(f"No module named {fullname!r} (no {init})", name=fullname)
            return importlib.util.spec_from_file_location(fullname, init, submodule_search_locations=[pkg_dir])
        target_name = TARGET + fullname[len("warp"):]
        try:
            found = importlib.util.find_spec(target_name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r} (warp_nb has no module {target_name!r})", name=fullname
            )
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(target_name), is_package=found.submodule_search_locations is not None
        )


PROBE_ENV = "WARP_NB_CONFORMANCE_PROBE"


def _probe_stand_ins():
    """Diagnostic only (run.py --probe, never for --check or the expectations): give warp_nb the
    few things Warp's test harness itself calls (unittest_utils.get_test_devices and
    create_test_func) when it lacks them, so that a run shows what the tests need beyond them."""
    import warp_nb

    added = []
    if not hasattr(warp_nb, "is_cpu_available"):
        warp_nb.is_cpu_available = lambda: True
        added.append("is_cpu_available")
    if not hasattr(warp_nb.config, "enable_cpu_blocks"):
        warp_nb.config.enable_cpu_blocks = False
        added.append("config.enable_cpu_blocks")
    return added


CUDA_ONLY_ENV = "WARP_NB_CONFORMANCE_CUDA_ONLY"


def _hide_cpu_from_test_devices():
    """Diagnostic only (run.py --cuda-only, on a machine with a GPU): Warp's test harness gets no
    CPU test device (its get_cpu_test_devices returns none), which leaves the CUDA cases alone,
    whose results the CPU runs never see. Kernels a test launches on "cpu" itself still run, and
    wp.is_cpu_available() keeps its answer (warp_nb's JAX operations ask it)."""
    import importlib

    utils = importlib.import_module("warp.tests.unittest_utils")
    utils.get_cpu_test_devices = lambda: []


def install(data_dir=None):
    """Put the finder first on sys.meta_path (idempotent) and return it."""
    for finder in sys.meta_path:
        if isinstance(finder, WarpAliasFinder):
            return finder
    data_dir = data_dir or os.environ.get(DATA_ENV)
    if not data_dir:
        raise RuntimeError(f"{DATA_ENV} is not set: where are warp/tests and warp/examples unpacked?")
    finder = WarpAliasFinder(os.path.abspath(data_dir))
    sys.meta_path.insert(0, finder)
    if os.environ.get(PROBE_ENV):
        _probe_stand_ins()
    if os.environ.get(CUDA_ONLY_ENV):
        _hide_cpu_from_test_devices()
    # a 'warp' imported before the hook (the shim package itself) is replaced by warp_nb
    if "warp" in sys.modules and sys.modules["warp"].__name__ != TARGET:
        del sys.modules["warp"]
    return finder
