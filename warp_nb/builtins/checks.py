"""In-kernel checks (expect.h): `wp.expect_eq`, `expect_neq`, `expect_near`. A failed check prints
a line and the kernel goes on, as in Warp (whose tests count any output as a failure). From
Python they compare the values and print the same line."""

import numpy as np

from .. import types as T
from .registry import FLOAT, AnyType, Mat, Quat, Scalar, Vec, builtin, ov

_any = AnyType("A")
_c = dict(header="core/expect.h", category="checks", side_effects=True, differentiable=False)


def _python(name, failed):
    def check(a, b, *tolerance):
        if failed(np.asarray(getattr(a, "value", a)), np.asarray(getattr(b, "value", b)), *tolerance):
            print(f"Error, {name}() failed:\n\t{a} vs {b}")
    return check


builtin("expect_eq", ov(_any, _any, names=("a", "b")), python=_python("expect_eq", lambda a, b: not np.all(a == b)),
        doc="Print an error when a != b (every component of a composite is compared).", **_c)
builtin("expect_neq", ov(_any, _any, names=("a", "b")), python=_python("expect_neq", lambda a, b: np.all(a == b)),
        doc="Print an error when a == b.", **_c)
F = Scalar("T", FLOAT)
builtin("expect_near", ov(F, F, F, names=("a", "b", "tolerance")), ov(F, F, names=("a", "b")),
        ov(Vec("n", F), Vec("n", F), F, names=("a", "b", "tolerance")), ov(Vec("n", F), Vec("n", F), names=("a", "b")),
        ov(Quat(F), Quat(F), F, names=("a", "b", "tolerance")), ov(Quat(F), Quat(F), names=("a", "b")),
        ov(Mat("r", "c", F), Mat("r", "c", F), F, names=("a", "b", "tolerance")),
        ov(Mat("r", "c", F), Mat("r", "c", F), names=("a", "b")),
        python=_python("expect_near", lambda a, b, tol=1e-6: not np.all(np.abs(a - b) <= tol)),
        doc="Print an error when a and b differ by more than tolerance (default 1e-6) in any component.", **_c)

del T
