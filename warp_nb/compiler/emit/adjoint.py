"""Reverse-mode IR -> C++: the adjoint of every user function (`adj_<symbol>`) and the backward
body and CPU entry point of a kernel, written into the same translation unit as the forward
code. Reuses the forward statement writer for the replay."""

from __future__ import annotations

from .. import ir
from ... import types as T
from ...types.array_type import ArrayType
from .cpp import cpp_type, function_qualifier
from .body import FunctionWriter, _index
from ..adjoint_ir import (
    Accumulate, AdjCall, AdjConstruct, AdjFuncCall, AdjLoad, AdjointFunction, AdjPrint, AdjStore, AdjUpdate, ReplayBlock,
    RevIf, RevLoop, TupleItem, Zero,
)

_CONSTRUCT_ADJ = {"vector": "wpnb::adj_vec_t", "matrix": "wpnb::adj_mat_t", "quaternion": "wpnb::adj_quat_t",
                  "transformation": "wpnb::adj_transform_t"}


class _AdjointWriter(FunctionWriter):
    def __init__(self, adj: AdjointFunction, unit, reference_adjoints: set = frozenset()):
        super().__init__(adj.primal, unit)
        self.adjfn = adj
        self.reference_adjoints = reference_adjoints  # adjoint Vars that are function parameters
        unit.headers.add("arrays/adjoint.h")

    # --- functions ----------------------------------------------------------------------
    def adjoint_function(self) -> str:
        fn, adj = self.fn, self.adjfn
        params = [f"{cpp_type(p.type)} {p.name}" for p in fn.params]
        params += [f"{cpp_type(p.type)}& {_adj_var(adj, p).name}" for p in fn.params]
        if fn.return_type is not None:
            params.append(f"const {cpp_type(fn.return_type)}& wpnb_adj_ret")
        self.lines.append(f"// adjoint of @wp.func {fn.name}")
        self.lines.append(f"{function_qualifier(fn)} void adj_{fn.symbol}({', '.join(params)}) {{")
        self.declarations(1)
        self.adjoint_declarations(1, skip={id(_adj_var(adj, p)) for p in fn.params})
        self.block(adj.replay, 1)
        if fn.return_type is not None:
            self.seed_return(1)
        self.reverse_block(adj.reverse, 1)
        self.lines.append("}\n")
        return "\n".join(self.lines)

    def seed_return(self, depth: int) -> None:
        """The incoming adj_ret goes to the value returned."""
        if self.adjfn.ret_adjoint is not None:
            self.line(depth, f"wpnb::accumulate({self.adjfn.ret_adjoint.name}, wpnb_adj_ret);")

    def kernel_backward(self, sym: str) -> str:
        fn, adj = self.fn, self.adjfn
        count = max(fn.tid_count, 1)
        tids = ", ".join(f"wpnb::int32 wpnb_tid{k}" for k in range(count))
        self.param_arrays = {id(p) for p in fn.params if isinstance(p.type, ArrayType)}
        self.use_index_facts(fn)
        seeded = seeded_params(adj)
        if seeded:
            self.lines.append(_seeds_global(sym, [fn.params[k] for k in seeded]))
        self.lines.append(self.body_template())
        self.lines.append(f"WPNB_FN void {sym}_backward_body(const {sym}_args& wpnb_args, {tids}) {{")
        for p in fn.params:
            self.lines.append(f"    const {cpp_type(p.type)} {p.name} = wpnb_args.{p.name};")
        self.declarations(1)
        self.adjoint_declarations(1)
        for k in seeded:
            p = fn.params[k]
            seeds = f"reinterpret_cast<const {sym}_adj_seeds_t*>({sym}_adj_seeds)"
            self.lines.append(f"    {adj.adj[id(p)].name} = {seeds}->{p.name};")
        self.block(adj.replay, 1)
        self.reverse_block(adj.reverse, 1)
        self.lines.append("}\n")
        return "\n".join(self.lines)

    def grad_wrap(self, s) -> str:
        """The wrap-mask template argument of a gradient access at a forward access's indices:
        the forward access's own, so an index proved non-negative is not wrapped here either."""
        if self.facts is None:
            return ""
        mask = self.facts.wrap_mask(s.array, s.indices)
        return "" if mask == (1 << len(s.indices)) - 1 else f", {mask}u"

    def adjoint_declarations(self, depth: int, skip: set = frozenset()) -> None:
        pad = "    " * depth
        seen = set()
        for v in list(self.adjfn.locals) + [a for a in self.adjfn.adj.values() if isinstance(a, ir.Var)]:
            if id(v) in seen or id(v) in skip:
                continue
            seen.add(id(v))
            self.lines.append(f"{pad}{cpp_type(v.type)} {v.name}{{}};")

    # --- replay extras ------------------------------------------------------------------
    def statement(self, s, depth: int) -> None:
        if isinstance(s, ReplayBlock):
            self.block(s.stmts, depth)
        else:
            super().statement(s, depth)

    # --- reverse ------------------------------------------------------------------------
    def reverse_block(self, stmts, depth: int) -> None:
        for s in stmts:
            self.reverse_statement(s, depth)

    def reverse_statement(self, s, depth: int) -> None:
        if isinstance(s, Accumulate):
            self.accumulate(s, depth)
        elif isinstance(s, Zero):
            self.line(depth, f"{s.dst.name} = {cpp_type(s.dst.type)}{{}};")
        elif isinstance(s, AdjCall):
            self.adj_call(s, depth)
        elif isinstance(s, AdjFuncCall) and s.func.custom_grad is not None:
            args = [a.name for a in s.args]
            if s.adj_ret is not None and isinstance(s.adj_ret.type, ir.TupleType):  # one adjoint per returned value
                args += [f"{s.adj_ret.name}.v{k}" for k in range(len(s.adj_ret.type.items))]
            elif s.adj_ret is not None:
                args.append(s.adj_ret.name)
            adds = " ".join(f"wpnb::accumulate({a.name}, wpnb_g.v{k});" for k, a in enumerate(s.adj_args))
            self.line(depth, f"{{ auto wpnb_g = {s.func.custom_grad.symbol}({', '.join(args)}); {adds} }}")
        elif isinstance(s, AdjFuncCall):
            args = [a.name for a in s.args] + [a.name for a in s.adj_args]
            if s.adj_ret is not None:
                args.append(s.adj_ret.name)
            self.line(depth, f"adj_{s.func.symbol}({', '.join(args)});")
        elif isinstance(s, AdjConstruct):
            self.adj_construct(s, depth)
        elif isinstance(s, AdjUpdate):
            self.adj_update(s, depth)
        elif isinstance(s, AdjLoad):
            idx = ", ".join(self.index_expr(i) for i in s.indices)
            if s.owned:
                self.line(depth, f"wpnb::adj_load_owned<WPNB_C{self.grad_wrap(s)}>({s.array.name}, "
                                 f"{s.adj_value.name}, {idx});")
            else:
                self.line(depth, f"wpnb::adj_load({s.array.name}, {s.adj_value.name}, {idx});")
        elif isinstance(s, AdjPrint):
            if s.items:
                self.line(depth, self.adj_print_call(s))
        elif isinstance(s, AdjStore):
            idx = ", ".join(self.index_expr(i) for i in s.indices)
            if not s.path and id(s.array) in self.param_arrays:
                self.line(depth, f"wpnb::adj_store_c<WPNB_C{self.grad_wrap(s)}>({s.array.name}, {s.adj_value.name}, "
                                 f"{idx});")
            elif not s.path:
                self.line(depth, f"wpnb::adj_store({s.array.name}, {s.adj_value.name}, {idx});")
            else:
                ref, row = self.path_expr(f"wpnb::index_grad({s.array.name}, {idx})", s.array.type.dtype, s.path)
                src = ref if row is None else f"wpnb::extract({ref}, {_index(row)})"
                consume = f"wpnb::consume({ref})" if row is None else f"wpnb::consume_row({ref}, {_index(row)})"
                # as adj_store: the stored component's gradient is read, then consumed
                self.line(depth, f"if ({s.array.name}.grad) {{ wpnb::accumulate({s.adj_value.name}, {src}); "
                                 f"{consume}; }}")
        elif isinstance(s, RevIf):
            self.line(depth, f"if ({s.cond.name}) {{")
            self.reverse_block(s.body, depth + 1)
            if s.orelse:
                self.line(depth, "} else {")
                self.reverse_block(s.orelse, depth + 1)
            self.line(depth, "}")
        elif isinstance(s, RevLoop):
            self.rev_loop(s, depth)
        else:
            raise TypeError(f"cannot emit reverse statement {type(s).__name__}")

    def accumulate(self, s: Accumulate, depth: int) -> None:
        src = f"{s.src.var.name}.v{s.src.k}" if isinstance(s.src, TupleItem) else s.src.name
        if not s.path:
            self.line(depth, f"wpnb::accumulate({s.dst.name}, {src});")
            return
        expr, row = self.path_expr(s.dst.name, s.dst.type, s.path)
        if row is not None:
            self.line(depth, f"wpnb::adj_add_row({expr}, {_index(row)}, {src});")
        else:
            self.line(depth, f"wpnb::accumulate({expr}, {src});")

    def adj_call(self, s: AdjCall, depth: int) -> None:
        b = s.builtin
        self.unit.headers.add(b.header)
        adj_symbol = _adjoint_symbol(b.symbol, s.resolved)
        outputs = len(s.resolved.overload.outputs)
        if outputs:  # inputs, outputs (scratch: the adjoint recomputes them), inputs' adjoints, outputs' adjoints
            args = [a.name for a in s.args] + [f"wpnb_out.v{k}" for k in range(outputs)] + \
                [a.name for a in s.adj_args] + [f"{s.adj_ret.name}.v{k}" for k in range(outputs)]
            self.line(depth, f"{{ {cpp_type(s.adj_ret.type)} wpnb_out{{}}; {adj_symbol}({', '.join(args)}); }}")
            return
        args = [a.name for a in s.args] + [a.name for a in s.adj_args]
        if s.adj_ret is not None:
            args.append(s.adj_ret.name)
        else:  # an atomic used as a statement: no one reads its result
            args.append(f"{cpp_type(s.args[-1].type)}{{}}")
        lanes = b.lanes if self.unit.block_dim > 1 else None  # (registry.LANES)
        if lanes == "own_element" and s.adj_args:
            # an element read with this lane's indices: each lane's part of the tile's adjoint differs,
            # and the tile's adjoint is the block's sum of them (native/tiles/tile_block.h)
            tile_adj = s.adj_args[0].name
            args[len(s.args)] = "wpnb_part"
            self.line(depth, f"{{ {cpp_type(s.adj_args[0].type)} wpnb_part{{}}; {adj_symbol}({', '.join(args)}); "
                             f"wpnb::accumulate({tile_adj}, wpnb::block_sum_lanes(wpnb_part)); }}")
            return
        if lanes == "once_per_block":  # costly: once per CPU block
            shared = "".join(f" {a.name} = wpnb::block_share({a.name});" for a in s.adj_args)
            self.line(depth, f"{{ wpnb::block_once([&]() {{ {adj_symbol}({', '.join(args)}); }});{shared} }}")
            return
        if lanes in ("lead", "lead_adjoint"):
            # a block of several lanes: the gradient moves between the tile and the array once, on
            # lane 0, and every lane then holds lane 0's adjoints (native/tiles/block.h)
            shared = "".join(f" {a.name} = wpnb::block_broadcast({a.name}, wpnb::block_leader());" for a in s.adj_args)
            self.line(depth, f"{{ wpnb::block_lead([&]() {{ {adj_symbol}({', '.join(args)}); }});{shared} }}")
            return
        self.line(depth, f"{adj_symbol}({', '.join(args)});")

    def adj_construct(self, s: AdjConstruct, depth: int) -> None:
        t = s.type
        if T.is_scalar_type(t):
            self.line(depth, f"wpnb::adj_cast<{cpp_type(t)}>({s.args[0].name}, {s.adj_args[0].name}, {s.adj_ret.name});")
            return
        fn = _CONSTRUCT_ADJ.get(T.kind_of(t))
        if fn is None:
            return  # structs are built empty; their fields arrive through updates
        args = [a.name for a in s.args] + [a.name for a in s.adj_args] + [s.adj_ret.name]
        target = f"<{t._shape_[0]}, {cpp_type(t._wp_scalar_type_)}>" if T.kind_of(t) == "vector" and len(s.args) == 1 \
            and T.is_scalar_type(s.args[0].type) else ""
        self.line(depth, f"{fn}{target}({', '.join(args)});")

    def adj_update(self, s: AdjUpdate, depth: int) -> None:
        expr, row = self.path_expr(s.adj_dst.name, s.adj_dst.type, s.path)
        part = expr if row is None else f"wpnb::extract({expr}, {_index(row)})"
        self.line(depth, f"wpnb::accumulate({s.adj_value.name}, {part});")
        self.line(depth, f"{{ {cpp_type(s.adj_dst.type)} wpnb_rest = {s.adj_dst.name};")
        rest, rest_row = self.path_expr("wpnb_rest", s.adj_dst.type, s.path)
        if rest_row is None:
            self.line(depth + 1, f"{rest} = {cpp_type(s.adj_value.type)}{{}};")
        else:
            self.line(depth + 1, f"{rest} = wpnb::with_index({rest}, {_index(rest_row)}, {cpp_type(s.adj_value.type)}{{}});")
        self.line(depth + 1, f"wpnb::accumulate({s.adj_base.name}, wpnb_rest); }}")

    def rev_loop(self, s: RevLoop, depth: int) -> None:
        k, j = s.k.name, s.j.name
        self.line(depth, f"for ({k} = {s.trips.name} - 1; {k} >= 0; --{k}) {{", s.loc)
        inner = depth + 1
        self.poll_interrupt(inner)  # (each iteration replays the loop up to it: trips**2 / 2 in all)
        for c in s.carried:
            self.line(inner, f"{c.state.name} = {c.init.name};")
        self.line(inner, f"for ({j} = 0; {j} < {k}; ++{j}) {{")
        if s.kind == "for":
            self.line(inner + 1, f"{s.counter.name} = {s.start.name} + {j} * {s.step.name};")
        self.block(s.cond_body, inner + 1)
        self.block(s.body_replay, inner + 1)
        self.line(inner, "}")
        if s.kind == "for":
            self.line(inner, f"{s.counter.name} = {s.start.name} + {k} * {s.step.name};")
        self.block(s.cond_body, inner)
        self.block(s.body_replay_no_writeback, inner)
        for a in s.iteration_adjoints:
            self.line(inner, f"{a.name} = {cpp_type(a.type)}{{}};")
        self.reverse_block(s.body_reverse, inner)
        self.line(depth, "}")


def _adjoint_symbol(symbol: str, resolved) -> str:
    """adj_<name> of a builtin's C++ symbol; for a templated call, the template's adj_ twin with the same
    bindings, or the adjoint text the typechecker wrote in the bindings (tile_map's function object)."""
    template = resolved.overload.template
    if template is not None:
        bindings = {k: (str(x) if isinstance(x, (int, str)) else cpp_type(x)) for k, x in resolved.bindings.items()}
        if "adjoint" in bindings:
            return bindings["adjoint"].format(**bindings)
        head, bracket, rest = template.partition("<")
        ns, _, name = head.rpartition("::")
        return f"{ns}::adj_{name}{bracket}{rest}".format(**bindings) if ns else f"adj_{name}{bracket}{rest}".format(
            **bindings)
    ns, _, name = symbol.rpartition("::")
    return f"{ns}::adj_{name}" if ns else f"adj_{name}"


def _adj_var(adj: AdjointFunction, v: ir.Var) -> ir.Var:
    a = adj.adj.get(id(v))
    if a is None:
        a = adj.adj[id(v)] = ir.Var(f"adj_{v.name}", v.type, mutable=True)
    return a


def emit_adjoint_function(inst, adj: AdjointFunction, unit) -> str:
    return _AdjointWriter(adj, unit).adjoint_function()


def emit_kernel_backward(kernel: ir.Function, adj: AdjointFunction, unit, sym: str) -> str:
    return _AdjointWriter(adj, unit).kernel_backward(sym)


def seeded_params(adj: AdjointFunction) -> list:
    """The positions of a kernel's value parameters whose adjoints its backward pass prints and
    which therefore start from the adjoints `adj_inputs` gives them (as in Warp) rather than
    from zero: scalars, bools, vectors, matrices, quaternions, transforms. Only a kernel whose
    backward code prints reads them; nothing else can observe a value parameter's adjoint."""
    if not adj.prints:
        return []
    return [k for k, p in enumerate(adj.primal.params)
            if id(p) in adj.adj and (T.is_scalar_type(p.type) or T.kind_of(p.type) is not None)]


def _seeds_global(sym: str, params) -> str:
    """The module global that holds those adjoints, written by the runtime before each backward
    launch (launch/adjoint.py, through the target's write_adjoint_seeds; zeros when none are
    given), laid out as the argument struct of those parameters alone would be (launch/args.py
    argument_layout)."""
    fields = "\n".join(f"    {cpp_type(p.type)} {p.name};" for p in params)
    t = f"{sym}_adj_seeds_t"
    # raw bytes: a CUDA __device__ variable cannot have a constructor (vectors have one)
    return (f"struct {t} {{\n{fields}\n}};\n#if defined(WPNB_CUDA)\n__device__\n#else\n"
            f"extern \"C\" __attribute__((visibility(\"default\")))\n#endif\n"
            f"alignas(alignof({t})) unsigned char {sym}_adj_seeds[sizeof({t})] = {{}};\n")
