"""Redefinitions in a running process: a @wp.func re-run in a notebook cell or reloaded with
importlib.reload, a @wp.struct defined again under the same name, a wp.constant made after kernels
compiled. Kernels read these by name when they compile, so a redefinition makes every kernel's
compiled code stale: `generation` counts them, and a kernel whose code is older compiles again at
its next launch (from the kernel cache when its generated code did not change). New definitions
only count in `definitions`: they can make a kernel that failed to compile compile now."""

from .. import config
from ..types import structs as _structs

generation = 0
definitions = 0
#: (module, qualname) -> the latest @wp.struct of that name (what wp.Module.structs lists)
structs: dict = {}


def redefined() -> None:
    global generation
    generation += 1
    config.epoch += 1


def defined() -> None:
    global definitions
    definitions += 1
    config.epoch += 1


def struct_defined(module: str, qualname: str, struct_type=None) -> None:
    """A @wp.struct: a redefinition when the same module has defined that name before."""
    key = (module, qualname)
    if key in structs:
        redefined()
    else:
        defined()
    structs[key] = struct_type


def constant_defined() -> None:
    """wp.constant: a new value may replace one that compiled kernels read (a re-run cell). Before
    any kernel compiled (a module's constants at import) this costs nothing."""
    redefined()


_structs.definition_listeners.append(struct_defined)
