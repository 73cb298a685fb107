"""What a `%%kernel` cell says when something goes wrong: one short paragraph naming the cell, the
line, the line's text and a caret, raised as an exception (so Run All and nbval stop at the cell)
whose `_render_traceback_` hides the interpreter's frames. Knows IPython's conventions; knows
nothing about how cells are compiled."""

from __future__ import annotations

import dataclasses
import linecache
import traceback

from warp_nb.errors import KernelError, Loc

#: cell file name (IPython's compile cache) -> what the user calls it ("cell [5]")
CELL_LABELS: dict[str, str] = {}


class CellError(Exception):
    """A %%kernel / %%func cell that could not be run: bad Python, no def, a Python error while
    defining its names. The message is already formatted for the notebook."""

    def _render_traceback_(self) -> list[str]:
        return _red_first(str(self).splitlines())


def _red_first(lines: list[str]) -> list[str]:
    return [f"\x1b[0;31m{lines[0]}\x1b[0m"] + lines[1:] if lines else lines


def label(filename: str) -> str:
    return CELL_LABELS.get(filename, filename)


def relocated(e: KernelError) -> KernelError:
    """The same kernel error, naming the cell ("cell [5]") instead of IPython's file name, and
    rendered in the notebook without a traceback."""
    loc = e.loc
    if loc is not None and loc.file in CELL_LABELS:
        loc = dataclasses.replace(loc, file=CELL_LABELS[loc.file])
    try:
        out = type(e)(e.message, loc, e.function)
    except TypeError:  # an error class with its own constructor: keep it as it is
        out = e
    name = type(e).__name__
    out._render_traceback_ = lambda: _red_first(f"{name}: {out}".splitlines())
    return out.with_traceback(None)


def caret_lines(text: str, col: int | None, end_col: int | None = None) -> list[str]:
    """The source line and a caret under columns [col, end_col)."""
    stripped = text.rstrip("\n").rstrip()
    if not stripped:
        return []
    indent = len(stripped) - len(stripped.lstrip())
    out = ["    " + stripped.lstrip()]
    if col is not None:
        width = max((end_col or col + 1) - col, 1)
        out.append("    " + " " * max(col - indent, 0) + "^" * min(width, max(len(stripped) - col, 1)))
    return out


def syntax_error(e: SyntaxError, filename: str, magic: str) -> CellError:
    """A SyntaxError in the cell as one paragraph at the cell's line."""
    line = e.lineno or 1
    text = linecache.getline(filename, line) or (e.text or "")
    col = (e.offset or 1) - 1
    end = (e.end_offset - 1) if getattr(e, "end_offset", None) and e.end_lineno == e.lineno else None
    head = f"SyntaxError: {e.msg} ({label(filename)}, line {line}); the {magic} cell was not run and no name changed"
    return CellError("\n".join([head] + caret_lines(text, col, end)))


def python_error(e: BaseException, filename: str, magic: str) -> CellError:
    """A Python exception raised while the cell's top-level code ran (a decorator, an annotation,
    a constant), shown at the deepest line of the cell it came from."""
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == filename]
    where, text = "", []
    if frames:
        f = frames[-1]
        where = f" ({label(filename)}, line {f.lineno})"
        text = caret_lines(linecache.getline(filename, f.lineno), getattr(f, "colno", None),
                           getattr(f, "end_colno", None) if getattr(f, "end_lineno", None) == f.lineno else None)
    head = f"{type(e).__name__}: {e}{where}; the {magic} cell's names were left as they were"
    return CellError("\n".join([head] + text))


def usage_error(magic: str, problem: str, usage: str) -> CellError:
    return CellError(f"UsageError: {magic}: {problem}. {usage} (see {magic}? for examples)")


def loc_label(loc: Loc | None) -> str:
    if loc is None:
        return ""
    return f"{label(loc.file)}, line {loc.line}"


CELL_MAGICS = ("kernel", "func")


def misplaced_cell_magic(lines: list[str]) -> list[str]:
    """IPython input transformer: a `%%kernel` (or `%%func`) line below the cell's first line, such
    as under a comment, makes IPython look for a *line* magic and report "Line magic function
    `%%kernel` not found". The cell is replaced by one that raises an error saying where the magic
    must go."""
    first = next((k for k, line in enumerate(lines) if line.strip()), None)
    if first is None or lines[first].lstrip().startswith("%%"):
        return lines
    for k, line in enumerate(lines[first + 1:], start=first + 2):
        words = line.strip().split()
        if words and words[0] in {f"%%{m}" for m in CELL_MAGICS} and not line[:1].isspace():
            return [f"raise __import__({__name__!r}, fromlist=['_']).misplaced_magic_error({words[0]!r}, {k})\n"]
    return lines


def misplaced_magic_error(magic: str, line: int) -> CellError:
    return CellError(f"{magic} must be the first line of its cell (it is on line {line} here). Move it to the "
                     f"top, and put comments below it: a cell magic takes the whole cell, and IPython only "
                     f"recognises it on the first line.")

