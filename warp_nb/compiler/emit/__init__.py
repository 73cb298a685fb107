"""IR -> C++ text. `kernel.py` assembles a translation unit (and `for_target` adds a target's
prelude and entry points to it), `body.py` writes statements, `adjoint.py` writes backward code,
`entry.py` describes the entry points a kernel needs (the targets write them) and `cpp.py` holds
the spelling of types, names and constants they share."""

from .cpp import EmitResult
from .kernel import emit_kernel, for_target

__all__ = ["EmitResult", "emit_kernel", "for_target"]
