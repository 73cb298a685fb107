"""`@wp.func`: functions callable from kernels, with overloads, custom gradients
(`@wp.func_grad`) and custom replays (`@wp.func_replay`). A Function holds parsed definitions;
it is typed per call site by the compiler (`compiler.typecheck`), never compiled on its own."""

from __future__ import annotations

import abc
import dataclasses
import inspect
import sys
import typing
from dataclasses import dataclass

from . import redefinition
from .. import types as T
from ..builtins.registry import Literal, concrete
from ..types.function_value import FUNCTION_PARAM, FunctionValue, is_function_object
from ..types.array_family import annotation_of, refuse_instance_annotations
from ..types.reference import Reference
from ..compiler.annotations import parameter_types, resolve_annotation
from ..compiler.scope import Scope
from ..types.generic import is_generic, matches


@dataclass
class FuncOverload:
    """One overload of a @wp.func: the Python function, its types and scope."""

    fn: typing.Callable
    parsed: typing.Any  # the syntax tree, or None until first needed (errors surface when a kernel using it loads)
    params: list  # types; None or a generic type (types/generic.py) for generic parameters
    return_type: typing.Any
    scope: Scope
    custom_grad: "FuncOverload | None" = None  # @wp.func_grad
    custom_replay: "FuncOverload | None" = None  # @wp.func_replay
    native: tuple | None = None  # @wp.func_native: (snippet, adj_snippet, replay_snippet) of C++ text
    #: Warp's `defaults`: the parameters' default values by name (a call without them takes these,
    #: read when the calling kernel is typed, so changing one changes that kernel and its module hash)
    defaults: dict = None

    def __post_init__(self):
        if self.defaults is None:
            self.defaults = {p.name: p.default for p in inspect.signature(self.fn).parameters.values()
                             if p.default is not inspect.Parameter.empty}

    @property
    def fdef(self):
        if self.native is not None:
            return None  # its body is C++: nothing to parse
        if self.parsed is None:
            from ..compiler.parse import parse_definition
            self.parsed = parse_definition(self.fn)
        return self.parsed

    def accepts(self, arg_types, promote_literals: bool = True) -> bool:
        """Whether arguments of these types can call this overload; an int literal may go to a
        float parameter unless `promote_literals` is False (the first, exact round of selection)."""
        if len(arg_types) != len(self.params):
            return False
        for p, a in zip(self.params, arg_types):
            if isinstance(p, Reference):  # wp.ref[T]: a T passed by reference
                p = p.dtype
            if p is FUNCTION_PARAM or isinstance(a, FunctionValue):  # a function goes to a wp.Function parameter
                if not (p is FUNCTION_PARAM and isinstance(a, FunctionValue)):
                    return False
                continue
            if p is None:
                continue
            if is_generic(p):
                if not matches(p, concrete(a)):
                    return False
            elif isinstance(a, Literal):
                to_float = a.kind == "int" and T.is_float_type(p)
                if not ((a.fits(p) or to_float) if promote_literals else (a.fits(p) and not to_float)):
                    return False
            elif not (a is p or a == p):
                return False
        return True

    @property
    def is_generic(self) -> bool:
        return any(p is None or p is FUNCTION_PARAM or is_generic(p) for p in self.params)

    @property
    def input_types(self) -> dict:
        """Warp's name: the parameter types by parameter name (None: an unannotated parameter)."""
        return dict(zip(inspect.signature(self.fn).parameters, self.params))

    def resolve_params(self, arg_types) -> list:
        return [concrete(a) if p is None or p is FUNCTION_PARAM or is_generic(p) else p.dtype if isinstance(p, Reference)
                else p for p, a in zip(self.params, arg_types)]


def _overload(fn) -> FuncOverload:
    # the parser loads with the first definition, not with warp_nb (tests/unit/test_lazy_imports.py)
    from ..compiler.static_eval import resolve_at_declaration
    params = parameter_types(fn, "function")
    ret = fn.__annotations__.get("return")
    # tuple[a, b]: several return values, checked against the return statements (tuple[a, ...]: from them)
    ret = resolve_annotation(ret, fn, "return", "function") if ret is not None else None
    scope = Scope(fn)
    resolve_at_declaration(fn, scope)  # wp.static(...) sees the globals as they are now
    return FuncOverload(fn, None, params, ret, scope)


# ABCMeta: wp.build_experimental registers its external builtins' records as Functions (Warp's handle type)
class Function(metaclass=abc.ABCMeta):
    """What `@wp.func` returns: callable from kernels (compiled) and from Python (runs the Python
    function). Defining another @wp.func with the same name in the same scope adds an overload
    (see `_define`)."""

    _wp_func_ = True

    def __init__(self, fn):
        self.key = fn.__qualname__
        self.module = fn.__module__
        self.inline: bool | None = None  # @wp.func(inline=...): set by _define
        self.func = fn
        self.overloads: list[FuncOverload] = []
        self.add_overload(fn)
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    @property
    def module(self):
        """The wp.Module this function belongs to (made on first read: most functions never need one)."""
        module = self._module
        if isinstance(module, str):
            from .module import get_module
            module = self._module = get_module(module)
        return module

    @module.setter
    def module(self, value) -> None:
        self._module = value  # a name, or a wp.Module

    @property
    def module_name(self) -> str:
        return self._module if isinstance(self._module, str) else self._module.name

    def add_overload(self, fn) -> None:
        new = _overload(fn)
        # a redefinition with the same parameter types replaces the old one (notebook re-runs)
        self.overloads = [o for o in self.overloads if o.params != new.params] + [new]
        self.func = fn

    @property
    def user_overloads(self) -> dict:
        """Warp's view: the overloads by their parameter types, with the concrete ones Python-scope
        calls of a generic overload made (an array argument as its family's annotation, so a
        subclass and its parent share one)."""
        found = {tuple(o.params): o for o in self.overloads}
        found.update(self.__dict__.get("_called_with", {}))
        return found

    def _record_python_call(self, chosen: FuncOverload, args) -> None:
        """Remember the concrete types of a Python-scope call of a generic overload (types only:
        the arguments themselves are not kept)."""
        from .signatures import type_of_value
        concrete_types = tuple(annotation_of(a) or type_of_value(a) for a in args)
        if None in concrete_types or len(concrete_types) != len(chosen.params):
            return
        made = self.__dict__.setdefault("_called_with", {})
        if concrete_types not in made:
            made[concrete_types] = dataclasses.replace(chosen, params=list(concrete_types), defaults=chosen.defaults)

    @property
    def defaults(self) -> dict:
        """Warp's `Function.defaults`: the default values of the last definition's parameters."""
        return self.overloads[-1].defaults

    @defaults.setter
    def defaults(self, values: dict) -> None:
        self.overloads[-1].defaults = dict(values)

    def get_overload(self, arg_types, kwarg_types=None) -> FuncOverload | None:
        """Warp's name: the overload these argument types select (None when none does)."""
        arg_types = [T.canonical_scalar(t) for t in arg_types]  # float: wp.float32, as in kernels
        found = self.select_overload(arg_types)
        if found is not None:
            return found
        for o in reversed(self.overloads):  # one whose parameters after these all have defaults
            names = list(inspect.signature(o.fn).parameters)
            if len(names) > len(arg_types) and all(n in o.defaults for n in names[len(arg_types):]):
                head = FuncOverload(o.fn, o.parsed, o.params[:len(arg_types)], o.return_type, o.scope, defaults={})
                if head.accepts(arg_types):
                    return o
        return None

    def overload_for_keywords(self, positional: int, keywords) -> FuncOverload:
        """The overload a call of `positional` arguments and these keyword names binds: keywords choose
        among overloads of several signatures (lookup(d, x, guess=s), lookup(d, x, max_dist=m)), the
        last definition whose parameters they name and whose other parameters have defaults; else
        the last definition (whose errors then name what is wrong)."""
        def fits(overload) -> bool:
            params = list(inspect.signature(overload.fn).parameters.values())
            return set(keywords) <= {p.name for p in params} and positional <= len(params) and all(
                p.name in keywords or p.name in overload.defaults for p in params[positional:])

        return next((o for o in reversed(self.overloads) if fits(o)), self.overloads[-1])

    def select_overload(self, arg_types) -> FuncOverload | None:
        # g(2) with g(int) and g(float) both defined calls g(int), whichever was defined last
        for promote in (False, True):
            exact = [o for o in self.overloads if not o.is_generic and o.accepts(arg_types, promote)]
            if exact:
                return exact[-1]
        return next((o for o in reversed(self.overloads) if o.accepts(arg_types)), None)

    def __call__(self, *args, **kwargs):
        """From Python: the overload whose parameter types fit the arguments (the last definition
        when none is typed for them, as a plain Python function)."""
        if not kwargs and self.overloads:
            from .signatures import type_of_value
            arg_types = [type_of_value(a) for a in args]
            chosen = self.get_overload(arg_types)
            if chosen is not None:
                target = getattr(chosen, "fn", None) or chosen.func  # an overload, or (as in Warp) a Function
                names = list(inspect.signature(target).parameters)
                required = [n for n in names if n not in chosen.defaults]
                if not len(required) <= len(args) <= len(names):
                    raise RuntimeError(f"Invalid number of arguments for function '{self.key.rsplit('.', 1)[-1]}', "
                                       f"expected {len(names)}, got {len(args)}")
                if isinstance(chosen, FuncOverload) and chosen.is_generic:
                    self._record_python_call(chosen, args)
                return target(*args)
            if self._refuses_function_arguments(args):
                raise RuntimeError(f"Error calling function '{self.key.rsplit('.', 1)[-1]}', no overload found "
                                   f"for arguments {tuple(args)!r}: a wp.Function parameter takes a @wp.func or "
                                   "a Warp builtin, not a Python function")
            if None not in arg_types and all(o.params and None not in o.params and len(o.params) == len(args)
                                             for o in self.overloads):
                # every overload is typed and none takes these values: Warp refuses the call (a Python
                # float is a float32, an int an int32; no conversion), and so do we
                raise RuntimeError(f"Error calling function '{self.key.rsplit('.', 1)[-1]}', no overload found "
                                   f"for arguments {tuple(args)!r}")
        return self.func(*args, **kwargs)

    def _refuses_function_arguments(self, args) -> bool:
        """Whether an argument given for a parameter that every overload types wp.Function is not a
        Warp function (a lambda, a plain def): Warp refuses it from Python as it would in a kernel."""
        return any(all(len(o.params) > i and o.params[i] is FUNCTION_PARAM for o in self.overloads)
                   and not is_function_object(a) for i, a in enumerate(args))

    def __repr__(self):
        return f"<wp.func {self.key}>"


_FUNCS: dict = {}


class _AdjointMarker:
    """`wp.adjoint[x]` inside a @wp.func_grad function: the adjoint of parameter x."""

    _wp_adjoint_marker_ = True

    def __getitem__(self, key):
        raise RuntimeError("wp.adjoint[...] can only be used inside a @wp.func_grad function")

    def __repr__(self):
        return "wp.adjoint"


adjoint = _AdjointMarker()


def _attach(f: Function, fn, what: str) -> tuple[FuncOverload, FuncOverload]:
    """Parse a custom gradient or replay function and find the overload of `f` it belongs to
    (by the annotated types of its leading parameters)."""
    if not isinstance(f, Function):
        raise TypeError(f"@wp.{what}(f) expects a @wp.func, got {type(f).__name__}")
    helper = _overload(fn)
    params = helper.params
    for o in f.overloads:
        if params[:len(o.params)] == o.params or all(p is None or is_generic(p) for p in params):
            return o, FuncOverload(fn, None, params, None, helper.scope)
    raise TypeError(f"@wp.{what}: no overload of {f.key} has parameters of types "
                    f"({', '.join(T.type_name(p) for p in params)})")


def func_grad(f: Function):
    """Decorator: a custom adjoint for the @wp.func `f`. It takes f's parameters (and adj_ret if f
    returns a value) and adds to wp.adjoint[x] for each input x it differentiates."""
    def decorate(fn):
        overload, grad = _attach(f, fn, "func_grad")
        overload.custom_grad = grad
        return fn
    return decorate


def func_replay(f: Function):
    """Decorator: what the backward pass runs instead of `f` when it recomputes forward values
    (for functions with side effects, such as atomics)."""
    def decorate(fn):
        overload, replay = _attach(f, fn, "func_replay")
        overload.custom_replay = replay
        return fn
    return decorate


_P = typing.ParamSpec("_P")
_R = typing.TypeVar("_R")


# Signatures for static type checkers (Pyright/Pylance show the decorated function's own signature,
# as for Warp's wp.func): bare @wp.func, and @wp.func(...) with options.
@typing.overload
def func(fn: typing.Callable[_P, _R]) -> typing.Callable[_P, _R]: ...


@typing.overload
def func(fn: None = None, **options) -> typing.Callable[[typing.Callable[_P, _R]], typing.Callable[_P, _R]]: ...


def func(fn=None, **options):
    """Decorator: a function callable from kernels. `inline` (Warp's hint to the C++ compiler: True,
    always inline it; False, never; None, the compiler judges) applies to the function's C++
    definition, its adjoint's and those of its custom gradient and replay."""
    inline = options.get("inline")
    if inline is not None and not isinstance(inline, bool):  # 1 or "yes" would pass for a hint silently
        raise TypeError(f"@wp.func: inline must be a bool or None, got {inline!r}")
    module = options.get("module")
    if fn is None:
        return lambda f: _define(f, sys._getframe(1), inline, module)
    return _define(fn, sys._getframe(1), inline, module)


def _define(fn, scope_frame, inline=None, module=None) -> Function:
    """A new Function for `fn`. When the scope that defines it already binds that name to a
    @wp.func of the same qualified name (a second `def` of one name in a module or a function
    body, a re-run notebook cell), the new one also carries the earlier overloads, less the one
    with the same parameter types that it replaces. The earlier object is left as it was: code
    that kept it (`f_1 = f` before the redefinition) still calls the old body, and functions made
    by separate calls of one factory are separate, as in Warp."""
    refuse_instance_annotations(getattr(fn, "__annotations__", {}), f"function `{fn.__qualname__}`")
    previous = scope_frame.f_locals.get(fn.__name__)
    from ..compiler.parse import keep_source
    keep_source(fn)
    f = Function(fn)
    f.inline = inline  # the C++ definitions' inline hint (compiler/emit/cpp.py function_qualifier)
    if module == "unique":
        from .module import unique_module
        f.module = unique_module(fn)
    elif module is not None:
        f.module = module
    if isinstance(previous, Function) and (previous.module_name, previous.key) == (f.module_name, f.key):
        _check_refness(previous.overloads, f.overloads[0], fn.__name__)
        f.overloads = [o for o in previous.overloads if o.params != f.overloads[0].params] + f.overloads
        redefinition.redefined()  # kernels compiled against the old binding compile again
    else:
        redefinition.defined()
    _FUNCS[(fn.__module__, fn.__qualname__)] = f
    return f


def _check_refness(overloads, new: FuncOverload, name: str) -> None:
    """Two overloads whose parameters differ only in which are wp.ref[T] cannot be told apart by
    a call (the arguments have the same types): refused as in Warp."""
    def values(o):
        return [p.dtype if isinstance(p, Reference) else p for p in o.params]
    for o in overloads:
        if o.params != new.params and values(o) == values(new):
            raise RuntimeError(f"Cannot overload Warp function '{name}' with signatures that differ only by "
                               "`wp.ref[T]`; use distinct value types or a different function name.")


def func_native(snippet: str, adj_snippet: str | None = None, replay_snippet: str | None = None):
    """Decorator: a function callable from kernels whose body is C++ (Warp's wp.func_native). The
    Python function gives the parameters and (optionally) the return type with annotations; its
    body is never run. `snippet` is the body; `adj_snippet` the body of its adjoint, which sees
    `adj_<name>` for each parameter (for an array, a view of its gradient) and `adj_ret`;
    `replay_snippet` what the backward pass runs instead of `snippet` when it recomputes forward
    values. Arrays are indexed as `a[i]` (1-D) in the snippets."""
    def decorate(fn):
        overload = _overload(fn)
        if any(p is None or is_generic(p) for p in overload.params):
            raise TypeError(f"@wp.func_native {fn.__qualname__}: every parameter needs a concrete type annotation")
        overload.native = (snippet, adj_snippet, replay_snippet)
        f = Function.__new__(Function)
        f.key, f.module, f.func, f.overloads, f.inline = fn.__qualname__, fn.__module__, fn, [overload], None
        f.__name__, f.__qualname__, f.__doc__, f.__wrapped__ = fn.__name__, fn.__qualname__, fn.__doc__, fn
        return f
    return decorate
