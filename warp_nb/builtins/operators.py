"""Operators (+ - * / // % ** @, comparisons, bit operations) for scalars, vectors, matrices,
quaternions and transforms. The C++ lives in scalar.h, vec.h, mat.h, quat.h, transform.h."""

from .registry import (ANY_SCALAR, FLOAT, INT, NUMERIC, AnyType, Mat, Quat, Scalar, Tile, Transform, Vec, builtin, ov,
                       same)
from .. import types as T

N = Scalar("T", NUMERIC)
F = Scalar("T", FLOAT)
I = Scalar("T", INT)  # noqa: E741
VN, MN = Vec("n", N), Mat("r", "c", N)
BOOLEAN = ("bool",)


def _vec(b):
    return T.vector(b["n"], b["T"])


def _mat(b):
    return T.matrix((b["r"], b["c"]), b["T"])


TN = Tile("S", N)
#: tiles: elementwise with a tile of the same shape and element type, or with a scalar (tile.h)
_tile_ops = (ov(TN, TN, ret=TN), ov(TN, N, ret=TN), ov(N, TN, ret=TN))


def _explain_tiles(op: str):
    """Tiles of different shapes or element types: say which (Warp broadcasts nothing implicitly)."""
    def explain(arg_types):
        tiles = [t for t in arg_types if isinstance(t, T.TileType)]
        if len(tiles) == 2 and tiles[0] != tiles[1]:
            return (f"tile {op} tile needs tiles of the same shape and dtype, got {T.type_name(tiles[0])} and "
                    f"{T.type_name(tiles[1])}; use wp.tile_broadcast, wp.tile_reshape or wp.tile_astype first")
        return None
    return explain


# the headers of vector, matrix, quaternion and transform overloads come in with their types
_elementwise = dict(header="core/scalar.h", category="operators")

builtin("add", ov(N, N, ret=same("T")), ov(VN, VN, ret=Vec("n", N)),
        ov(MN, MN, ret=Mat("r", "c", N)), ov(Quat(), Quat(), ret=Quat()), ov(Transform(), Transform(), ret=Transform()), *_tile_ops,
        explain=_explain_tiles("+"),
        doc="a + b for scalars, vectors, matrices, quaternions, transforms and tiles (elementwise).", split="elementwise", **_elementwise)
builtin("sub", ov(N, N, ret=same("T")), ov(VN, VN, ret=Vec("n", N)), ov(MN, MN, ret=Mat("r", "c", N)),
        ov(Quat(), Quat(), ret=Quat()), ov(Transform(), Transform(), ret=Transform()), *_tile_ops,
        explain=_explain_tiles("-"), doc="a - b, componentwise for composites and tiles.", split="elementwise", **_elementwise)
builtin("mul",
        ov(N, N, ret=same("T")),
        ov(Vec("n", N), N, ret=Vec("n", N)), ov(N, Vec("n", N), ret=Vec("n", N)),
        ov(Mat("r", "c", N), N, ret=Mat("r", "c", N)), ov(N, Mat("r", "c", N), ret=Mat("r", "c", N)),
        ov(Mat("r", "k", N), Vec("k", N), ret=Vec("r", N)),
        ov(Vec("k", N), Mat("k", "c", N), ret=Vec("c", N)),
        ov(Mat("r", "k", N), Mat("k", "c", N), ret=Mat("r", "c", N)),
        ov(Quat(), Quat(), ret=Quat()), ov(Quat(), F, ret=Quat()), ov(F, Quat(), ret=Quat()),
        ov(Transform(), Transform(), ret=Transform()), ov(Transform(), F, ret=Transform()),
        ov(F, Transform(), ret=Transform()), *_tile_ops, explain=_explain_tiles("*"),
        doc="a * b (tiles: elementwise, use wp.tile_matmul for products): scalar product, scaling of a composite, matrix-vector and matrix-matrix products, "
            "quaternion (Hamilton) and transform composition. Two vectors do not multiply: use wp.dot, "
            "wp.cw_mul or wp.outer.", split="elementwise", **_elementwise)
builtin("div",
        ov(N, N, ret=same("T")),
        ov(Vec("n", N), N, ret=Vec("n", N)), ov(N, Vec("n", N), ret=Vec("n", N)),
        ov(Mat("r", "c", N), N, ret=Mat("r", "c", N)), ov(N, Mat("r", "c", N), ret=Mat("r", "c", N)),
        ov(Quat(), F, ret=Quat()), ov(F, Quat(), ret=Quat()), *_tile_ops, explain=_explain_tiles("/"),
        doc="a / b (tiles: elementwise; a scalar over a quaternion divides by every component). Integer division truncates toward zero (C semantics, as in Warp) and gives 0 for a "
            "zero divisor.", split="elementwise", **_elementwise)
builtin("div_approx", ov(F, F, ret=same("T"), names=("x", "y")),
        ov(Vec("n", F), F, ret=Vec("n", F)), ov(F, Vec("n", F), ret=Vec("n", F)),
        ov(Mat("r", "c", F), F, ret=Mat("r", "c", F)), ov(F, Mat("r", "c", F), ret=Mat("r", "c", F)),
        ov(Quat(), F, ret=Quat()), ov(F, Quat(), ret=Quat()), cpp="wpnb::div", header="core/scalar.h",
        category="math",
        doc="x / y, where Warp allows a faster, less exact division on the GPU; warp_nb divides exactly on both "
            "targets (so its gradient is the division's).")
builtin("floordiv", ov(N, N, ret=same("T")), header="core/scalar.h", category="operators",
        doc="a // b, rounded toward minus infinity (Python semantics). Integer division by zero gives 0.")
builtin("mod", ov(N, N, ret=same("T")), ov(VN, VN, ret=Vec("n", N)), header="core/scalar.h", category="operators",
        doc="a % b with the sign of a (C fmod / % semantics, as in Warp; componentwise for vectors). Integer "
            "modulo by zero gives 0. The float gradient is 1 for a and 0 for b (Warp's choice).")
builtin("pow", ov(F, F, ret=same("T"), names=("x", "y")), header="core/scalar.h", category="math",
        doc="x ** y. The gradient with respect to x at x == 0 with y < 1, and with respect to y for x <= 0, "
            "is chosen 0.")
builtin("matmul", ov(Mat("r", "k", N), Vec("k", N), ret=Vec("r", N)),
        ov(Vec("k", N), Mat("k", "c", N), ret=Vec("c", N)), ov(Mat("r", "k", N), Mat("k", "c", N), ret=Mat("r", "c", N)),
        cpp="wpnb::mul", header="core/scalar.h", category="operators", export=False, doc="a @ b: matrix products.")
builtin("neg", ov(N, ret=same("T")), ov(Vec("n", N), ret=Vec("n", N)), ov(Mat("r", "c", N), ret=Mat("r", "c", N)),
        ov(Quat(), ret=Quat()), ov(Transform(), ret=Transform()), ov(TN, ret=TN), doc="-x.", split="elementwise", **_elementwise)
builtin("pos", ov(N, ret=same("T")), ov(Vec("n", N), ret=Vec("n", N)), ov(Mat("r", "c", N), ret=Mat("r", "c", N)),
        ov(Quat(), ret=Quat()), ov(TN, ret=TN), doc="+x.", **_elementwise)

_any = AnyType("A")
for _name, _sym in (("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")):
    builtin(_name, ov(N, N, ret=T.bool), header="core/scalar.h", category="comparison", differentiable=False,
            doc=f"a {_sym} b for scalars.")
builtin("eq", ov(Scalar("T", ANY_SCALAR), Scalar("T", ANY_SCALAR), ret=T.bool), ov(_any, _any, ret=T.bool),
        header="core/scalar.h", category="comparison", differentiable=False,
        doc="a == b (composites: every component).")
builtin("ne", ov(Scalar("T", ANY_SCALAR), Scalar("T", ANY_SCALAR), ret=T.bool), ov(_any, _any, ret=T.bool),
        header="core/scalar.h", category="comparison", differentiable=False, doc="a != b (composites: any component).")

IB = Scalar("T", INT + BOOLEAN)
VI, MI = Vec("n", I), Mat("r", "c", I)  # integer vectors and matrices: bitwise ops componentwise
_vi = (ov(VI, VI, ret=Vec("n", I)), ov(MI, MI, ret=Mat("r", "c", I)))
for _name, _sym in (("bit_and", "&"), ("bit_or", "|"), ("bit_xor", "^")):
    builtin(_name, ov(IB, IB, ret=same("T")), *_vi, header="core/scalar.h", category="operators", differentiable=False,
            doc=f"a {_sym} b for integers and bools; componentwise for integer vectors and matrices.")
builtin("lshift", ov(I, I, ret=same("T")), *_vi, header="core/scalar.h", category="operators", differentiable=False,
        doc="a << b (shifting by a negative count or the bit width or more gives 0); componentwise for vectors "
            "and matrices.")
builtin("rshift", ov(I, I, ret=same("T")), *_vi, header="core/scalar.h", category="operators", differentiable=False,
        doc="a >> b (arithmetic for signed types); componentwise for vectors and matrices.")
builtin("invert", ov(I, ret=same("T")), ov(VI, ret=Vec("n", I)), ov(MI, ret=Mat("r", "c", I)), header="core/scalar.h",
        category="operators", differentiable=False, doc="~a; componentwise for vectors and matrices.")
builtin("logical_not", ov(Scalar("T", ANY_SCALAR), ret=T.bool), header="core/scalar.h", category="operators",
        differentiable=False, doc="not x: True when x is zero or False.")
builtin("unot", header="core/scalar.h", category="operators", form="unot", cpp="wpnb::logical_not",
        differentiable=False,
        python=lambda a: not a, doc="Warp's call spelling of `not a`: True when a is False or zero, or an array "
                                    "that is None.")

