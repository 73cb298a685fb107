"""The CPU target's entry points (CpuTarget.entry_point): the loop that runs a chunk of a launch,
written so C++ compilers vectorise it, and the privatised accumulation of reductions; for a kernel
typed for blocks of several lanes, the blocks' lanes run as fibers (native/block_cpu.h).

An entry point is written from the description the emitter gives (compiler/emit/entry.py
`EntryPoint`: symbol, direction, tid dimensions, lanes, accumulators, array parameters); the
body it calls (`<symbol>_body`, `<symbol>_backward_body`) is the emitter's. A reduction's
accumulator is added into its array once per chunk: each chunk of a 1-D launch accumulates in 16
interleaved partial sums, so the loop vectorises without reassociating the kernel's own
arithmetic. Knows C++ text; knows nothing about IR or compiling."""

from __future__ import annotations

from ..errors import KernelError

LANES = 16
#: what an entry point says before it runs a thread of the launch (its row-major index): a failed
#: check names that thread; nothing in code compiled without checks (native/core/prelude.h)
CHECK_THREAD = "WPNB_CHECK_THREAD"
CHECK_THREADS = "WPNB_CHECK_THREADS"  # (once per chunk of the launch, before the first CHECK_THREAD)


def entry_name(entry) -> str:
    """The exported symbol of an entry point: `<symbol>_cpu_forward`, `<symbol>_cpu_backward`."""
    return f"{entry.symbol}_cpu_{entry.direction}"


def entry_point(entry) -> str:
    """The C++ text of one entry point (forward or backward) of a kernel."""
    if entry.abi != "warp":  # (compiler/entry_abi.py)
        raise KernelError(f"kernel `{entry.exported}`: entry_point_abi={entry.abi!r} (an entry point that another "
                          "program launches from CUDA constant memory) is not supported by the CPU backend; "
                          "compile it for a CUDA device (wp.compile_aot_module, or ModuleBuilder.codegen('cuda'))")
    count = entry.tid_count
    if entry.lanes > 1:
        return _block_entry_point(entry.symbol, count, entry.lanes, entry.body, entry.direction)
    run = "run" if entry.direction == "forward" else f"{entry.direction}_run"
    text = _entry_point(entry.symbol, entry.arrays, count, list(entry.accumulators), entry.body,
                        f"cpu_{entry.direction}", run, entry.guards, entry.only_guarded_checks)
    return deferring(text, entry) if entry.deterministic == "defer" else text


def deferring(text: str, entry) -> str:
    """A deterministic entry point that defers its float atomics: each chunk logs them
    (native/arrays/deterministic.h) and `<entry>_replay`, which the launch calls once every chunk
    has run, applies them in thread order."""
    name = entry_name(entry)
    head = f"WPNB_KERNEL void {name}("
    start = text.index(head)
    body = text.index("{\n", start) + 2
    text = text[:body] + "    wpnb::det_chunk_begin(wpnb_begin);\n" + text[body:].rstrip("\n")
    assert text.endswith("}")
    return (text[:-1] + "    wpnb::det_chunk_end();\n}\n\n"
            f"WPNB_KERNEL void {name}_replay() {{ wpnb::det_replay(); }}\n")


def _entry_point(sym: str, arrays, count: int, accumulators: list, body: str = "body",
                 entry: str = "cpu_forward", run: str = "run", guards: tuple = (),
                 only_guarded_checks: bool = False) -> str:
    """The run loop and the exported entry point of a kernel (or of its backward body). With
    `guards` (a body compiled twice, compiler/index_ranges.py), the chunk runs the unchecked body
    when every guard holds for it, else the checked one."""
    contiguous = " && ".join(f"wpnb::last_dim_contiguous(wpnb_args.{a})" for a in arrays) or "true"
    if count == 1:
        loop = _linear_loop(sym, accumulators)
    else:
        loop = _multi_dim_loop(sym, count, accumulators)
    loop = loop.replace(f"{sym}_body<WPNB_C>", f"{sym}_{body}<WPNB_C{', WPNB_K' if guards else ''}>")
    if guards and only_guarded_checks:  # the unchecked version of the body has no check to name a thread for
        loop = loop.replace(f"{CHECK_THREAD}(", f"if (WPNB_K) {CHECK_THREAD}(")
    flush = "".join(
        f"    wpnb::atomic_add(wpnb_args.{a.array.name}, {', '.join(map(str, a.indices))}, {a.name});\n"
        for a in accumulators)
    args = "(wpnb_args, wpnb_launch, wpnb_begin, wpnb_end);\n"
    if guards:
        choose = (f"    const bool wpnb_in_range = {guard_condition(guards, count)};\n"
                  f"    if (!({contiguous})) {sym}_{run}<false, true>{args}"
                  f"    else if (wpnb_in_range) {sym}_{run}<true, false>{args}"
                  f"    else {sym}_{run}<true, true>{args}")
    else:
        choose = f"    if ({contiguous}) {sym}_{run}<true>{args}    else {sym}_{run}<false>{args}"
    return (f"template <bool WPNB_C{', bool WPNB_K' if guards else ''}>\n"
            f"WPNB_FN void {sym}_{run}(const {sym}_args& wpnb_args, const wpnb::launch_t* wpnb_launch, "
            f"wpnb::int64 wpnb_begin, wpnb::int64 wpnb_end) {{\n    {CHECK_THREADS};\n{loop}{flush}}}\n\n"
            f"WPNB_KERNEL void {sym}_{entry}(const void* wpnb_argp, const wpnb::launch_t* wpnb_launch, "
            f"wpnb::int64 wpnb_begin, wpnb::int64 wpnb_end) {{\n"
            # a local copy: stores through array pointers cannot alias it
            f"    const {sym}_args wpnb_args = *(const {sym}_args*)wpnb_argp;\n{choose}}}\n")


def guard_condition(guards: tuple, count: int) -> str:
    """The C++ condition under which every guard holds for the chunk [wpnb_begin, wpnb_end) of a
    launch: each guarded index at least 0 (where that is not known already) and below its axis's
    size (and the int32 limit the kernel computed it in), or, under branches on arguments, the
    branches not taken. Guards on one axis that differ by a constant fold into the tightest one,
    so a stencil's four neighbours cost two compares."""
    def atom(a) -> str:
        kind, what = a
        if kind == "arg":
            return f"wpnb::int64(wpnb_args.{what})"
        last = count - 1
        if count == 1:
            return "wpnb_begin" if kind == "tid_min" else "(wpnb_end - 1)"
        if what > 0:  # an inner coordinate runs over its whole axis in a chunk
            return "wpnb::int64(0)" if kind == "tid_min" else f"(wpnb_launch->shape[{what}] - 1)"
        inner = " * ".join(f"wpnb_launch->shape[{d}]" for d in range(1, last + 1))
        return f"(wpnb_begin / ({inner}))" if kind == "tid_min" else f"((wpnb_end - 1) / ({inner}))"

    def text(const: int, terms: tuple) -> str:
        parts = [f"{c} * {atom(a)}" if c != 1 else atom(a) for a, c in terms]
        return "(" + " + ".join(parts + ([str(const)] if const or not parts else [])) + ")"

    def holds(group) -> list:
        lows, highs = {}, {}  # (terms) -> least const / (array, axis, terms) -> greatest const
        for g in group:
            if g.least.least() < 0:
                key = g.least.terms
                lows[key] = min(lows.get(key, g.least.const), g.least.const)
            key = (g.array, g.axis, g.greatest.terms)
            highs[key] = max(highs.get(key, g.greatest.const), g.greatest.const)
        conds = [f"{text(c, terms)} >= 0" for terms, c in lows.items()]
        return conds + [f"{text(c, terms)} < wpnb::index_limit(wpnb_args.{array}.shape[{axis}])"
                        for (array, axis, terms), c in highs.items()]

    by_branch: dict = {}  # the guards of accesses under branches on arguments: needed where those hold
    for g in guards:
        by_branch.setdefault(g.when, []).append(g)
    conds = holds(by_branch.pop((), []))
    for when, group in by_branch.items():
        taken = " && ".join(f"{text(c.left.const, c.left.terms)} {_CPP_OP[c.op]} {text(c.right.const, c.right.terms)}"
                            for c in when)
        conds.append(f"(!({taken}) || ({' && '.join(holds(group))}))")
    return " && ".join(["wpnb_begin < wpnb_end"] + conds)


_CPP_OP = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}


def _linear_loop(sym: str, accumulators: list) -> str:
    # A launch of more dimensions than the kernel's scalar wp.tid() has: the tid is the leading
    # coordinate, the flat index divided by launch_t::lead_div (Warp's rule). Chosen once per chunk,
    # so the usual loop keeps no division.
    tail_args = "".join(f", {a.name}_lanes[0]" for a in accumulators)
    leading = (f"    if (wpnb_launch->lead_div > 1) {{\n"
               f"        const wpnb::int32 m = wpnb_launch->lead_div;\n"
               f"        for (wpnb::int32 i = wpnb::int32(wpnb_begin); i < wpnb::int32(wpnb_end); ++i) "
               f"{{ {CHECK_THREAD}(i); {sym}_body<WPNB_C>(wpnb_args, i / m{tail_args}); }}\n"
               f"    }} else {{\n")
    if not accumulators:
        return (leading + f"    for (wpnb::int32 i = wpnb::int32(wpnb_begin); i < wpnb::int32(wpnb_end); ++i) "
                f"{{ {CHECK_THREAD}(i); {sym}_body<WPNB_C>(wpnb_args, i); }}\n    }}\n")
    lanes = "".join(f"    {a.cpp_type} {a.name}_lanes[{LANES}] = {{}};\n" for a in accumulators)
    lane_args = "".join(f", {a.name}_lanes[l]" for a in accumulators)
    folds = "".join(f"    {a.cpp_type} {a.name} = wpnb::fold_lanes<{LANES}>({a.name}_lanes);\n" for a in accumulators)
    return (f"{lanes}{leading}    wpnb::int32 i = wpnb::int32(wpnb_begin);\n"
            f"    const wpnb::int32 end = wpnb::int32(wpnb_end);\n"
            f"    for (; i + {LANES} <= end; i += {LANES})\n"
            f"        for (wpnb::int32 l = 0; l < {LANES}; ++l) {{\n"
            f"            {CHECK_THREAD}(i + l);\n"
            f"            {sym}_body<WPNB_C>(wpnb_args, i + l{lane_args});\n        }}\n"
            f"    for (; i < end; ++i) {{ {CHECK_THREAD}(i); {sym}_body<WPNB_C>(wpnb_args, i{tail_args}); }}\n"
            f"    }}\n{folds}")


def _multi_dim_loop(sym: str, count: int, accumulators: list) -> str:
    """The loop of a launch whose kernel unpacks wp.tid() into `count` indices: the coordinates
    live in scalar variables (not an array, which keeps compilers from proving what the inner
    loop touches) and the last one runs as a plain counted loop."""
    last = count - 1
    # each extent fits an int32 (as Warp's coordinates), so 32-bit coordinates suffice and keep the inner
    # loop's trip count obvious to the compiler; the flat index counts in int64, as a launch of several
    # dimensions may hold more than 2^31 - 1 threads (Warp runs 46341 x 46341: launch/bounds.py)
    lines = [f"    const wpnb::int32 s{d} = wpnb::int32(wpnb_launch->shape[{d}]);" for d in range(count)]
    lines += [f"    {a.cpp_type} {a.name}{{}};" for a in accumulators]
    lines.append("    wpnb::int64 rest = wpnb_begin;")
    for d in range(last, 0, -1):
        lines.append(f"    wpnb::int32 c{d} = wpnb::int32(rest % s{d}); rest /= s{d};")
    lines.append("    wpnb::int32 c0 = wpnb::int32(rest);")
    lines.append("    wpnb::int64 idx = wpnb_begin;")
    lines.append("    const wpnb::int64 end = wpnb_end;")
    lines.append("    while (idx < end) {")
    lines.append(f"        wpnb::int32 run = s{last} - c{last};")
    lines.append("        if (run > end - idx) run = wpnb::int32(end - idx);")
    outer = ", ".join(f"c{d}" for d in range(last))
    acc_args = "".join(f", {a.name}" for a in accumulators)
    lines.append(f"        const wpnb::int32 j0 = c{last}, j1 = c{last} + run;")
    lines.append(f"        for (wpnb::int32 j = j0; j < j1; ++j) {{\n"
                 f"            {CHECK_THREAD}(wpnb::int64(idx) + (j - j0));\n"
                 f"            {sym}_body<WPNB_C>(wpnb_args, {outer}, j{acc_args});\n        }}")
    lines.append(f"        idx += run;\n        c{last} = 0;")
    carry = "++c0;"  # the outermost coordinate never wraps inside a launch
    for d in range(1, last):
        carry = f"if (++c{d} == s{d}) {{ c{d} = 0; {carry} }}"
    lines.append("        " + carry)
    lines.append("    }")
    return "\n".join(lines) + "\n"


def block_coordinates(sym: str, count: int, body: str) -> tuple[str, str]:
    """(the coordinates of a lane's thread, the call of the body with them), for block entry
    points on every target: coordinates over all four axes (unused ones are 1), so a kernel
    unpacking fewer indices than the launch has (i = wp.tid() in a tiled launch) reads the
    leading ones, its block's."""
    coords = (f"    {CHECK_THREADS};\n    {CHECK_THREAD}(rest);\n"
              + "".join(f"    const wpnb::int32 c{d} = wpnb::int32(rest % wpnb_shape[{d}]); rest /= wpnb_shape[{d}];\n"
                        for d in range(3, 0, -1)) + "    const wpnb::int32 c0 = wpnb::int32(rest);\n")
    call = f"{sym}_{body}<false>(wpnb_args, {', '.join(f'c{d}' for d in range(count))});\n"
    return coords, call


#: the threads of a launch (the product of its four extents), in a block entry point
BLOCK_THREADS = "wpnb_shape[0] * wpnb_shape[1] * wpnb_shape[2] * wpnb_shape[3]"


def _block_entry_point(sym: str, count: int, lanes: int, body: str = "body", direction: str = "forward") -> str:
    """The entry point of a kernel typed for blocks of `lanes` lanes (native/block.h). The launch's
    `size` counts blocks (the runtime splits blocks over its threads; thread k of the launch is
    lane k % lanes of block k / lanes), the shape counts threads; each block's lanes run as fibers
    (native/block_cpu.h)."""
    coords, call = block_coordinates(sym, count, body)
    return (f"struct {sym}_{direction}_lanes_t {{ const {sym}_args* args; const wpnb::launch_t* launch; "
            f"wpnb::int64 block; }};\n\n"
            f"inline void {sym}_{direction}_lane(void* wpnb_user, wpnb::int32 wpnb_lane) {{\n"
            f"    const {sym}_{direction}_lanes_t* u = (const {sym}_{direction}_lanes_t*)wpnb_user;\n"
            f"    const {sym}_args& wpnb_args = *u->args;\n"
            f"    const wpnb::int64* wpnb_shape = u->launch->shape;\n"
            f"    wpnb::int64 rest = u->block * {lanes} + wpnb_lane;\n{coords}    {call}}}\n\n"
            f"WPNB_KERNEL void {sym}_cpu_{direction}(const void* wpnb_argp, const wpnb::launch_t* wpnb_launch, "
            f"wpnb::int64 wpnb_begin, wpnb::int64 wpnb_end) {{\n"
            f"    const {sym}_args wpnb_args = *(const {sym}_args*)wpnb_argp;\n"
            f"    const wpnb::int64* wpnb_shape = wpnb_launch->shape;\n"
            f"    {sym}_{direction}_lanes_t user{{&wpnb_args, wpnb_launch, 0}};\n"
            f"    if (!wpnb::run_fiber_blocks({lanes}, wpnb_begin, wpnb_end, {BLOCK_THREADS}, &user.block, "
            f"{sym}_{direction}_lane, &user, wpnb_launch->one_lane))\n"
            f"        printf(\"warp_nb: could not map the fiber stacks of a CPU block\\n\");\n}}\n")
