"""pytest plugin for run_mujoco_warp.sh (MJW_PATCH=1 only): MuJoCo Warp tells array fields of its
dataclasses by `isinstance(annotation, wp.array)`, true in Warp (whose `wp.array(dtype=..., ndim=...)`
is a data-less array instance) and false in warp_nb (an annotation is a type object, see docs/compat.md).
Accepting warp_nb's array annotations there lets the rest of the tests show what else they need."""

from mujoco_warp._src import warp_util

from warp_nb.types.array_type import ArrayType

_original = warp_util.is_array_spec


def is_array_spec(typ) -> bool:
    return _original(typ) or (isinstance(typ, ArrayType) and typ.kind == "array")


warp_util.is_array_spec = is_array_spec
