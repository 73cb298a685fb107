"""What to suggest when kernel code names something it cannot use: the closest name for a typo,
the wp builtin for a numpy or math function, @wp.func for a plain Python helper. The type checker
appends these to its errors. One thing here is accepted rather than suggested: a math or numpy
function that has a wp builtin of its name is compiled as that builtin, as Warp does (math_builtin)."""

from __future__ import annotations

import inspect

from ..builtins.registry import BUILTINS

#: modules whose functions have wp builtins of the same name (np.sin -> wp.sin)
_MATH_MODULES = ("numpy", "math", "cmath")


def did_you_mean(name: str, candidates, prefix: str = "") -> str:
    """' Did you mean `x`?' for the candidate closest to `name`, or ''. Short names are typed wrong
    by one key (`vx` for `v`, `tdi` for `tid`) as often as long ones, which a similarity ratio misses:
    a candidate a few edits away (one for names of up to four letters, then one more per four)
    wins; among equals, the most similar. A one- or two-letter name gets a suggestion only when
    exactly one candidate is one edit away (`j` should not suggest every other single letter)."""
    names = sorted({c for c in candidates if isinstance(c, str) and c.isidentifier() and c != name})
    limit = 1 + max(0, len(name) - 1) // 4
    import difflib  # (loaded with the first hint: a warm start never asks for one)

    near = [(edit_distance(name, c), -difflib.SequenceMatcher(None, name, c).ratio(), c) for c in names
            if abs(len(c) - len(name)) <= limit]
    near = sorted(entry for entry in near if entry[0] <= limit)
    if near and (len(name) > 2 or sum(d == near[0][0] for d, _, _ in near) == 1):
        return f" Did you mean `{prefix}{near[0][2]}`?"
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75) if len(name) > 2 else []
    return f" Did you mean `{prefix}{close[0]}`?" if close else ""


def edit_distance(a: str, b: str) -> int:
    """Insertions, deletions, substitutions and swaps of neighbours turning `a` into `b`
    (Damerau-Levenshtein, optimal string alignment)."""
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def builtin_names() -> list[str]:
    return [n for n, b in BUILTINS.items() if b.export]


def math_builtin(obj):
    """The wp builtin a function of Python's math or numpy modules stands for in a kernel (Warp 1.19
    compiles `math.sqrt(x)` and `np.sin(x)` as `wp.sqrt(x)` and `wp.sin(x)`), or None."""
    name = getattr(obj, "__name__", None)
    module = (getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "") or "").split(".")[0]
    builtin = BUILTINS.get(name) if name and module in ("math", "numpy") else None
    return builtin if builtin is not None and builtin.export else None


def uncallable(obj, shown: str) -> str:
    """The error for calling `obj` (shown as `shown`) inside a kernel, with what to use instead."""
    name = getattr(obj, "__name__", None)
    module = (getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "") or "").split(".")[0]
    if name and module in _MATH_MODULES:
        if name in BUILTINS and BUILTINS[name].export:
            return (f"{shown} is {module}'s `{name}`, which runs in Python, not in kernels: use `wp.{name}` "
                    f"(the same function, compiled into the kernel)")
        return f"{shown} is {module}'s `{name}`, which runs in Python, not in kernels; wp has no builtin of that name"
    if module == "warp_nb":
        return f"{shown} is part of warp_nb's Python API and cannot be called inside a kernel"
    if inspect.isfunction(obj):
        return (f"{shown} is a plain Python function; to call it from kernels, decorate it with @wp.func "
                f"(and give its parameters types)")
    return f"{shown} cannot be called inside a kernel"
