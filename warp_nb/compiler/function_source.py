"""The source text of a Python function as a Python `ast` tree: what `Kernel.adj` shows and what
Warp's `codegen.Adjoint.extract_function_source` returns. warp_nb's own parser (parse.py) finds a
function in its whole file's tree; this module answers the per-function question Warp's API asks:
(dedented source, first line, ast.Module) for one function, and keeps one record per code object,
so redeclarations of one definition (a kernel factory called twice) share their syntax.

Two ways to find the text:
- fast: the line cache's lines of the code object's file, from `co_firstlineno` (the decorator's
  line) to the last line the bytecode reports, then forward over the lines a body may add past it
  (a closing parenthesis, a trailing comment) while they are indented past the `def`;
- slow: `inspect.getsourcelines`, when the fast slice is missing, does not parse, or does not start
  with the function (wrong line metadata).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import tokenize
import io
import weakref


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _last_line(code) -> int:
    """The last source line the code object (or one nested in it) has bytecode for."""
    last = code.co_firstlineno
    for _, _, line in code.co_lines():
        if line is not None and line > last:
            last = line
    for const in code.co_consts:
        if inspect.iscode(const):
            last = max(last, _last_line(const))
    return last


def try_extract_function_source(code) -> tuple[str, int] | None:
    """(source, first line) from the line cache, or None when the lines are not there. The slice
    may be wrong (a multi-line string at column 0 cuts it short): the caller parses it to check."""
    filename = code.co_filename
    linecache.checkcache(filename)  # the file may have been rewritten since it was cached
    lines = linecache.getlines(filename)
    first = code.co_firstlineno
    if not lines or not 0 < first <= len(lines):
        return None
    base = _indent(lines[first - 1])
    end = min(_last_line(code), len(lines))
    line = end + 1
    while line <= len(lines):  # forward walk: blank lines, and lines indented past the def
        text = lines[line - 1]
        if text.strip() and _indent(text) <= base:
            break
        line += 1
    end = line - 1
    while end > first and not lines[end - 1].strip():  # no trailing blank lines
        end -= 1
    return "".join(lines[first - 1:end]), first


def inspect_extract_function_source(func) -> tuple[str, int]:
    """(source, first line) by `inspect.getsourcelines` (which tokenizes the file)."""
    lines, first = inspect.getsourcelines(func)
    return "".join(lines), first


def _parses_as(source: str, name: str):
    """The module tree of `source` when it parses and starts with the function `name`, else None."""
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return None
    if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) and tree.body[0].name == name:
        return tree
    return None


def extract_function_source(func, fast=try_extract_function_source, slow=inspect_extract_function_source):
    """(dedented source, first line, ast.Module) of `func` (following `__wrapped__`, as inspect
    does): the fast slice when it parses to this function, else inspect's text."""
    func = inspect.unwrap(func)
    code = func.__code__
    found = fast(code)
    if found is not None:
        source, first = found
        tree = _parses_as(source, code.co_name)
        if tree is not None:
            return textwrap.dedent(source), first, tree
    source, first = slow(func)
    source = textwrap.dedent(source)
    return source, first, ast.parse(source)


def extract_lambda_source(func, only_body: bool = False) -> str | None:
    """The text of a lambda (or of its body alone, with the parentheses around it), found from its
    first line onwards; None when its source cannot be read."""
    code = func.__code__
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno
    if not lines or not 0 < first <= len(lines):
        return None
    params = list(code.co_varnames[:code.co_argcount])
    for end in range(first, len(lines) + 1):  # the shortest run of lines that parses
        text = textwrap.dedent("".join(lines[first - 1:end]))
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and node.lineno == 1 and [a.arg for a in node.args.args] == params:
                return _lambda_text(text, node, only_body)
        return None
    return None


def _offset(text: str, line: int, col: int, utf8: bool = True) -> int:
    """Character offset of (1-based line, column) in `text`; ast columns count utf-8 bytes,
    tokenize's count characters."""
    rows = text.splitlines(True)
    column = len(rows[line - 1].encode()[:col].decode()) if utf8 else col
    return sum(len(r) for r in rows[:line - 1]) + column


def _lambda_text(text: str, node: ast.Lambda, only_body: bool) -> str:
    """The lambda's text; ast positions leave out the parentheses around its body, so the closing
    ones matching those opened between the colon and the body are taken from the tokens after it."""
    body = node.body
    start = _offset(text, node.lineno, node.col_offset)
    head_end = _offset(text, body.lineno, body.col_offset)
    end = _offset(text, body.end_lineno, body.end_col_offset)
    colon = text.rindex(":", start, head_end) + 1
    opened = text[colon:head_end].count("(")
    rest = text[end:]
    if opened:
        try:
            for tok in tokenize.generate_tokens(io.StringIO(rest).readline):
                if tok.type == tokenize.OP and tok.string == ")":
                    opened -= 1
                    if opened == 0:
                        end += _offset(rest, tok.end[0], tok.end[1], utf8=False)
                        break
        except (tokenize.TokenError, IndentationError):
            pass
    return (text[colon:end] if only_body else text[start:end]).strip()


class SharedFunctionSource:
    """What one code object's definition parses to, shared by every function made from it (the
    kernels a factory makes): its source, first line and tree, and caches derived from the tree."""

    def __init__(self, source: str, lineno: int, tree):
        self.source, self.lineno, self.tree = source, lineno, tree
        self.derived: dict = {}


#: id(code object) -> (weak reference to it, SharedFunctionSource); an entry goes when its code does
shared_function_sources: dict = {}


def store_shared_source(code, entry: SharedFunctionSource) -> None:
    key = id(code)
    shared_function_sources[key] = (weakref.ref(code, lambda _: _forget(key)), entry)


def _forget(key) -> None:
    shared_function_sources.pop(key, None)


def shared_source_for_code(code) -> SharedFunctionSource | None:
    """The record of this very code object (an equal one compiled again from other text is not it)."""
    found = shared_function_sources.get(id(code))
    if found is None or found[0]() is not code:
        return None
    return found[1]


def shared_source(func) -> SharedFunctionSource:
    """The shared record of `func`'s definition, extracted on first use."""
    code = inspect.unwrap(func).__code__
    entry = shared_source_for_code(code)
    if entry is None:
        entry = SharedFunctionSource(*extract_function_source(func))
        store_shared_source(code, entry)
    return entry
