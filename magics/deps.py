"""Which kernels of the notebook use a name: found through their code objects' global names and,
transitively, those of the @wp.funcs they call (an over-approximation by name: a kernel that
only has an attribute of the same name is recompiled needlessly, from the cache). When a cell
redefines a @wp.func, the kernels of other cells that use it are invalidated and compiled again
at once; when it redefines a @wp.struct that a kernel takes as a parameter, that kernel's cell
must run again (its annotations were resolved when it was defined), and the cell says so."""

from __future__ import annotations

import types

from warp_nb.compiler import pipeline
from warp_nb.program.kernel import Kernel
from warp_nb.errors import KernelError


def _code_names(code: types.CodeType) -> set:
    out = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out |= _code_names(const)
    return out


def used_names(kernel) -> set:
    """Global names a kernel reads, directly or through the @wp.funcs it calls."""
    seen, names = set(), set()
    todo = [(kernel.func, kernel.scope)]
    while todo:
        fn, scope = todo.pop()
        code = getattr(fn, "__code__", None)
        if code is None or id(code) in seen:
            continue
        seen.add(id(code))
        found = _code_names(code)
        names |= found
        for name in found:
            value = scope.lookup(name)
            for overload in getattr(value, "overloads", ()) if getattr(value, "_wp_func_", False) else ():
                todo.append((overload.fn, overload.scope))
    return names


def fingerprint(value):
    """What identifies a definition: a @wp.func's overloads (a plain cell re-running `@wp.func`
    replaces the overload inside the same object), a struct or anything else itself."""
    if getattr(value, "_wp_func_", False):
        return ("func", value, tuple(o.fn for o in value.overloads))
    return value


def _struct_params(kernel) -> list:
    out = []
    for t in kernel.param_types:
        t = getattr(t, "dtype", t)
        if getattr(t, "_wp_struct_", False):
            out.append(t)
    return out


def notebook_kernels(ns: dict, skip_module: str) -> list:
    """Kernels bound in the user namespace whose names are looked up there, except `skip_module`'s."""
    out = []
    for value in list(ns.values()):
        if isinstance(value, Kernel) and value.module.name != skip_module and value.scope.globals is ns:
            out.append(value)
    return out


def update_dependents(changed: set, ns: dict, module: str, device, result) -> list:
    """Invalidate and recompile the kernels of other cells that use a name in `changed`; note in
    `result` what was done. Returns [(kernel, error)] for dependents that no longer compile."""
    from . import cells
    labels = {r.module: r.label for r in cells.CELLS.values()}
    failures, recompile = [], []
    for k in notebook_kernels(ns, module):
        where = labels.get(k.module.name, "an earlier cell")
        for t in _struct_params(k):
            name = t.cls.__name__
            if name in changed and ns.get(name) is not t:
                result.stale.append((k.key, where))
        if changed & used_names(k):
            had_code = k.has_compiled_code
            k.invalidate()
            if had_code:
                recompile.append((k, where))
    log_start = len(pipeline.compile_log)
    for k, where in recompile:
        try:
            k.compiled(device)
        except KernelError as e:
            failures.append((k, e))
            continue
        fresh = any(key == k.key and now for key, _, now in pipeline.compile_log[log_start:])
        result.dependents.append((k.key, where, fresh))
    return failures
