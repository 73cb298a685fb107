"""wp.tile_matmul for `typecheck`: a @ b, or `out = alpha * a @ b + beta * out` with the variable
passed as `out` rebound, and Warp's refusals, each at the call's line.

Operands may differ in float type (float16, bfloat16, float32, float64): the product accumulates
in out's type (a's type in the returning form, which makes out like a), as Warp's mixed-precision
GEMM does. Warp refuses what its GEMM libraries cannot do, and so does warp_nb, with its words:
complex (vec2) tiles, a bfloat16 accumulator, bfloat16 operands when the backward pass is enabled
(their adjoints would accumulate in bfloat16), and precision='tf32' on anything but float32.
precision='tf32' is accepted on float32 tiles; the native code computes in full float32 (which is
at least as precise as TF32)."""

from __future__ import annotations

import warnings

from . import syntax as S
from .. import types as T
from ..errors import KernelTypeError, KernelValueError, source_label
from ..types.tiles import TileType
from .scope import Lit, PyObj

_PRECISIONS = ("default", "tf32")


def _is_complex(t) -> bool:
    return T.kind_of(t) == "vector" and t._shape_[0] == 2 and T.is_float_type(t._wp_scalar_type_)


class MatmulForm:
    """A mixin of FunctionTyper (over TileForms' helpers)."""

    def form_tile_matmul(self, node):
        self.tile_name = "tile_matmul"
        a = self.tile_args(node, ("a", "b", "out", "alpha", "beta", "precision"), 2)
        x, y = self.tile_value(a["a"], node, "a"), self.tile_value(a["b"], node, "b")
        out = None
        if "out" in a:
            if not isinstance(a["out"], S.Name):
                self.error(KernelTypeError, "wp.tile_matmul: `out` must be a tile variable (it receives the result)",
                           node)
            out = self.tile_value(a["out"], node, "out")
        tiles = [t for t in (x, y, out) if t is not None]
        if any(_is_complex(t.type.dtype) for t in tiles):
            self.error(KernelTypeError, "wp.tile_matmul does not support complex tiles (vec2 elements); multiply the "
                                        "real and imaginary parts as separate float tiles", node)
        self.matmul_precision(a, tiles, node)
        self.matmul_shapes(x.type, y.type, out.type if out is not None else None, node)
        acc = out.type.dtype if out is not None else x.type.dtype
        if acc is T.bfloat16:
            self.error(KernelTypeError, "wp.tile_matmul does not support a bfloat16 'out' tile (the accumulator must "
                                        "be float16, float32 or float64" + ("" if out is not None else
                                        "; the returning form makes out like a") + "); accumulate into a float32 "
                                        "tile", node)
        if T.bfloat16 in (x.type.dtype, y.type.dtype) and getattr(self.context, "backward_enabled", False):
            self.error(KernelTypeError, "wp.tile_matmul does not support bfloat16 'a' or 'b' tiles when the backward "
                                        "pass is enabled (their adjoints would accumulate in bfloat16); define the "
                                        "kernel with enable_backward=False, or convert with wp.tile_astype", node)
        result = TileType(acc, (x.type.shape[0], y.type.shape[1]))
        if out is None:
            return self.tile_call("tile_mma", "wpnb::tile_mma", result, node, (x, y))
        scale = [self.convert(self.expr(a[k]) if k in a else Lit(1.0, "float"), acc, node, k)
                 for k in ("alpha", "beta")]
        self.bind(a["out"].id, self.tile_call("tile_mma", "wpnb::tile_mma", result, node, (x, y, out, *scale)), node)
        return None

    def matmul_precision(self, a: dict, tiles: list, node) -> None:
        if "precision" not in a:
            return
        p = self.expr(a["precision"])
        if not (isinstance(p, PyObj) and isinstance(p.obj, str)):
            self.error(KernelValueError, "wp.tile_matmul: precision must be the string literal 'default' or 'tf32', "
                                         f"got a non-literal argument ({self.describe(p)})", node)
        if p.obj not in _PRECISIONS:
            self.error(KernelValueError, "wp.tile_matmul: precision must be the string literal 'default' or 'tf32', "
                                         f"got {p.obj!r}", node)
        if p.obj == "tf32" and any(t.type.dtype is not T.float32 for t in tiles):
            got = ", ".join(T.type_name(t.type.dtype) for t in tiles)
            self.error(KernelTypeError, f"wp.tile_matmul: precision='tf32' requires float32 tiles, got {got}", node)
        if p.obj == "tf32":  # said when the kernel is built (hashing a module types nothing), as Warp says it
            warnings.warn(f"wp.tile_matmul at {source_label(node.loc.file)}:{node.loc.line}: warp_nb cannot honor "
                          "precision='tf32' (it has no TF32 GEMM); the product is computed in full float32",
                          stacklevel=2)

    def matmul_shapes(self, a: TileType, b: TileType, out, node) -> None:
        tiles = [t for t in (a, b, out) if t is not None]
        if any(t.ndim != 2 for t in tiles):
            self.error(KernelTypeError, "wp.tile_matmul takes 2-D tiles: a (M x K), b (K x N)[, out (M x N)]", node)
        if a.shape[1] != b.shape[0]:
            self.error(KernelTypeError, f"wp.tile_matmul: the inner extents differ, a is {a.shape} and b is {b.shape} "
                                        "(a's columns must equal b's rows)", node)
        if out is not None and out.shape != (a.shape[0], b.shape[1]):
            self.error(KernelTypeError, f"wp.tile_matmul: out is {out.shape} but a @ b is {(a.shape[0], b.shape[1])}",
                       node)
        if not all(T.is_float_type(t.dtype) for t in tiles):
            got = ", ".join(T.type_name(t.dtype) for t in tiles)
            self.error(KernelTypeError, f"wp.tile_matmul takes tiles of floats (float16, bfloat16, float32 or "
                                        f"float64), got {got}; convert with wp.tile_astype", node)
