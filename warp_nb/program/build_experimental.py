"""`wp.build_experimental` (Warp's experimental API for extending kernels with C++ of one's own):
`add_builtin` makes a C++ function a builtin `wp.<name>` (a registry record: builtins/external.py),
`add_native_type` makes a C++ value type, described by a ctypes.Structure, a kernel type
(types/native_types.py). The C++ itself comes from the module's preamble (wp.ModuleBuildOptions,
Warp's way) or, a warp_nb extension, from a header of the user's (`header=`, included by path and
part of the cache key of every kernel that calls the builtin) and the libraries that define its
functions (`libraries=`, linked into CPU kernels that include that header; CUDA refuses those kernels)."""

from __future__ import annotations

from ..builtins import external
from ..types.native_types import add_native_type  # noqa: F401  (Warp's name, here)
from .func import Function

Function.register(external.ExternalBuiltin)  # Warp's handle of a registered function is a wp.Function


def add_builtin(name: str, input_types=None, value_type=None, *, native_name: str | None = None, doc: str = "",
                is_differentiable: bool = False, header=None, libraries=()) -> Function:
    """Register the C++ function `native_name` (default `wp::<name>`) as `wp.<name>`, callable in kernels.

    input_types: ordered mapping of parameter names to Warp types; value_type: the result type (None:
    void). is_differentiable: the C++ has an adjoint `<namespace>::adj_<function>` taking the inputs,
    then one reference per input's adjoint, then the result's adjoint (warp_nb's native convention),
    which adds into the input adjoints. header / libraries (warp_nb): an absolute path to the header
    that declares the function and the libraries that define it. Overloads differ by their parameter
    types; the exact same registration again returns the same handle. Kernels compiled before a
    registration are not changed by it."""
    return external.external_builtin(name, input_types, value_type, native_name, doc, is_differentiable, header,
                                     libraries)
