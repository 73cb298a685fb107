"""`record`: `dataclasses.dataclass` for the compiler's many small classes (syntax, IR, adjoint IR,
index ranges, scopes), with the same semantics and a cheaper definition.

`dataclass` writes and compiles the source of `__init__`, `__repr__`, `__eq__` (and `__hash__` of a
frozen class) for every class it decorates: for the compiler's ~90 classes that was about a third
of the time `import warp_nb.compiler` takes (callgrind: 104M of 344M instructions), paid at every
warm start before the first launch (issue 21 item 5). Here `dataclass` still makes `__init__` (and
a frozen class's `__setattr__`), the fields and everything `dataclasses.fields` / `replace` read;
`__repr__`, `__eq__` and `__hash__` are shared functions that read the class's compared fields
through one `operator.attrgetter`, and behave as dataclass's generated ones do: equal when of the
same class with equal fields (NotImplemented otherwise), hashable by those fields when frozen,
unhashable when not frozen, a method the class defines itself kept."""

from __future__ import annotations

import dataclasses
import operator
import threading

_MISSING = object()
_repr_running = threading.local()


def _getter(names: tuple):
    """A function(obj) -> tuple of the named attributes (attrgetter gives a bare value for one)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        get = operator.attrgetter(names[0])
        return lambda obj: (get(obj),)
    return operator.attrgetter(*names)


def _eq(self, other):
    if other.__class__ is self.__class__:
        get = self.__class__.__record_compare__
        return get(self) == get(other)
    return NotImplemented


def _hash(self):
    return hash(self.__class__.__record_hash__(self))


def _repr(self):
    # as dataclass's: "..." for an object already being shown further up (a cycle)
    running = _repr_running.__dict__.setdefault("ids", set())
    key = (id(self), threading.get_ident())
    if key in running:
        return "..."
    running.add(key)
    try:
        cls = self.__class__
        return f"{cls.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in cls.__record_repr__)})"
    finally:
        running.discard(key)


def record(cls=None, /, *, init=True, repr=True, eq=True, frozen=False, **options):  # noqa: A002
    """`@record`, `@record(frozen=True)`, ...: as `@dataclass` with the same arguments."""

    def wrap(c):
        own = c.__dict__
        class_hash = own.get("__hash__", _MISSING)
        explicit_hash = not (class_hash is _MISSING or (class_hash is None and "__eq__" in own))
        own_repr, own_eq = "__repr__" in own, "__eq__" in own
        c = dataclasses.dataclass(c, init=init, repr=False, eq=False, frozen=frozen, **options)
        fields = dataclasses.fields(c)
        if repr and not own_repr:
            c.__record_repr__ = tuple(f.name for f in fields if f.repr)
            c.__repr__ = _repr
        if eq and not own_eq:
            c.__record_compare__ = _getter(tuple(f.name for f in fields if f.compare))
            c.__eq__ = _eq
        if eq and not explicit_hash and not options.get("unsafe_hash"):
            if frozen:  # (dataclass's rule: eq and frozen add a hash of the compared fields)
                c.__record_hash__ = _getter(tuple(f.name for f in fields
                                                  if (f.compare if f.hash is None else f.hash)))
                c.__hash__ = _hash
            else:  # eq without frozen: unhashable, as dataclass makes it
                c.__hash__ = None
        return c

    return wrap if cls is None else wrap(cls)
