"""Functions as values of @wp.func parameters (`def apply(g: wp.Function, x: float): return g(x)`,
as in Warp): the annotation `wp.Function` is FUNCTION_PARAM, and an argument naming a @wp.func or a
builtin has the type FunctionValue(target). The function is known when the caller is typed, so the
callee is typed once per target (its body calls the target directly) and the parameter is not
passed at run time: nothing of it reaches C++."""

from __future__ import annotations


class _FunctionParam:
    """The parameter annotation `wp.Function`: any function value."""

    def type_name(self) -> str:
        return "Function"

    def __repr__(self):
        return "wp.Function"


FUNCTION_PARAM = _FunctionParam()


class FunctionValue:
    """The type of an argument that is a function: equal for the same target only."""

    __slots__ = ("target",)

    def __init__(self, target):
        self.target = target

    def __eq__(self, other):
        return isinstance(other, FunctionValue) and other.target is self.target

    def __hash__(self):
        return hash(("FunctionValue", id(self.target)))

    def type_name(self) -> str:
        return f"Function({getattr(self.target, 'key', None) or getattr(self.target, 'name', self.target)})"

    def __repr__(self):
        return self.type_name()


def is_function_object(obj) -> bool:
    """A @wp.func or a builtin: what a wp.Function parameter takes."""
    return bool(getattr(obj, "_wp_func_", False)) or type(obj).__name__ == "Builtin" and hasattr(obj, "overloads")
