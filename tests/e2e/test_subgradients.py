"""The adjoint of every non-smooth builtin evaluated exactly at its kinks and singular points,
compared with the values docs/subgradients.md documents (written here by hand): abs at 0, ties
of min/max, clamp at its bounds, sign, floor, sqrt at 0, normalize of a zero vector, ..., for
float64, float32 and float16 overloads."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import builtin_cases as bc
from tests.support.gradient_cases import KNOWN_BROKEN_GRADIENTS
from tests.support.gradient_harness import _Batch, _rows, check_cases, reproducer
from tests.support.subgradient_cases import SUBGRADIENT_ROWS, _row

f32, f64 = bc.f32, bc.f64
vec, tname = bc.vec, bc.tname


@pytest.fixture(scope="module")
def subgradient_results(tmp_path_factory):
    rows = [r for r in SUBGRADIENT_ROWS if r.id not in KNOWN_BROKEN_GRADIENTS]
    return check_cases(rows, tmp_path_factory.mktemp("subgradients"), "subgradients", per_kernel=40)


@pytest.mark.slow
@pytest.mark.needs_cxx
@pytest.mark.parametrize("row_id", [r.id for r in SUBGRADIENT_ROWS if r.id not in KNOWN_BROKEN_GRADIENTS])
def test_subgradient(row_id, subgradient_results):
    """The adjoint at a kink or singular point is the value docs/subgradients.md documents."""
    errors = subgradient_results[row_id]
    case = next(r for r in SUBGRADIENT_ROWS if r.id == row_id)
    assert not errors, f"{row_id}:\n" + "\n".join(errors) + "\n\nreproducer:\n" + reproducer(case)


@pytest.mark.needs_cxx
def test_min_max_of_one_vector_at_a_tie(tmp_path):
    """min(v) / max(v) with tied components (not in the table): a valid subgradient sends the
    whole gradient to one component holding the extreme value (one-hot)."""
    rows = []
    for fn in ("min", "max"):
        for t in (f32, f64):
            vt = vec(4, t)
            ext = -1.0 if fn == "min" else 3.0
            rows.append(_row(f"{fn}(v) tie ({tname(vt)})", f"wp.{fn}({{0}})", (vt,),
                             [([ext, 0.5, ext, 1.0],), ([0.5, ext, 1.0, ext],), ([ext] * 4,)],
                             [np.zeros((1, 4))], out_type=t))
    results = {}
    text = bc.KernelModule([[r.as_case() for r in rows]])
    module = bc.import_source(tmp_path / "vec_ties.py", text.source())
    batch = _Batch(module.k0, rows)
    jac = batch.adjoint_jacobians()
    for ci, r in enumerate(rows):
        v = _rows(batch.arrays[ci]["a0"])
        for p in range(3):
            g = jac[ci][p, 0]
            ext = v[p].min() if r.id.startswith("min") else v[p].max()
            ok = np.count_nonzero(g) == 1 and g.sum() == 1.0 and v[p][np.argmax(g)] == ext
            if not ok:
                results[f"{r.id} point {p}"] = f"gradient {g} for v = {v[p]}"
    assert not results, results
