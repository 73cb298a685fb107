"""IR -> C++ text. `kernel.py` assembles a translation unit, `body.py` writes statements,
`adjoint.py` writes backward code, `entry.py` writes the entry points and `cpp.py` holds the
spelling of types, names and constants they share."""

from .cpp import EmitResult
from .kernel import emit_kernel

__all__ = ["EmitResult", "emit_kernel"]
