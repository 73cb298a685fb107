"""The C++ vocabulary that every emitter shares: how kernel types, names and constants are
spelled, which native header each type needs, and `Unit`, what one translation unit collects
(structs, tuples, functions, headers, debug sites). Knows C++ spelling; knows nothing about
statements (body.py) or how a unit is assembled (kernel.py)."""

from __future__ import annotations

import numpy as np

import hashlib
import math
from dataclasses import field

from ..records import record
from .. import ir
from ... import types as T
from ...types.array_type import ArrayType
from ...types.native_types import native_info
from ...types.tiles import StackType, TileType
from ...errors import Loc

_SCALAR_CPP = {
    T.bool: "bool", T.int8: "wpnb::int8", T.uint8: "wpnb::uint8", T.int16: "wpnb::int16", T.uint16: "wpnb::uint16",
    T.int32: "wpnb::int32", T.uint32: "wpnb::uint32", T.int64: "wpnb::int64", T.uint64: "wpnb::uint64",
    T.float16: "wpnb::half", T.float32: "wpnb::float32", T.float64: "wpnb::float64", T.bfloat16: "wpnb::bfloat16",
}
_KIND_HEADER = {"vector": "core/vec.h", "matrix": "core/mat.h", "quaternion": "core/quat.h",
                "transformation": "core/transform.h"}
#: a header is named by its path below native/, the include root (toolchain/headers.py)
HEADER_ORDER = ["core/prelude.h", "core/scalar.h", "core/vec.h", "core/mat.h", "core/quat.h", "core/transform.h",
                "arrays/array.h", "arrays/atomic.h", "core/select.h", "core/random.h", "core/random_sample.h",
                "core/noise.h", "arrays/adjoint.h", "tiles/tile.h", "tiles/tile_nd.h", "tiles/tile_ops.h",
                "tiles/tile_linalg.h", "tiles/tile_stack.h", "tiles/tile_random.h", "tiles/block.h", "tiles/tile_block.h",
                "tiles/block_cpu.h"]
_ARRAY_ADJOINT = ["arrays/array.h", "arrays/atomic.h", "arrays/adjoint.h"]
HEADER_DEPS = {"core/mat.h": ["core/vec.h"], "core/quat.h": ["core/vec.h", "core/mat.h"],
               "core/transform.h": ["core/vec.h", "core/mat.h", "core/quat.h"],
               "core/random_sample.h": ["core/vec.h", "core/random.h"], "core/noise.h": ["core/vec.h"],
               "core/expect.h": ["core/vec.h"],
               "arrays/atomic.h": ["arrays/array.h"], "arrays/adjoint.h": ["arrays/array.h", "arrays/atomic.h"],
               "arrays/array_slice.h": ["arrays/array.h"], "arrays/indexed_array.h": _ARRAY_ADJOINT,
               "arrays/fabric_array.h": _ARRAY_ADJOINT,
               "geometry/closest_point.h": ["core/vec.h"],
               "tiles/tile.h": _ARRAY_ADJOINT + ["tiles/block.h"],
               "tiles/tile_block.h": _ARRAY_ADJOINT + ["tiles/tile.h", "tiles/tile_nd.h", "tiles/tile_stack.h",
                                                       "tiles/block.h"],
               "tiles/block_cpu.h": ["tiles/block.h"],
               "tiles/tile_ops.h": _ARRAY_ADJOINT + ["tiles/tile.h", "tiles/tile_nd.h"],
               "tiles/tile_nd.h": _ARRAY_ADJOINT + ["tiles/tile.h"],
               "tiles/tile_random.h": ["core/random.h"] + _ARRAY_ADJOINT + ["tiles/tile.h"],
               "tiles/tile_linalg.h": ["core/vec.h"] + _ARRAY_ADJOINT + ["tiles/tile.h", "tiles/tile_ops.h"]}
QUAT_FIELDS = "xyzw"
_ARRAY_HEADER = {"indexedarray": "arrays/indexed_array.h", "fabricarray": "arrays/fabric_array.h",
                 "indexedfabricarray": "arrays/fabric_array.h"}


#: Part of every kernel's cache key. Comment lines are left out of the key (moving code must not
#: recompile it), so a change in how comments are written needs this bumped: revision 2 stopped a
#: `//` comment ending in a backslash from swallowing the next line of code.
EMIT_REVISION = "2"


def comment_text(text: str, limit: int = 100) -> str:
    """`text` made safe to follow `//` in C++: one line, and no backslash at its end (a `//` comment
    ending in a backslash continues onto the next line, which would swallow generated code: a
    Python line continued with a backslash is the common case)."""
    one_line = " ".join(str(text).split())[:limit]
    return one_line.rstrip("\\ ") + (" [continued]" if one_line.rstrip().endswith("\\") else "")


@record
class DebugSite:
    """A checked place in the source (an array access or an assert) and what it touches."""

    loc: Loc
    what: str  # "array `a`" or "assert"


@record
class EmitResult:
    """One translation unit. As emit_kernel gives it, the text is the same for every target and
    `entry_points` says what the kernel's entry points must do; `emit.kernel.for_target` adds a
    target's prelude and entry points and fills in `entry` / `backward_entry` with their names."""

    source: str
    entry: str | None = None  # the forward entry point's symbol, for the target the unit is for
    debug_sites: list = field(default_factory=list)
    headers: list = field(default_factory=list)
    backward_entry: str | None = None  # the backward entry point's symbol, when there is one
    function: str = ""  # the kernel's name, for compiler messages
    mode: str = "release"
    #: the unit's code after its preamble, as (key, text) pieces in dependency order; units compiled
    #: together (emit/bundle.py) keep one piece per key
    sections: tuple = ()
    #: the module's wp.ModuleBuildOptions (compiler/build_options.py): include paths and cache key
    build_options: object = None
    #: what the kernel's entry points must do (emit/entry.py EntryPoint: forward, and backward)
    entry_points: tuple = ()
    #: the prelude lines of the target the unit is for (none: not for a target yet)
    prelude: tuple = ()
    #: compiled for deterministic mode (WPNB_DETERMINISTIC: native/arrays/deterministic.h)
    deterministic: bool = False
    #: the module global that holds the byte size of the frame of the kernel's block-uniform tiles
    #: (emit/block_frame.py; on CUDA, cuda/target.py reads it), when its forward body has one
    frame_global: str | None = None
    #: the module global the CPU runtime writes value parameters' given adjoints into before a
    #: backward launch (emit/adjoint.py seeded_params), and those parameters' positions
    seeds_global: str | None = None
    seeded: tuple = ()


def cpp_type(t) -> str:
    """The C++ spelling of a kernel type."""
    s = _SCALAR_CPP.get(t)
    if s is not None:
        return s
    kind = T.kind_of(t)
    if kind is not None:
        e = cpp_type(t._wp_scalar_type_)
        if kind == "vector":
            return f"wpnb::vec_t<{t._shape_[0]}, {e}>"
        if kind == "matrix":
            return f"wpnb::mat_t<{t._shape_[0]}, {t._shape_[1]}, {e}>"
        if kind == "quaternion":
            return f"wpnb::quat_t<{e}>"
        return f"wpnb::transform_t<{e}>"
    if isinstance(t, StackType):
        return f"wpnb::tile_stack_t<{cpp_type(t.dtype)}, {t.capacity}>"
    if isinstance(t, TileType):  # a 1-D tile is stored as one column (native/tiles/tile.h)
        return f"wpnb::tile_t<{cpp_type(t.dtype)}, {t.rows}, {t.cols}>"
    if isinstance(t, ArrayType) and t.kind == "fixedarray":  # a fixed-size array returned by value
        return f"wpnb::fixed_array_t<{cpp_type(t.dtype)}, {int(np.prod(t.shape))}, {t.ndim}>"
    if isinstance(t, ArrayType):
        return f"{t.cpp_template}<{cpp_type(t.dtype)}, {t.ndim}>"
    if getattr(t, "_wp_struct_", False):
        return struct_name(t)
    if isinstance(t, ir.TupleType):
        return tuple_name(t)
    native = getattr(t, "_wp_native_", None) if isinstance(t, type) else None
    if native is not None:  # a C++ type of the user's (wp.build_experimental.add_native_type)
        return native.native_name
    cpp = getattr(t, "cpp", None)  # registry.OpaqueType: a type the native headers define
    if cpp is not None:
        return cpp
    raise TypeError(f"no C++ type for {T.type_name(t)}")


_CPP_KEYWORDS = set("""alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
wchar_t while xor xor_eq""".split())


def field_name(name: str) -> str:
    """The C++ name of a struct field (a C++ keyword gets a trailing underscore; the layout is the same)."""
    return f"{name}_" if name in _CPP_KEYWORDS else name


def struct_name(s) -> str:
    # in namespace wpnb, so that argument-dependent lookup from the native templates finds the
    # accumulate / atomic overloads emitted for it. The digest covers the fields as well as the
    # qualified name: two @wp.struct classes of one name (a redefinition, a factory's structs)
    # with different fields are different C++ types, and one kernel may use both. The Python
    # module is left out (as in Warp): the same struct in two modules is one C++ type, so their
    # kernels hash alike (Unit.add_type defines it once).
    name = s.__dict__.get("_cpp_name")
    if name is None:
        layout = ",".join(f"{n}:{cpp_type(t)}" for n, t in s.fields.items())
        name = s._cpp_name = f"wpnb::s_{s.__name__}_{_digest(s.__qualname__ + '{' + layout + '}')}"
    return name


def tuple_name(t: ir.TupleType) -> str:
    return f"wpnb::tuple_{_digest(','.join(cpp_type(x) for x in t.items))}"


def _local(name: str) -> str:
    return name.split("::")[-1]


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=4).hexdigest()


def _type_headers(t, out: set) -> None:
    kind = T.kind_of(t)
    if kind:
        out.add(_KIND_HEADER[kind])
    elif isinstance(t, StackType):
        out.add("tiles/tile_stack.h")
        _type_headers(t.dtype, out)
    elif isinstance(t, TileType):
        out.add("tiles/tile.h")
        _type_headers(t.dtype, out)
    elif isinstance(t, ArrayType):
        out.add(_ARRAY_HEADER.get(t.kind, "arrays/array.h"))
        _type_headers(t.dtype, out)
    elif getattr(t, "_wp_struct_", False):
        for ft in t.fields.values():
            _type_headers(ft, out)
    elif isinstance(t, ir.TupleType):
        for x in t.items:
            _type_headers(x, out)
    elif getattr(t, "cpp", None) is not None:
        out.add(t.header)
        for ft in t.fields.values():
            _type_headers(ft, out)


def literal(value, t) -> str:
    """A C++ constant of type t."""
    if t is T.bool:
        return "true" if value else "false"
    if T.is_float_type(t):
        v = float(value)
        if math.isnan(v) or math.isinf(v):
            bits = "0x7fc00000u" if math.isnan(v) else ("0x7f800000u" if v > 0 else "0xff800000u")
            text = f"wpnb::bits_float({bits})"
        else:
            text = repr(v) if t is T.float64 else f"{v!r}f"
        return text if t is T.float32 else f"{cpp_type(t)}({text})"
    if T.is_int_type(t):
        suffix = {T.int64: "LL", T.uint64: "ULL", T.uint32: "u"}.get(t, "")
        v = int(value)
        if t is T.int64 and v == -(2 ** 63):
            return "(-9223372036854775807LL - 1)"
        if t is T.int32 and v == -(2 ** 31):
            return "wpnb::int32(-2147483647 - 1)"
        return f"{cpp_type(t)}({v}{suffix})"
    if T.is_composite_type(t):
        flat = value._flat().tolist()
        return f"{cpp_type(t)}({', '.join(literal(x, t._wp_scalar_type_) for x in flat)})"
    raise TypeError(f"cannot write a constant of type {T.type_name(t)}")


class Unit:
    """Collects what one translation unit needs: structs, tuples, functions, headers."""

    def __init__(self, mode: str, block_dim: int = 1):
        self.mode = mode
        self.block_dim = block_dim  # lanes per block: more than one makes effects run on lane 0 (body.py)
        self.headers: set = {"core/prelude.h", "core/scalar.h"}
        self.structs: list = []
        self.tuples: list = []
        self.funcs: list = []  # FuncInstances, callees first
        self.native_types: list = []  # C++ types of the user's (wp.build_experimental): their layout is checked
        self.debug_sites: list[DebugSite] = []
        self.deterministic = False  # deterministic mode: float atomics may be logged (compiler/deterministic.py)
        self.verify_fp = False  # wp.config.verify_fp: stores of NaN and infinity reported (emit/verify_fp.py)

    def add_type(self, t) -> None:
        _type_headers(t, self.headers)
        if isinstance(t, ArrayType):
            self.add_type(t.dtype)
        elif getattr(t, "_wp_struct_", False) and struct_name(t) not in {struct_name(s) for s in self.structs}:
            for ft in t.fields.values():
                self.add_type(ft)
            self.structs.append(t)
        elif native_info(t) is not None and t not in self.native_types:
            for ft in native_info(t).field_types.values():
                self.add_type(ft)
            self.native_types.append(t)
        elif isinstance(t, ir.TupleType) and t not in self.tuples:
            for x in t.items:
                self.add_type(x)
            self.tuples.append(t)

    def add_function(self, fn: ir.Function) -> None:
        """A kernel with every function it calls (callees first) and the types they use."""
        self.funcs = ir.called_instances(fn)
        for f in [inst.ir for inst in self.funcs] + [fn]:
            for v in (*f.params, *f.locals):
                self.add_type(v.type)
            if f.return_type is not None:
                self.add_type(f.return_type)

    def add_adjoint_types(self, adj) -> None:
        self.headers.add("arrays/adjoint.h")
        for v in adj.locals:
            self.add_type(v.type)

    def site(self, loc: Loc, what: str) -> int:
        self.debug_sites.append(DebugSite(loc, what))
        return len(self.debug_sites) - 1


def function_qualifier(fn) -> str:
    """The qualifier of a @wp.func's C++ definition (and its adjoint's): its inline hint as the
    prelude's macro (never or always inline, on CPU and CUDA), else WPNB_FN (the compiler chooses)."""
    return {False: "WPNB_NOINLINE_FN", True: "WPNB_FORCEINLINE_FN"}.get(fn.inline, "WPNB_FN")
