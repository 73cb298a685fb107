"""The conformance runner's example options (examples.txt `ignore=`, `state=`, `printed=`, `device=`) and
the state of an example that binds no `example` instance (the globals named by `state=`, the numbers it
prints on the lines `printed=` finds)."""

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
                    "tile/c -N 64 device=default\n"
                    "geometry/d --num-samples 4 printed=^envelope\n")
    a, b, c, d = setup.example_entries(path)
    none = {"ignore": set(), "state": None, "printed": None, "device": "cpu"}
    assert a == ("core/a", ["--num-frames", "2"], {**none, "ignore": {"buf", "other"}})
    assert b == ("tile/b", ["--headless"], {**none, "state": ["L_wp", "Y_wp"]})
    assert c == ("tile/c", ["-N", "64"], {**none, "device": "default"})
    assert d == ("geometry/d", ["--num-samples", "4"], {**none, "printed": "^envelope"})


def test_an_unknown_device_option_is_refused(tmp_path):
    path = tmp_path / "examples.txt"
    path.write_text("tile/b device=cuda\n")
    with pytest.raises(SystemExit, match="device= takes"):
        setup.example_entries(path)


def test_the_real_examples_txt_parses_and_its_tile_examples_have_state():
    entries = {name: opts for name, _, opts in setup.example_entries(HERE / "examples.txt")}
    assert entries["tile/example_tile_cholesky"]["state"] == ["L_wp", "Y_wp"]
    assert entries["tile/example_tile_nbody"]["device"] == "default"
    assert entries["geometry/example_swept_volume"]["printed"] == "^envelope"


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


def test_a_dotted_state_name_reaches_an_attribute():
    holder = _Solver()
    holder.iso = _Solver()
    prints = run_example.fingerprint_globals({"example": holder}, ["example", "example.iso"])
    assert sorted(prints) == ["example.L", "example.iso.L"]


def test_printed_numbers_on_the_lines_the_regex_finds():
    text = ("example1:\n[ 0.  2.5 -4.]\n [[ 1.5e-03 -2.]]\nModule __main__ 3f2 load took 12.5 ms\n"
            "envelope: 1978 vertices, 3952 triangles\nenvelope AABB: min [-1.92  -0.369]  max [2.042 .5]\n")
    assert run_example.printed_numbers(text, r"^\s*\[") == [0.0, 2.5, -4.0, 1.5e-3, -2.0]
    # digits inside a word (`example1`, `vec3`) are no numbers
    assert run_example.printed_numbers(text, r"^env") == [1978.0, 3952.0, -1.92, -0.369, 2.042, 0.5]
    assert run_example.printed_numbers(text, r"^example") == []


def test_a_baseline_run_without_an_optional_package_keeps_the_entry(tmp_path, monkeypatch):
    import json

    import run

    path = tmp_path / "baseline.json"
    old = {"args": [], "status": "pass", "fingerprint": {"printed": {"shape": [3]}}}
    path.write_text(json.dumps({"files": {}, "examples": {"interop/example_jax_kernel": old}}))
    monkeypatch.setattr(run, "BASELINE", str(path))
    monkeypatch.setattr(run, "missing_optional", lambda python: {"examples/interop/example_jax_kernel": "jax"})
    error = {"status": "error", "reason": "ModuleNotFoundError: No module named 'jax'"}
    fresh = {"status": "pass", "fingerprint": None, "note": "no state"}
    run.write_baseline([], [("interop/example_jax_kernel", []), ("core/example_new", [])], {},
                       {"interop/example_jax_kernel": error, "core/example_new": fresh}, 1.0, "python")
    written = json.loads(path.read_text())["examples"]
    assert written["interop/example_jax_kernel"] == old  # not overwritten by the error
    assert written["core/example_new"]["status"] == "pass"
