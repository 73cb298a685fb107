"""The conformance runner's example options (examples.txt `ignore=`, `state=`, `device=`) and the
state of an example that binds no `example` instance (the globals named by `state=`)."""

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parents[1] / "warp_conformance"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "child"))
import conformance_setup as setup
import run_example


def test_options_are_split_from_the_examples_arguments(tmp_path):
    path = tmp_path / "examples.txt"
    path.write_text("# comment\n"
                    "core/a --num-frames 2 ignore=buf ignore=other\n"
                    "tile/b --headless state=L_wp,Y_wp\n"
                    "tile/c -N 64 device=default\n")
    a, b, c = setup.example_entries(path)
    assert a == ("core/a", ["--num-frames", "2"], {"ignore": {"buf", "other"}, "state": None, "device": "cpu"})
    assert b == ("tile/b", ["--headless"], {"ignore": set(), "state": ["L_wp", "Y_wp"], "device": "cpu"})
    assert c == ("tile/c", ["-N", "64"], {"ignore": set(), "state": None, "device": "default"})


def test_an_unknown_device_option_is_refused(tmp_path):
    path = tmp_path / "examples.txt"
    path.write_text("tile/b device=cuda\n")
    with pytest.raises(SystemExit, match="device= takes"):
        setup.example_entries(path)


def test_the_real_examples_txt_parses_and_its_tile_examples_have_state():
    entries = {name: opts for name, _, opts in setup.example_entries(HERE / "examples.txt")}
    assert entries["tile/example_tile_cholesky"]["state"] == ["L_wp", "Y_wp"]
    assert entries["tile/example_tile_nbody"]["device"] == "default"


class _Solver:
    def __init__(self):
        self.L = np.array([[1.0, 0.0], [2.0, 3.0]])
        self.size = 7  # not an array: no summary
        self.cls = np.ndarray  # a type, not an array


def test_state_of_named_globals_arrays_and_objects():
    g = {"Y_wp": np.array([1.0, -3.0, np.nan]), "solver": _Solver(), "n": 4}
    prints = run_example.fingerprint_globals(g, ["Y_wp", "solver", "n", "missing"])
    assert sorted(prints) == ["Y_wp", "solver.L"]
    y = prints["Y_wp"]
    assert y["shape"] == [3] and y["nan"] == 1
    assert y["mean"] == -1.0 and y["min"] == -3.0 and y["max"] == 1.0
    assert prints["solver.L"]["mean"] == 1.5 and prints["solver.L"]["shape"] == [2, 2]


def test_state_of_an_instance_is_unprefixed():
    prints = run_example.fingerprint(_Solver())
    assert list(prints) == ["L"] and prints["L"]["rms"] == pytest.approx(np.sqrt(14 / 4), rel=1e-6)
