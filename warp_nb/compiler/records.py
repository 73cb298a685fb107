"""`record`: `dataclasses.dataclass` for the compiler's many small classes (syntax, IR, adjoint IR,
index ranges, scopes), with the same semantics and a cheaper definition.

`dataclass` writes and compiles (`exec`) the source of `__init__`, `__repr__`, `__eq__`, and of a
frozen class's `__hash__`, `__setattr__` and `__delattr__`, for every class it decorates: for the
compiler's ~90 classes that was most of the time `import warp_nb.compiler` takes (22 of 40 ms),
paid at every warm start before the first launch (issue 21 item 5). Here `dataclass` only collects
the fields (what `dataclasses.fields` / `replace` / `asdict` read) and every method is a shared
function driven by the class's field names: `__init__` (positional or keyword arguments, defaults
and default factories, `__post_init__`), `__repr__`, `__eq__` and `__hash__` as dataclass's
generated ones behave (equal when of the same class with equal compared fields, NotImplemented
otherwise; hashable by those fields when frozen, unhashable when not), and a frozen class's
`__setattr__` / `__delattr__` raising `dataclasses.FrozenInstanceError`. A method the class
defines itself is kept. (A frozen record is not `frozen` in `__dataclass_params__`: nothing here
reads that, and an instance is immutable all the same.)"""

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


def _make_init(cls, fields):
    """The shared `__init__` of a record class: fields set straight into the instance's `__dict__`
    (as dataclass's `object.__setattr__` does for a frozen class), in field order."""
    names = tuple(f.name for f in fields if f.init)
    count = len(names)
    # (name, its position among the arguments or -1, default or _MISSING, default factory or _MISSING)
    fill = tuple((f.name, names.index(f.name) if f.init else -1,
                  _MISSING if f.default is dataclasses.MISSING else f.default,
                  _MISSING if f.default_factory is dataclasses.MISSING else f.default_factory) for f in fields)
    # with n arguments by position and none by keyword: the fields left to their defaults
    tails = tuple(tuple(entry for entry in fill if entry[1] < 0 or entry[1] >= given) for given in range(count + 1))
    post_init = getattr(cls, "__post_init__", None)
    qualname = f"{cls.__qualname__}.__init__()"

    def __init__(self, *args, **kwargs):
        given = len(args)
        if given > count:
            raise TypeError(f"{qualname} takes {count + 1} positional arguments but {given + 1} were given")
        state = self.__dict__
        state.update(zip(names, args))
        for name, position, default, factory in tails[given] if not kwargs else fill:
            if 0 <= position < given:  # (only with keywords: a field given by position)
                if name in kwargs:
                    raise TypeError(f"{qualname} got multiple values for argument '{name}'")
            elif position >= 0 and name in kwargs:
                state[name] = kwargs.pop(name)
            elif default is not _MISSING:
                state[name] = default
            elif factory is not _MISSING:
                state[name] = factory()
            elif position >= 0:
                raise TypeError(f"{qualname} missing 1 required argument: '{name}'")
        if kwargs:
            raise TypeError(f"{qualname} got an unexpected keyword argument '{next(iter(kwargs))}'")
        if post_init is not None:
            self.__post_init__()

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _make_frozen(cls, fields):
    """`__setattr__` and `__delattr__` of a frozen record class: refused for its fields, and for any
    name on an instance of the class itself (dataclass's rule)."""
    field_names = frozenset(f.name for f in fields)

    def __setattr__(self, name, value):
        if type(self) is cls or name in field_names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in field_names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    return __setattr__, __delattr__


def record(cls=None, /, *, init=True, repr=True, eq=True, frozen=False, **options):  # noqa: A002
    """`@record`, `@record(frozen=True)`, ...: as `@dataclass` with the same arguments."""

    def wrap(c):
        own = c.__dict__
        class_hash = own.get("__hash__", _MISSING)
        explicit_hash = not (class_hash is _MISSING or (class_hash is None and "__eq__" in own))
        own_repr, own_eq, own_init = "__repr__" in own, "__eq__" in own, "__init__" in own
        c = dataclasses.dataclass(c, init=False, repr=False, eq=False, frozen=False, **options)
        fields = dataclasses.fields(c)
        if init and not own_init:
            c.__init__ = _make_init(c, fields)
        if frozen:
            c.__setattr__, c.__delattr__ = _make_frozen(c, fields)
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
