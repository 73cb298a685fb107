"""Syntax tree -> typed IR (`ir.py`): names resolved, every value typed, builtins resolved to
one overload of the registry, user functions instantiated for their argument types. Values
become SSA variables; branches join through phis and loops carry explicit state. The entry
points and the typer's state live here; FunctionTyper gathers one mixin per concept:
expressions (`typecheck_expr`), statements (`typecheck_statements`), subscripts
(`typecheck_subscript`), loops (`typecheck_loops`), calls typed by a rule (`typecheck_calls`),
constructors (`typecheck_construct`) and tiles (`typecheck_tiles*`). A builtin typed by a rule
names it in the registry (`form=`: the method `form_<form>`). Knows the registry and types;
knows nothing about C++ or devices."""

from __future__ import annotations

import dataclasses
import hashlib

from . import ir
from . import syntax as S
from .. import types as T
from ..types.tiles import TileType
from ..types.array_type import ArrayType
from ..errors import Loc, KernelTypeError
from .lanes import lanes_agree
from .scope import Lit, PyObj, Scope
from ..types.function_value import FunctionValue
from ..types.reference import Reference
from ..builtins import registry
from .typecheck_expr import ExprTyper
from .typecheck_partial import run_typer
from .typecheck_statements import Statements
from .typecheck_calls import Calls
from .typecheck_construct import Constructors
from .typecheck_loops import Loops
from .typecheck_subscript import Subscripts
from .typecheck_tiles import TileArguments
from .typecheck_tiles_arange import ArangeForm
from .typecheck_tiles_construct import TileConstruction
from .typecheck_tiles_elementwise import TileElementwise
from .typecheck_tiles_linalg import TileLinearAlgebra
from .typecheck_tiles_memory import TileMemory
from .typecheck_tiles_parts import TileParts, TileReferences, TileSubscripts
from .typecheck_references import References
from .typecheck_tiles_reduce import TileReductions
from .typecheck_tiles_shape import TileShapes
from .typecheck_tiles_stacks import TileStacks


class Context:
    """State shared by one compilation: the function instances typed so far (so a function
    used twice is typed once) and the stack of functions being typed (to refuse recursion)."""

    def __init__(self, mode: str, backward: bool = False, backward_enabled: bool = False, block_dim: int = 1):
        self.mode = mode
        #: lanes per block the kernel is typed for (1: a block is one lane, as on Warp's CPU;
        #: more: CUDA, or wp.config.enable_cpu_blocks; native/tiles/block.h, native/tiles/tile_block.h)
        self.block_dim = block_dim
        self.uses_blocks = False  # the kernel has tiles or asks wp.block_dim(): its code depends on block_dim
        self.backward = backward  # also type custom gradients and replays (@wp.func_grad, @wp.func_replay)
        self.backward_enabled = backward_enabled  # the kernel may be differentiated (what tile_matmul checks)
        self.instances: dict = {}
        self.stack: list = []


class FuncInstance:
    """A user function typed for one list of argument types."""

    def __init__(self, func, arg_types: tuple, ir_fn: ir.Function):
        self.func = func
        self.arg_types = arg_types
        self.ir = ir_fn
        self.symbol = ir_fn.symbol
        self.return_type = ir_fn.return_type
        self.custom_grad: FuncInstance | None = None  # from @wp.func_grad: returns the inputs' adjoints
        self.custom_replay: FuncInstance | None = None  # from @wp.func_replay
        self.native: tuple | None = None  # @wp.func_native: (C++ body, C++ adjoint body or None)
        self.overload = None  # the definition (FuncOverload) typed: its custom gradient and replay


def typecheck_kernel(fdef: S.FunctionDef, param_types: list, scope: Scope, context: Context) -> ir.Function:
    """Type a kernel: `param_types` come from the annotations, one per parameter."""
    # one kernel per translation unit: its plain name is unique there, and the unit's cache key
    # covers its content
    fn = run_typer(lambda: FunctionTyper(fdef, scope, context, is_kernel=True, symbol=f"k_{fdef.name}"),
                   param_types)
    if not context.uses_blocks:
        return fn  # a kernel without tiles runs the same in blocks of any size: one lane, plain entry points
    agree = context.block_dim > 1 and lanes_agree(fn)
    return dataclasses.replace(fn, block_dim=context.block_dim, uses_blocks=True, lanes_agree=agree)


def typecheck_function(func, fdef: S.FunctionDef, arg_types: list, scope: Scope, context: Context,
                       return_type=None, overload=None) -> FuncInstance:
    """Type a user function for these argument types (memoised per compilation). For a backward
    compilation, its custom gradient and replay functions are typed too."""
    key = (id(func), fdef.loc, tuple(arg_types))
    inst = context.instances.get(key)
    if inst is not None:
        return inst

    def make():
        typer = FunctionTyper(fdef, scope, context, is_kernel=False, symbol=f"f_{fdef.name}", return_type=return_type)
        if overload is not None:  # wp.ref[T] parameters: references the caller's copies are passed to
            typer.reference_names = {n for n, p in zip(fdef.params, overload.params) if isinstance(p, Reference)}
        return typer

    inst = FuncInstance(func, tuple(arg_types), _content_symbol(_with_hint(run_typer(make, arg_types), func), "f"))
    inst.overload = overload
    context.instances[key] = inst
    if context.backward and overload is not None:
        if overload.custom_grad is not None:
            inst.custom_grad = _custom_grad(func, overload.custom_grad, fdef, arg_types, inst.return_type, context)
        if overload.custom_replay is not None:
            replay = overload.custom_replay
            inst.custom_replay = typecheck_function(func, replay.fdef, arg_types, replay.scope, context,
                                                    inst.return_type)
    return inst


def _with_hint(fn: ir.Function, func) -> ir.Function:
    """`fn` with its @wp.func's inline hint (read from the function object: None when it has none)."""
    hint = getattr(func, "inline", None)
    return fn if hint is None else dataclasses.replace(fn, inline=hint)


def custom_grad_instance(func, overload, inst: FuncInstance, context: Context) -> FuncInstance:
    """The @wp.func_grad of an instance, for wp.grad(f) in a compilation without backward."""
    return _custom_grad(func, overload.custom_grad, overload.fdef, list(inst.arg_types), inst.return_type, context)


def native_instance(func, overload, arg_types: list, context: Context) -> FuncInstance:
    """A @wp.func_native function for its (declared) parameter types: an IR function with no body,
    named after its C++ text, carrying the snippets for emit; its replay snippet, when given, is
    its custom replay."""
    snippet, adj_snippet, replay_snippet = overload.native
    key = (id(func), "native", tuple(arg_types))
    inst = context.instances.get(key)
    if inst is not None:
        return inst
    names = [n for n in overload.fn.__code__.co_varnames[:overload.fn.__code__.co_argcount]]
    digest = hashlib.blake2b(repr((snippet, adj_snippet, [T.type_name(t) for t in arg_types])).encode(),
                             digest_size=4).hexdigest()
    loc = Loc(overload.fn.__code__.co_filename, overload.fn.__code__.co_firstlineno)
    # a wp.ref[T] parameter is a C++ reference the snippet writes (the caller passes a copy it takes back)
    params = [ir.Var(n, t, mutable=isinstance(p, Reference)) for n, t, p in zip(names, arg_types, overload.params)]
    fn = ir.Function(name=overload.fn.__name__, symbol=f"n_{overload.fn.__name__}_{digest}", params=params,
                     param_names=names, body=(), return_type=overload.return_type, is_kernel=False, loc=loc)
    inst = FuncInstance(func, tuple(arg_types), fn)
    inst.native = (snippet, adj_snippet)
    context.instances[key] = inst
    if replay_snippet is not None:
        replay = ir.Function(name=fn.name, symbol=f"{fn.symbol}_replay", params=params, param_names=names, body=(),
                             return_type=fn.return_type, is_kernel=False, loc=loc)
        inst.custom_replay = FuncInstance(func, tuple(arg_types), replay)
        inst.custom_replay.native = (replay_snippet, None)
    return inst


def _custom_grad(func, grad, primal: S.FunctionDef, arg_types, return_type, context) -> FuncInstance:
    """Type a @wp.func_grad function: the primal's parameters (and adj_ret when the primal returns
    a value) in, the adjoints it accumulates with wp.adjoint[x] out, as a tuple."""
    # one adjoint per returned value: adj_ret, or adj_ret0, adj_ret1, ... for a function returning several
    returned = list(return_type.items) if isinstance(return_type, ir.TupleType) else \
        [return_type] if return_type is not None else []
    types_ = list(arg_types) + returned
    if len(grad.fdef.params) != len(types_):
        adj = ["adj_ret"] if len(returned) == 1 and not isinstance(return_type, ir.TupleType) else \
            [f"adj_ret{k}" for k in range(len(returned))]
        want = ", ".join(list(primal.params) + adj)
        raise KernelTypeError(f"the custom gradient of `{func.key}` must take ({want})", grad.fdef.loc,
                              grad.fdef.name)
    typer = FunctionTyper(grad.fdef, grad.scope, context, is_kernel=False, symbol=f"g_{grad.fdef.name}")
    typer.adjoint_params = list(zip(grad.fdef.params[:len(arg_types)], arg_types))
    return FuncInstance(func, tuple(types_), _content_symbol(_with_hint(typer.run(types_), func), "g"))


def _content_symbol(fn: ir.Function, prefix: str) -> ir.Function:
    """Name the typed function after what it computes: a readable stem and a fingerprint of its
    IR (which holds its constants and its callees' symbols). Where it is defined in a file or cell
    does not enter, so moving code or editing a neighbour leaves its C++, and its cache entry, alone."""
    return dataclasses.replace(fn, symbol=f"{prefix}_{fn.name}_{ir.fingerprint(fn)}")


class FunctionTyper(ExprTyper, Statements, Subscripts, Loops, Calls, Constructors, TileArguments, TileConstruction, ArangeForm,
                    TileMemory, TileShapes, TileElementwise, TileReductions, TileLinearAlgebra, TileStacks, TileSubscripts,
                    TileParts, TileReferences, References):
    def __init__(self, fdef: S.FunctionDef, scope: Scope, context: Context, is_kernel: bool, symbol: str,
                 return_type=None):
        self.fdef = fdef
        self.scope = scope
        self.context = context
        self.is_kernel = is_kernel
        self.symbol = symbol
        if isinstance(return_type, TileType) and return_type.is_generic():
            return_type = None  # `-> wp.tile[float]`: any shape, taken from what the function returns
        self.declared_return = return_type
        self.return_type = return_type
        self.has_return_value = False
        self.env: dict = {}
        self.maybe_undefined: dict = {}  # name -> line where it was last only conditionally assigned
        # (line, column, name) of branches after which a name bound on some paths only is read
        self.partial_names: frozenset = frozenset()  # (run_typer: found by an earlier pass)
        self.block: list = []
        self.locals: list = []
        self.loops: list = []  # typecheck_loops._Loop, innermost last
        self.bound_constants: dict = {}  # id(var) -> the Python number a local was bound to (x = 3), for wp.static
        self.counter = 0
        self.tid_count = 0
        self.dead_tid_arity = 0  # the most indices a wp.tid() in folded-away code is unpacked into
        self.adjoint_params: list = []  # (name, type) in a @wp.func_grad function
        self.funcs: list = []
        self.structs: list = []
        self.checks: list = []

    # --- entry --------------------------------------------------------------------------
    def run(self, param_types: list) -> ir.Function:
        fdef = self.fdef
        if len(param_types) != len(fdef.params):
            raise KernelTypeError(f"{fdef.name} takes {len(fdef.params)} arguments, got {len(param_types)}", fdef.loc)
        params, names = [], []
        for name, t in zip(fdef.params, param_types):
            if isinstance(t, FunctionValue):  # a wp.Function parameter: the function itself, known now
                self.env[name] = PyObj(t.target)
                continue
            names.append(name)
            var = ir.Var(f"{name}_{self._next()}", t)
            params.append(var)
            self.env[name] = var
            self.note_type(t)
        if not self.is_kernel and not self.adjoint_params:
            self.reference_params(fdef, params)  # tile parameters the body writes: references, as in Warp
            for k, (name, var) in enumerate(zip(names, params)):
                if name in getattr(self, "reference_names", ()) and not var.mutable:  # wp.ref[T]
                    params[k] = ir.Var(var.name, var.type, mutable=True)
                    self.env[name] = params[k]
                    self.ref_params.append((name, params[k]))
        for name, t in self.adjoint_params:  # wp.adjoint[x] starts at zero; an array's is a view of its gradient
            if isinstance(t, ArrayType):
                self.env[f"wp.adjoint[{name}]"] = self.call_builtin(registry.BUILTINS["grad_view"], [self.env[name]],
                                                                    fdef)
                continue
            self.env[f"wp.adjoint[{name}]"] = self.let(ir.Construct(t, ()), t, fdef.loc, f"adj_{name}") if not \
                T.is_scalar_type(t) else self.materialize(Lit(0, "int"), t, fdef)
        self.context.stack.append(fdef)
        try:
            terminated = self.statements(fdef.body)
        finally:
            self.context.stack.pop()
        if not terminated:
            self.write_back_params(fdef.loc)
        if self.adjoint_params:
            if self.has_return_value:
                raise KernelTypeError("a @wp.func_grad function gives its results through wp.adjoint[x] += ...; "
                                      "it cannot return a value", fdef.loc, fdef.name)
            items = tuple(self.env[f"wp.adjoint[{n}]"] for n, _ in self.adjoint_params)
            result = self.let(ir.TupleOf(items), ir.TupleType(tuple(v.type for v in items)), fdef.loc)
            self.block.append(ir.Return(result, fdef.loc))
            self.has_return_value, self.return_type, terminated = True, result.type, True
        if not self.is_kernel and self.has_return_value and not terminated and self.return_type is not None:
            raise KernelTypeError(f"function {fdef.name} returns a value on some paths but can reach its end "
                                  "without a return; add a return at the end", fdef.loc, fdef.name)
        return ir.Function(name=fdef.name, symbol=self.symbol, params=params, param_names=names,
                           body=tuple(self.block), return_type=self.return_type if self.has_return_value else None,
                           is_kernel=self.is_kernel, loc=fdef.loc, tid_count=self.tid_count,
                           tid_arity=max(self.tid_count, self.dead_tid_arity), funcs=self.funcs,
                           structs=self.structs, locals=self.locals, checks=self.checks)

    # --- helpers ------------------------------------------------------------------------
    def _next(self) -> int:
        self.counter += 1
        return self.counter

    def new_var(self, t, hint: str = "t", mutable: bool = False) -> ir.Var:
        if not hint.isidentifier():  # wp.adjoint[x] -> adj_x
            hint = "adj_" + hint[hint.find("[") + 1:-1] if hint.startswith("wp.adjoint[") else "t"
        var = ir.Var(f"{hint}_{self._next()}", t, mutable)
        self.locals.append(var)
        self.note_type(t)
        return var

    def let(self, value, t, loc, hint: str = "t") -> ir.Var:
        var = self.new_var(t, hint)
        self.block.append(ir.Let(var, value, loc))
        return var

    def note_type(self, t) -> None:
        """Remember struct types used, so emit can define them."""
        if getattr(t, "_wp_struct_", False) and t not in self.structs:
            self.structs.append(t)
        if isinstance(t, ArrayType):
            self.note_type(t.dtype)

    def error(self, cls, message: str, node):
        raise cls(message, getattr(node, "loc", node), self.fdef.name)

    def in_block(self, stmts_fn):
        """Run `stmts_fn` collecting its statements into a new block; returns (block, result)."""
        saved = self.block
        self.block = []
        try:
            result = stmts_fn()
            return tuple(self.block), result
        finally:
            self.block = saved
