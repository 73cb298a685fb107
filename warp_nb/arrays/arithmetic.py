"""The Python-scope operators of wp.array (`a + b`, `2.0 * a`, `-a`, `a.grad *= 2.0`), declared here
on the class as Warp offers them. Each runs as an element-wise kernel on the arrays' device,
recorded on an active wp.Tape like any launch: compiling and launching kernels is the business of
the layers above the arrays, so the implementation is provided by the library layer
(utils/array_ops.py, loaded on the first operator: it defines kernels, which `import warp_nb`
should not pay for) through `provide`."""

from __future__ import annotations

_IMPLEMENTATION = None
_LOADER = None  # called once when an operator is first used and nothing was provided yet


def provide(implementation) -> None:
    """Set what computes the operators: an object with `binary(name, a, b, out=None)`, `negate(a)`
    and `positive(a)` (utils/array_ops.py)."""
    global _IMPLEMENTATION
    _IMPLEMENTATION = implementation


def provide_on_first_use(loader) -> None:
    """`loader()` (which calls `provide`) runs the first time an operator is used."""
    global _LOADER
    _LOADER = loader


def _ops():
    if _IMPLEMENTATION is None and _LOADER is not None:
        _LOADER()
    if _IMPLEMENTATION is None:
        raise RuntimeError("array arithmetic needs warp_nb's element-wise kernels: import warp_nb first")
    return _IMPLEMENTATION


def _binary(name: str):
    def forward(self, other):
        return _ops().binary(name, self, other)

    def reflected(self, other):
        return _ops().binary(name, other, self)

    def in_place(self, other):
        return _ops().binary(name, self, other, out=self)

    forward.__name__, reflected.__name__, in_place.__name__ = f"__{name}__", f"__r{name}__", f"__i{name}__"
    return forward, reflected, in_place


class ArrayArithmetic:
    """Mixin of wp.array: element-wise arithmetic with arrays of the same shape and with scalars."""

    __add__, __radd__, __iadd__ = _binary("add")
    __sub__, __rsub__, __isub__ = _binary("sub")
    __mul__, __rmul__, __imul__ = _binary("mul")
    __truediv__, __rtruediv__, __itruediv__ = _binary("truediv")
    __floordiv__, __rfloordiv__, __ifloordiv__ = _binary("floordiv")
    __mod__, __rmod__, __imod__ = _binary("mod")
    __pow__, __rpow__, __ipow__ = _binary("pow")

    def __neg__(self):
        return _ops().negate(self)

    def __pos__(self):
        return _ops().positive(self)
