"""`warp._src.codegen`: the error types Warp's code generator raises, as warp_nb's kernel errors, and
`Adjoint`, warp_nb's read-only view of a definition with Warp's source-extraction entry points."""

from ..errors import (  # noqa: F401
    WarpCodegenAttributeError, WarpCodegenError, WarpCodegenIndexError, WarpCodegenKeyError, WarpCodegenTypeError,
    WarpCodegenValueError,
)

from ._internal import internal  # noqa: E402

from ..program.naming import codegen_lock as _codegen_lock  # noqa: E402,F401
codegen_func_forward = internal("warp._src.codegen.codegen_func_forward")
resolve_grid_stride = internal("warp._src.codegen.resolve_grid_stride")


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.codegen.{name}")


# --- Warp's Adjoint: warp_nb's read-only view of a definition (adjoint_view.py) ---------
import inspect  # noqa: E402,F401  (Warp's tests patch inspect.getsourcelines through this name)

from ..compiler import function_source as _source  # noqa: E402
from .adjoint_view import AdjointView as _AdjointView, is_tid_call as _is_tid_call  # noqa: E402,F401,F811
from .adjoint_view import substitute_nodes as _substitute_nodes  # noqa: E402,F401

_SharedFunctionSource = _source.SharedFunctionSource
_shared_function_sources = _source.shared_function_sources
_store_shared_source = _source.store_shared_source
_shared_source_for_code = _source.shared_source_for_code


class Adjoint(_AdjointView):
    """`warp._src.codegen.Adjoint(func)`: the view `Kernel.adj` gives, of any Python function, and
    Warp's source-extraction entry points (compiler/function_source.py). The extraction steps are
    looked up on the class at each call, so they can be replaced (mock.patch) one at a time."""

    @staticmethod
    def _try_extract_function_source(code):
        return _source.try_extract_function_source(code)

    @staticmethod
    def _inspect_extract_function_source(func):
        return _source.inspect_extract_function_source(func)

    @staticmethod
    def extract_function_source(func):
        return _source.extract_function_source(func, fast=lambda code: Adjoint._try_extract_function_source(code),
                                               slow=lambda f: Adjoint._inspect_extract_function_source(f))

    @staticmethod
    def extract_lambda_source(func, only_body: bool = False):
        return _source.extract_lambda_source(func, only_body)
