"""`warp._src.codegen`: the error types Warp's code generator raises, as warp_nb's kernel errors."""

from ..errors import (  # noqa: F401
    WarpCodegenAttributeError, WarpCodegenError, WarpCodegenKeyError, WarpCodegenTypeError, WarpCodegenValueError,
)

from ._internal import internal  # noqa: E402

from ..program.naming import codegen_lock as _codegen_lock  # noqa: E402,F401
codegen_func_forward = internal("warp._src.codegen.codegen_func_forward")
resolve_grid_stride = internal("warp._src.codegen.resolve_grid_stride")
_is_tid_call = internal("warp._src.codegen._is_tid_call")


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.codegen.{name}")
