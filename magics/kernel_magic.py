"""The IPython magics of `%load_ext warp_nb`: `%%kernel`, `%%func`, `%wp_device`, `%wp_source`,
`%wp_time`, `%wp_cache`. Each is a thin adapter: parse options, then call `cells.run_cell`, the
pipeline or the timing recorder. Every docstring carries an example, so `%%kernel?` teaches."""

from __future__ import annotations

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import MagicHelpFormatter, argument, kwds, magic_arguments, parse_argstring

import warp_nb as wp
from warp_nb.toolchain import cache

from . import cells, messages, timing

_KERNEL_USAGE = "Usage: %%kernel [--device D] [--mode debug|release] [--time] [--source]"
#: kernel keys whose launches are reported after each cell (%%kernel --time)
TIMED: set = set()


def _options(magic_fn, line: str, name: str, usage: str):
    try:
        return parse_argstring(magic_fn, line)
    except UsageError as e:
        raise messages.usage_error(name, str(e).rstrip("."), usage) from None


def _device(name: str | None, magic: str):
    try:
        return wp.get_device(name)
    except wp.DeviceError as e:
        raise messages.CellError(f"UsageError: {magic}: {e} No name was changed.") from None


class _CellMagicHelp(MagicHelpFormatter):
    """`%%kernel?` shows `Usage: %%kernel ...`: IPython's formatter writes reST for line magics
    (a `::` block and a single `%`), which reads as noise in a notebook's help pane."""

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, "Usage: %%")


class _LineMagicHelp(MagicHelpFormatter):
    """`%wp_device?` shows `Usage: %wp_device ...`, without reST's `::`."""

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, "Usage: %")


@magics_class
class WarpMagics(Magics):
    """The warp_nb notebook magics."""

    @magic_arguments()
    @argument("--device", default=None, help="compile for this device (default: the current default device)")
    @argument("--mode", choices=["debug", "release"], default=None,
              help="debug: -O0, bounds checks and asserts raise Python errors; release: optimised without bounds "
                   "checks (default: optimised with bounds checks, unless wp.config.bounds_check = False)")
    @argument("--time", action="store_true", help="report the launch times of these kernels after every cell")
    @argument("--source", action="store_true", help="show the generated C++ of each kernel")
    @kwds(formatter_class=_CellMagicHelp)
    @cell_magic
    def kernel(self, line, cell):
        """Compile the cell's functions as warp_nb kernels, now.

        Each plain `def` becomes a kernel, defined in the notebook exactly as `@wp.kernel` would
        define it; `@wp.func` and `@wp.struct` keep their meaning. The cell is its own module:
        running it again unchanged compiles nothing, editing it recompiles only its kernels, and
        editing a @wp.func recompiles the kernels (in any cell) that use it. Errors point at the
        cell's own lines, and a kernel that fails keeps its previous definition.

        Example:

            %%kernel
            def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
                i = wp.tid()
                y[i] = a * x[i] + y[i]

        prints `1 kernel: 1 compiled [412.3 ms]` (the cell's time); then, in any cell,
        `wp.launch(saxpy, dim=n, inputs=[2.0, x, y])`.
        """
        return self._run(line, cell, "kernel")

    @magic_arguments()
    @kwds(formatter_class=_CellMagicHelp)
    @cell_magic
    def func(self, line, cell):
        """Define every `def` of the cell as a @wp.func (a function callable from kernels).

        Editing and re-running the cell recompiles exactly the kernels, in any cell, that call
        the functions it defines.

        Example:

            %%func
            def lerp(a: float, b: float, t: float) -> float:
                return a + (b - a) * t
        """
        return self._run(line, cell, "func")

    def _run(self, line: str, cell: str, kind: str):
        fn = self.kernel if kind == "kernel" else self.func
        usage = _KERNEL_USAGE if kind == "kernel" else "Usage: %%func (no options)"
        opts = _options(fn, line, f"%%{kind}", usage)
        device = _device(getattr(opts, "device", None), f"%%{kind}")
        header = f"%%{kind} {line}".rstrip()
        result = cells.run_cell(self.shell, header, cell, kind, getattr(opts, "mode", None), device)
        print(result.summary())
        if getattr(opts, "time", False):
            TIMED.update(k.key for k in result.record.kernels)
            timing.RECORDER.start()
        if getattr(opts, "source", False):
            from IPython.display import display
            for k in result.record.kernels:
                display(source_display(k, device, forward_only=True))

    @magic_arguments()
    @argument("name", nargs="?", default=None, help="a device name: cpu, cuda, cuda:N")
    @kwds(formatter_class=_LineMagicHelp)
    @line_magic
    def wp_device(self, line):
        """Show the default device and its properties, or set it.

        Example:

            %wp_device          # shows: default device cpu (...), available: cpu
            %wp_device cpu      # makes cpu the default for arrays and launches
        """
        opts = _options(self.wp_device, line, "%wp_device", "Usage: %wp_device [cpu|cuda|cuda:N]")
        if opts.name:
            wp.set_device(_device(opts.name, "%wp_device"))
        d = wp.get_device()
        props = ", ".join(f"{k}={v}" for k, v in d.properties().items() if k != "alias")
        print(f"default device: {d.alias} ({props}); available: {', '.join(x.alias for x in wp.get_devices())}")

    @magic_arguments()
    @argument("name", help="the name of a kernel in the notebook")
    @argument("--forward", action="store_true", help="only the forward kernel (no adjoint)")
    @argument("--device", default=None)
    @kwds(formatter_class=_LineMagicHelp)
    @line_magic
    def wp_source(self, line):
        """Show the C++ generated for a kernel: the forward kernel and its adjoint, highlighted.

        Example:

            %wp_source saxpy
            %wp_source saxpy --forward
        """
        opts = _options(self.wp_source, line, "%wp_source", "Usage: %wp_source NAME [--forward]")
        k = self.shell.user_ns.get(opts.name)
        if not getattr(k, "_wp_kernel_", False):
            raise messages.CellError(f"UsageError: %wp_source: `{opts.name}` is not a kernel in this notebook "
                                     f"(it is {type(k).__name__ if k is not None else 'not defined'}).")
        return source_display(k, _device(opts.device, "%wp_source"), opts.forward)

    @line_magic
    def wp_time(self, line):
        """Launch timings: per kernel, launches and last / mean / min time (and compile time).

        Example:

            %wp_time on                                   # record every launch from now on
            %wp_time wp.launch(saxpy, dim=n, inputs=[2.0, x, y])   # time one statement's launches
            %wp_time                                      # show the table
            %wp_time off / %wp_time reset

        `%%kernel --time` reports its kernels' launches after every cell.
        """
        arg = line.strip()
        if arg == "on":
            timing.RECORDER.start()
            print("launch timing on: `%wp_time` shows the table")
        elif arg == "off":
            timing.RECORDER.stop()
            TIMED.clear()
            print("launch timing off")
        elif arg == "reset":
            timing.RECORDER.reset()
        elif arg:
            recorder = timing.LaunchRecorder().start()
            try:
                self.shell.run_cell(arg, store_history=False, silent=False)
            finally:
                recorder.stop()
            print(recorder.table())
        else:
            if not timing.RECORDER.running and not timing.RECORDER.timings:
                print("launch timing is off: `%wp_time on` starts it, `%wp_time STATEMENT` times one statement")
            else:
                print(timing.RECORDER.table())
        return None

    @magic_arguments()
    @argument("--clear", action="store_true", help="delete every compiled kernel from the disk cache")
    @kwds(formatter_class=_LineMagicHelp)
    @line_magic
    def wp_cache(self, line):
        """Show what the kernel cache holds (and what this session compiled), or clear it.

        Example:

            %wp_cache           # directory, entries, compiles and cache hits this session
            %wp_cache --clear   # the next launch of each kernel compiles it again
        """
        opts = _options(self.wp_cache, line, "%wp_cache", "Usage: %wp_cache [--clear]")
        if opts.clear:
            print(f"removed {clear_cache()} compiled kernels from {cache.cache_dir()}")
            return
        info = cache_info()
        print(f"kernel cache {info['directory']}: {info['entries']} entries, {info['bytes'] / 1e6:.1f} MB; "
              f"this session: {info['compiled']} compiled, {info['disk_hits']} loaded from the cache")


def cache_info() -> dict:
    """The kernel cache's directory, entry count and size, and this process's compile counts."""
    entries = cache.entries()
    return {"directory": str(cache.cache_dir()), "entries": len(entries), "bytes": sum(e["bytes"] for e in entries),
            "compiled": cache.stats["compiled"], "disk_hits": cache.stats["disk_hits"],
            "kernels": sorted({e["name"] for e in entries})}


def clear_cache() -> int:
    """Empty the kernel cache on disk; returns how many compiled kernels were removed. Kernels
    already loaded in this session keep working."""
    return cache.clear()


def source_display(k, device, forward_only: bool = False):
    """The kernel's C++ as a highlighted IPython display object (plain text in a terminal)."""
    from IPython.display import Code
    text = k.compiled(device, backward=not forward_only and k.backward_enabled).unit.source
    return Code(_with_cell_labels(text), language="c++")


def _with_cell_labels(text: str) -> str:
    """The generated code's comments name the source file: in a notebook, say `cell [5]` instead of
    IPython's /tmp/ipykernel_.../<hash>.py (both %%kernel cells and ordinary cells)."""
    from IPython import get_ipython
    labels = {name: f"cell [{n}]" for name, n in getattr(getattr(get_ipython(), "compile", None), "_filename_map",
                                                          {}).items() if isinstance(n, int)}
    labels.update(messages.CELL_LABELS)
    for filename, label in labels.items():
        if filename in text:
            text = text.replace(filename, label)
    return text


def report_timed_launches(before: dict) -> str | None:
    """One line per --time kernel launched since `before` (a snapshot of launch counts)."""
    lines = []
    for key in sorted(TIMED):
        t = timing.RECORDER.timings.get(key)
        if t is None or t.launches == before.get(key, 0):
            continue
        n = t.launches - before.get(key, 0)
        lines.append(f"{key}: {n} launch{'es' * (n != 1)} in this cell, last {timing.fmt_seconds(t.last)}, "
                     f"mean {timing.fmt_seconds(t.mean)}, min {timing.fmt_seconds(t.min)}")
    return "\n".join(lines) or None

