"""A `%%kernel` or `%%func` cell -> a module of its own, compiled at once.

The cell text is registered with IPython's compile cache (so kernels are parsed from it, and
tracebacks and `inspect.getsource` show it) and executed in the user namespace with a module
name derived from its text and options, so `@wp.kernel`'s module grouping makes each cell one
compilation unit. Plain defs become kernels (`%%kernel`) or functions (`%%func`).

Re-running an unchanged cell whose free names still refer to the same objects re-binds the
kernels it made last time: nothing is re-typed or compiled. A cell that redefines a @wp.func or
@wp.struct invalidates the kernels of other cells that use it (found by name through their
code and the funcs they call), which are recompiled on the spot. Knows IPython's shell and the
pipeline's public names; knows nothing about widgets."""

from __future__ import annotations

import ast
import hashlib
import time
from dataclasses import dataclass, field

import warp_nb as wp
from warp_nb.compiler import pipeline
from warp_nb.program.kernel import Kernel
from warp_nb.errors import KernelError

from . import deps, messages

_MISSING = object()


@dataclass
class CellRecord:
    """What one cell text made, the last time it ran."""

    module: str
    filename: str
    label: str
    kind: str  # "kernel" | "func"
    bound: dict  # name -> object this cell defined
    free: dict  # name -> the object it referred to when the cell ran (identity decides reuse)
    kernels: list = field(default_factory=list)


@dataclass
class CellResult:
    """What a run did (the magic prints `summary()`; tests read the fields)."""

    record: CellRecord
    reused: bool
    compiled: list = field(default_factory=list)  # kernel keys compiled by the C++ compiler now
    cached: list = field(default_factory=list)  # kernel keys loaded from the disk cache or kept in memory
    dependents: list = field(default_factory=list)  # (kernel key, cell label, compiled now) in other cells
    stale: list = field(default_factory=list)  # kernels in other cells whose parameter types changed
    failed: list = field(default_factory=list)  # (name, kept a previous definition) of kernels that failed
    seconds: float = 0.0
    compile_seconds: float = 0.0

    def summary(self) -> str:
        r = self.record
        n = len(r.kernels)
        funcs = [name for name, v in r.bound.items() if getattr(v, "_wp_func_", False)]
        parts = []
        if n:
            counts = []
            if self.compiled:  # (the cell's time, said once: at the end of the line)
                counts.append(f"{len(self.compiled)} compiled")
            if self.cached:
                counts.append(f"{len(self.cached)} cached")
            parts.append(f"{n} kernel{'s' * (n != 1)}: " + ", ".join(counts))
        if funcs:
            parts.append(f"{len(funcs)} func{'s' * (len(funcs) != 1)} ({', '.join(funcs)})")
        if self.failed:
            kept = [name for name, had in self.failed if had]
            text = f"{len(self.failed)} kernel{'s' * (len(self.failed) != 1)} failed"
            if kept:
                text += f" ({', '.join(kept)} keep{'s' * (len(kept) == 1)} the previous definition)"
            parts.append(text)
        line = "; ".join(parts) or "no kernels"
        if self.reused:
            line += " (cell unchanged: nothing re-typed)"
        if self.dependents:
            shown = ", ".join(f"{k} in {where}: {'compiled' if now else 'cached'}" for k, where, now in self.dependents)
            line += f"; updated {len(self.dependents)} kernel{'s' * (len(self.dependents) != 1)} using them ({shown})"
        if self.stale:
            line += "; re-run " + ", ".join(f"{where} ({k})" for k, where in self.stale) + \
                    " to use the new struct in its parameters"
        took = f"{self.seconds:.2f} s" if self.seconds >= 1.0 else f"{self.seconds * 1e3:.1f} ms"
        return line + f" [{took}]"


#: module name -> record of the last run of that cell text
CELLS: dict[str, CellRecord] = {}
#: what the last %%kernel / %%func cell did (for tests and curious users)
LAST: CellResult | None = None


def digest(text: str, kind: str, mode: str | None) -> str:
    h = hashlib.blake2b(digest_size=8)
    h.update(f"{kind}\0{mode}\0{text}".encode())
    return h.hexdigest()


def current_cell_number(shell, cell: str) -> int:
    """The number of the cell being run, as the notebook shows it. IPython 8 counts a cell up after
    running it, IPython 9 before, so `shell.execution_count` alone is off by one under 9. The cell
    is in the input history by now (when history is kept): if the last entry is this cell and sits
    at index execution_count - 1, the count has already moved on."""
    number = shell.execution_count
    history = getattr(getattr(shell, "history_manager", None), "input_hist_raw", None)
    if history and len(history) == number and cell.strip() in history[-1]:
        return number - 1
    return number


def run_cell(shell, header: str, cell: str, kind: str, mode: str | None, device) -> CellResult:
    """Define and compile the cell's names in `shell.user_ns`. Raises (and leaves the namespace as
    it was) on bad Python or a cell without defs; a kernel that does not compile keeps its
    previous definition, and its error is raised after the other kernels are bound."""
    t0 = time.perf_counter()
    magic = f"%%{kind}"
    ns = shell.user_ns
    # the header line becomes a comment, so the cell's line numbers are the notebook's
    text = f"# {header}\n{cell}"
    number = current_cell_number(shell, cell)
    filename = shell.compile.cache(text, number, raw_code=text)
    label = f"cell [{number}]"
    messages.CELL_LABELS[filename] = label
    module = f"wpcell_{digest(cell, kind, mode)}"

    record = CELLS.get(module)
    if record is not None and _unchanged(record, ns):
        record.filename, record.label = filename, label
        saved = {name: deps.fingerprint(ns.get(name)) for name in record.bound}
        ns.update(record.bound)
        result = CellResult(record, reused=True)
        failures = _compile(record.kernels, device, result)
        return _finish(result, failures, saved, ns, device, t0)

    tree = _parse(text, filename, magic)
    defined = _defined_names(tree)
    plain = [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.decorator_list]
    saved = {name: ns.get(name, _MISSING) for name in defined}
    free = {name: ns.get(name, _MISSING) for name in _free_names(tree, defined)}
    try:
        code = compile(tree, filename, "exec", flags=getattr(shell.compile, "flags", 0), dont_inherit=True)
        _execute(code, ns, module)
        for name in plain:
            ns[name] = Kernel(ns[name], module=module) if kind == "kernel" else wp.func(ns[name])
    except KernelError as e:
        _restore(ns, saved)
        if e.loc is None:
            raise messages.python_error(e, filename, magic) from None
        raise messages.relocated(e) from None
    except Exception as e:
        _restore(ns, saved)
        raise messages.python_error(e, filename, magic) from None

    bound = {name: ns[name] for name in defined if name in ns}
    kernels = [v for v in bound.values() if getattr(v, "_wp_kernel_", False)]
    for k in kernels:
        k.mode = mode
    record = CellRecord(module, filename, label, kind, bound, free, kernels)
    result = CellResult(record, reused=False)
    failures = _compile(kernels, device, result)
    for k, _ in failures:  # the previous good definition stays usable
        name = next(n for n, v in bound.items() if v is k)
        _restore(ns, {name: saved[name]})
        del bound[name]
        kernels.remove(k)
        result.failed.append((name, saved[name] is not _MISSING))
    if not failures:
        CELLS[module] = record
    return _finish(result, failures, {n: deps.fingerprint(v) for n, v in saved.items()}, ns, device, t0)


def _finish(result: CellResult, failures: list, before: dict, ns: dict, device, t0: float) -> CellResult:
    """Bring the kernels of other cells up to date with the funcs and structs this cell (re)defined,
    then raise the first error, if any."""
    global LAST
    LAST = result
    record = result.record
    changed = {name for name, v in record.bound.items()
               if (getattr(v, "_wp_func_", False) or getattr(v, "_wp_struct_", False))
               and before.get(name) != deps.fingerprint(v)}
    dependent_failures = deps.update_dependents(changed, ns, record.module, device, result) if changed else []
    result.seconds = time.perf_counter() - t0
    errors = failures + dependent_failures
    if errors:
        print(result.summary())
        raise _combined(errors)
    return result


def _unchanged(record: CellRecord, ns: dict) -> bool:
    return all(ns.get(name, _MISSING) is value for name, value in record.free.items())


def _parse(text: str, filename: str, magic: str) -> ast.Module:
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise messages.syntax_error(e, filename, magic) from None
    if not any(isinstance(n, ast.FunctionDef) for n in tree.body):
        what = "kernels" if magic == "%%kernel" else "functions callable from kernels"
        raise messages.CellError(
            f"UsageError: this {magic} cell has no `def`: a {magic} cell holds one or more function definitions, "
            f"which become {what} (for example `def scale(a: wp.array(dtype=float)): ...`). Run other Python "
            "in an ordinary cell. No name was changed.")
    for node in tree.body:
        if isinstance(node, ast.AsyncFunctionDef):
            raise messages.CellError(f"UsageError: async def `{node.name}` cannot become a kernel "
                                     f"({messages.label(filename)}, line {node.lineno}). No name was changed.")
    return tree


def _defined_names(tree: ast.Module) -> list[str]:
    """The names the cell's top-level statements bind."""
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.append(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out += [(a.asname or a.name).split(".")[0] for a in node.names]
        else:
            out += [n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
    return list(dict.fromkeys(out))


def _free_names(tree: ast.Module, defined: list[str]) -> list[str]:
    """Names the cell reads but does not define: if each still names the same object, re-running
    the same text would make the same kernels."""
    own = set(defined)
    loads = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return sorted(loads - own)


def _execute(code, ns: dict, module: str) -> None:
    """Run the cell's code in the user namespace under its module name (functions take their
    __module__ from the namespace's __name__ while they are created)."""
    old = ns.get("__name__", _MISSING)
    ns["__name__"] = module
    try:
        exec(code, ns)
    finally:
        if old is _MISSING:
            ns.pop("__name__", None)
        else:
            ns["__name__"] = old


def _restore(ns: dict, saved: dict) -> None:
    for name, value in saved.items():
        if value is _MISSING:
            ns.pop(name, None)
        else:
            ns[name] = value


def _compile(kernels: list, device, result: CellResult) -> list:
    """Compile (or load) every kernel now, sorting them into compiled / cached in `result`;
    returns [(kernel, error)] for those that fail."""
    log_start = len(pipeline.compile_log)
    t0 = time.perf_counter()
    for module in dict.fromkeys(k.module for k in kernels):
        module.load_quietly(device)  # each kernel keeps its own error: the cell reports them all
    failures = []
    for k in kernels:
        try:
            k.compiled(device)
        except KernelError as e:
            failures.append((k, e))
    failed = {id(k) for k, _ in failures}
    account(log_start, [k for k in kernels if id(k) not in failed], result, time.perf_counter() - t0)
    return failures


def account(log_start: int, kernels: list, result: CellResult, wall: float) -> None:
    """Sort kernels into compiled by the C++ compiler now / cached (disk cache or already in
    memory), from the compile log's new entries."""
    fresh = {key: now for key, _, now in pipeline.compile_log[log_start:]}
    for k in kernels:
        (result.compiled if fresh.get(k.key) else result.cached).append(k.key)
    if any(fresh.get(k.key) for k in kernels):
        result.compile_seconds += wall


def _combined(errors: list) -> Exception:
    """The first kernel error, with the others' messages after it."""
    first = messages.relocated(errors[0][1])
    if len(errors) > 1:
        rest = "\n\n".join(f"{type(e).__name__}: {messages.relocated(e)}" for _, e in errors[1:])
        text = f"{type(errors[0][1]).__name__}: {first}\n\n{rest}"
        first._render_traceback_ = lambda: messages._red_first(text.splitlines())
    return first
