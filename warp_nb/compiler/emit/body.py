"""The statement writer of `emit`: one typed IR function -> one C++ function (a @wp.func) or a
kernel (argument struct and body; the target writes its entry points). Every SSA variable is
declared at the top of its function, so a value computed in a branch stays visible to the code
that reads it."""

from __future__ import annotations

import numpy as np

from .. import ir
from ... import types as T
from ...types.array_type import ArrayType
from ...types.native_types import native_info
from ...types.tiles import TileType
from ...toolchain.modes import has_checks
from .cpp import QUAT_FIELDS, comment_text, cpp_type, field_name, function_qualifier, literal
from ..index_ranges import IndexFacts, access_key, index_facts
from .entry import find_reductions
from .block_frame import BlockFrameWriter
from .loop_versions import LoopVersionWriter
from .printing import PrintWriter
from ..block_uniform import block_sharing
from ..interrupt_polls import polled_loops
from .verify_fp import check_non_finite, holds_floats, report_non_finite



class FunctionWriter(BlockFrameWriter, LoopVersionWriter, PrintWriter):
    def __init__(self, fn: ir.Function, unit):
        self.fn = fn
        self.unit = unit
        self.debug = unit.mode == "debug"  # -O0, asserts, no privatised reductions
        self.checked = has_checks(unit.mode)  # bounds-checked array and component access
        self.reductions: dict = {}
        self.consts: dict = {}  # id(Var) -> Python value, for Vars bound to constants
        self.lines: list[str] = []
        self.last_line = None
        # arrays known to be kernel parameters or views of them: their last dimension's
        # contiguity is checked once per launch, so they index with index_c<WPNB_C>
        self.param_arrays: set = set()
        # int32 values of the form x + c / x - c (c constant): written as int64(x) + c where
        # they index an array, which lets GCC see neighbour accesses (a[j - 1]) as affine
        self.offsets: dict = {}
        # the index facts of a kernel's forward body (compiler/index_ranges.py): which indices need
        # no negative wrap, and which accesses the entry point can prove in range for a chunk, so
        # that the body is compiled twice (template flag WPNB_K: checked, or not) in checked code
        self.facts: IndexFacts | None = None
        self.versioned = False
        self.polled: frozenset | None = None  # the For loops that test the interrupt flag (interrupt_polls.py)

    # --- functions and kernels ----------------------------------------------------------
    def function(self) -> str:
        fn = self.fn
        ret = cpp_type(fn.return_type) if fn.return_type is not None else "void"
        # a mutable parameter is a tile the function writes into: a reference to the caller's copy
        params = ", ".join(f"{cpp_type(p.type)}{'&' if p.mutable else ''} {p.name}" for p in fn.params)
        self.lines.append(f"// @wp.func {fn.name} ({comment_text(fn.loc.file, 400)}:{fn.loc.line})")
        self.lines.append(f"{function_qualifier(fn)} {ret} {fn.symbol}({params}) {{")
        self.declarations(1)
        self.block(fn.body, 1)
        self.lines.append("}\n")
        return "\n".join(self.lines)

    def kernel(self) -> str:
        fn = self.fn
        sym = fn.symbol
        fields = "\n".join(f"    {cpp_type(p.type)} {p.name};" for p in fn.params) or "    char unused;"
        self.lines.append(f"// @wp.kernel {fn.name} ({comment_text(fn.loc.file, 400)}:{fn.loc.line})")
        self.lines.append(f"struct {sym}_args {{\n{fields}\n}};\n")
        count = max(fn.tid_count, 1)
        tids = ", ".join(f"wpnb::int32 wpnb_tid{k}" for k in range(count))
        self.param_arrays = {id(p) for p in fn.params if isinstance(p.type, ArrayType)}
        if fn.uses_blocks:
            self.unit.headers.add("tiles/block.h")  # (its CUDA entry points say how many lanes a block has)
        lanes = fn.block_dim  # blocks of several lanes: no privatised reductions, the block entry points
        # (deterministic mode: a privatised sum would be added in another order than the threads')
        # (verify_fp: each atomic's result is checked where it lands, so none is privatised either)
        self.reductions = {} if self.debug or lanes > 1 or self.unit.deterministic or self.unit.verify_fp \
            else find_reductions(fn, {})
        accumulators = list({id(a): a for a in self.reductions.values()}.values())
        if accumulators:
            self.unit.headers.add("arrays/atomic.h")
        accs = "".join(f", {a.cpp_type}& {a.name}" for a in accumulators)
        self.use_index_facts(fn)
        self.sharing = block_sharing(fn)  # the block's uniform tiles, computed once (compiler/block_uniform.py)
        self.use_loop_versions(fn, self.facts.guarded)  # innermost loops checked once at entry
        if self.sharing is not None:
            self.frame_struct()
        self.lines.append(self.body_template())
        self.lines.append(f"WPNB_FN void {sym}_body(const {sym}_args& wpnb_args, {tids}{accs}) {{")
        for p in fn.params:
            self.lines.append(f"    const {cpp_type(p.type)} {p.name} = wpnb_args.{p.name};")
        self.declarations(1)
        self.block(fn.body, 1)
        self.lines.append("}\n")  # (its entry points are the target's: emit/entry.py describes them)
        return "\n".join(self.lines)

    def use_index_facts(self, fn: ir.Function) -> None:
        """Read the index facts of kernel `fn` (its forward and its backward body alike, so both
        are versioned on the same guards, emit/entry.py)."""
        self.facts = index_facts(fn)
        # (debug mode keeps every check: it is for finding the bad access, not for speed)
        self.versioned = self.checked and not self.debug and fn.block_dim == 1 and bool(self.facts.guarded)

    def body_template(self) -> str:
        return "template <bool WPNB_C, bool WPNB_K = true>" if self.versioned else "template <bool WPNB_C>"

    def declarations(self, depth: int) -> None:
        pad = "    " * depth
        for v in self.fn.locals:
            if not self.is_shared(v):
                self.lines.append(f"{pad}{cpp_type(v.type)} {v.name}{{}};")
        if self.sharing is not None:
            self.frame_declarations(depth)
        for dst, new in _local_arrays(self.fn.body):  # the memory of fixed-size arrays, for the whole function
            self.lines.append(f"{pad}{cpp_type(new.dtype)} {dst.name}_buf[{int(np.prod(new.fixed))}];")

    def slice_view(self, v: ir.SliceView) -> str:
        """wpnb::array_slice<M>(a, axis...) (native/arrays/array_slice.h); a missing bound is flagged, not 0."""
        self.unit.headers.add("arrays/array_slice.h")
        axes = []
        for a in v.axes:
            if not isinstance(a, ir.AxisSlice):
                axes.append(f"wpnb::slice_index({a.name})")
                continue
            given = (1 if a.start is not None else 0) | (2 if a.stop is not None else 0)
            bound = [b.name if b is not None else "0" for b in (a.start, a.stop)]
            step = a.step.name if a.step is not None else "1"
            axes.append(f"wpnb::slice_range({bound[0]}, {bound[1]}, {step}, {given})")
        kept = sum(isinstance(a, ir.AxisSlice) for a in v.axes) + v.array.type.ndim - len(v.axes)
        return f"wpnb::array_slice<{kept}>({v.array.name}, {', '.join(axes)})"

    # --- statements ---------------------------------------------------------------------
    def line(self, depth: int, text: str, loc=None) -> None:
        if loc is not None and loc.line != self.last_line:
            # the user's line, so compiler errors can be mapped back to it
            self.lines.append(f"{'    ' * depth}// @line {loc.line}: {comment_text(loc.text)}")
            self.last_line = loc.line
        self.lines.append("    " * depth + text)

    def block(self, stmts, depth: int) -> None:
        for s in stmts:
            self.statement(s, depth)

    def statement(self, s, depth: int) -> None:
        if self.sharing is not None and not self.leading and self.frame_statement(s, depth):
            return
        if isinstance(s, ir.Let):
            self.let(s, depth)
        elif isinstance(s, ir.Assign):
            self.line(depth, f"{s.dst.name} = {s.src.name};", s.loc)
        elif isinstance(s, ir.Store):
            self.store(s, depth)
        elif isinstance(s, ir.Effect):
            acc = self.reductions.get(id(s))
            if acc is not None:  # a privatised reduction: accumulate in a register (see emit_entry)
                op = s.value.builtin.atomic
                self.line(depth, f"{acc.name} = wpnb::{op}({acc.name}, {s.value.args[-1].name});", s.loc)
            else:
                self.line(depth, f"{self.rhs(s.value, s.loc)};", s.loc)
                self.verify_atomic(s.value, depth, s.loc)
        elif isinstance(s, ir.Print):
            text = self.print_call(s)
            if self.unit.block_dim > 1 and any(isinstance(getattr(a, "type", None), TileType) for a in s.args):
                text = f"if (wpnb::block_lane() == wpnb::block_leader()) {text}"  # a block's tile is printed once
            self.line(depth, text, s.loc)
        elif isinstance(s, ir.If):
            self.line(depth, f"if ({s.cond.name}) {{", s.loc)
            self.block(s.body, depth + 1)
            for p in s.phis:
                if p.then_src is not None:
                    self.move(depth + 1, id(p), p.dst, p.then_src)
            if s.orelse or any(p.else_src is not None for p in s.phis):
                self.line(depth, "} else {")
                self.block(s.orelse, depth + 1)
                for p in s.phis:
                    if p.else_src is not None:
                        self.move(depth + 1, id(p), p.dst, p.else_src)
            self.line(depth, "}")
        elif isinstance(s, ir.For):
            self.for_loop(s, depth)
        elif isinstance(s, ir.While):
            for c in s.carried:
                self.move(depth, id(c), c.state, c.init, s.loc)
            self.line(depth, "for (;;) {", s.loc)
            self.block(s.cond_body, depth + 1)
            self.line(depth + 1, f"if (!{s.cond.name}) break;")
            self.poll_interrupt(depth + 1)
            self.block(s.body, depth + 1)
            self.line(depth, "}")
        elif isinstance(s, ir.Iterate):
            for c in s.carried:
                self.move(depth, id(c), c.state, c.init, s.loc)
            self.unit.headers.add(s.next_builtin.header)
            self.line(depth, f"while ({s.next_builtin.symbol}({s.query.name}, {s.var.name})) {{", s.loc)
            self.block(s.body, depth + 1)
            self.line(depth, "}")
        elif isinstance(s, (ir.Break, ir.Continue)):
            for w in s.writes:
                self.move(depth, id(w), w.dst, w.src, s.loc)
            self.line(depth, "break;" if isinstance(s, ir.Break) else "continue;", s.loc)
        elif isinstance(s, ir.Return):
            self.line(depth, f"return {s.value.name};" if s.value is not None else "return;", s.loc)
        elif isinstance(s, ir.Check):
            if self.debug:  # asserts run in debug mode only, as in Warp
                site = self.unit.site(s.loc, "assert")
                self.line(depth, f"wpnb::debug_check({s.cond.name}, {site});", s.loc)
        else:
            raise TypeError(f"cannot emit {type(s).__name__}")

    def for_loop(self, s: ir.For, depth: int) -> None:
        for c in s.carried:
            self.move(depth, id(c), c.state, c.init, s.loc)
        i, start, stop, step = s.var.name, s.start.name, s.stop.name, s.step.name
        step_value = self.consts.get(id(s.step))
        if step_value is not None and step_value > 0:
            cond = f"{i} < {stop}"
        elif step_value is not None and step_value < 0:
            cond = f"{i} > {stop}"
        else:
            cond = f"({step} > 0 ? {i} < {stop} : {i} > {stop})"

        polled = id(s) in self.polled_loops()

        def write_loop(d: int) -> None:
            self.line(d, f"for ({i} = {start}; {cond}; {i} += {step}) {{", s.loc)
            if polled:
                self.poll_interrupt(d + 1)
            self.block(s.body, d + 1)
            self.line(d, "}")

        if not self.versioned_loop(s, depth, write_loop):  # (emit/loop_versions.py)
            write_loop(depth)

    def polled_loops(self) -> frozenset:
        if self.polled is None:
            self.polled = polled_loops(self.fn)
        return self.polled

    def poll_interrupt(self, depth: int) -> None:
        """Leave the loop when Ctrl-C came (runtime/interrupts.py): in every while loop, and in the for
        loops compiler/interrupt_polls.py picks. In CPU blocks of several lanes too: the fiber
        scheduler resumes no lane once the flag is set (native/tiles/block_cpu.h), so a lane that
        left early never meets the others at a barrier."""
        self.line(depth, "if (WPNB_INTERRUPTED()) break;")

    def let(self, s: ir.Let, depth: int) -> None:
        v = s.value
        if isinstance(v, ir.Const):
            self.consts[id(s.dst)] = v.value
        elif isinstance(v, (ir.Copy, ir.View)) and id(getattr(v, "src", getattr(v, "array", None))) in self.param_arrays:
            self.param_arrays.add(id(s.dst))  # a copy or sub-array view keeps the last dimension
        elif isinstance(v, ir.Call) and v.builtin.name in ("add", "sub") and s.dst.type is T.int32:
            a, b = v.args
            c = self.consts.get(id(b))
            if c is not None:
                self.offsets[id(s.dst)] = (a.name, c if v.builtin.name == "add" else -c)
        if isinstance(v, ir.NewArray):
            dims = ", ".join(d.name for d in v.shape)
            if v.source is not None:  # a returned fixed-size array, copied into this function's buffer
                self.line(depth, f"{s.dst.name} = wpnb::local_array_from({s.dst.name}_buf, {v.source.name}, {dims});",
                          s.loc)
            elif v.ptr is None:  # a fixed-size array: its buffer is declared with the function's locals
                self.line(depth, f"{s.dst.name} = wpnb::local_array({s.dst.name}_buf, {dims});", s.loc)
            else:
                self.line(depth, f"{s.dst.name} = wpnb::array_at<{cpp_type(v.dtype)}, {len(v.shape)}>({v.ptr.name}, "
                                 f"{dims});", s.loc)
            return
        if isinstance(v, ir.Call) and v.resolved.overload.outputs:  # results through reference arguments
            self.unit.headers.add(v.builtin.header)
            outs = [f"{s.dst.name}.v{k}" for k in range(len(v.resolved.overload.outputs))]
            self.line(depth, f"{v.builtin.symbol}({', '.join([a.name for a in v.args] + outs)});", s.loc)
            return
        if isinstance(v, ir.GradCall):
            self.grad_call(s.dst, v, depth, s.loc)
            return
        if isinstance(v, ir.Update):
            self.line(depth, f"{s.dst.name} = {v.base.name};", s.loc)
            self.assign_path(s.dst.name, v.base.type, v.path, v.value.name, depth, s.loc)
            return
        self.line(depth, f"{s.dst.name} = {self.rhs(v, s.loc)};", s.loc)
        self.verify_atomic(v, depth, s.loc)

    def grad_call(self, dst: ir.Var, v: ir.GradCall, depth: int, loc) -> None:
        """wp.grad(f)(args): f's adjoint called with zeroed argument adjoints and adj_ret = 1."""
        self.unit.headers.add("arrays/adjoint.h")
        args = [a.name for a in v.args]
        grads = [f"wpnb_grad{k}" for k in range(len(v.args))]
        builtin = v.resolved is not None  # else a user function instance
        if builtin:
            self.unit.headers.add(v.func.header)
            ns, _, name = v.func.symbol.rpartition("::")
            adjoint, result = (f"{ns}::adj_{name}" if ns else f"adj_{name}"), v.resolved.result
        else:
            adjoint, result = f"adj_{v.func.symbol}", v.func.return_type
        one = f"{cpp_type(result)} wpnb_grad_ret = {cpp_type(result)}(1);"
        if not builtin and v.func.custom_grad is not None:  # @wp.func_grad gives them
            call = f"auto wpnb_g = {v.func.custom_grad.symbol}({', '.join(args + ['wpnb_grad_ret'])});"
            grads = [f"wpnb_g.v{k}" for k in range(len(v.args))]
        else:
            zeros = " ".join(f"{cpp_type(a.type)} {g}{{}};" for a, g in zip(v.args, grads))
            call = f"{zeros} {adjoint}({', '.join(args + grads + ['wpnb_grad_ret'])});"
        value = grads[0] if len(grads) == 1 else f"{cpp_type(dst.type)}{{{', '.join(grads)}}}"
        self.line(depth, f"{{ {one} {call} {dst.name} = {value}; }}", loc)

    def assign_path(self, target: str, t, path, value: str, depth: int, loc) -> None:
        """target<path> = value, for a component path into a local value or array element."""
        expr, row = self.path_expr(target, t, path, loc)
        if row is not None:  # a whole matrix row: m[i] = v
            self.line(depth, f"{expr} = wpnb::with_index({expr}, {row}, {value});", loc)
        else:
            self.line(depth, f"{expr} = {value};", loc)

    def store(self, s: ir.Store, depth: int) -> None:
        element = self.element_ref(s.array, s.indices, s.loc)
        if not s.path:
            self.line(depth, f"{element} = {s.value.name};", s.loc)
        else:
            self.assign_path(element, s.array.type.dtype, s.path, s.value.name, depth, s.loc)
        self.verify_stored(s.value.name, s.value.type, s.array, depth, s.loc)

    def verify_stored(self, value: str, t, array: ir.Var, depth: int, loc) -> None:
        """wp.config.verify_fp: report a NaN or infinity just stored into `array` (emit/verify_fp.py)."""
        if not (self.unit.verify_fp and holds_floats(t)):
            return
        if self.debug:  # a failed check, raised by the launch (FloatingPointError)
            self.line(depth, check_non_finite(value, t, self.unit.site(loc, f"array `{_user_name(array)}`")), loc)
        else:
            self.line(depth, report_non_finite(value, t, _user_name(array), self.fn.name, loc), loc)

    def verify_atomic(self, v, depth: int, loc) -> None:
        """verify_fp after an array atomic (wp.atomic_add(a, i, x), a[i] += x): the element's new value."""
        if self.unit.verify_fp and isinstance(v, ir.Call) and v.builtin.atomic and v.args \
                and isinstance(v.args[0].type, ArrayType) and len(v.args) == v.args[0].type.ndim + 2:
            array = v.args[0]
            self.verify_stored(self.element_ref(array, v.args[1:-1], loc), array.type.dtype, array, depth, loc)

    def address_of(self, v: ir.AddressOf, loc) -> str:
        """The address of an array element's or a variable's storage, as Warp's wp.address_of gives it."""
        if v.indices:
            base, t = self.element_ref(v.base, v.indices, loc), v.base.type.dtype
        else:
            base, t = v.base.name, v.base.type
        expr, row = self.path_expr(base, t, v.path, loc)
        if row is not None:
            expr = f"{expr}.c[{row}]"
        return f"reinterpret_cast<wpnb::uint64>(&({expr}))"

    def element_ref(self, array: ir.Var, indices, loc) -> str:
        idx = ", ".join(self.index_expr(i) for i in indices)
        contiguous = "WPNB_C" if id(array) in self.param_arrays else "false"
        mask = self.facts.wrap_mask(array, indices) if self.facts is not None else None
        wrap = f", {mask}u" if mask is not None and mask != (1 << len(indices)) - 1 else ""
        if self.checked:
            site = self.unit.site(loc, f"array `{_user_name(array)}`")
            if self.is_fast(access_key(array, indices)):  # proved in range at its loop's entry
                return f"wpnb::index_c<{contiguous}, 0u>({array.name}, {idx})"
            if self.versioned and self.facts.guards_of(array, indices) is not None:
                return f"wpnb::index_k<WPNB_K, {contiguous}{wrap}>({array.name}, {site}, {idx})"
            return f"wpnb::index_checked_c<{contiguous}{wrap}>({array.name}, {site}, {idx})"
        if id(array) in self.param_arrays or wrap:
            return f"wpnb::index_c<{contiguous}{wrap}>({array.name}, {idx})"
        return f"wpnb::index({array.name}, {idx})"

    def index_expr(self, v: ir.Var) -> str:
        offset = self.offsets.get(id(v))
        if offset is None:
            return v.name
        return f"(wpnb::int64({offset[0]}) + {offset[1]})"

    # --- right-hand sides ---------------------------------------------------------------
    def rhs(self, v, loc) -> str:
        if isinstance(v, ir.Const):
            return literal(v.value, v.type)
        if isinstance(v, ir.Copy):
            return v.src.name
        if isinstance(v, ir.Call):
            return self.call(v, loc)
        if isinstance(v, ir.CallFunc):
            return f"{v.func.symbol}({', '.join(a.name for a in v.args)})"
        if isinstance(v, ir.Construct):
            return self.construct(v)
        if isinstance(v, ir.Load):
            return self.element_ref(v.array, v.indices, loc)
        if isinstance(v, ir.SliceView):
            return self.slice_view(v)
        if isinstance(v, ir.View):
            idx = ", ".join(i.name for i in v.indices)
            if self.checked:
                site = self.unit.site(loc, f"array `{_user_name(v.array)}`")
                return f"wpnb::view_checked({v.array.name}, {site}, {idx})"
            return f"wpnb::view({v.array.name}, {idx})"
        if isinstance(v, ir.Extract):
            return self.extract(v, loc)
        if isinstance(v, ir.AddressOf):
            return self.address_of(v, loc)
        if isinstance(v, ir.TupleOf):
            return f"{cpp_type(_tuple_type(v))}{{{', '.join(x.name for x in v.items)}}}"
        if isinstance(v, ir.Tid):
            return f"wpnb_tid{v.index}"
        raise TypeError(f"cannot emit {type(v).__name__}")

    def call(self, v: ir.Call, loc) -> str:
        text = self.call_text(v, loc)
        lanes = v.builtin.lanes if self.unit.block_dim > 1 else None  # (registry.LANES)
        if lanes in ("lead", "once_per_block"):
            # a block of several lanes holds one tile: its store or atomic happens once, on lane 0,
            # and its result (an atomic's previous values) is handed to every lane; a costly tile
            # operation is computed once per CPU block (native/tiles/block.h)
            return self.block_wide(lanes, text)
        return text

    def call_text(self, v: ir.Call, loc) -> str:
        b, resolved = v.builtin, v.resolved
        args = [a.name for a in v.args]
        template = resolved.overload.template
        self.unit.headers.add(b.header)  # a templated call needs its header too
        if template is not None:
            bindings = {k: (str(x) if isinstance(x, (int, str)) else cpp_type(x)) for k, x in resolved.bindings.items()}
            if "{SITE}" in template:  # a check inside the template's native code (tile_reduce without identity)
                bindings["SITE"] = str(self.unit.site(loc, _NO_IDENTITY)) if self.checked and loc is not None else "-1"
            if b.checked_read and self.checked and loc is not None:
                return self.checked_tile_read(template.format(**bindings), v, args, loc)
            return f"{template.format(**bindings)}({', '.join(args)})"
        if b.checked_read and self.checked and loc is not None:
            return self.checked_tile_read(b.symbol, v, args, loc)
        self.unit.headers.add(b.header)
        if b.atomic and self.checked:
            arr, n = v.args[0], v.args[0].type.ndim
            element = self.element_ref(arr, v.args[1:1 + n], loc)
            return f"wpnb::{b.name}_at({', '.join([element] + args[1 + n:])})"
        return f"{b.symbol}({', '.join(args)})"

    def checked_tile_read(self, name: str, v: ir.Call, args: list, loc) -> str:
        """t[i, j] / wp.tile_extract in checked code: the `_checked` variant, given the site that an
        index outside the tile is reported from (an IndexError after the launch, as for arrays)."""
        base, _, params = name.partition("<")
        site = self.unit.site(loc, f"a tile of shape {tuple(v.args[0].type.shape)}")
        return f"{base}_checked{'<' + params if params else ''}({', '.join([args[0], str(site)] + args[1:])})"

    def construct(self, v: ir.Construct) -> str:
        t = v.type
        if not v.args:  # a zero value (a loop local hoisted before its loop): value-initialised
            return f"{cpp_type(t)}{{}}"
        if T.is_scalar_type(t):
            return f"wpnb::cast<{cpp_type(t)}>({v.args[0].name})"
        if getattr(t, "_wp_struct_", False):
            return f"{cpp_type(t)}{{}}"
        if native_info(t) is not None:  # aggregate initialization of the user's C++ type
            return f"{cpp_type(t)}{{{', '.join(a.name for a in v.args)}}}"
        return f"{cpp_type(t)}({', '.join(a.name for a in v.args)})"

    def extract(self, v: ir.Extract, loc=None) -> str:
        t = v.base.type
        if isinstance(t, ArrayType) and v.path == ("ptr",):  # a.ptr: the address of its data
            return f"wpnb::uint64({v.base.name}.data)"
        if isinstance(t, ArrayType):  # a.shape
            return f"wpnb::vec_t<{t.ndim}, wpnb::int32>({', '.join(f'wpnb::int32({v.base.name}.shape[{d}])' for d in range(t.ndim))})"
        if not self.checked and len(v.path) == 1 and isinstance(v.path[0], ir.Var) and T.kind_of(t) == "vector":
            return f"wpnb::component_read({v.base.name}, {v.path[0].name})"  # Warp's values out of range
        expr, row = self.path_expr(v.base.name, t, v.path, loc)
        return expr if row is None else f"wpnb::extract({expr}, {row})"

    def component(self, p, n: int, loc, t) -> str:
        """A component index: a constant as is; a runtime one checked against the length `n` (with
        a source location, in checked code), else counted from the end when negative, as in Warp."""
        if not isinstance(p, ir.Var):
            return _index(p)
        if loc is None or not self.checked:
            return f"wpnb::wrap_index({p.name}, {n})"
        site = self.unit.site(loc, f"a {T.type_name(t)} (component index)")
        return f"wpnb::component_checked({p.name}, {n}, {site})"

    def path_expr(self, base: str, t, path, loc=None) -> tuple:
        """C++ lvalue for a component path (.c[i] for vectors, .c[i][j] for matrices, fields ...),
        and the row index (C++ text) when the path ends on a whole row of a matrix (else None).
        With `loc`, runtime component indices are checked in checked code."""
        expr = base
        k = 0
        while k < len(path):
            p = path[k]
            kind = T.kind_of(t)
            if kind == "matrix" and k == len(path) - 1:
                return expr, self.component(p, t._shape_[0], loc, t)
            if isinstance(t, ir.TupleType):
                expr += f".v{p}"
                t = t.items[p]
            elif isinstance(p, str) and native_info(t) is not None:  # the C++ member, named as registered
                expr += f".{p}"
                t = native_info(t).field_types[p]
            elif isinstance(p, str):
                expr += f".{field_name(p)}"
                t = t.fields[p] if getattr(t, "_wp_struct_", False) or hasattr(t, "cpp") else (
                    T.vector(3, t._wp_scalar_type_) if p == "p" else T.quaternion(t._wp_scalar_type_))
            elif kind == "vector":
                expr += f".c[{self.component(p, t._shape_[0], loc, t)}]"
                t = t._wp_scalar_type_
            elif kind == "matrix":
                rows, cols = t._shape_
                expr += f".c[{self.component(p, rows, loc, t)}][{self.component(path[k + 1], cols, loc, t)}]"
                k += 1
                t = t._wp_scalar_type_
            elif kind == "quaternion":
                expr = (f"{expr}.{QUAT_FIELDS[p]}" if isinstance(p, int) else
                        f"(&{expr}.x)[{self.component(p, 4, loc, t)}]")
                t = t._wp_scalar_type_
            elif kind == "transformation":
                if isinstance(p, int):
                    expr = f"{expr}.p.c[{p}]" if p < 3 else f"{expr}.q.{QUAT_FIELDS[p - 3]}"
                else:
                    expr = f"(&{expr}.p.c[0])[{self.component(p, 7, loc, t)}]"
                t = t._wp_scalar_type_
            else:
                raise TypeError(f"cannot index {T.type_name(t)}")
            k += 1
        return expr, None

#: what a failed check of a tile_reduce without identity says (runtime/debug.py: a RuntimeError)
_NO_IDENTITY = ("wp.tile_reduce: the operator has no declared identity, and a line of the reduction has no element "
                "of a lane inside the launch (in a partial block, the elements of lanes outside the launch take no "
                "part); launch whole blocks, or reduce with wp.add, wp.mul, wp.min or wp.max")


def _local_arrays(stmts):
    """(dst, NewArray) of every fixed-size array the statements make, nested blocks included."""
    for s in stmts:
        if isinstance(s, ir.Let) and isinstance(s.value, ir.NewArray) and s.value.ptr is None:
            yield s.dst, s.value
        for field in ("body", "orelse", "cond_body", "stmts"):
            yield from _local_arrays(getattr(s, field, ()) or ())


def _index(p) -> str:
    return p.name if isinstance(p, ir.Var) else str(p)


def _user_name(v: ir.Var) -> str:
    return v.name.rsplit("_", 1)[0]


def _tuple_type(v: ir.TupleOf):
    return ir.TupleType(tuple(x.type for x in v.items))
