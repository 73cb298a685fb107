"""compiler/records.py: `record` behaves as `dataclasses.dataclass` with the same arguments, for
every method it makes without `exec` (construction, defaults, errors, freezing, equality, hashing,
repr, `dataclasses.replace` / `fields` / `asdict`). Each case runs on a record class and on the same
class made by `dataclass`, and compares."""

import dataclasses
from dataclasses import field

import pytest

from warp_nb.compiler.records import record


def _pair(frozen):
    made = []
    for decorate in (record(frozen=frozen), dataclasses.dataclass(frozen=frozen)):
        @decorate
        class Node:
            a: int
            b: object
            c: tuple = (1, 2)
            d: list = field(default_factory=list)
            e: int = field(default=7, compare=False, repr=False)
        made.append(Node)
    return made


def _outcome(call):
    try:
        return ("ok", call())
    except Exception as e:  # noqa: BLE001  (the error's kind is what is compared)
        return ("error", type(e))


CALLS = [
    lambda N: N(1, "x"),
    lambda N: N(1, "x", (3,), [4], 5),
    lambda N: N(1, b="x", d=[9]),
    lambda N: N(a=1, b=2, c=3, d=4, e=5),
    lambda N: N(1),                      # missing b
    lambda N: N(),                       # missing a and b
    lambda N: N(1, 2, 3, 4, 5, 6),       # too many
    lambda N: N(1, 2, a=3),              # a twice
    lambda N: N(1, 2, f=3),              # unknown keyword
]


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("k", range(len(CALLS)))
def test_construction_matches_dataclass(frozen, k):
    ours, theirs = _pair(frozen)
    got, want = _outcome(lambda: CALLS[k](ours)), _outcome(lambda: CALLS[k](theirs))
    assert got[0] == want[0]
    if got[0] == "error":
        assert got[1] is want[1]
    else:
        assert dataclasses.asdict(got[1]) == dataclasses.asdict(want[1])
        assert repr(got[1]).split("(", 1)[1] == repr(want[1]).split("(", 1)[1]


@pytest.mark.parametrize("frozen", [False, True])
def test_factory_gives_each_instance_its_own(frozen):
    ours, _ = _pair(frozen)
    x, y = ours(1, 2), ours(1, 2)
    assert x.d == [] and x.d is not y.d


def test_frozen_refuses_assignment_and_deletion():
    ours, _ = _pair(True)
    x = ours(1, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.a = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        x.other = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        del x.a
    assert x.a == 1


def test_not_frozen_allows_assignment():
    ours, _ = _pair(False)
    x = ours(1, 2)
    x.a = 3
    assert x.a == 3


def test_equality_and_hash_follow_compared_fields():
    ours, _ = _pair(True)
    assert ours(1, 2, e=5) == ours(1, 2, e=6)  # e is not compared
    assert hash(ours(1, 2, d=(), e=5)) == hash(ours(1, 2, d=(), e=6))
    assert ours(1, 2) != ours(1, 3)
    unfrozen, _ = _pair(False)
    with pytest.raises(TypeError):
        hash(unfrozen(1, 2))


def test_replace_and_fields():
    ours, theirs = _pair(True)
    x = dataclasses.replace(ours(1, 2), b=5)
    assert (x.a, x.b, x.c) == (1, 5, (1, 2))
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(theirs)]


def test_post_init_and_init_false_fields():
    calls = []

    @record(frozen=True)
    class WithPost:
        a: int
        hidden: list = field(default_factory=list, init=False)

        def __post_init__(self):
            calls.append(self.a)

    w = WithPost(4)
    assert calls == [4] and w.hidden == []
    with pytest.raises(TypeError):
        WithPost(4, [1])


def test_own_init_kept():
    @record(frozen=True)
    class Own:
        a: int

        def __init__(self, value):
            object.__setattr__(self, "a", value * 2)

    assert Own(3).a == 6
