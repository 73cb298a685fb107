"""Entry points of emitted kernels. CPU: the loop that runs a chunk of a launch, written so C++
compilers vectorise it, and the privatised accumulation of reductions. CUDA: a grid-stride
__global__ function around the same body. Each is guarded by its target's macro, so one text
compiles with g++ and with NVRTC.

A reduction here is an atomic_add/atomic_sub (or `a[0] += x`) into a constant element of a
kernel parameter array that the kernel touches in no other way. On the CPU each chunk of the
launch accumulates such sums in registers (16 interleaved partial sums for 1-D launches, so the
loop vectorises without reassociating the kernel's own arithmetic) and adds them to the array
atomically once per chunk. Knows IR and C++ text; knows nothing about compiling."""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ...types.array_type import ArrayType

LANES = 16


@dataclass
class Accumulator:
    name: str  # C++ name of the per-chunk accumulator
    array: ir.Var  # the kernel parameter accumulated into
    indices: tuple  # constant indices (Python ints)
    cpp_type: str


def find_reductions(fn: ir.Function, consts: dict) -> dict:
    """Map id(Effect) -> Accumulator for every privatisable atomic accumulation in a kernel.
    `consts` maps id(Var) -> constant value for Vars bound to constants."""
    from .cpp import cpp_type

    params = {id(p): p for p in fn.params if isinstance(p.type, ArrayType)}
    if not params or not _has_atomic_effect(fn.body):
        return {}  # the common case, decided without the full scan
    candidates: dict = {}  # id(array) -> list of (effect, indices)
    disqualified: set = set()

    def visit(stmts):
        for s in stmts:
            if isinstance(s, ir.Effect) and isinstance(s.value, ir.Call) and \
                    s.value.builtin.atomic in _SUMS and id(s.value.args[0]) in params:
                array = s.value.args[0]
                ndim = array.type.ndim
                idx = tuple(consts.get(id(a)) for a in s.value.args[1:1 + ndim])
                if None in idx or not _plain_value(s.value.args[-1].type):
                    disqualified.add(id(array))
                else:
                    candidates.setdefault(id(array), []).append((s, idx))
                _uses(s.value.args[1:], disqualified, params)
                continue
            for v in _used_vars(s):
                if id(v) in params:
                    disqualified.add(id(v))
            for block in ir.child_blocks(s):
                visit(block)

    _collect_consts(fn.body, consts)
    visit(fn.body)
    out, accumulators = {}, {}
    for array_id, uses in candidates.items():
        if array_id in disqualified:
            continue
        array = params[array_id]
        for effect, idx in uses:
            key = (array_id, idx)
            acc = accumulators.get(key)
            if acc is None:
                acc = Accumulator(f"wpnb_acc{len(accumulators)}", array, idx, cpp_type(array.type.dtype))
                accumulators[key] = acc
            out[id(effect)] = acc
    return out


_SUMS = ("add", "sub")  # the atomics a reduction can privatise (accumulate in a register, then add once)


def _has_atomic_effect(stmts) -> bool:
    for s in stmts:
        if isinstance(s, ir.Effect) and isinstance(s.value, ir.Call) and s.value.builtin.atomic in _SUMS:
            return True
        if any(_has_atomic_effect(b) for b in ir.child_blocks(s)):
            return True
    return False


def _plain_value(t) -> bool:
    from ... import types as T
    return T.is_scalar_type(t) and t._kind != "bool" or T.kind_of(t) in ("vector", "matrix")


def _collect_consts(stmts, consts: dict):
    for s in stmts:
        if isinstance(s, ir.Let) and isinstance(s.value, ir.Const):
            consts[id(s.dst)] = s.value.value
        for block in ir.child_blocks(s):
            _collect_consts(block, consts)
    return stmts


def _used_vars(s) -> list:
    """Vars a statement reads (not looking into nested blocks)."""
    out = []
    value = getattr(s, "value", None)
    for node in (s, value):
        if node is None or isinstance(node, ir.Var):
            if isinstance(node, ir.Var):
                out.append(node)
            continue
        for name in ("args", "indices", "items", "path"):
            out += [x for x in getattr(node, name, ()) if isinstance(x, ir.Var)]
        for name in ("array", "base", "src", "cond", "query"):
            x = getattr(node, name, None)
            if isinstance(x, ir.Var):
                out.append(x)
    for c in getattr(s, "carried", ()):
        out.append(c.init)
    for p in getattr(s, "phis", ()):
        out += [x for x in (p.then_src, p.else_src) if x is not None]
    return out


def _uses(vars_, disqualified: set, params: dict) -> None:
    for v in vars_:
        if id(v) in params:
            disqualified.add(id(v))


def entry_point(sym: str, fn: ir.Function, count: int, accumulators: list, body: str = "body",
                entry: str = "cpu_forward", run: str = "run") -> str:
    """The run loop and the exported entry point of a kernel (or of its backward body)."""
    arrays = [p.name for p in fn.params if isinstance(p.type, ArrayType)]
    contiguous = " && ".join(f"wpnb::last_dim_contiguous(wpnb_args.{a})" for a in arrays) or "true"
    if count == 1:
        loop = _linear_loop(sym, accumulators)
    else:
        loop = _multi_dim_loop(sym, count, accumulators)
    loop = loop.replace(f"{sym}_body<", f"{sym}_{body}<")
    flush = "".join(
        f"    wpnb::atomic_add(wpnb_args.{a.array.name}, {', '.join(map(str, a.indices))}, {a.name});\n"
        for a in accumulators)
    return (f"#if defined(WPNB_CPU)\n"
            f"template <bool WPNB_C>\n"
            f"WPNB_FN void {sym}_{run}(const {sym}_args& wpnb_args, const wpnb::launch_t* wpnb_launch, "
            f"wpnb::int64 wpnb_begin, wpnb::int64 wpnb_end) {{\n{loop}{flush}}}\n\n"
            f"WPNB_KERNEL void {sym}_{entry}(const void* wpnb_argp, const wpnb::launch_t* wpnb_launch, "
            f"wpnb::int64 wpnb_begin, wpnb::int64 wpnb_end) {{\n"
            # a local copy: stores through array pointers cannot alias it
            f"    const {sym}_args wpnb_args = *(const {sym}_args*)wpnb_argp;\n"
            f"    if ({contiguous}) {sym}_{run}<true>(wpnb_args, wpnb_launch, wpnb_begin, wpnb_end);\n"
            f"    else {sym}_{run}<false>(wpnb_args, wpnb_launch, wpnb_begin, wpnb_end);\n}}\n"
            f"#endif\n\n" + _cuda_entry(sym, count, accumulators, body, entry.replace("cpu_", "cuda_"),
                                         fn.uses_blocks))


def _cuda_entry(sym: str, count: int, accumulators: list, body: str, entry: str, one_lane_blocks: bool = False) -> str:
    """A grid-stride kernel: each GPU thread runs thread indices idx, idx + stride, ... of the
    launch. Reductions accumulate per GPU thread and are added once at its end."""
    coords = []
    if count == 1:
        coords = ["wpnb::int32(idx)"]
    else:
        coords_code = "            wpnb::int64 rest = idx;\n"
        for d in range(count - 1, 0, -1):
            coords_code += (f"            const wpnb::int32 c{d} = wpnb::int32(rest % wpnb_launch.shape[{d}]); "
                            f"rest /= wpnb_launch.shape[{d}];\n")
        coords_code += "            const wpnb::int32 c0 = wpnb::int32(rest);\n"
        coords = [f"c{d}" for d in range(count)]
    decl = "".join(f"    {a.cpp_type} {a.name}{{}};\n" for a in accumulators)
    acc_args = "".join(f", {a.name}" for a in accumulators)
    flush = "".join(f"    wpnb::atomic_add(wpnb_args.{a.array.name}, {', '.join(map(str, a.indices))}, {a.name});\n"
                    for a in accumulators)
    call = f"{sym}_{body}<false>(wpnb_args, {', '.join(coords)}{acc_args});"
    inner = (coords_code if count > 1 else "") + f"            {call}\n"
    return (f"#if defined(WPNB_CUDA)\n"
            f"WPNB_KERNEL void {sym}_{entry}({sym}_args wpnb_args, wpnb::launch_t wpnb_launch) {{\n{decl}"
            + ("    wpnb::block_lanes_slot() = 1;  // a tile kernel in one-lane blocks (native/block.h)\n"
               if one_lane_blocks else "") +
            f"    for (wpnb::int64 idx = wpnb::int64(blockIdx.x) * blockDim.x + threadIdx.x; idx < wpnb_launch.size; "
            f"idx += wpnb::int64(gridDim.x) * blockDim.x) {{\n{inner}    }}\n{flush}}}\n#endif\n")


def _linear_loop(sym: str, accumulators: list) -> str:
    if not accumulators:
        return (f"    for (wpnb::int32 i = wpnb::int32(wpnb_begin); i < wpnb::int32(wpnb_end); ++i) "
                f"{sym}_body<WPNB_C>(wpnb_args, i);\n")
    lanes = "".join(f"    {a.cpp_type} {a.name}_lanes[{LANES}] = {{}};\n" for a in accumulators)
    lane_args = "".join(f", {a.name}_lanes[l]" for a in accumulators)
    tail_args = "".join(f", {a.name}_lanes[0]" for a in accumulators)
    folds = "".join(f"    {a.cpp_type} {a.name} = wpnb::fold_lanes<{LANES}>({a.name}_lanes);\n" for a in accumulators)
    return (f"{lanes}    wpnb::int32 i = wpnb::int32(wpnb_begin);\n"
            f"    const wpnb::int32 end = wpnb::int32(wpnb_end);\n"
            f"    for (; i + {LANES} <= end; i += {LANES})\n"
            f"        for (wpnb::int32 l = 0; l < {LANES}; ++l) {sym}_body<WPNB_C>(wpnb_args, i + l{lane_args});\n"
            f"    for (; i < end; ++i) {sym}_body<WPNB_C>(wpnb_args, i{tail_args});\n{folds}")


def _multi_dim_loop(sym: str, count: int, accumulators: list) -> str:
    """The loop of a launch whose kernel unpacks wp.tid() into `count` indices: the coordinates
    live in scalar variables (not an array, which keeps compilers from proving what the inner
    loop touches) and the last one runs as a plain counted loop."""
    last = count - 1
    # launches are limited to 2^31 threads (wp.tid() is an int32), so 32-bit coordinates suffice
    # and keep the inner loop's trip count obvious to the compiler
    lines = [f"    const wpnb::int32 s{d} = wpnb::int32(wpnb_launch->shape[{d}]);" for d in range(count)]
    lines += [f"    {a.cpp_type} {a.name}{{}};" for a in accumulators]
    lines.append("    wpnb::int32 rest = wpnb::int32(wpnb_begin);")
    for d in range(last, 0, -1):
        lines.append(f"    wpnb::int32 c{d} = rest % s{d}; rest /= s{d};")
    lines.append("    wpnb::int32 c0 = rest;")
    lines.append("    wpnb::int32 idx = wpnb::int32(wpnb_begin);")
    lines.append("    const wpnb::int32 end = wpnb::int32(wpnb_end);")
    lines.append("    while (idx < end) {")
    lines.append(f"        wpnb::int32 run = s{last} - c{last};")
    lines.append("        if (run > end - idx) run = end - idx;")
    outer = ", ".join(f"c{d}" for d in range(last))
    acc_args = "".join(f", {a.name}" for a in accumulators)
    lines.append(f"        const wpnb::int32 j0 = c{last}, j1 = c{last} + run;")
    lines.append(f"        for (wpnb::int32 j = j0; j < j1; ++j) {sym}_body<WPNB_C>(wpnb_args, {outer}, j{acc_args});")
    lines.append(f"        idx += run;\n        c{last} = 0;")
    carry = "++c0;"  # the outermost coordinate never wraps inside a launch
    for d in range(1, last):
        carry = f"if (++c{d} == s{d}) {{ c{d} = 0; {carry} }}"
    lines.append("        " + carry)
    lines.append("    }")
    return "\n".join(lines) + "\n"


def block_entry_point(sym: str, count: int, lanes: int, body: str = "body", direction: str = "forward") -> str:
    """The entry points of a kernel typed for blocks of `lanes` lanes (native/block.h), under the
    usual names. The launch's `size` counts blocks (the runtime splits blocks over its threads;
    thread k of the launch is lane k % lanes of block k / lanes), the shape counts threads. CPU:
    each block's lanes run as fibers (native/block_cpu.h). CUDA: a block of `lanes` threads per
    block of the launch, in shared memory for what lanes exchange; threads past the end of a
    partial last block leave at once (they count as arrived at the block's barriers)."""
    # coordinates over all four axes (unused ones are 1): a kernel unpacking fewer indices than the
    # launch has (i = wp.tid() in a tiled launch) reads the leading ones, its block's
    coords = "".join(f"    const wpnb::int32 c{d} = wpnb::int32(rest % wpnb_shape[{d}]); rest /= wpnb_shape[{d}];\n"
                     for d in range(3, 0, -1)) + "    const wpnb::int32 c0 = wpnb::int32(rest);\n"
    call = f"{sym}_{body}<false>(wpnb_args, {', '.join(f'c{d}' for d in range(count))});\n"
    threads = "wpnb_shape[0] * wpnb_shape[1] * wpnb_shape[2] * wpnb_shape[3]"
    return (f"#if defined(WPNB_CPU)\n"
            f"struct {sym}_{direction}_lanes_t {{ const {sym}_args* args; const wpnb::launch_t* launch; wpnb::int64 block; }};\n\n"
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
            f"    if (!wpnb::run_fiber_blocks({lanes}, wpnb_begin, wpnb_end, {threads}, &user.block, {sym}_{direction}_lane, &user))\n"
            f"        printf(\"warp_nb: could not map the fiber stacks of a CPU block\\n\");\n}}\n"
            f"#endif\n\n"
            f"#if defined(WPNB_CUDA)\n"
            f"WPNB_KERNEL void {sym}_cuda_{direction}({sym}_args wpnb_args, wpnb::launch_t wpnb_launch) {{\n"
            f"    const wpnb::int64* wpnb_shape = wpnb_launch.shape;\n"
            f"    const wpnb::int64 wpnb_threads = {threads};\n"
            f"    const wpnb::int64 wpnb_first = wpnb::int64(blockIdx.x) * {lanes};\n"
            f"    if (threadIdx.x == 0) wpnb::block_active_slot() = wpnb::int32(wpnb_threads - wpnb_first < {lanes} ? "
            f"wpnb_threads - wpnb_first : {lanes});\n"
            f"    wpnb::int64 rest = wpnb_first + threadIdx.x;\n"
            f"    wpnb::block_alive_slot()[threadIdx.x] = rest < wpnb_threads;\n"
            f"    wpnb::block_lanes_slot() = {lanes};\n"
            f"    __syncthreads();\n"
            f"    if (rest >= wpnb_threads) return;\n{coords}    {call}"
            f"    wpnb::block_alive_slot()[threadIdx.x] = false;  // (what lanes gather skips it now)\n}}\n"
            f"#endif\n")
