"""Errors a user sees, each pointing at the user's own source: file or cell, line, the line's
text and a caret under the construct. Every pipeline stage raises these; nothing here knows
about the stages."""

from __future__ import annotations

import os
import sys
import typing
import warnings
from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A place in the user's source: file (or notebook cell name), 1-based line, 0-based columns."""

    file: str
    line: int
    col: int = 0
    end_col: int | None = None
    text: str = ""  # the source line, so messages do not depend on the file still existing

    def __str__(self):
        return f"{self.file}:{self.line}"


def source_label(filename: str) -> str:
    """What the user calls the file of a source location: an ordinary notebook cell's code lives in
    a file such as /tmp/ipykernel_123/622390985.py, which IPython maps to its execution count, so it
    reads "cell [5]" (the %%kernel magic labels its own cells the same way)."""
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None or not filename:
        return filename
    try:
        shell = ipython_module.get_ipython()
        number = getattr(getattr(shell, "compile", None), "_filename_map", {}).get(filename)
    except Exception:  # noqa: BLE001 (a label must never turn into an error of its own)
        return filename
    return f"cell [{number}]" if isinstance(number, int) else filename


class KernelError(RuntimeError):
    """An error in kernel or function source, raised before any C++ is compiled when possible. A
    RuntimeError, as Warp's WarpCodegenError is, so `except RuntimeError` catches both."""

    def __init__(self, message: str, loc: Loc | None = None, function: str | None = None):
        self.message = message
        self.loc = loc
        self.function = function
        super().__init__(self._format())

    def _format(self) -> str:
        if self.loc is None:
            return self.message
        where = f"{source_label(self.loc.file)}, line {self.loc.line}"
        if self.function:
            where += f", in {self.function}"
        lines = [f"{self.message}", f"  ({where})"]
        if self.loc.text:
            stripped = self.loc.text.rstrip()
            indent = len(stripped) - len(stripped.lstrip())
            lines.append("    " + stripped.lstrip())
            col = max(self.loc.col - indent, 0)
            end = self.loc.end_col if self.loc.end_col and self.loc.end_col > self.loc.col else self.loc.col + 1
            width = max(min(end, len(stripped)) - self.loc.col, 1)
            lines.append("    " + " " * col + "^" * width)
        return "\n".join(lines)


class KernelSyntaxError(KernelError):
    """Python that kernels do not support (comprehensions, exceptions, classes, ...)."""


class KernelNameError(KernelError, NameError):
    """A name that is not a local variable, argument, builtin, function, struct or constant."""


class KernelUndefinedNameError(KernelNameError, KeyError):
    """A name that nothing defines. Also a KeyError, as Warp raises for an undefined symbol."""

    def __str__(self):  # KeyError would quote the message
        return Exception.__str__(self)


class KernelTypeError(KernelError, TypeError):
    """Types that do not fit: no overload for these arguments, a variable that changes type ..."""


class KernelIndexError(KernelTypeError, IndexError):
    """A constant component index outside a vector's, matrix's or quaternion's size (Warp's
    WarpCodegenIndexError, an IndexError); still a KernelTypeError, as before it had its own class."""


class KernelRuntimeTypeError(KernelTypeError, RuntimeError):
    """Types that do not fit where Warp raises a RuntimeError (a vec3 built from a vec2, components of
    another type, wp.expect_eq of different types): a KernelTypeError that is also that RuntimeError,
    with Warp's message last (tests match its end), after the location."""

    def _format(self) -> str:
        if self.loc is None:
            return self.message
        where = f"{self.loc.file}, line {self.loc.line}" + (f", in {self.function}" if self.function else "")
        return f"({where}) {(self.loc.text or '').strip()}\n{self.message}"


class KernelValueError(KernelError, ValueError):
    """A value that cannot be used where it is written (a slice step of zero, a constant out of range)."""


class KernelSliceValueError(KernelValueError):
    """A value that does not fit the slice it is assigned to (`v[1:] = vec3d(...)`): Warp's message,
    which its tests match to the end, comes last, after the location."""

    def _format(self) -> str:
        if self.loc is None:
            return self.message
        where = f"{self.loc.file}, line {self.loc.line}" + (f", in {self.function}" if self.function else "")
        return f"({where}) {(self.loc.text or '').strip()}\n{self.message}"


class KernelAttributeError(KernelError, AttributeError):
    """An attribute that a value in kernel code does not have."""


class KernelFieldError(KernelAttributeError):
    """A field that a struct does not have. Warp's message (which its tests match to the end) comes
    last, after the location and the fields the struct does have."""

    def _format(self) -> str:
        if self.loc is None:
            return self.message
        where = f"{self.loc.file}, line {self.loc.line}" + (f", in {self.function}" if self.function else "")
        return f"({where}) {(self.loc.text or '').strip()}\n{self.message}"


class KernelUnsupportedError(KernelError, RuntimeError):
    """Well-typed code the targets cannot run (an atomic add on 8-bit integers): Warp raises a
    RuntimeError whose message ends the text, so the location comes first here."""

    def _format(self) -> str:
        if self.loc is None:
            return self.message
        where = f"{self.loc.file}, line {self.loc.line}" + (f", in {self.function}" if self.function else "")
        return f"({where}) {self.loc.text.strip()}\n{self.message}"


# Warp's names for the same errors, so `except wp.WarpCodegenError` works unchanged
WarpCodegenError = KernelError
WarpCodegenTypeError = KernelTypeError
WarpCodegenValueError = KernelValueError
WarpCodegenAttributeError = KernelAttributeError
WarpCodegenKeyError = KernelUndefinedNameError
WarpCodegenIndexError = KernelIndexError


class WarpDeterminismError(RuntimeError):
    """Deterministic mode (wp.config.deterministic, the "deterministic" module option) cannot run a
    kernel as written: its message says the cause and the fix (Warp's name and kind, a RuntimeError)."""


class KernelDeterminismError(KernelError, WarpDeterminismError):
    """A kernel deterministic mode cannot compile, raised at the user's line."""


class KernelCompileError(KernelError):
    """The C++ compiler refused the generated code; mapped back to the user's line when possible."""


class ArgumentTypeError(TypeError, RuntimeError):
    """An argument of the wrong type for a runtime function (a None struct for a kernel parameter, a
    single number for a vector parameter, arrays of different element sizes to wp.copy): a
    TypeError, and also the RuntimeError Warp raises for it."""


class ArgumentValueError(ValueError, RuntimeError):
    """An argument value a runtime function refuses (a negative copy offset): a ValueError, and also
    the RuntimeError Warp raises for it."""


class ArgumentIndexError(IndexError, RuntimeError):
    """An index a runtime function refuses (an array index out of range in Python scope): an
    IndexError, and also the RuntimeError Warp raises for it."""


class CompilerNotFoundError(RuntimeError):
    """No C++ compiler on this machine."""


# --- warnings, as Warp prints them (wp.utils.warn): below every layer, so any module can warn ---
_warnings_seen: set = set()


def _format(message, category, filename, lineno, line=None) -> str:
    from . import config
    where = f" ({filename}:{lineno})" if getattr(config, "verbose_warnings", False) else ""
    return f"Warp {category.__name__}: {message}{where}\n"


def warn(message: str, category=None, stacklevel: int = 1, once: bool = False) -> None:
    """Warn as Warp does: through the current logger (wp.set_logger; by default printed as "Warp
    UserWarning: message" each time it is raised, through Python's warnings filters); once=True:
    only the first time a message is seen. stacklevel 1 is the line calling warn (2 its caller, ...);
    wp.config.verbose_warnings adds that file and line."""
    category = category or UserWarning
    if once:
        if message in _warnings_seen:
            return
        _warnings_seen.add(message)
    # a logger's warning(stacklevel=k) counts as warnings.warn does from inside it: 1 is the method itself
    _logger.warning(message, category, stacklevel=stacklevel + 2)


# --- Warp's pluggable logger (wp.Logger, wp.set_logger, wp.ScopedLogger, LoggerBasic) ---------------
class Logger(typing.Protocol):
    """What wp.set_logger takes: any object with these four methods (a Protocol: not instantiated)."""

    def debug(self, message: str) -> None: ...

    def info(self, message: str) -> None: ...

    def warning(self, message: str, category=None, stacklevel: int = 1) -> None: ...

    def error(self, message: str) -> None: ...


class LoggerBasic:
    """The default logger: debug and info to stdout, errors to stderr as "Warp Error: ...", warnings
    through Python's warnings (the user's filters apply) printed as "Warp UserWarning: ..."."""

    def debug(self, message: str) -> None:
        print(message)

    def info(self, message: str) -> None:
        print(message)

    def warning(self, message: str, category=None, stacklevel: int = 1) -> None:
        saved = warnings.formatwarning
        warnings.formatwarning = _format
        try:
            with warnings.catch_warnings():  # fresh registries: a repeated message is shown again, as in Warp
                warnings.warn(message, category or UserWarning, stacklevel=stacklevel)
        finally:
            warnings.formatwarning = saved

    def error(self, message: str) -> None:
        print(f"Warp Error: {message}", file=sys.stderr)


_logger = LoggerBasic()


def set_logger(logger) -> None:
    """Send warp_nb's messages to `logger` (None: back to the default LoggerBasic)."""
    global _logger
    if logger is None:
        _logger = LoggerBasic()
        return
    missing = [m for m in ("debug", "info", "warning", "error") if not callable(getattr(logger, m, None))]
    if missing:
        raise TypeError(f"wp.set_logger takes an object with debug, info, warning and error methods; "
                        f"{type(logger).__name__} lacks {', '.join(missing)}")
    _logger = logger


def get_logger():
    return _logger


class ScopedLogger:
    """`with wp.ScopedLogger(logger):` uses `logger` inside the block (None: the default logger)."""

    def __init__(self, logger):
        self._new = logger

    def __enter__(self):
        self._saved = _logger
        set_logger(self._new)
        self.logger = _logger
        return self

    def __exit__(self, *exc):
        global _logger
        _logger = self._saved  # not validated again: the saved logger may have changed meanwhile


def log_debug(message: str) -> None:
    from . import config
    if config.log_level <= 10:
        _logger.debug(message)


def log_info(message: str) -> None:
    from . import config
    if config.log_level <= 20:
        _logger.info(message)


def log_warning(message: str, category=None, stacklevel: int = 1, once: bool | None = None) -> None:
    """A warning through the logger; deprecations are said once per message unless once=False."""
    category = category or UserWarning
    if once if once is not None else issubclass(category, DeprecationWarning):
        if message in _warnings_seen:
            return
        _warnings_seen.add(message)
    _logger.warning(message, category, stacklevel=stacklevel + 2)


def log_error(message: str) -> None:
    """An error message: never silenced by the log level."""
    _logger.error(message)


# --- errors raised for a mistake at the caller's line, shown from that line in IPython ---------
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_CALLERS_LINE = "_wpnb_at_callers_line"
_shown_classes: list = []  # the classes handed to IPython's set_custom_exc


def at_callers_line(error: BaseException) -> BaseException:
    """`error`, marked as a mistake at the caller's line (a launch's arguments, a failed bounds check
    or assert): in IPython, a notebook's kernel or the terminal, its traceback ends at the user's
    line, without warp_nb's frames (IPython's `__tracebackhide__` keeps the last frame, the one that
    raised, so a custom exception handler trims them; it is set only where none is). A script's
    traceback stays whole. Costs nothing until an error is raised."""
    setattr(error, _CALLERS_LINE, True)
    shell = _ipython_shell()
    if shell is not None and hasattr(shell, "set_custom_exc"):
        current, wanted = tuple(shell.custom_exceptions), tuple(dict.fromkeys([*_shown_classes, type(error)]))
        if current != wanted and current in ((), tuple(_shown_classes)):  # none, or ours
            _shown_classes[:] = wanted
            shell.set_custom_exc(wanted, _show_from_callers_line)
    return error


def _ipython_shell():
    ipython_module = sys.modules.get("IPython")
    try:
        return ipython_module.get_ipython() if ipython_module is not None else None
    except Exception:  # noqa: BLE001 (a broken IPython must not hide the user's error)
        return None


def _show_from_callers_line(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler: a marked error's traceback without its trailing warp_nb
    frames, shown as IPython shows any traceback; every other error exactly as IPython would."""
    if getattr(value, _CALLERS_LINE, False):
        tb = without_trailing_package_frames(tb)
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)


def without_trailing_package_frames(tb):
    """The traceback `tb` cut after its last frame outside warp_nb (the frames after it, all
    warp_nb's, are left out); `tb` itself where every frame is warp_nb's."""
    last_outside, entry = None, tb
    while entry is not None:
        if not entry.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR + os.sep):
            last_outside = entry
        entry = entry.tb_next
    if last_outside is not None:
        last_outside.tb_next = None
    return tb
