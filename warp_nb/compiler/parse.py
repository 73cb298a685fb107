"""Python source -> syntax tree (`syntax.py`). Only syntax: what the kernel subset of Python
allows, rejected at the user's line otherwise. Names, types and builtins are `typecheck`'s job."""

from __future__ import annotations

import ast
import copy
import inspect
import linecache
import textwrap
import weakref

from . import syntax as S
from ..errors import KernelSyntaxError, Loc

_BINOPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv", ast.Mod: "mod",
    ast.Pow: "pow", ast.MatMult: "matmul", ast.BitAnd: "bit_and", ast.BitOr: "bit_or", ast.BitXor: "bit_xor",
    ast.LShift: "lshift", ast.RShift: "rshift",
}
_UNARY = {ast.USub: "neg", ast.UAdd: "pos", ast.Invert: "invert", ast.Not: "logical_not"}
_COMPARE = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}

# constructs kernels refuse, with the reason and the way out
_UNSUPPORTED = {
    ast.ListComp: "list comprehensions are not supported in kernels; use a for loop",
    ast.SetComp: "set comprehensions are not supported in kernels; use a for loop",
    ast.DictComp: "dict comprehensions are not supported in kernels; use a for loop",
    ast.GeneratorExp: "generator expressions are not supported in kernels; use a for loop",
    ast.Lambda: "lambdas are not supported in kernels; define a @wp.func instead",
    ast.Try: "exceptions (try/except) are not supported in kernels; check conditions with if",
    ast.Raise: "exceptions (raise) are not supported in kernels; use wp.printf or write a flag to an array",
    ast.With: "`with` blocks are not supported in kernels",
    ast.Global: "`global` is not supported in kernels; pass values as arguments or use wp.constant",
    ast.Nonlocal: "`nonlocal` is not supported in kernels",
    ast.Delete: "`del` is not supported in kernels",
    ast.Import: "imports are not allowed inside kernels; import at the top of the file",
    ast.ImportFrom: "imports are not allowed inside kernels; import at the top of the file",
    ast.ClassDef: "classes cannot be defined inside kernels; use @wp.struct at the top level",
    ast.FunctionDef: "functions cannot be defined inside kernels; define a @wp.func at the top level",
    ast.AsyncFunctionDef: "async functions are not supported in kernels",
    ast.Await: "await is not supported in kernels",
    ast.Yield: "generators (yield) are not supported in kernels",
    ast.YieldFrom: "generators (yield) are not supported in kernels",
    # Warp's words first (its tests match them), then ours
    ast.List: "List constructs are not supported in kernels. Use vectors like `wp.vec3()` for small fixed-size "
              "collections, or `wp.zeros(shape=N, dtype=...)` for stack-allocated arrays (a fixed-size tuple works "
              "too; a list would be dynamically sized).",
    ast.Dict: "Construct `ast.Dict` not supported in kernels. Use a @wp.struct for named fields.",
    ast.Set: "sets are not supported in kernels",
    ast.Starred: "star-unpacking is only supported in call arguments in kernels (f(*v))",
    ast.NamedExpr: "the walrus operator (:=) is not supported in kernels",
    ast.JoinedStr: "f-strings are not supported in kernels; use wp.printf(\"%f\\n\", x) or print(x)",
}
if hasattr(ast, "Match"):
    _UNSUPPORTED[ast.Match] = "`match` statements are not supported in kernels; use if/elif"


_PARSED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def parse_definition(fn) -> S.FunctionDef:
    """parse_function, once per function object (a re-run cell or reloaded module makes a new
    function object, so it is parsed again)."""
    tree = _PARSED.get(fn)
    if tree is None:
        tree = _PARSED[fn] = parse_function(fn)
    return tree


def parse_function(fn) -> S.FunctionDef:
    """Parse a Python function into a syntax tree. The file (or notebook cell) and line numbers
    in every node are the user's own."""
    node, lines, filename = _find_in_file(fn)
    if node is not None:
        end = getattr(node, "end_lineno", None) or len(lines)
        start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        source = "".join(lines[start - 1:end])
        return _Parser(filename, 0, 0, [line.rstrip("\n") for line in lines]).function(node, source)
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise KernelSyntaxError(f"cannot read the source of {getattr(fn, '__qualname__', fn)!r}: {e}. Kernels "
                                "must be defined in a file or notebook cell, not typed at an interactive prompt "
                                "without history.") from None
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    return parse_source("".join(lines), filename, first_line)


def definition_source(fn) -> str | None:
    """The text of `fn`'s definition, decorators included, as inspect.getsource gives it, taken
    from the file's index (parsed once per file) instead of tokenising the file again; None when
    the file has no index (an interactive definition)."""
    node, lines, _ = _find_in_file(fn)
    if node is None or getattr(node, "end_lineno", None) is None:
        return None
    start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
    return "".join(lines[start - 1:node.end_lineno])


def define_transformed(fn, transformers) -> S.FunctionDef:
    """Parse `fn` with each `ast.NodeTransformer` of `transformers` applied, in order, to a copy of
    its Python syntax tree first, and make that the tree `parse_definition(fn)` returns from then
    on. This is Warp's `code_transformers`: warp.fem rewrites an integrand's field operators so.
    Locations stay the user's: a node a transformer adds should take the location of the node it
    replaces (`ast.copy_location`), so that an error in the result points at the user's line."""
    node, lines, filename = _find_in_file(fn)
    if node is not None:
        parser = _Parser(filename, 0, 0, [line.rstrip("\n") for line in lines])
    else:  # no file index (an interactive definition): parse its own source, as parse_function does
        try:
            lines, first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise KernelSyntaxError(f"cannot read the source of {getattr(fn, '__qualname__', fn)!r}: {e}") from None
        source = "".join(lines)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
        node = next(n for n in ast.parse(textwrap.dedent(source)).body
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
        parser = _Parser(filename, first_line - 1, _common_indent(source), source.splitlines())
    node = copy.deepcopy(node)
    for transformer in transformers:
        node = transformer.visit(node)
    ast.fix_missing_locations(node)
    tree = _PARSED[fn] = parser.function(node, ast.unparse(node))
    return tree


_FILE_TREES: dict = {}


def _index_functions(text: str) -> dict | None:
    """(first line, name) -> ast node for every function in a file (first line: the decorator's)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    index = {}
    for node in _definitions(tree.body):
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        index[(first, node.name)] = node
        index[(node.lineno, node.name)] = node
    return index


def _definitions(statements):
    """Every function definition among `statements`, at any depth of statement nesting (in
    classes, functions, branches, loops, with and try blocks); expressions are not visited, which
    makes this several times cheaper than ast.walk on a file."""
    for node in statements:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _definitions(inner)


#: filename -> its lines when a kernel or func of it was defined (see keep_source)
_KEPT_SOURCES: dict = {}


def keep_source(fn) -> None:
    """Remember the text of `fn`'s file as it is now. Kernels are parsed when first compiled, but
    Warp reads a definition's source when it is decorated, and programs rely on it: a module
    executed from a temporary file that is deleted at once still launches its kernels."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    linecache.checkcache(code.co_filename)  # an edited, re-imported file: keep its new text
    lines = linecache.getlines(code.co_filename, getattr(fn, "__globals__", None))
    if lines:
        _KEPT_SOURCES[code.co_filename] = lines


def _find_in_file(fn):
    """The ast node of `fn`, found in the parsed source of its whole file (one parse per file and
    version of its text: cheaper than inspect's per-function tokenising), or (None, ...)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None, None, None
    filename = code.co_filename
    linecache.checkcache(filename)  # the file may have been edited and re-imported
    lines = linecache.getlines(filename, getattr(fn, "__globals__", None)) or _KEPT_SOURCES.get(filename)
    if not lines:
        return None, None, filename
    # linecache hands back the same list while the file is unchanged: its identity (kept alive in
    # the entry, so it cannot be reused) is a cheap key; the text's hash covers a reloaded file
    entry = _FILE_TREES.get(filename)
    if entry is not None and entry[0] is lines:
        index = entry[1]
    else:
        text = "".join(lines)
        digest = hash(text)
        index = entry[1] if entry is not None and entry[2] == digest else _index_functions(text)
        if index is None:
            return None, lines, filename
        if len(_FILE_TREES) > 256:
            _FILE_TREES.clear()
        _FILE_TREES[filename] = (lines, index, digest)
    node = index.get((code.co_firstlineno, fn.__name__))
    return node, lines, filename


def parse_source(source: str, filename: str = "<string>", first_line: int = 1) -> S.FunctionDef:
    """Parse the source of one function definition starting at `first_line` of `filename`."""
    dedented = textwrap.dedent(source)
    indent = _common_indent(source)
    try:
        tree = ast.parse(dedented)
    except SyntaxError as e:
        line = first_line + (e.lineno or 1) - 1
        text = linecache.getline(filename, line) or (e.text or "")
        raise KernelSyntaxError(f"invalid Python syntax: {e.msg}", Loc(filename, line, (e.offset or 1) - 1 + indent,
                                                                        None, text)) from None
    fns = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not fns:
        raise KernelSyntaxError("expected a function definition (def name(...):)", Loc(filename, first_line))
    return _Parser(filename, first_line - 1, indent, source.splitlines()).function(fns[0], dedented)


def _common_indent(source: str) -> int:
    for line in source.splitlines():
        if line.strip():
            return len(line) - len(line.lstrip())
    return 0


class _Parser:
    def __init__(self, filename: str, line_offset: int, indent: int, lines: list[str]):
        self.filename = filename
        self.line_offset = line_offset
        self.indent = indent
        self.lines = lines
        self.function_name = None
        self.static_uses: dict = {}  # (line, column, text) of a wp.static call -> uses parsed so far

    def loc(self, node) -> Loc:
        line = getattr(node, "lineno", 1)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        end = getattr(node, "end_col_offset", None)
        if getattr(node, "end_lineno", line) != line:
            end = None
        return Loc(self.filename, line + self.line_offset, getattr(node, "col_offset", 0) + self.indent,
                   None if end is None else end + self.indent, text)

    def segment(self, node) -> str:
        """The source text of a node, over all its lines."""
        first, last = node.lineno, getattr(node, "end_lineno", node.lineno)
        if not (0 < first <= last <= len(self.lines)):
            return ""
        rows = self.lines[first - 1:last]
        if len(rows) == 1:
            return rows[0][node.col_offset + self.indent:node.end_col_offset + self.indent]
        rows[0] = rows[0][node.col_offset + self.indent:]
        rows[-1] = rows[-1][:node.end_col_offset + self.indent]
        return "\n".join(rows)

    def fail(self, node, message: str):
        raise KernelSyntaxError(message, self.loc(node), self.function_name)

    # --- functions and statements -------------------------------------------------------
    def function(self, node, source: str) -> S.FunctionDef:
        self.function_name = node.name
        if isinstance(node, ast.AsyncFunctionDef):
            self.fail(node, "kernels cannot be async functions")
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            self.fail(node, "kernels and functions take plain positional parameters (no *args, **kwargs, "
                            "keyword-only or positional-only parameters)")
        params = tuple(a.arg for a in args.args)
        defaults = tuple(self.expr(d) for d in args.defaults)
        return S.FunctionDef(node.name, params, defaults, self.block(node.body), self.loc(node), source)

    def block(self, stmts) -> tuple:
        out = []
        for s in stmts:
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                continue  # docstring or string used as a comment
            stmt = self.stmt(s)
            if stmt is not None:
                out.append(stmt)
        return tuple(out)

    def stmt(self, node):
        reason = _UNSUPPORTED.get(type(node))
        if reason:
            self.fail(node, reason)
        loc = self.loc(node)
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                self.fail(node, "chained assignment (a = b = value) is not supported in kernels; assign one at a time")
            return S.Assign(self.target(node.targets[0]), self.expr(node.value), loc)
        if isinstance(node, ast.AnnAssign):
            if node.value is None:
                self.fail(node, "a declaration without a value is not supported in kernels; give the variable "
                                "a value (x: float = 0.0)")
            return S.Assign(self.target(node.target), self.expr(node.value), loc, self.expr(node.annotation))
        if isinstance(node, ast.AugAssign):
            op = _BINOPS.get(type(node.op))
            return S.AugAssign(self.target(node.target), op, self.expr(node.value), loc)
        if isinstance(node, ast.Expr):
            return S.ExprStmt(self.expr(node.value), loc)
        if isinstance(node, ast.If):
            return S.If(self.expr(node.test), self.block(node.body), self.block(node.orelse), loc)
        if isinstance(node, ast.For):
            if node.orelse:
                self.fail(node, "`for ... else` is not supported in kernels")
            if not isinstance(node.target, ast.Name):
                self.fail(node.target, "a kernel for loop takes a single loop variable (for i in range(n))")
            return S.For(node.target.id, self.expr(node.iter), self.block(node.body), loc)
        if isinstance(node, ast.While):
            if node.orelse:
                self.fail(node, "`while ... else` is not supported in kernels")
            return S.While(self.expr(node.test), self.block(node.body), loc)
        if isinstance(node, ast.Break):
            return S.Break(loc)
        if isinstance(node, ast.Continue):
            return S.Continue(loc)
        if isinstance(node, ast.Pass):
            return None
        if isinstance(node, ast.Return):
            return S.Return(None if node.value is None else self.expr(node.value), loc)
        if isinstance(node, ast.Assert):
            return S.Assert(self.expr(node.test), loc)
        self.fail(node, f"`{type(node).__name__}` statements are not supported in kernels")

    def target(self, node):
        if isinstance(node, ast.Name):
            return S.Name(node.id, self.loc(node))
        if isinstance(node, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in node.elts):
            return S.Tuple(tuple(S.Name(e.id, self.loc(e)) for e in node.elts), self.loc(node))
        if isinstance(node, (ast.Subscript, ast.Attribute)):
            return self.expr(node)
        self.fail(node, "this assignment target is not supported in kernels; assign to a variable, "
                        "an array element (a[i]), a component (v[0], v.x) or a struct field (s.x)")

    # --- expressions --------------------------------------------------------------------
    def argument(self, node):
        """A call argument: an expression, or *value (unpacked when the call is typed)."""
        if isinstance(node, ast.Starred):
            return S.Starred(self.expr(node.value), self.loc(node))
        return self.expr(node)

    def index(self, node):
        """One index of a subscript: an expression, or a slice (typed later: constant slices of
        vectors and matrices are allowed)."""
        if isinstance(node, ast.Slice):
            part = lambda e: self.expr(e) if e is not None else None  # noqa: E731
            return S.Slice(part(node.lower), part(node.upper), part(node.step), self.loc(node))
        return self.expr(node)

    def expr(self, node):
        reason = _UNSUPPORTED.get(type(node))
        if reason:
            self.fail(node, reason)
        loc = self.loc(node)
        if isinstance(node, ast.Name):
            return S.Name(node.id, loc)
        if isinstance(node, ast.Constant):
            if node.value is None or isinstance(node.value, (int, float, bool, str)):
                return S.Constant(node.value, loc)
            self.fail(node, f"constants of type {type(node.value).__name__} are not supported in kernels")
        if isinstance(node, ast.Attribute):
            return S.Attribute(self.expr(node.value), node.attr, loc)
        if isinstance(node, ast.Subscript):
            index = node.slice
            elts = index.elts if isinstance(index, ast.Tuple) else [index]
            return S.Subscript(self.expr(node.value), tuple(self.index(e) for e in elts), loc)
        if isinstance(node, ast.Call):
            kwargs = []
            for k in node.keywords:
                if k.arg is None:
                    self.fail(node, "**kwargs in calls are not supported in kernels")
                kwargs.append((k.arg, self.expr(k.value)))
            if _is_static_call(node):  # wp.static(expr) is Python, evaluated from its text: any syntax goes
                args = tuple(S.Constant(None, self.loc(a)) for a in node.args)
                text = self.segment(node)
                use = self.static_uses[(loc.line, loc.col, text)] = self.static_uses.get((loc.line, loc.col, text), -1) + 1
                return S.Call(self.expr(node.func), args, tuple(kwargs), loc, text, use)
            # a code transformer may bind the callee to a function object (Warp's `warp_func` attribute
            # of the callee's node, as warp.fem's do): that function is called, whatever the callee's text
            bound = getattr(node.func, "warp_func", None)
            func = S.Constant(bound, self.loc(node.func)) if bound is not None else self.expr(node.func)
            return S.Call(func, tuple(self.argument(a) for a in node.args), tuple(kwargs), loc, self.segment(node))
        if isinstance(node, ast.BinOp):
            return S.BinOp(_BINOPS[type(node.op)], self.expr(node.left), self.expr(node.right), loc)
        if isinstance(node, ast.UnaryOp):
            return S.UnaryOp(_UNARY[type(node.op)], self.expr(node.operand), loc)
        if isinstance(node, ast.BoolOp):
            return S.BoolOp("and" if isinstance(node.op, ast.And) else "or", tuple(self.expr(v) for v in node.values),
                            loc)
        if isinstance(node, ast.Compare):
            return self.compare(node, loc)
        if isinstance(node, ast.IfExp):
            return S.IfExp(self.expr(node.test), self.expr(node.body), self.expr(node.orelse), loc)
        if isinstance(node, ast.Tuple):
            return S.Tuple(tuple(self.expr(e) for e in node.elts), loc)
        self.fail(node, f"`{type(node).__name__}` expressions are not supported in kernels")

    def compare(self, node, loc):
        parts, left = [], self.expr(node.left)
        for op, right_node in zip(node.ops, node.comparators):
            name = _COMPARE.get(type(op))
            if name is None:
                what = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}.get(type(op), "?")
                self.fail(node, f"`{what}` comparisons are not supported in kernels; compare values with == or !=")
            right = self.expr(right_node)
            parts.append(S.Compare(name, left, right, loc))
            left = right
        # a < b < c means (a < b) and (b < c)
        return parts[0] if len(parts) == 1 else S.BoolOp("and", tuple(parts), loc)


def _is_static_call(node: ast.Call) -> bool:
    """wp.static(...), warp.static(...) or static(...) imported by name."""
    f = node.func
    return (isinstance(f, ast.Attribute) and f.attr == "static" and isinstance(f.value, ast.Name)
            and f.value.id in ("wp", "warp")) or (isinstance(f, ast.Name) and f.id == "static")
