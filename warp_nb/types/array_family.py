"""Which native array family (wp.array, wp.indexedarray, wp.fabricarray, wp.indexedfabricarray)
a value belongs to, through any depth of an application's subclasses (Warp's GH-1723: a subclass
instance is its family wherever the family is accepted, and the object itself is kept), and the
descriptor such a subclass gives for itself, checked. The family classes mark themselves with
`_wp_family_root_`, so this module needs none of them. Used by launches, struct fields and generic
signatures; knows nothing about packing or kernels."""

from __future__ import annotations

import ctypes

_FAMILY_NAMES = "wp.array, wp.indexedarray, wp.fabricarray or wp.indexedfabricarray"


def native_family(value) -> type | None:
    """The array family class (wp.array, wp.indexedarray, wp.fabricarray, wp.indexedfabricarray)
    that `value` is an instance of, through any depth of user subclasses; None for anything else.

    It reads `type(value)`, never `value.__class__`: a mock or a weakref proxy reports the class it
    imitates there, and must not be taken for an array whose descriptor can be read. Nothing is
    cached per class (a dynamically made subclass must be collectable; a user metaclass may make
    classes unhashable) and the MRO walk compares classes by identity only (a metaclass may define
    `__eq__`). A class deriving from two families is refused: its descriptor would be ambiguous."""
    roots = [c for c in type(value).__mro__ if c.__dict__.get("_wp_family_root_", False)]
    if len(roots) == 1:
        return roots[0]
    if not roots:
        return None
    raise TypeError(f"{type(value).__name__} derives from more than one native array family "
                    f"({', '.join(c.__name__ for c in roots)}); an array subclass must derive from exactly one of "
                    f"{_FAMILY_NAMES}")


def annotation_of(value):
    """The annotation of an array instance's type (`family[dtype, ndim]`, shared by a class and all
    its subclasses), or None when `value` is not an array instance. Nothing is constructed."""
    if isinstance(value, type):
        return None
    family = native_family(value)
    return family._subscript_type((value.dtype, value.ndim)) if family is not None else None


def subclass_descriptor(value, family: type) -> bytes:
    """The bytes of the kernel descriptor an application's subclass instance gives through its own
    `__ctype__()` (it may override it, e.g. to point elsewhere), checked against the family's: the
    same ctypes class or a subclass of it, the same size, and the same ndim where it says one.
    Raises TypeError saying what is wrong."""
    native = family.__ctype__(value)
    try:
        got = value.__ctype__()
    except Exception as e:  # noqa: BLE001  (any failure of user code is reported, with its message)
        raise TypeError(f"{type(value).__name__}.__ctype__() failed: {type(e).__name__}: {e}") from None
    expected = type(native)
    if not issubclass(type(got), expected) or ctypes.sizeof(got) != ctypes.sizeof(native):
        raise TypeError(f"{type(value).__name__}.__ctype__() returned an incompatible descriptor "
                        f"({type(got).__name__} of {ctypes.sizeof(got)} bytes; expected {expected.__name__} of "
                        f"{ctypes.sizeof(native)} bytes)")
    ndim = got.__dict__.get("ndim") if hasattr(got, "__dict__") else None
    if ndim is not None and ndim != value.ndim:
        raise TypeError(f"{type(value).__name__}.__ctype__() returned a descriptor with {ndim} dimension(s) for an "
                        f"array with {value.ndim}")
    return bytes(got)


def refuse_instance_annotations(annotations: dict, owner: str) -> None:
    """Refuse an array *instance* (an application's subclass, or a wp.fixedarray subclass's) used as
    a parameter, return or field annotation: annotations are types (wp.array[float]); a subclass
    instance there would specialise code on one object. Raised when the kernel, function or struct
    is declared, before anything is registered."""
    from .array_type import fixedarray
    for name, annotation in annotations.items():
        what = "the return value" if name == "return" else f"`{name}`"
        if isinstance(annotation, fixedarray) and type(annotation) is not fixedarray:
            raise TypeError(f"{owner}: {what} uses a fixedarray subclass instance as an annotation "
                            f"({type(annotation).__name__}); annotate with wp.fixedarray(shape=..., dtype=...)")
        if isinstance(annotation, type):
            continue
        try:
            family = native_family(annotation)
        except TypeError:
            family = object
        if family is not None:
            raise TypeError(f"{owner}: {what} uses an array instance ({type(annotation).__name__}) as an annotation; "
                            f"annotate with a type such as wp.array[dtype] (an array subclass instance is a value)")
