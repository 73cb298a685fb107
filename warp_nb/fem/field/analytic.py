"""Fields not made of a space's nodes: `ImplicitField` (a device function of the world position,
with values passed as a struct) and `UniformField` (one constant value). Their operators are
built for the domain they are integrated over (`functions_on(domain)`): the position is the
domain's own, on cells and sides alike."""

from __future__ import annotations

import inspect
from typing import Any

import warp_nb as wp

from ... import types as T
from ...types.structs import struct
from ..codegen import define
from .fields import GeometryField


def _values_struct(names_and_types: tuple):
    cached = _VALUE_STRUCTS.get(names_and_types)
    if cached is None:
        annotations = dict(names_and_types) or {"unused": wp.int32}
        cls = type("ImplicitFieldValues", (), {"__annotations__": annotations,
                                               "__doc__": "The values an implicit field's function takes."})
        cached = _VALUE_STRUCTS[names_and_types] = struct(cls)
    return cached


_VALUE_STRUCTS: dict = {}


def _python_function(fn):
    return getattr(fn, "func", None) or getattr(fn, "__wrapped__", None) or fn


class ImplicitField(GeometryField):
    """The field x -> func(x, **values) over `domain`; `grad_func` and `div_func` (same arguments)
    give its gradient and divergence when the integrands ask for them. `degree` is the polynomial
    degree quadratures assume for it."""

    dtype = None  # (as Warp's: the value type is the function's, known once it is called)

    def __init__(self, domain, func, values: dict | None = None, grad_func=None, div_func=None, degree: int = 0):
        if not hasattr(func, "overloads"):
            raise TypeError(f"ImplicitField: `func` must be a @wp.func, got {type(func).__name__} {func!r}")
        self.domain = domain
        self.func, self.grad_func, self.div_func = func, grad_func, div_func
        self.degree = int(degree)
        params = list(inspect.signature(_python_function(func)).parameters)
        if not params:
            raise TypeError(f"ImplicitField: `func` {func.key} must take the position as its first parameter")
        self.value_names = params[1:]
        given = dict(values or {})
        unknown = set(given) - set(self.value_names)
        if unknown:
            raise ValueError(f"ImplicitField: `func` {func.key} has no parameter(s) {', '.join(sorted(unknown))} "
                             f"(its values: {', '.join(self.value_names) or 'none'})")
        missing = [n for n in self.value_names if n not in given]
        if missing:
            raise ValueError(f"ImplicitField: values for {', '.join(missing)} are missing (values={{...}})")
        hints = inspect.get_annotations(_python_function(func), eval_str=True)
        self.EvalArg = _values_struct(tuple((n, hints.get(n, type(given[n]))) for n in self.value_names))
        #: the values, as the struct kernels receive (assign its attributes to change them: Warp's `values`)
        self.values = self.EvalArg()
        for name in self.value_names:
            setattr(self.values, name, given[name])
        self._functions: dict = {}

    @property
    def name(self) -> str:
        return f"ImplicitField_{self.func.key}"

    @property
    def cache_key(self):
        return (ImplicitField, self.func, self.grad_func, self.div_func, self.EvalArg, self.domain)

    @property
    def geometry(self):
        return self.domain.geometry

    @property
    def element_kind(self):
        return self.domain.element_kind

    def eval_arg_value(self, device):
        return self.values

    def functions_on(self, domain) -> dict:
        cached = self._functions.get(domain)
        if cached is None:
            position = domain.element_position
            args = "".join(f", field_arg.eval.{n}" for n in self.value_names)
            cached = {}
            for op, fn in (("eval_inner", self.func), ("eval_grad_inner", self.grad_func),
                           ("eval_div_inner", self.div_func)):
                if fn is None:
                    cached[op] = None
                    continue
                source = (f"def implicit_{op}(field_arg: Any, s: Any):\n"
                          f"    return _fn(_position(field_arg.geo, s){args})\n")
                cached[op] = wp.func(define(f"implicit_{op}", source,
                                            {"Any": Any, "_fn": fn, "_position": position}, "fem.ImplicitField"))
            self._functions[domain] = cached
        return cached


class UniformField(GeometryField):
    """The constant `value` over `domain` (its gradient is zero)."""

    def __init__(self, domain, value: Any):
        self.domain = domain
        dtype = type(value)
        if dtype in (int, float):
            dtype = T.float32
        self.dtype = dtype
        self.degree = 0
        self.value = value
        self.EvalArg = _values_struct((("value", dtype),))
        self._functions: dict = {}

    @property
    def name(self) -> str:
        return f"UniformField_{T.type_name(self.dtype)}"

    @property
    def cache_key(self):
        return (UniformField, self.dtype, self.domain)

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, value):
        # the kernels are specialised for the value's type: a value of another warp type is refused
        # (a Python number or sequence is converted)
        given = type(value)
        if given is not self.dtype and (T.type_is_vector(given) or T.type_is_matrix(given) or
                                        (T.type_is_scalar(given) and given not in (int, float, bool))):
            raise TypeError(f"UniformField value type must remain {T.type_name(self.dtype)}, got "
                            f"{T.type_name(given)}")
        self._value = value if isinstance(value, self.dtype) else self.dtype(value)

    @property
    def geometry(self):
        return self.domain.geometry

    @property
    def element_kind(self):
        return self.domain.element_kind

    def eval_arg_value(self, device):
        arg = self.EvalArg()
        arg.value = self._value
        return arg

    def functions_on(self, domain) -> dict:
        cached = self._functions.get(domain)
        if cached is None:
            dimension = domain.geometry.dimension
            scalar = T.type_scalar_type(self.dtype) if T.type_is_vector(self.dtype) else self.dtype
            zero_grad = T.vector(length=dimension, dtype=scalar) if not T.type_is_vector(self.dtype) else \
                T.matrix(shape=(T.type_length(self.dtype), dimension), dtype=scalar)

            @wp.func
            def value(field_arg: Any, s: Any):
                return field_arg.eval.value

            @wp.func
            def grad(field_arg: Any, s: Any):
                return zero_grad()

            cached = self._functions[domain] = {"eval_inner": value, "eval_grad_inner": grad}
        return cached


def _nonconforming_struct(cell_arg, eval_arg, dtype):
    key = (cell_arg, eval_arg, dtype)
    cached = _NONCONFORMING.get(key)
    if cached is None:
        cls = type("NonconformingFieldArg", (), {
            "__annotations__": {"geo": cell_arg, "eval": eval_arg, "background": dtype},
            "__doc__": "A nonconforming field's argument: the other geometry's cells, the field's own, the "
                       "background value."})
        cached = _NONCONFORMING[key] = struct(cls)
    return cached


_NONCONFORMING: dict = {}


class NonconformingField(GeometryField):
    """A discrete field of another geometry, evaluated on `domain` at world positions: each point is
    looked up in the field's geometry (`cell_lookup`), and a point outside it takes `background`."""

    def __init__(self, domain, field, background: Any = 0.0):
        from .fields import DiscreteField, bound_field_struct
        if not isinstance(field, DiscreteField):
            raise TypeError(f"NonconformingField: `field` must be a discrete field, got {type(field).__name__}")
        other = field.space.geometry
        if getattr(other, "cell_lookup", None) is None:
            raise TypeError(f"NonconformingField: {other.name} does not support cell lookups")
        if other.environment_count() != domain.geometry.environment_count():
            raise ValueError(f"NonconformingField: the domain and the field need matching environment counts, got "
                             f"{domain.geometry.environment_count()} and {other.environment_count()}")
        self.domain, self.field = domain, field
        self.dtype = field.space.dtype
        self.background = background
        self.degree = field.space.degree
        self._cell_struct = bound_field_struct(other.CellArg, field.EvalArg)
        self.EvalArg = _nonconforming_struct(other.CellArg, field.EvalArg, self.dtype)
        self._functions: dict = {}

    @property
    def name(self) -> str:
        return f"NonconformingField_{self.field.name}"

    @property
    def cache_key(self):
        return (NonconformingField, self.field.space, self.domain)

    @property
    def geometry(self):
        return self.domain.geometry

    @property
    def element_kind(self):
        return self.domain.element_kind

    def eval_arg_value(self, device):
        arg = self.EvalArg()
        arg.geo = self.field.space.geometry.cell_arg_value(device)
        arg.eval = self.field.eval_arg_value(device)
        arg.background = self.background if isinstance(self.background, self.dtype) else self.dtype(self.background)
        return arg

    def functions_on(self, domain) -> dict:
        cached = self._functions.get(domain)
        if cached is not None:
            return cached
        other = self.field.space.geometry
        position, lookup = domain.element_position, other.cell_lookup
        if other.environment_count() > 1:  # each point is looked up in its own environment
            from ..environment_operators import environment_index
            lookup = _in_environment(other.make_filtered_cell_lookup(other.cell_environment),
                                     environment_index.resolve(domain, "domain", "domain"), position)
        else:
            lookup = _plain_lookup(lookup, position)
        cell_struct = self._cell_struct
        cached = {}
        for op in ("eval_inner", "eval_grad_inner", "eval_div_inner"):
            fn = getattr(self.field, op, None)
            if fn is None:
                cached[op] = None
                continue
            cached[op] = _looked_up(fn, position, lookup, cell_struct, op == "eval_inner")
        self._functions[domain] = cached
        return cached


def _in_environment(filtered_lookup, environment_of, position):
    """lookup(field_arg, s): the sample's position found among the cells of its own environment."""

    @wp.func
    def lookup(field_arg: Any, s: Any):
        # (a small distance: points on a cell's boundary, side samples say, are found in it)
        return filtered_lookup(field_arg.eval.geo, position(field_arg.geo, s), 1.0e-5, field_arg.eval.geo,
                               environment_of(field_arg, s))

    return lookup


def _plain_lookup(lookup, position):
    @wp.func
    def plain_lookup(field_arg: Any, s: Any):
        return lookup(field_arg.eval.geo, position(field_arg.geo, s), 0.0)

    return plain_lookup


def _looked_up(fn, position, lookup, cell_struct, is_value: bool):
    @wp.func
    def evaluate(field_arg: Any, s: Any):
        found = lookup(field_arg, s)
        other = cell_struct()
        other.geo = field_arg.eval.geo
        other.eval = field_arg.eval.eval
        value = fn(other, found)
        if found.element_index < 0:
            if wp.static(is_value):
                value = field_arg.eval.background
            else:
                value = value - value  # no gradient outside the field's geometry
        return value

    return evaluate
