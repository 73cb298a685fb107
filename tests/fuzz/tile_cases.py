"""The cases of tiles_against_warp.py: random tile kernels, as source text written once for both
libraries (the module's `wp` is chosen by its import line), and their input data.

`cases(seed)` returns (cases, data). A case is a dict: `name` (its template), `group` (the module it
is compiled in: one per template, all its kernels together, since warp-lang compiles CPU tile
kernels slowly), `src` (a kernel `k<index>`, with any @wp.func it calls), `arrays` (the kernel's
parameters in order: name, shape, dtype, role "in" or "out"), `dim` (launch_tiled's grid),
`block_dim`, `backward` (whether to run Tape.backward), `tol` (the relative tolerance for
float32; float64 is compared at 1e-12) and `ties` ({values: keys}: outputs whose order among equal
keys is unspecified, compared as sets per run of equal keys) and `args` ({output: [array, M, N]}:
per-block row-major indices into the M x N tiles of `array` whose choice among ties is unspecified,
compared by the elements they point at). `data` holds every array's initial values under
"<index>.<name>" and the adjoints of the float outputs under "<index>.<name>.adj"."""

from __future__ import annotations

import math

import numpy as np

SIZES = (1, 2, 3, 4, 5, 7, 8, 16)
FLOATS = ("float32", "float64")
NP = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "vec3": np.float32}


def _value_shape(shape, dtype):
    """The numpy shape of an array of `shape` (a vec3 array has a trailing axis of 3)."""
    return tuple(shape) + ((3,) if dtype == "vec3" else ())


class _Case:
    """One kernel being written: its parameters and the lines of its body."""

    def __init__(self, rng, name, dtype, tol=1e-5, backward=True):
        self.rng, self.name, self.dtype, self.tol, self.backward = rng, name, dtype, tol, backward
        self.arrays, self.body, self.funcs, self.values, self.ties, self.args = [], [], [], {}, {}, {}

    def array(self, name, shape, role="in", dtype=None, fill="normal"):
        dtype = dtype or self.dtype
        shape = tuple(int(s) for s in shape)
        self.arrays.append({"name": name, "shape": list(shape), "dtype": dtype, "role": role})
        self.values[name] = _fill(self.rng, _value_shape(shape, dtype), dtype, fill if role == "in" else "zeros")
        return name

    def line(self, text):
        self.body.append(text)

    def finish(self, index, dim, block_dim):
        params = ", ".join(f"{a['name']}: wp.array{len(a['shape']) if len(a['shape']) > 1 else ''}d(dtype=wp.{a['dtype']})"
                           .replace("wp.arrayd(", "wp.array(") for a in self.arrays)
        src = "\n".join(self.funcs + ["@wp.kernel", f"def k{index}({params}):"] + [f"    {b}" for b in self.body])
        return {"name": self.name, "dtype": self.dtype, "src": src, "arrays": self.arrays, "dim": list(dim),
                "block_dim": block_dim, "backward": self.backward, "tol": self.tol, "ties": self.ties,
                "args": self.args}


def _fill(rng, shape, dtype, fill):
    if fill == "zeros":
        return np.zeros(shape, NP[dtype])
    if dtype == "int32" or fill == "ties":  # small integers: ties, exact sums
        return rng.integers(-4, 5, shape).astype(NP[dtype])
    if fill == "near1":
        return rng.uniform(0.7, 1.3, shape).astype(NP[dtype])
    if fill == "pos":
        return rng.uniform(0.5, 2.0, shape).astype(NP[dtype])
    return rng.standard_normal(shape).astype(NP[dtype])


def _size(rng, low=1):
    return int(rng.choice([s for s in SIZES if s >= low]))


def _extent(rng, tile):
    """An array extent around a multiple of `tile`: often not one, so the last tile is partly outside."""
    return max(1, tile * int(rng.integers(1, 3)) + int(rng.integers(-tile + 1, tile)))


# --- the templates: each writes one kernel into a _Case and returns its launch grid ----------------

def load_store(c, rng):
    """tile_load / tile_store, 1-D or 2-D, at offsets shifted by 0 or 1 (partial tiles past the end
    read 0 and are not written), in register or shared storage. Not negative offsets: Warp bounds
    only the upper extent (documented), so a coordinate below 0 reads outside the array there."""
    storage = rng.choice(["register", "shared"])
    if rng.random() < 0.5:
        n, shift = _size(rng), int(rng.integers(0, 2))
        length = _extent(rng, n)
        c.array("a", (length,)), c.array("out", (length,), "out")
        c.line("i = wp.tid()")
        c.line(f"t = wp.tile_load(a, shape={n}, offset=i * {n} + {shift}, storage='{storage}')")
        c.line(f"wp.tile_store(out, t + t * t, offset=i * {n} + {shift})")
        return (math.ceil((length - shift) / n),)
    m, n = _size(rng), _size(rng)
    s0, s1 = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    rows, cols = _extent(rng, m), _extent(rng, n)
    c.array("a", (rows, cols)), c.array("out", (rows, cols), "out")
    c.line("i, j = wp.tid()")
    c.line(f"t = wp.tile_load(a, shape=({m}, {n}), offset=(i * {m} + {s0}, j * {n} + {s1}), storage='{storage}')")
    c.line(f"wp.tile_store(out, t * t - t, offset=(i * {m} + {s0}, j * {n} + {s1}))")
    return (math.ceil((rows - s0) / m), math.ceil((cols - s1) / n))


def construct(c, rng):
    """tile_zeros / tile_ones / tile_full / tile_arange (start, stop, step), added to a loaded tile."""
    d, m, n = c.dtype, _size(rng), _size(rng)
    start, step = int(rng.integers(-3, 4)), int(rng.choice([1, 2, 3, -1]))
    stop = start + step * _size(rng)
    count = len(range(start, stop, step))
    c.array("a", (m, n)), c.array("out", (m, n), "out"), c.array("r", (count,), "out")
    c.line("t = wp.tile_load(a, shape=(" + f"{m}, {n}))")
    c.line(f"z = wp.tile_zeros(shape=({m}, {n}), dtype=wp.{d})")
    c.line(f"o = wp.tile_ones(shape=({m}, {n}), dtype=wp.{d})")
    c.line(f"f = wp.tile_full(shape=({m}, {n}), value=wp.{d}({int(rng.integers(-3, 4))}), dtype=wp.{d})")
    c.line("wp.tile_store(out, t + z + o * f)")
    c.line(f"wp.tile_store(r, wp.tile_arange({start}, {stop}, {step}, dtype=wp.{d}))")
    return (1,)


UNARY = ("sin", "cos", "exp", "tanh", "abs", "neg", "sqrt1", "square")
BINARY = ("add", "sub", "mul", "div", "min", "max", "func", "op_add", "op_sub", "op_mul", "scale")


def elementwise(c, rng):
    """Tile arithmetic (+ - *, scalar * tile, unary -) and tile_map of builtins and of a @wp.func,
    on two loaded tiles; b is positive (it divides)."""
    d, m, n = c.dtype, _size(rng), _size(rng)
    c.array("a", (m, n)), c.array("b", (m, n), fill="pos")
    c.funcs += ["@wp.func", f"def uf_{c.name}(x: wp.{d}, y: wp.{d}):",
                f"    return x * y - wp.sin(x) + y * y", ""]
    c.line(f"a_t = wp.tile_load(a, shape=({m}, {n}))")
    c.line(f"b_t = wp.tile_load(b, shape=({m}, {n}))")
    exprs = {"sin": "wp.tile_map(wp.sin, a_t)", "cos": "wp.tile_map(wp.cos, a_t)", "exp": "wp.tile_map(wp.exp, a_t)",
             "tanh": "wp.tile_map(wp.tanh, a_t)", "abs": "wp.tile_map(wp.abs, a_t)", "neg": "-a_t",
             "sqrt1": "wp.tile_map(wp.sqrt, b_t)", "square": "wp.tile_map(wp.mul, a_t, a_t)",
             "add": "wp.tile_map(wp.add, a_t, b_t)", "sub": "wp.tile_map(wp.sub, a_t, b_t)",
             "mul": "wp.tile_map(wp.mul, a_t, b_t)", "div": "wp.tile_map(wp.div, a_t, b_t)",
             "min": "wp.tile_map(wp.min, a_t, b_t)", "max": "wp.tile_map(wp.max, a_t, b_t)",
             "func": f"wp.tile_map(uf_{c.name}, a_t, b_t)", "op_add": "a_t + b_t", "op_sub": "a_t - b_t",
             "op_mul": "a_t * b_t", "scale": f"wp.{d}(1.5) * a_t - b_t * wp.{d}(0.25)"}
    for k, op in enumerate(rng.choice(UNARY + BINARY, size=4, replace=False)):
        c.array(f"o{k}", (m, n), "out")
        c.line(f"wp.tile_store(o{k}, {exprs[op]})")
    return (1,)


def shape_ops(c, rng):
    """tile_broadcast (from (1, N), (M, 1) and (N,)), tile_transpose, tile_reshape, tile_squeeze."""
    m, n = _size(rng), _size(rng, 2)  # squeezing (1, 1) leaves no axis: an error in warp-lang
    c.array("row", (1, n)), c.array("col", (m, 1)), c.array("vec", (n,)), c.array("a", (m, n))
    c.array("ob", (m, n), "out"), c.array("ot", (n, m), "out"), c.array("orr", (m * n,), "out"), c.array("osq", (n,), "out")
    c.line(f"r = wp.tile_load(row, shape=(1, {n}))")
    c.line(f"cl = wp.tile_load(col, shape=({m}, 1))")
    c.line(f"v = wp.tile_load(vec, shape={n})")
    c.line(f"b = wp.tile_broadcast(r, shape=({m}, {n})) + wp.tile_broadcast(cl, shape=({m}, {n})) * wp.tile_broadcast(v, shape=({m}, {n}))")
    c.line("wp.tile_store(ob, b)")
    c.line(f"t = wp.tile_load(a, shape=({m}, {n}))")
    c.line("wp.tile_store(ot, wp.tile_transpose(t * t))")
    c.line(f"wp.tile_store(orr, wp.tile_reshape(t, shape=({m * n},)))")
    c.line("wp.tile_store(osq, wp.tile_squeeze(r) * v)")
    return (1,)


def parts(c, rng):
    """tile_view (2-D part, and a row as a 1-D view), t[i, j] and tile_extract, and element
    assignment u[i, j] = x, -= and += into shared tiles (in a block, every lane writes)."""
    d, m, n = c.dtype, _size(rng, 2), _size(rng, 2)
    p, q = int(rng.integers(0, m)), int(rng.integers(0, n))
    i0, j0, i1, j1 = (int(rng.integers(0, s)) for s in (m, n, m, n))
    c.array("a", (m, n)), c.array("ov", (m - p, n - q), "out"), c.array("orow", (n,), "out")
    c.array("s", (2,), "out"), c.array("ou", (m, n), "out"), c.array("ow", (m, n), "out")
    c.line(f"t = wp.tile_load(a, shape=({m}, {n}), storage='shared')")
    c.line(f"wp.tile_store(ov, wp.tile_view(t, offset=({p}, {q}), shape=({m - p}, {n - q})))")
    c.line(f"wp.tile_store(orow, wp.tile_view(t, offset=({p},)))")
    c.line(f"x = t[{i0}, {j0}]")
    c.line(f"y = wp.tile_extract(t, {i1}, {j1})")
    c.line("s[0] = x * y")
    c.line("s[1] = x - y")
    c.line(f"u = wp.tile_zeros(shape=({m}, {n}), dtype=wp.{d}, storage='shared')")
    c.line(f"u[{i1}, {j0}] = x * wp.{d}(3.0)")
    c.line("wp.tile_store(ou, u + t)")
    c.line(f"w = wp.tile_load(a, shape=({m}, {n}), storage='shared')")  # every lane of a block updates it
    c.line(f"w[{i0}, {j1}] -= y * wp.{d}(2.0)")
    c.line(f"w[{i1}, {j1}] += x")
    c.line(f"w[{i1}, {j0}] = y")
    c.line("wp.tile_store(ow, w)")
    return (1,)


def sums(c, rng):
    """tile_sum of the whole tile and along each axis, one block per row-block of a."""
    m, n = _size(rng), _size(rng)
    blocks = int(rng.integers(1, 4))
    c.array("a", (blocks * m, n), fill="ties" if rng.random() < 0.5 else "normal")
    c.array("o_sum", (blocks,), "out"), c.array("o_sum0", (blocks * n,), "out"), c.array("o_sum1", (blocks * m,), "out")
    c.line("i = wp.tid()")
    c.line(f"t = wp.tile_load(a, shape=({m}, {n}), offset=(i * {m}, 0))")
    c.line("wp.tile_store(o_sum, wp.tile_sum(t), offset=i)")
    c.line(f"wp.tile_store(o_sum0, wp.tile_sum(t, axis=0), offset=i * {n})")
    c.line(f"wp.tile_store(o_sum1, wp.tile_sum(t, axis=1), offset=i * {m})")
    return (blocks,)


def reductions(c, rng):
    """tile_min / tile_max / tile_argmin / tile_argmax and tile_reduce with wp.add, wp.mul, wp.min,
    wp.max (on values near 1 for wp.mul), one block per row-block of a, often of ties (small
    integers). warp-lang differentiates none of them: values only."""
    d, m, n = c.dtype, _size(rng), _size(rng)
    blocks = int(rng.integers(1, 4))
    fill = "ties" if rng.random() < 0.6 else "normal"
    c.array("a", (blocks * m, n), fill=fill), c.array("b", (blocks * m, n), fill="near1" if d != "int32" else "ties")
    c.line("i = wp.tid()")
    c.line(f"t = wp.tile_load(a, shape=({m}, {n}), offset=(i * {m}, 0))")
    c.line(f"u = wp.tile_load(b, shape=({m}, {n}), offset=(i * {m}, 0))")
    for name, expr in (("min", "wp.tile_min(t)"), ("max", "wp.tile_max(t)"),
                       ("radd", "wp.tile_reduce(wp.add, t)"), ("rmul", "wp.tile_reduce(wp.mul, u)"),
                       ("rmin", "wp.tile_reduce(wp.min, t)"), ("rmax", "wp.tile_reduce(wp.max, t)")):
        c.array(f"o_{name}", (blocks,), "out")
        c.line(f"wp.tile_store(o_{name}, {expr}, offset=i)")
    for name in ("argmin", "argmax"):
        c.array(f"o_{name}", (blocks,), "out", dtype="int32")
        c.line(f"wp.tile_store(o_{name}, wp.tile_{name}(t), offset=i)")
        c.args[f"o_{name}"] = ["a", m, n]  # which of tied extremes is unspecified (documented): compare their values
    return (blocks,)


def scans(c, rng):
    """tile_scan_inclusive / tile_scan_exclusive (and the max / min running scans) of a 1-D or 2-D
    tile (row-major order); warp-lang scans no float64 (warp_nb does) and differentiates no scan:
    values only."""
    shape = (_size(rng),) if rng.random() < 0.5 else (_size(rng), _size(rng))
    text = str(shape[0]) if len(shape) == 1 else f"({shape[0]}, {shape[1]})"
    c.array("a", shape, fill="ties" if rng.random() < 0.3 else "normal")
    c.line(f"t = wp.tile_load(a, shape={text})")
    for name in ("scan_inclusive", "scan_exclusive", "scan_max_inclusive", "scan_min_inclusive"):
        c.array(f"o_{name}", shape, "out")
        c.line(f"wp.tile_store(o_{name}, wp.tile_{name}(t))")
    return (1,)


def sort(c, rng):
    """tile_sort of keys that tie (small integers) or not, with float or int values (their original
    positions: which of equal keys comes first shows); warp-lang sorts no float64 keys."""
    n = _size(rng) + int(rng.integers(0, 6))
    c.array("keys", (n,), fill="ties" if rng.random() < 0.7 else "normal")
    c.array("vals", (n,), dtype="int32"), c.array("ok", (n,), "out"), c.array("ov", (n,), "out", dtype="int32")
    c.values["vals"] = np.arange(n, dtype=np.int32)
    c.ties = {"ov": "ok"}  # Warp's sort is not stable (documented): ov is compared per run of equal keys
    c.line(f"k = wp.tile_load(keys, shape={n})")
    c.line(f"v = wp.tile_load(vals, shape={n})")
    c.line("wp.tile_sort(k, v)")
    c.line("wp.tile_store(ok, k)")
    c.line("wp.tile_store(ov, v)")
    return (1,)


def matmul(c, rng):
    """tile_matmul: the returning form, the accumulating form (out += a @ b) and alpha / beta, of
    non-square tiles loaded from arrays one row or column short or long (zero padding)."""
    d, m, k, n = c.dtype, _size(rng), _size(rng), _size(rng)
    ext = lambda s: max(1, s + int(rng.integers(-1, 2)))  # noqa: E731
    c.array("a", (ext(m), ext(k))), c.array("b", (ext(k), ext(n))), c.array("cc", (m, n))
    c.array("o1", (m, n), "out"), c.array("o2", (m, n), "out"), c.array("o3", (m, n), "out")
    c.line(f"A = wp.tile_load(a, shape=({m}, {k}))")
    c.line(f"B = wp.tile_load(b, shape=({k}, {n}))")
    c.line(f"C = wp.tile_load(cc, shape=({m}, {n}))")
    c.line(f"E = wp.tile_load(cc, shape=({m}, {n}))")
    c.line("D = wp.tile_matmul(A, B)")
    c.line("wp.tile_matmul(A, B, C)")
    c.line(f"wp.tile_matmul(A, B, E, alpha=wp.{d}(0.5), beta=wp.{d}(-1.3))")
    c.line("wp.tile_store(o1, D)")
    c.line("wp.tile_store(o2, C)")
    c.line("wp.tile_store(o3, E)")
    return (1,)


def _spd(c, n):
    q = c.values["a"].astype(np.float64)
    c.values["a"] = (q @ q.T + n * np.eye(n)).astype(NP[c.dtype])


def cholesky(c, rng):
    """tile_cholesky (lower and upper) of a random SPD matrix and tile_lower_solve with its factor:
    the ones warp-lang differentiates."""
    n = _size(rng)
    c.array("a", (n, n)), c.array("b", (n,)), c.array("oL", (n, n), "out"), c.array("oU", (n, n), "out")
    c.array("oz", (n,), "out")
    _spd(c, n)
    c.line(f"A = wp.tile_load(a, shape=({n}, {n}))")
    c.line(f"y = wp.tile_load(b, shape={n})")
    c.line("L = wp.tile_cholesky(A)")
    c.line("wp.tile_store(oL, L)")
    c.line("wp.tile_store(oU, wp.tile_cholesky(A, fill_mode='upper'))")
    c.line("wp.tile_store(oz, wp.tile_lower_solve(L, y))")
    return (1,)


def solves(c, rng):
    """tile_cholesky_solve (vector and matrix right-hand sides, lower and upper factors) and
    tile_upper_solve: warp-lang differentiates neither (zero gradients), so values only."""
    n, r = _size(rng), _size(rng)
    c.array("a", (n, n)), c.array("b", (n,)), c.array("b2", (n, r))
    _spd(c, n)
    for name, shape in (("ox", (n,)), ("oX", (n, r)), ("oxu", (n,)), ("ow", (n,))):
        c.array(name, shape, "out")
    c.line(f"A = wp.tile_load(a, shape=({n}, {n}))")
    c.line(f"y = wp.tile_load(b, shape={n})")
    c.line(f"Y = wp.tile_load(b2, shape=({n}, {r}))")
    c.line("L = wp.tile_cholesky(A)")
    c.line("U = wp.tile_cholesky(A, fill_mode='upper')")
    c.line("wp.tile_store(ox, wp.tile_cholesky_solve(L, y))")
    c.line("wp.tile_store(oX, wp.tile_cholesky_solve(L, Y))")
    c.line("wp.tile_store(oxu, wp.tile_cholesky_solve(U, y, fill_mode='upper'))")
    c.line("wp.tile_store(ow, wp.tile_upper_solve(U, y))")
    return (1,)


def atomic(c, rng):
    """tile_atomic_add: every block adds its tile (twice a's) into one region of `acc` at an offset
    that may run past the array's end (those elements are dropped)."""
    m, n = _size(rng), _size(rng)
    blocks = int(rng.integers(1, 4))
    rows, cols = _extent(rng, m), _extent(rng, n)
    o0, o1 = int(rng.integers(0, rows)), int(rng.integers(0, cols))
    c.array("a", (blocks * m, n)), c.array("acc", (rows, cols), "out")
    c.line("i = wp.tid()")
    c.line(f"t = wp.tile_load(a, shape=({m}, {n}), offset=(i * {m}, 0))")
    c.line(f"wp.tile_atomic_add(acc, t + t, offset=({o0}, {o1}))")
    return (blocks,)


def astype(c, rng):
    """tile_astype: float to int32 (truncation toward zero), to the other float type, and int32 to float."""
    d, m, n = c.dtype, _size(rng), _size(rng)
    other = "float64" if d == "float32" else "float32"
    c.array("a", (m, n)), c.array("ai", (m, n), dtype="int32")
    c.array("oi", (m, n), "out", dtype="int32"), c.array("oo", (m, n), "out", dtype=other), c.array("of", (m, n), "out")
    c.line(f"t = wp.tile_load(a, shape=({m}, {n}))")
    c.line(f"ti = wp.tile_load(ai, shape=({m}, {n}))")
    c.line(f"wp.tile_store(oi, wp.tile_astype(t * wp.{d}(3.0), dtype=wp.int32))")
    c.line(f"wp.tile_store(oo, wp.tile_astype(t * t, dtype=wp.{other}))")
    c.line(f"wp.tile_store(of, wp.tile_astype(ti, dtype=wp.{d}) * t)")
    return (1,)


def block_values(c, rng):
    """wp.tile(x) of per-thread values (a tile of block_dim elements), summed across the block, and
    wp.untile back to each thread; tile_scatter_add of every lane's value into a shared tile.
    (Not tile_from_thread: warp-lang does not differentiate it, see forward_only.)"""
    d, blocks = c.dtype, int(rng.integers(1, 4))
    c.array("a", (blocks * 64,)), c.array("out", (blocks * 64,), "out"), c.array("s", (blocks,), "out")
    c.array("hist", (blocks * 4,), "out")
    c.line("i, lane = wp.tid()")
    c.line("x = a[i * wp.block_dim() + lane]")
    c.line(f"t = wp.tile(x * wp.{d}(2.0))")
    c.line("total = wp.tile_sum(t)")
    c.line("out[i * wp.block_dim() + lane] = wp.untile(t * t) * x")
    c.line("s[i] = total[0]")
    c.line(f"h = wp.tile_zeros(shape=4, dtype=wp.{d}, storage='shared')")
    c.line("wp.tile_scatter_add(h, lane % 4, x * x, lane % 3 != 1)")
    c.line("wp.tile_store(hist, h, offset=i * 4)")
    return (blocks,)


def more_parts(c, rng):
    """A 3-D tile_load / tile_store past the array's end, tile_broadcast of a tile_sum, a slice
    t[a:b, :], tile_assign of a tile_view at an offset, tile_load_indexed, and tile_reduce with a
    @wp.func."""
    d, m, n = c.dtype, _size(rng, 2), _size(rng, 2)
    p, k = int(rng.integers(0, m)), int(rng.integers(1, m + 1))
    e = (_size(rng), _size(rng), _size(rng))
    c.funcs += ["@wp.func", f"def biggest_{c.name}(x: wp.{d}, y: wp.{d}):", "    return wp.max(x, y)", ""]
    c.array("a", (m, n)), c.array("b", (e[0] + 1, e[1], max(1, e[2] - 1))), c.array("idx", (k,), dtype="int32")
    c.values["idx"] = rng.integers(0, m, k).astype(np.int32)
    c.array("ob", (m, n), "out"), c.array("o3", (e[0] + 1, e[1], max(1, e[2] - 1)), "out"), c.array("os", (m - p, n), "out")
    c.array("oa", (m, n), "out"), c.array("oi", (k, n), "out"), c.array("or_", (1,), "out")
    c.line(f"t = wp.tile_load(a, shape=({m}, {n}))")
    c.line(f"wp.tile_store(ob, wp.tile_broadcast(wp.tile_sum(t), shape=({m}, {n})) * t)")
    c.line(f"u = wp.tile_load(b, shape=({e[0]}, {e[1]}, {e[2]}), offset=(1, 0, 0))")
    c.line(f"wp.tile_store(o3, u * u, offset=(1, 0, 0))")
    c.line(f"wp.tile_store(os, t[{p}:{m}, :])")
    c.line(f"z = wp.tile_zeros(shape=({m}, {n}), dtype=wp.{d})")
    c.line(f"wp.tile_assign(z, wp.tile_view(t, offset=(0, 0), shape=({m - p}, {n - 1})), offset=({p}, 1))")
    c.line("wp.tile_store(oa, z)")
    c.line(f"ii = wp.tile_load(idx, shape={k})")
    c.line(f"wp.tile_store(oi, wp.tile_load_indexed(a, indices=ii, shape=({k}, {n}), axis=0))")
    c.line(f"wp.tile_store(or_, wp.tile_reduce(biggest_{c.name}, t))")
    return (1,)


def loops(c, rng):
    """Tiles carried through a dynamic loop: a K-loop of tile_matmul accumulating into one tile (a
    GEMM by blocks) and a tile recurrence acc = acc * t + sin(t)."""
    m, n, k, steps = _size(rng), _size(rng), _size(rng), int(rng.integers(1, 4))
    bi, bj = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    c.array("a", (bi * m, steps * k)), c.array("b", (steps * k, bj * n)), c.array("x", (steps * n,))
    c.array("oc", (bi * m, bj * n), "out"), c.array("ox", (n,), "out")
    c.line("i, j = wp.tid()")
    c.line(f"acc = wp.tile_zeros(shape=({m}, {n}), dtype=wp.{c.dtype})")
    c.line(f"r = wp.tile_zeros(shape={n}, dtype=wp.{c.dtype})")
    c.line(f"for s in range({steps}):")
    c.line(f"    A = wp.tile_load(a, shape=({m}, {k}), offset=(i * {m}, s * {k}))")
    c.line(f"    B = wp.tile_load(b, shape=({k}, {n}), offset=(s * {k}, j * {n}))")
    c.line("    wp.tile_matmul(A, B, acc)")
    c.line(f"    t = wp.tile_load(x, shape={n}, offset=s * {n})")
    c.line("    r = r * t + wp.tile_map(wp.sin, t)")
    c.line(f"wp.tile_store(oc, acc, offset=(i * {m}, j * {n}))")
    c.line("if i == 0 and j == 0:")
    c.line("    wp.tile_store(ox, r)")
    return (bi, bj)


def vectors(c, rng):
    """Tiles of vec3: tile_map of wp.cross and wp.dot, tile arithmetic with tile_ones, tile_sum."""
    n = _size(rng)
    c.array("v", (n,), dtype="vec3"), c.array("w", (n,), dtype="vec3")
    c.array("oc", (n,), "out", dtype="vec3"), c.array("od", (n,), "out"), c.array("os", (1,), "out", dtype="vec3")
    c.line(f"t = wp.tile_load(v, shape={n})")
    c.line(f"u = wp.tile_load(w, shape={n})")
    c.line(f"wp.tile_store(oc, wp.tile_map(wp.cross, t, u * 2.0 + wp.tile_ones(shape={n}, dtype=wp.vec3)))")
    c.line("wp.tile_store(od, wp.tile_map(wp.dot, t, u))")
    c.line("wp.tile_store(os, wp.tile_sum(t - u))")
    return (1,)


def atomic_previous(c, rng):
    """tile_atomic_add's result, the values before the add (one block: no race); values only, as
    warp_nb refuses to differentiate a kernel that uses it."""
    m, n = _size(rng), _size(rng)
    c.array("a", (m, n)), c.array("acc", (m, n)), c.array("prev", (m, n), "out")
    c.line(f"t = wp.tile_load(a, shape=({m}, {n}))")
    c.line("wp.tile_store(prev, wp.tile_atomic_add(acc, t) * wp.{0}(2.0))".format(c.dtype))
    return (1,)


def forward_only(c, rng):
    """Ops warp-lang does not differentiate (it gives zero gradients where warp_nb gives the true
    ones), values only: tile_from_thread, tile_diag_add, tile_scatter_masked from every lane (its
    warp-lang adjoint credits the first writer of an element, though the last one's value stays)."""
    d, n = c.dtype, _size(rng, 2)
    c.array("a", (64,)), c.array("m", (n, n)), c.array("of", (4,), "out"), c.array("od", (n, n), "out")
    c.array("om", (4,), "out")
    c.line("i, lane = wp.tid()")
    c.line("x = a[lane]")
    c.line("wp.tile_store(of, wp.tile_from_thread(shape=4, value=x, thread_idx=0))")
    c.line(f"M = wp.tile_load(m, shape=({n}, {n}))")
    c.line(f"wp.tile_store(od, wp.tile_diag_add(M, wp.tile_full(shape={n}, value=wp.{d}(2.0), dtype=wp.{d})))")
    c.line(f"t = wp.tile_zeros(shape=4, dtype=wp.{d}, storage='shared')")
    c.line("wp.tile_scatter_masked(t, lane % 4, x, lane % 3 == 0)")
    c.line("wp.tile_store(om, t)")
    return (1,)


#: template: (dtypes it runs with, relative tolerance for float32, whether gradients are compared)
TEMPLATES = {
    load_store: (FLOATS + ("int32",), 1e-5, True), construct: (FLOATS + ("int32",), 1e-5, True),
    elementwise: (FLOATS, 1e-5, True), shape_ops: (FLOATS, 1e-5, True), parts: (FLOATS, 1e-5, True),
    sums: (FLOATS + ("int32",), 1e-5, True), reductions: (FLOATS + ("int32",), 1e-5, False),
    scans: (("float32", "int32"), 1e-5, False), sort: (("float32", "int32"), 1e-5, False),
    matmul: (FLOATS, 1e-4, True), cholesky: (FLOATS, 1e-4, True), solves: (FLOATS, 1e-4, False),
    atomic: (FLOATS + ("int32",), 1e-5, True), astype: (FLOATS, 1e-5, True), block_values: (FLOATS, 1e-5, True),
    more_parts: (FLOATS, 1e-5, True), loops: (FLOATS, 1e-4, True), vectors: (("float32",), 1e-5, True),
    atomic_previous: (FLOATS + ("int32",), 1e-5, False), forward_only: (FLOATS, 1e-5, False),
}


def cases(seed: int, per_template: int = 1):
    """The cases of `seed`: each template `per_template` times for each of its dtypes."""
    rng = np.random.default_rng(seed)
    out, data = [], {}
    for template, (dtypes, tol, backward) in TEMPLATES.items():
        block_dim = int(rng.choice([1, 8, 64]))  # one per template: warp-lang compiles a module per block_dim
        for _ in range(per_template):
            for dtype in dtypes:
                c = _Case(rng, f"{template.__name__}{len(out)}", dtype, tol, backward and dtype != "int32")
                dim = template(c, rng)
                index = len(out)
                case = c.finish(index, dim, block_dim)
                case["group"] = f"{template.__name__}_{dtype}"  # a failure to compile spares the other dtypes
                out.append(case)
                for a in case["arrays"]:
                    data[f"{index}.{a['name']}"] = c.values[a["name"]]
                    if a["role"] == "out" and a["dtype"] != "int32":
                        data[f"{index}.{a['name']}.adj"] = _fill(rng, _value_shape(a["shape"], a["dtype"]), a["dtype"], "normal")
    return out, data
