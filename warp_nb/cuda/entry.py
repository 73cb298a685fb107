"""The CUDA target's entry points (AotCudaTarget.entry_point): a grid-stride __global__ function
around the kernel body the emitter wrote; for a kernel typed for blocks of several lanes, one CUDA
block per block of the launch, its lanes the block's threads (native/block.h).

An entry point is written from the description the emitter gives (compiler/emit/entry.py
`EntryPoint`). Reductions accumulate per GPU thread and are added once at its end. Knows C++
text; knows nothing about IR or compiling."""

from __future__ import annotations

from ..runtime.cpu_entry import BLOCK_THREADS, CHECK_THREAD, CHECK_THREADS, block_coordinates


def entry_name(entry) -> str:
    """The __global__ function's name: `<symbol>_cuda_forward`, `<symbol>_cuda_backward`; the
    kernel's key for an entry point that another program launches (external_constant_params)."""
    if entry.abi == "external_constant_params":
        return entry.exported
    return f"{entry.symbol}_cuda_{entry.direction}"


def entry_point(entry) -> str:
    """The C++ text of one entry point (forward or backward) of a kernel."""
    if entry.abi == "external_constant_params":
        return _external_constant_params_entry(entry)
    if entry.lanes > 1:
        return _block_entry_point(entry.symbol, entry.tid_count, entry.lanes, entry.body, entry.direction)
    return _grid_stride_entry(entry.symbol, entry.tid_count, list(entry.accumulators), entry.body,
                              f"cuda_{entry.direction}", entry.one_lane_blocks)


def _external_constant_params_entry(entry) -> str:
    """Warp's external_constant_params entry point (compiler/entry_abi.py): a __global__ function
    of no arguments, named by the kernel's key, that another program launches on a grid of its own
    after filling `params`, a __constant__ buffer holding the kernel's one struct parameter (C
    linkage, so the program finds both by name). Every thread runs the body once, as thread 0 of
    no launch of Warp's (the kernel has no wp.tid())."""
    struct, sym = entry.param_type, entry.symbol
    return (f'extern "C" {{\n__constant__ __align__(alignof({struct})) unsigned char params[sizeof({struct})];\n}}\n'
            f"WPNB_KERNEL void {entry.exported}() {{\n"
            f"    {sym}_args wpnb_args;\n"
            f"    wpnb_args.{entry.param_name} = *reinterpret_cast<const {struct}*>(params);\n"
            f"    {CHECK_THREADS};\n"
            f"    {CHECK_THREAD}(0);\n"
            f"    {sym}_{entry.body}<false>(wpnb_args, 0);\n}}\n")


def _grid_stride_entry(sym: str, count: int, accumulators: list, body: str, entry: str,
                       one_lane_blocks: bool = False) -> str:
    """A grid-stride kernel: each GPU thread runs thread indices idx, idx + stride, ... of the
    launch. Reductions accumulate per GPU thread and are added once at its end."""
    coords = []
    if count == 1:
        # the leading coordinate of a launch of more dimensions (launch_t::lead_div, Warp's rule)
        coords = ["wpnb::int32(wpnb_launch.lead_div > 1 ? idx / wpnb_launch.lead_div : idx)"]
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
    inner = f"            {CHECK_THREAD}(idx);\n" + (coords_code if count > 1 else "") + f"            {call}\n"
    return (f"WPNB_KERNEL void {sym}_{entry}({sym}_args wpnb_args, wpnb::launch_t wpnb_launch) {{\n{decl}"
            + ("    wpnb::block_lanes_slot() = 1;  // a tile kernel in one-lane blocks (native/block.h)\n"
               if one_lane_blocks else "") +
            f"    {CHECK_THREADS};\n"
            f"    for (wpnb::int64 idx = wpnb::int64(blockIdx.x) * blockDim.x + threadIdx.x; idx < wpnb_launch.size; "
            f"idx += wpnb::int64(gridDim.x) * blockDim.x) {{\n{inner}    }}\n{flush}}}\n")


def _block_entry_point(sym: str, count: int, lanes: int, body: str = "body", direction: str = "forward") -> str:
    """The entry point of a kernel typed for blocks of `lanes` lanes: a CUDA block of `lanes`
    threads per block of the launch, in shared memory for what lanes exchange; threads past the
    end of a partial last block leave at once (they count as arrived at the block's barriers)."""
    coords, call = block_coordinates(sym, count, body)
    return (f"WPNB_KERNEL void {sym}_cuda_{direction}({sym}_args wpnb_args, wpnb::launch_t wpnb_launch) {{\n"
            f"    const wpnb::int64* wpnb_shape = wpnb_launch.shape;\n"
            f"    const wpnb::int64 wpnb_threads = {BLOCK_THREADS};\n"
            f"    const wpnb::int64 wpnb_first = wpnb::int64(blockIdx.x) * {lanes};\n"
            f"    if (threadIdx.x == 0) wpnb::block_active_slot() = wpnb::int32(wpnb_threads - wpnb_first < {lanes} ? "
            f"wpnb_threads - wpnb_first : {lanes});\n"
            f"    wpnb::int64 rest = wpnb_first + threadIdx.x;\n"
            f"    wpnb::block_alive_slot()[threadIdx.x] = rest < wpnb_threads;\n"
            f"    wpnb::block_lanes_slot() = {lanes};\n"
            f"    wpnb::block_frame_mode_slot() = wpnb_launch.one_lane;  // (tiles/block.h block_frame_t)\n"
            f"    __syncthreads();\n"
            f"    if (rest >= wpnb_threads) return;\n{coords}    {call}"
            f"    wpnb::block_alive_slot()[threadIdx.x] = false;  // (what lanes gather skips it now)\n}}\n")
