"""Small helpers of `wp.utils`: `create_warp_function` (a Python function or lambda as a
`wp.func`), `transform_expand` and `warn` (Warp-formatted warnings that go through Python's
warnings filters, so `-W error`, `catch_warnings` and `assertWarns` see them)."""

from __future__ import annotations

import ast
import hashlib
import inspect
import linecache
import textwrap

from .. import types as T
from ..errors import _warnings_seen, warn  # noqa: F401  (wp.utils.warn; lives below every layer)

def transform_expand(t):
    """A 7-value sequence (p.x, p.y, p.z, q.x, q.y, q.z, q.w) as a wp.transform."""
    values = [float(x) for x in t]
    if len(values) != 7:
        raise ValueError(f"transform_expand expects 7 values (position, then quaternion x, y, z, w), got {len(values)}")
    return T.transformf(values[:3], values[3:])


def _lambda_node(fn):
    """The ast.Lambda of a lambda function, found in the statement its source lines belong to."""
    source = textwrap.dedent(inspect.getsource(fn))
    tree = None
    for attempt in (source, f"(\n{source}\n)", source.rstrip().rstrip(",")):
        try:
            tree = ast.parse(attempt)
            break
        except SyntaxError:
            continue
    if tree is None:
        raise ValueError(f"cannot read the source of {fn!r}")
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda) and tuple(a.arg for a in node.args.args) == tuple(names):
            return node
    raise ValueError(f"cannot find the lambda {fn!r} in its source")


def create_warp_function(func):
    """A `wp.func` made from a Python function or lambda (its parameters generic: typing.Any).
    Returns (function, module). The function's key is `func_` and 16 hex digits of its source,
    so the same code gives the same key in every process."""
    import warp_nb as wp

    from ..program.module import get_module

    if func.__name__ == "<lambda>":
        node = _lambda_node(func)
        args = ", ".join(f"{a.arg}: Any" for a in node.args.args)
        body = f"return {ast.unparse(node.body)}"
    else:
        fdef = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
        args = ", ".join(f"{a.arg}: {ast.unparse(a.annotation) if a.annotation else 'Any'}" for a in fdef.args.args)
        body = "\n".join(ast.unparse(s) for s in fdef.body)
    body = textwrap.indent(body, "    ")
    key = "func_" + hashlib.sha256(f"({args})\n{body}".encode()).hexdigest()[:16]
    source = f"def {key}({args}):\n{body}\n"
    filename = f"<warp_nb.create_warp_function {key}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = dict(func.__globals__)
    namespace.setdefault("Any", __import__("typing").Any)
    if func.__closure__:
        namespace.update(zip(func.__code__.co_freevars, (c.cell_contents for c in func.__closure__)))
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (the user's own code, re-spelled)
    fn = namespace[key]
    fn.__module__ = func.__module__
    created = wp.func(fn)
    return created, get_module(func.__module__)


class ScopedLogLevel:
    """`with wp.ScopedLogLevel(wp.LOG_DEBUG):` sets wp.config.log_level inside the block and restores
    it after (Warp's context manager). At LOG_DEBUG, NVRTC's diagnostics of a CUDA build are printed
    even when the build succeeds."""

    def __init__(self, level: int):
        self.level = level

    def __enter__(self):
        from .. import config
        self.saved, config.log_level = config.log_level, self.level
        return self

    def __exit__(self, *exc):
        from .. import config
        config.log_level = self.saved
        return False
