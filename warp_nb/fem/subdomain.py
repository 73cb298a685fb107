"""`fem.Subdomain`: a domain over some elements of another domain (cells, sides, boundary sides or
another subdomain), chosen by a mask over that domain's elements or by a list of their indices.
Its element k is the parent's element `element_indices[k]`; its ElementIndexArg holds the parent's
index arguments and that list, so its `element_index` is the parent's applied to the listed index.
Everything else (element kind, geometry, device functions) is the parent's."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..arrays.array import array
from ..program.func import func
from ..types import int32
from ..types.structs import struct
from .domain import GeometryDomain


class Subdomain(GeometryDomain):
    """The elements of `domain` whose `element_mask` entry is non-zero (in increasing order), or the
    elements `element_indices` (in that order; indices of `domain`'s own elements)."""

    def __init__(self, domain: GeometryDomain, element_mask: array | None = None,
                 element_indices: array | None = None, temporary_store=None):
        if not isinstance(domain, GeometryDomain):
            raise TypeError(f"fem.Subdomain: `domain` must be a fem domain (fem.Cells(geo), fem.Sides(geo), ...), got "
                            f"{type(domain).__name__} {domain!r}")
        if (element_mask is None) == (element_indices is None):
            raise ValueError("fem.Subdomain: give exactly one of `element_mask` and `element_indices`")
        super().__init__(domain.geometry)
        self.parent = domain
        self.element_kind = domain.element_kind
        count = domain.element_count()
        if element_mask is not None:
            mask = _int_array(element_mask, "element_mask", any_int=True)
            if mask.shape[0] != count:
                raise ValueError(f"fem.Subdomain: `element_mask` needs one entry per element of {domain.name} "
                                 f"({count}), has {mask.shape[0]}")
            chosen = np.nonzero(mask.numpy())[0].astype(np.int32)
            self.element_indices = array(chosen, dtype=int32, device=mask.device)
        else:
            indices = _int_array(element_indices, "element_indices")
            values = indices.numpy()
            if values.size and (values.min() < 0 or values.max() >= count):
                raise ValueError(f"fem.Subdomain: `element_indices` must lie in [0, {count}) (the elements of "
                                 f"{domain.name}), got values in [{values.min()}, {values.max()}]")
            self.element_indices = indices
        self.ElementIndexArg, self.element_index = _index_functions(domain)

    @property
    def name(self) -> str:
        return f"{self.parent.name}_Subdomain"

    def element_count(self) -> int:
        return self.element_indices.shape[0]

    def element_index_arg_value(self, device):
        arg = self.ElementIndexArg()
        arg.parent = self.parent.element_index_arg_value(device)
        arg.element_indices = self.element_indices.to(device)
        return arg

    # two subdomains are one domain when they list the same array of the same parent (fields made
    # over one are accepted by integrals over the other)
    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.parent == other.parent and \
            self.element_indices is other.element_indices

    def __hash__(self) -> int:
        return hash((type(self), self.parent, id(self.element_indices)))


def _int_array(a, name: str, any_int: bool = False) -> array:
    """`a` if it is a 1-d warp array of int32 (of any integer or bool type with `any_int`)."""
    ok = isinstance(a, array) and a.ndim == 1 and (a.dtype is int32 or (
        any_int and a.numpy().dtype.kind in "iub"))
    if not ok:
        what = type(a).__name__ if not isinstance(a, array) else f"an array of {a.dtype.__name__} with {a.ndim} dims"
        raise TypeError(f"fem.Subdomain: `{name}` must be a 1-d warp array of {'integers' if any_int else 'int32'}, "
                        f"got {what}")
    return a


def _index_functions(parent: GeometryDomain):
    """(ElementIndexArg struct, element_index func) of a subdomain of `parent`: one pair per kind of
    parent index (its struct and function), so that subdomains of alike parents share kernels."""
    key = (parent.ElementIndexArg, parent.element_index)
    cached = _INDEX_FUNCTIONS.get(key)
    if cached is None:
        parent_arg, parent_index = key
        cls = type("SubdomainIndexArg", (), {"__annotations__": {"parent": parent_arg, "element_indices": array(
            dtype=int32)}, "__doc__": "A subdomain's index map: its parent's, and the parent elements it keeps."})
        arg_struct = struct(cls)

        @func
        def element_index(arg: Any, index: int32):
            return parent_index(arg.parent, arg.element_indices[index])

        cached = _INDEX_FUNCTIONS[key] = (arg_struct, element_index)
    return cached


_INDEX_FUNCTIONS: dict = {}
