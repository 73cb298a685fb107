"""What the *_against_warp tools share: each runs the same work in warp-lang's process and in
warp_nb's, each side a `python -m <tool> --side <module> ...` of its own, and compares what they
wrote. Here: their common command line (`--seed`, `--warp-python`: the conformance runner's
baseline venv by default, and the sides' `--side`, `--out`), running a side, and running one that
appends one JSON line per case, restarted after a case that kills its process (warp-lang dies of
SIGFPE on an integer division by zero)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WARP_PYTHON = os.path.expanduser("~/.cache/warp_nb/conformance/venv-warp/bin/python")


def parser(doc: str) -> argparse.ArgumentParser:
    """A tool's command line: its docstring's first paragraph, --seed and --warp-python, and the
    hidden --side and --out its sides take (a tool adds what else it needs)."""
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--warp-python", default=WARP_PYTHON,
                   help="a Python with warp-lang installed (default: the conformance runner's baseline venv)")
    p.add_argument("--side", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    return p


def run_side(python: str, tool: str, side_args: list, cwd=ROOT) -> None:
    """One side of `tool` (a module name) in `python`, to its end; output on stdout is dropped."""
    subprocess.run([python, "-m", tool, *side_args], cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def run_both_npz(tool: str, warp_python: str, side_args: list, prefix: str) -> dict:
    """Each side of `tool` in its own process (warp-lang in `warp_python`, warp_nb in this one, both
    on the CPU), each writing an .npz: {"warp": {key: array}, "warp_nb": {...}}."""
    import sys
    import tempfile

    import numpy as np

    os.environ["CUDA_VISIBLE_DEVICES"] = ""  # warp-lang on the CPU, as warp_nb
    results = {}
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        for side, python in (("warp", warp_python), ("warp_nb", sys.executable)):
            out = os.path.join(tmp, f"{side}.npz")
            run_side(python, tool, ["--side", side, "--out", out, *side_args])
            results[side] = dict(np.load(out))
    return results


def hash_str(s) -> int:
    """A stable hash of a case's key (Python's hash() of a str changes per process)."""
    if isinstance(s, int):
        return s
    h = 0
    for ch in str(s):
        h = (h * 131 + ord(ch)) % (1 << 61)
    return h


def run_restarting(python: str, tool: str, side_args: list, out_path: str, count: int) -> list:
    """A side that appends one JSON line per case to `out_path`, taking `--start K` to begin at
    case K, run until it has written `count` lines; a case that kills the process is written as
    {"err": "crash ..."} and the side restarted after it. Returns the lines, parsed."""
    Path(out_path).write_text("")
    while True:
        done = sum(1 for _ in open(out_path))
        if done >= count:
            return [json.loads(line) for line in open(out_path)]
        proc = subprocess.run([python, "-m", tool, *side_args, "--out", out_path, "--start", str(done)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if proc.returncode != 0 and sum(1 for _ in open(out_path)) == done:  # died on case `done` itself
            with open(out_path, "a") as out:
                out.write(json.dumps({"err": f"crash (exit status {proc.returncode}): {proc.stderr[-200:]}"}) + "\n")


def load_source(path: Path, source: str):
    """`source` written to `path` and imported as a module of that file's name: a side's generated
    kernels, which warp-lang and warp_nb read from a file (they look up a kernel's source)."""
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
