"""Builtins registered from outside warp_nb (`wp.build_experimental.add_builtin`): a C++ function of
the user's, declared in a module's preamble (wp.ModuleBuildOptions) or in a header of theirs, becomes
a registry record like every other builtin, so typing, emission and the adjoint read it the same
way. Each registration adds one overload (its own C++ name, written as the overload's template);
an exact repeat returns the record already there (a re-run notebook cell or a reloaded module),
one that differs only in its result or its C++ name is refused. Knows types and files by name;
knows nothing about Python's ast, kernels or devices."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import types as T
from ..toolchain import external as external_files
from ..types.array_type import ArrayType
from ..types.native_types import native_info
from .registry import BUILTINS, Builtin, Exact, Overload, Pattern, add

#: a C++ name, optionally qualified: `square`, `ext::square`, `::ext::detail::square`
_CPP_NAME = re.compile(r"(::)?[A-Za-z_]\w*(::[A-Za-z_]\w*)*")
#: the header of a builtin whose C++ sits in the module's preamble: one every unit already includes
_PRELUDE = "core/prelude.h"


@dataclass(frozen=True)
class ExternalOverload(Overload):
    """One registration: the overload's parameter names and Warp types, its result type and C++ name
    (also `template`, which the emitter calls), under the attribute names Warp's Function overloads use."""

    input_types: dict = field(default_factory=dict, compare=False)
    value_type: Any = field(default=None, compare=False)
    namespace: str = ""  # "ext::" of "ext::square" (Warp's split of the name)
    native_func: str = ""  # "square"
    is_differentiable: bool = False
    hidden = True  # Warp's flags: kept out of the generated docs, not callable from Python
    export = False

    @property
    def native_name(self) -> str:
        return self.namespace + self.native_func


@dataclass(frozen=True, eq=False)
class ExternalBuiltin(Builtin):
    """An external builtin's record; answers to the attributes of Warp's Function handle too."""

    @property
    def key(self) -> str:
        return self.name

    @property
    def module(self):
        return None


class NativeParam(Pattern):
    """A parameter of a native value type (wp.build_experimental.add_native_type): matches the same
    C++ type, whichever ctypes class describes it (a reloaded module registers new classes)."""

    def __init__(self, t):
        self.t = t

    def match(self, t, b):
        return t is self.t or native_identity(t) == native_identity(self.t) is not None

    def build(self, b):
        return self.t


def native_identity(t):
    """What makes two native value types the same C++ type (None for other types)."""
    info = native_info(t)
    return None if info is None else info.identity


def _type_key(t):
    return native_identity(t) or t


def _check_type(t, what: str):
    """`t` as the registry holds it, or a TypeError naming `what`."""
    t = T.canonical_scalar(t)
    ok = (T.is_scalar_type(t) or T.is_composite_type(t) or getattr(t, "_wp_struct_", False)
          or native_info(t) is not None or isinstance(t, ArrayType))
    if not ok:
        name = getattr(t, "__name__", repr(t))
        raise TypeError(f"{what}: {name} is not a Warp type (a scalar such as wp.float32, a vector, matrix, "
                        "quaternion or transform type, a @wp.struct, a wp.array type or a type registered with "
                        "wp.build_experimental.add_native_type)")
    return t


def _check_header(header, libraries) -> tuple:
    if header is None:
        if libraries:
            raise ValueError("add_builtin(libraries=...) needs header=: the header that declares the library's "
                             "functions")
        return None, ()
    path = os.fspath(header)
    if not os.path.isabs(path):
        raise ValueError(f"add_builtin(header={path!r}): give an absolute path")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"add_builtin(header={path!r}): no such file")
    libs = (libraries,) if isinstance(libraries, (str, os.PathLike)) else tuple(libraries or ())
    checked = []
    for lib in map(os.fspath, libs):
        if not os.path.isabs(lib) or not os.path.isfile(lib):
            raise FileNotFoundError(f"add_builtin(libraries=[{lib!r}]): not an existing file given by absolute path "
                                    "(a .so, .a or .o built for this machine)")
        checked.append(os.path.normpath(lib))
    return os.path.normpath(path), tuple(checked)


def external_builtin(name: str, input_types=None, value_type=None, native_name=None, doc: str = "",
                     is_differentiable: bool = False, header=None, libraries=()) -> Builtin:
    """Register (or find) the overload of external builtin `name`; returns its registry record."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"add_builtin: the name {name!r} is not a valid Python identifier")
    if input_types is None:
        input_types = {}
    if not isinstance(input_types, Mapping):
        raise TypeError(f"add_builtin({name!r}): input_types must be a mapping of parameter names to Warp types, "
                        f"got {type(input_types).__name__}")
    native = f"wp::{name}" if native_name is None else native_name
    if not isinstance(native, str) or not _CPP_NAME.fullmatch(native):
        raise ValueError(f"add_builtin({name!r}): native_name {native!r} is not a qualified C++ identifier "
                         "(such as my_ns::my_function)")
    params = {}
    for pname, t in input_types.items():
        if not isinstance(pname, str) or not pname.isidentifier():
            raise ValueError(f"add_builtin({name!r}): the parameter name {pname!r} is not a valid Python identifier")
        params[pname] = _check_type(t, f"add_builtin({name!r}), parameter {pname!r}")
    result = None if value_type is None else _check_type(value_type, f"add_builtin({name!r}), value_type")
    header, libraries = _check_header(header, libraries)
    existing = BUILTINS.get(name)
    if existing is not None and existing.category != "external":
        raise ValueError(f"add_builtin({name!r}): wp.{name} is a Warp builtin; choose another name for the "
                         "external function")
    if hasattr(T, name):
        raise ValueError(f"add_builtin({name!r}): wp.{name} is a Warp type; choose another name")
    ns, sep, func = native.rpartition("::")
    overload = ExternalOverload(
        tuple(NativeParam(t) if native_identity(t) else Exact(t) for t in params.values()), result,
        tuple(params), native, input_types=params, value_type=result, namespace=ns + sep, native_func=func,
        is_differentiable=bool(is_differentiable))
    if existing is None:
        if header is not None:
            external_files.register(header, libraries)
        return add(ExternalBuiltin(name, (overload,), header or _PRELUDE, doc=doc, differentiable=bool(is_differentiable),
                           python=_not_from_python(name), category="external"))
    return _add_overload(existing, overload, header, libraries)


def _add_overload(b: Builtin, overload: ExternalOverload, header, libraries) -> Builtin:
    key = tuple(_type_key(t) for t in overload.input_types.values())
    for old in b.overloads:
        if tuple(_type_key(t) for t in old.input_types.values()) != key:
            continue
        same = (tuple(old.input_types) == tuple(overload.input_types) and _type_key(old.value_type) ==
                _type_key(overload.value_type) and old.native_name == overload.native_name
                and old.is_differentiable == overload.is_differentiable and (header or _PRELUDE) == b.header)
        if same:
            return b  # the same registration again (a reloaded module, a re-run cell)
        raise RuntimeError(f"add_builtin({b.name!r}): conflicting external builtin: an overload with these parameter "
                           f"types is already registered (as {old.native_name} returning "
                           f"{T.type_name(old.value_type) if old.value_type else 'nothing'}); overloads differ by "
                           "their parameter types")
    if (header or _PRELUDE) != b.header:
        raise ValueError(f"add_builtin({b.name!r}): every overload of an external builtin comes from the same "
                         f"header ({b.header}); register this one under another name")
    if overload.is_differentiable != b.differentiable:
        raise ValueError(f"add_builtin({b.name!r}): the overloads of an external builtin are all differentiable "
                         "or all not")
    if header is not None:
        external_files.register(header, libraries)
    # the one place a record changes after declaration: a registered builtin grows by an overload; kernels
    # already typed keep the overload they resolved
    object.__setattr__(b, "overloads", b.overloads + (overload,))
    return b


def _not_from_python(name: str):
    def call(*args, **kwargs):
        raise RuntimeError(f"wp.{name} is an external C++ function (wp.build_experimental.add_builtin): it can only "
                           "be called inside a kernel or @wp.func")
    return call
