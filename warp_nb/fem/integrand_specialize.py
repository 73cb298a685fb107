"""Specialising an integrand for the concrete fields and domain `integrate` / `interpolate` give it.

An integrand is written against annotations (`u: fem.Field`, `domain: fem.Domain`) and operators
(`fem.grad(u, s)`, `u(s)`, `domain(s)`). For one set of concrete arguments this module makes a
plain `wp.func` of the same body in which
- each field or domain parameter takes its concrete struct type (a field bound to the domain, or
  the domain's `DomainArg`);
- each operator call on such a parameter calls the device function the operator names for it
  (operator.py), and calling the parameter itself evaluates the field / gives the position.
The rewrite works on the integrand's own syntax tree (compiler/parse.py `define_transformed`),
so a mistake in the integrand is reported at the user's line. Misuse (an operator on a value that
is not a field, an operator that a field does not have) is refused with the names involved."""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import types

from ..compiler.parse import define_transformed
from ..errors import KernelSyntaxError, Loc
from ..program.func import Function
from . import operator as ops
from .integrand import Integrand
from .types import Domain, Field, Sample, Sample_f64, warp_type

SAMPLE, DOMAIN, FIELD, VALUE = "sample", "domain", "field", "value"


class IntegrandError(KernelSyntaxError, TypeError):
    """A misuse of fields, domains or operators in an integrand, reported at its line. Also a
    TypeError, which is what Warp raises for an operator a field does not define."""


def parameter_kinds(integrand: Integrand) -> dict:
    """name -> (kind, annotation) for each parameter of the integrand, in order (a copy of what is found
    at the first call: evaluating the annotations costs more than a small integral)."""
    kinds = integrand.__dict__.get("_fem_parameter_kinds")
    if kinds is None:
        kinds = integrand._fem_parameter_kinds = _parameter_kinds(integrand)
    return dict(kinds)


def _parameter_kinds(integrand: Integrand) -> dict:
    hints = inspect.get_annotations(integrand.func, eval_str=True)
    kinds = {}
    for name in integrand.argspec.args:
        t = hints.get(name)
        if t is None:
            raise TypeError(f"integrand {integrand.name}: parameter `{name}` needs an annotation (fem.Sample, "
                            "fem.Domain, fem.Field or a Warp type)")
        if t in (Sample, Sample_f64):
            kinds[name] = (SAMPLE, t)
        elif t is Domain:
            kinds[name] = (DOMAIN, t)
        elif t is Field:
            kinds[name] = (FIELD, t)
        else:
            kinds[name] = (VALUE, t)
    return kinds


class _Rewrite(ast.NodeTransformer):
    """Operator calls on field / domain parameters -> calls of their device functions."""

    def __init__(self, integrand: Integrand, kinds: dict, targets: dict, concrete: dict):
        self.integrand = integrand
        # copies: `name = fem.cells(...)` adds local names, which are no parameters of the integrand
        self.kinds = dict(kinds)
        self.targets = dict(targets)
        self.concrete = dict(concrete)
        self.injected: dict = {}
        fn = integrand.func
        self.filename = fn.__code__.co_filename
        closure = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))
        self.names = {**vars(builtins), **fn.__globals__, **closure}

    def _inject(self, device_fn) -> str:
        name = f"_fem_fn_{len(self.injected)}"
        self.injected[name] = device_fn
        return name

    def _static(self, node):
        """The Python object a Name / Attribute chain names, or None."""
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._static(node.value)
            return getattr(base, node.attr, None) if base is not None else None
        return None

    def _fail(self, node, message: str):
        raise IntegrandError(message, Loc(self.filename, node.lineno, node.col_offset, None,
                                             linecache.getline(self.filename, node.lineno).rstrip("\n")),
                                self.integrand.name)

    def _param(self, node):
        if isinstance(node, ast.Name) and node.id in self.kinds and self.kinds[node.id][0] in (FIELD, DOMAIN):
            return node.id
        return None

    def _call(self, node, device_fn, args, keywords=()):
        new = ast.Call(func=ast.Name(id=self._inject(device_fn), ctx=ast.Load()), args=args,
                       keywords=list(keywords))
        return ast.copy_location(new, node)

    def visit_Assign(self, node):
        """`name = fem.cells(domain)`: `name` becomes a domain (the geometry's cells) for what follows."""
        value = node.value
        if (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and isinstance(value, ast.Call)
                and self._static(value.func) is ops.cells):
            first = self._param(value.args[0]) if len(value.args) == 1 else None
            if first is None:
                self._fail(node, f"fem.cells takes a domain or field parameter of the integrand {self.integrand.name}")
            name = node.targets[0].id
            if self.kinds[first][0] == DOMAIN:
                convert, cells_domain = ops._cells_of(self.targets[first])
                self.kinds[name] = (DOMAIN, Domain)
                self.targets[name], self.concrete[name] = cells_domain, cells_domain.DomainArg
            else:  # a field, as the geometry's cells see it
                convert, cells_field = ops._field_cells_of(self.targets[first])
                self.kinds[name] = (FIELD, Field)
                self.targets[name], self.concrete[name] = cells_field, cells_field.Arg
            node.value = self._call(value, convert, value.args)
            return node
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        called = self._param(node.func)
        if called is not None:  # u(s): the field's value; domain(s): the position
            kind = self.kinds[called][0]
            op = ops.Operator("call", "", field_attr=ops.CALL_FIELD) if kind == FIELD else ops.position
            return self._call(node, op.resolve(self.targets[called], kind, called), [node.func] + node.args)
        target = self._static(node.func)
        if isinstance(target, ops.ConstantOperator):
            first = self._param(node.args[0]) if len(node.args) == 1 else None
            if first is None:
                self._fail(node, f"fem.{target.name} takes one argument, a fem.Field or fem.Domain parameter of the "
                                 f"integrand {self.integrand.name}")
            try:
                value = target.resolve_constant(self.targets[first], self.kinds[first][0], first)
            except TypeError as e:
                self._fail(node, str(e))
            return ast.copy_location(ast.Name(id=self._inject(value), ctx=ast.Load()), node)
        if isinstance(target, ops.Operator):
            first = self._param(node.args[0]) if node.args else None
            if first is None:
                self._fail(node, f"fem.{target.name}: its first argument must be a fem.Field or fem.Domain "
                                 f"parameter of the integrand {self.integrand.name}")
            try:
                target.check_call(self.targets[first], self.kinds[first][0], first, len(node.args) + len(node.keywords))
                device_fn = target.resolve(self.targets[first], self.kinds[first][0], first)
            except TypeError as e:
                self._fail(node, str(e))
            # keywords (fem.lookup(domain, x, guess=s)) name the device function's parameters
            return self._call(node, device_fn, node.args, node.keywords)
        if isinstance(target, Integrand):
            return self._call(node, self._nested(node, target), node.args)
        return node

    def _nested(self, node, callee: Integrand):
        """The callee integrand specialised for what this call passes it: its field and domain
        parameters take the caller's field and domain arguments (which must be passed as is)."""
        if node.keywords:
            self._fail(node, f"integrand {callee.name}: pass its arguments by position when calling it from "
                             f"{self.integrand.name}")
        kinds = parameter_kinds(callee)
        if len(node.args) != len(kinds):
            self._fail(node, f"integrand {callee.name} takes {len(kinds)} arguments, {len(node.args)} given")
        targets, concrete = {}, {}
        for (name, (kind, annotation)), arg in zip(kinds.items(), node.args):
            if kind in (FIELD, DOMAIN):
                passed = self._param(arg)
                if passed is None or self.kinds[passed][0] != kind:
                    self._fail(arg, f"integrand {callee.name}: its {kind} parameter `{name}` must be given a "
                                    f"{kind} parameter of {self.integrand.name} as is")
                targets[name], concrete[name] = self.targets[passed], self.concrete[passed]
            elif kind == SAMPLE:
                concrete[name] = annotation
            else:
                concrete[name] = warp_type(annotation)
        key = ("nested",) + tuple((n, id(t)) for n, t in targets.items()) + \
            tuple((n, str(t)) for n, t in concrete.items())
        function = callee.cached_funcs.get(key)
        if function is None:
            function = callee.cached_funcs[key] = specialize(callee, kinds, targets, concrete)
        return function


def specialize(integrand: Integrand, kinds: dict, targets: dict, concrete: dict) -> Function:
    """A wp.func of the integrand's body for these `targets` (parameter name -> field or domain
    object) and `concrete` (parameter name -> the struct type the kernel passes)."""
    rewrite = _Rewrite(integrand, kinds, targets, concrete)
    fn = integrand.func
    # the rewrite runs on the copy's tree and collects the device functions its calls name, which
    # the copy's globals then hold (they are read when a kernel using it is typed)
    fn_globals = dict(fn.__globals__)
    copy = types.FunctionType(fn.__code__, fn_globals, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__, copy.__module__ = fn.__qualname__, fn.__module__
    copy.__annotations__ = {name: concrete.get(name, t) for name, (_, t) in kinds.items()}
    define_transformed(copy, [rewrite])
    fn_globals.update(rewrite.injected)
    return Function(copy)
