"""Tile linear algebra, for `typecheck`: wp.tile_matmul, wp.tile_axpy, Cholesky factorisation and
solves, triangular solves and FFTs (native/tiles/tile_linalg.h); the in-place forms rebind the variable
they update. In a block of several lanes these run once per block (their registry `lanes`).

wp.tile_matmul: a @ b, or `out = alpha * a @ b + beta * out` with the variable passed as `out`
rebound. Operands may differ in float type (float16, bfloat16, float32, float64): the product
accumulates in out's type (a's type in the returning form, which makes out like a), as Warp's
mixed-precision GEMM does. Warp refuses what its GEMM libraries cannot do, and so does warp_nb,
with its words: complex (vec2) tiles, a bfloat16 accumulator, bfloat16 operands when the backward
pass is enabled (their adjoints would accumulate in bfloat16), and precision='tf32' on anything
but float32. precision='tf32' is accepted on float32 tiles; the native code computes in full
float32 (which is at least as precise as TF32).

wp.tile_axpy(alpha, src, dest) into a broadcast of a shared tile adds into the shared source
(Warp's non-unique layout). A mixin of FunctionTyper."""

from __future__ import annotations

import warnings

from . import ir, syntax as S
from .. import types as T
from ..builtins.registry import BUILTINS
from ..errors import KernelTypeError, KernelValueError, source_label
from ..types.tiles import TileType
from .scope import Lit, PyObj

_PRECISIONS = ("default", "tf32")


def _is_complex(t) -> bool:
    return T.kind_of(t) == "vector" and t._shape_[0] == 2 and T.is_float_type(t._wp_scalar_type_)


class TileLinearAlgebra:
    def plain_tile_axpy(self, node):
        """wp.tile_axpy(alpha, src, dest): dest (a tile variable) rebound to dest + alpha * src."""
        self.tile_name = "tile_axpy"
        a = self.tile_args(node, ("alpha", "src", "dest"), 3)
        src, dest = self.tile_value(a["src"], node, "src"), self.tile_value(a["dest"], node, "dest")
        if src.type.shape != dest.type.shape:
            self.error(KernelTypeError, f"wp.tile_axpy: src {src.type.shape} and dest {dest.type.shape} differ in "
                                        "shape", node)
        scaled = self.binary("mul", src, self.expr(a["alpha"]), node)
        self.rebind(a["dest"], self.binary("add", dest, scaled, node), node)
        return None

    def fill_mode(self, a: dict, node) -> int:
        """1 for fill_mode='upper', 0 for 'lower' (the default)."""
        if "fill_mode" not in a:
            return 0
        v = self.expr(a["fill_mode"])
        if not (isinstance(v, PyObj) and v.obj in ("lower", "upper")):
            self.error(KernelTypeError, "fill_mode must be 'lower' or 'upper'", node)
        return int(v.obj == "upper")

    def square_float_tile(self, arg, node, what: str) -> ir.Var:
        t = self.tile_value(arg, node, what)
        if t.type.ndim != 2 or t.type.shape[0] != t.type.shape[1] or not T.is_float_type(t.type.dtype):
            self.error(KernelTypeError, f"wp.{self.tile_name}: {what} must be a square tile of floats, got "
                                        f"{T.type_name(t.type)}", node)
        return t

    def form_tile_cholesky(self, node, inplace: bool = False):
        self.tile_name = "tile_cholesky_inplace" if inplace else "tile_cholesky"
        a = self.tile_args(node, ("A", "fill_mode"), 1)
        m = self.square_float_tile(a["A"], node, "A")
        result = self.tile_call(self.tile_name, "wpnb::tile_cholesky<{UP}>", TileType(m.type.dtype, m.type.shape),
                                node, (m,), UP=self.fill_mode(a, node))
        if not inplace:
            return result
        self.rebind(a["A"], result, node)
        return None

    def form_tile_cholesky_inplace(self, node):
        return self.form_tile_cholesky(node, inplace=True)

    def form_tile_cholesky_solve(self, node, inplace: bool = False):
        self.tile_name = "tile_cholesky_solve_inplace" if inplace else "tile_cholesky_solve"
        a = self.tile_args(node, ("L", "y", "fill_mode"), 2)
        f = self.square_float_tile(a["L"], node, "the factor")
        b = self.tile_value(a["y"], node, "the right-hand side")
        if b.type.shape[0] != f.type.shape[0] or b.type.ndim > 2 or b.type.dtype != f.type.dtype:
            self.error(KernelTypeError, f"wp.{self.tile_name}: a right-hand side of {T.type_name(b.type)} does not "
                                        f"fit a factor of {T.type_name(f.type)}", node)
        result = self.tile_call(self.tile_name, "wpnb::tile_cholesky_solve<{UP}>", TileType(b.type.dtype, b.type.shape),
                                node, (f, b), UP=self.fill_mode(a, node))
        if not inplace:
            return result
        self.rebind(a["y"], result, node)
        return None

    def form_tile_cholesky_solve_inplace(self, node):
        return self.form_tile_cholesky_solve(node, inplace=True)

    def triangular_inplace(self, node, name: str):
        self.tile_name = f"{name}_inplace"
        a = self.tile_args(node, ("L", "y"), 2)
        result = self.call_builtin(BUILTINS[name], [self.expr(a["L"]), self.expr(a["y"])], node)
        self.rebind(a["y"], result, node)
        return None

    def form_tile_lower_solve_inplace(self, node):
        return self.triangular_inplace(node, "tile_lower_solve")

    def form_tile_upper_solve_inplace(self, node):
        return self.triangular_inplace(node, "tile_upper_solve")

    def form_tile_fft(self, node, inverse: int = 0):
        """wp.tile_fft(t) / wp.tile_ifft(t): t rebound to its transform along the last axis."""
        self.tile_name = "tile_ifft" if inverse else "tile_fft"
        a = self.tile_args(node, ("inout",), 1)
        t = self.tile_value(a["inout"], node, "the argument")
        e = t.type.dtype
        if not (T.kind_of(e) == "vector" and e._shape_[0] == 2 and T.is_float_type(e._wp_scalar_type_)):
            self.error(KernelTypeError, f"wp.{self.tile_name} takes a tile of complex numbers stored as vec2 (vec2f "
                                        f"or vec2d), got {T.type_name(t.type)}", node)
        length = t.type.shape[-1]
        result = self.tile_call(self.tile_name, "wpnb::tile_fft_lines<{INV}, {LINES}, {L}>", t.type, node, (t,),
                                INV=inverse, LINES=t.type.size // length, L=length)
        self.rebind(a["inout"], result, node)
        return None

    def form_tile_ifft(self, node):
        return self.form_tile_fft(node, inverse=1)

    def form_tile_axpy(self, node):
        """wp.tile_axpy(alpha, src, dest): dest += alpha * src. When dest is a broadcast of a shared
        tile, its elements share the source's storage (Warp's non-unique layout), so every
        contribution lands in the one element it maps to: the source gains alpha * src summed
        over the broadcast axes, and dest is the broadcast of the result."""

        self.tile_name = "tile_axpy"
        a = self.tile_args(node, ("alpha", "src", "dest"), 3)
        dest = self.expr(a["dest"])
        origin = self.copied_from(dest, self.broadcast_sources) if isinstance(a["dest"], S.Name) else None
        if origin is None:
            return self.plain_tile_axpy(node)
        src = self.tile_value(a["src"], node, "src")
        if src.type.shape != dest.type.shape:
            self.error(KernelTypeError, f"wp.tile_axpy: src {src.type.shape} and dest {dest.type.shape} differ in "
                                        "shape", node)
        scaled = self.binary("mul", src, self.expr(a["alpha"]), node)
        folded = self.fold_to(scaled, origin.type.shape, node)
        updated = self.binary("add", origin, folded, node)
        again = self.tile_call("tile_broadcast", "wpnb::tile_broadcast<{R}, {C}, {SR}, {SC}>", dest.type, node,
                               (updated,), R=dest.type.rows, C=dest.type.cols,
                               **dict(zip(("SR", "SC"), self.aligned_source(origin.type, dest.type))))
        self.broadcast_sources[id(again)] = (again, updated)
        self.rebind(a["dest"], again, node)
        return None

    def fold_to(self, t: ir.Var, shape: tuple, node) -> ir.Var:
        """The 2-D (or 1-D) tile t summed over the axes where `shape` (right-aligned) has extent 1."""
        source = (1,) * (t.type.ndim - len(shape)) + tuple(shape)
        for axis in (0, 1)[:t.type.ndim]:
            if source[axis] == 1 and t.type.shape[axis] != 1:
                kept = t.type.shape[1 - axis] if t.type.ndim == 2 else 1
                summed = self.tile_call("tile_sum", f"wpnb::tile_sum_axis<{axis}>", TileType(t.type.dtype, (kept,)),
                                        node, (t,)) if t.type.ndim == 2 else \
                    self.tile_call("tile_sum", "wpnb::tile_sum", TileType(t.type.dtype, (1,)), node, (t,))
                keep = (1, kept) if axis == 0 else (kept, 1)
                t = self.tile_call("tile_reshape", "wpnb::tile_reshape<{R}, {C}>", TileType(t.type.dtype, keep), node,
                                   (summed,), R=keep[0], C=keep[1])
        target = TileType(t.type.dtype, tuple(shape))
        return self.tile_call("tile_reshape", "wpnb::tile_reshape<{R}, {C}>", target, node, (t,), R=target.rows,
                              C=target.cols)

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
