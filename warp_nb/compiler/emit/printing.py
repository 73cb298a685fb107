"""The statement writer's part for print() and wp.printf: printf calls that show a value the way
Python's print() and Warp show it (scalars, vectors and matrices component by component, tiles of
scalars element by element through native/tiles/tile.h print_tile)."""

from __future__ import annotations

from .. import ir
from ... import types as T
from ...types.tiles import TileType
from .cpp import cpp_type

_PRINTF = {
    T.int8: ("%d", "(int)"), T.int16: ("%d", "(int)"), T.int32: ("%d", "(int)"),
    T.uint8: ("%u", "(unsigned)"), T.uint16: ("%u", "(unsigned)"), T.uint32: ("%u", "(unsigned)"),
    T.int64: ("%lld", "(long long)"), T.uint64: ("%llu", "(unsigned long long)"),
    T.float16: ("%g", "(double)(wpnb::float32)"), T.bfloat16: ("%g", "(double)(wpnb::float32)"), T.float32: ("%g", "(double)"), T.float64: ("%g", "(double)"),
}


class PrintWriter:
    """Mixed into emit/body.py FunctionWriter."""

    def print_call(self, s: ir.Print) -> str:
        if s.fmt:  # wp.printf
            args = "".join(f", {_printf_arg(a)}" for a in s.args)
            return f'printf("{_escape(s.fmt)}"{args});'
        if any(_printable_tile(getattr(item, "type", None)) for item in s.args):
            return self.print_tiles(s)
        parts, args = [], []
        for item in s.args:
            if isinstance(item, str):
                parts.append(_escape(item).replace("%", "%%"))
            else:
                fmt, item_args = _format_value(item.name, item.type)
                parts.append(fmt)
                args += item_args
        joined = "".join(f", {a}" for a in args)
        return f'printf("{" ".join(parts)}\\n"{joined});'

    def adj_print_call(self, s) -> str:
        """print()'s adjoint (compiler/adjoint_ir.py AdjPrint), as Warp's backward pass shows it: a line
        `adj: ` and the value's adjoint per printed value, components separated by a space, a
        matrix's further rows under the first."""
        calls = []
        for value, adj in s.items:
            fmt, args = _format_adjoint(None if adj is None else adj.name, value.type)
            calls.append(f'printf("adj: {fmt}\\n"{"".join(f", {a}" for a in args)});')
        return "{ " + " ".join(calls) + " }"

    def print_tiles(self, s: ir.Print) -> str:
        """print() of items among which are tiles of scalars: each item printed on its own, a tile as
        Warp shows it (`[1 2 3] = tile(shape=(3), storage=register)`, native/tiles/tile.h print_tile)."""
        self.unit.headers.add("tiles/tile.h")
        calls = []
        for k, item in enumerate(s.args):
            end = "\\n" if k == len(s.args) - 1 else " "
            if isinstance(item, str):
                calls.append(f'printf("%s{end}", "{_escape(item)}");')
            elif _printable_tile(item.type):
                t = item.type
                fmt, cast = _PRINTF[t.dtype]
                printer = f'[](const {cpp_type(t.dtype)}& v) {{ printf("{fmt}", {cast}v); }}'
                shape = ",".join(str(n) for n in t.shape)
                calls.append(f'wpnb::print_tile({item.name}, {printer}, {t.ndim}, "{shape}", "{t.storage}"); '
                             f'printf("{end}");')
            else:
                fmt, item_args = _format_value(item.name, item.type)
                joined = "".join(f", {a}" for a in item_args)
                calls.append(f'printf("{fmt}{end}"{joined});')
        return "{ " + " ".join(calls) + " }"


def _printable_tile(t) -> bool:
    """A 1-D or 2-D tile of scalars (what print() shows element by element)."""
    return isinstance(t, TileType) and t.ndim <= 2 and t.dtype in _PRINTF


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def _printf_arg(v: ir.Var) -> str:
    if v.type is T.bool:
        return f"(int){v.name}"
    return f"{_PRINTF[v.type][1]}{v.name}"


def _format_adjoint(expr: str | None, t):
    """printf format and arguments of an adjoint after `adj: ` (see PrintWriter.adj_print_call)."""
    if expr is None:
        return "<type without print implementation>", []
    fmt, args = _format_value(expr, t)
    if T.kind_of(t) is not None and not T.is_scalar_type(t):  # no space after the last component of a row
        rows = [row.rstrip() for row in fmt.split("\\n")]
        fmt = "\\n     ".join(rows)
    return fmt, args


def _format_value(expr: str, t):
    """printf format and arguments that show a value the way print() would."""
    if t is T.bool:
        return "%s", [f'({expr} ? "True" : "False")']
    if T.is_scalar_type(t):
        fmt, cast = _PRINTF[t]
        return fmt, [f"{cast}{expr}"]
    kind = T.kind_of(t)
    if kind is not None:  # as Warp: each component followed by a space, a matrix one row a line
        n = T.type_length(t)
        fmt, cast = _PRINTF.get(t._wp_scalar_type_, ("%d", "(int)"))
        base = f"(&{expr}.c[0])" if kind == "vector" else f"((const {cpp_type(t._wp_scalar_type_)}*)&{expr})"
        if kind == "matrix":
            rows, cols = t._shape_
            text = "\\n".join("".join(f"{fmt} " for _ in range(cols)) for _ in range(rows))
        else:
            text = "".join(f"{fmt} " for _ in range(n))
        return text, [f"{cast}{base}[{k}]" for k in range(n)]
    return "<type without print implementation>", []
