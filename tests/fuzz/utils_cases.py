"""The work one side of utils_against_warp does, for whichever module it is given as `wp` (warp or
warp_nb): random arrays through every data function of `warp.utils`, each result recorded as plain
numpy arrays under a key (an operation that raised as `key.err`, its class and message).

Every operation draws its random numbers from a generator of its own, seeded by (seed, case, name),
so that one that raises on one side does not shift the numbers the next one draws. Inputs are made
from numpy on both sides alike; what a key holds is described by `key.about`."""

from __future__ import annotations

import numpy as np

from tests.fuzz import sparse_cases
from tests.fuzz.two_sides import hash_str

# name -> (numpy scalar, element shape)
TYPES = {
    "int8": (np.int8, ()), "int32": (np.int32, ()), "uint32": (np.uint32, ()), "int64": (np.int64, ()),
    "uint64": (np.uint64, ()), "float16": (np.float16, ()), "float32": (np.float32, ()),
    "float64": (np.float64, ()), "vec2": (np.float32, (2,)), "vec3": (np.float32, (3,)),
    "vec3d": (np.float64, (3,)), "vec2i": (np.int32, (2,)), "vec3l": (np.int64, (3,)), "vec2h": (np.float16, (2,)),
    "mat22": (np.float32, (2, 2)), "mat33d": (np.float64, (3, 3)), "quat": (np.float32, (4,)),
    "transformd": (np.float64, (7,)), "spatial_vector": (np.float32, (6,)),
}
UNSIGNED_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


class Recorder(sparse_cases.Recorder):
    """sparse_cases' recorder, also keeping the classes an exception is an instance of (`key.mro`):
    warp_nb raises subclasses of Warp's classes in places (ArgumentValueError is a ValueError and
    a RuntimeError), which is no difference."""

    def run(self, key: str, fn):
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - what raised is the result
            self.out[f"{key}.err"] = np.array(f"{type(e).__name__}: {str(e)[:160]}")
            self.out[f"{key}.mro"] = np.array(" ".join(c.__name__ for c in type(e).__mro__))
            return None


def wp_type(wp, name: str):
    if name == "vec3l":
        return wp.types.vector(3, wp.int64)
    return getattr(wp, name)


def pick(rng, seq, p=None):
    return seq[int(rng.choice(len(seq), p=p))]


def draw_size(rng) -> int:
    """0, 1, 2, 3, a small odd size, up to a few hundred, or a few thousand."""
    kind = int(rng.choice(6, p=[0.08, 0.1, 0.07, 0.25, 0.3, 0.2]))
    return (0, 1, int(rng.integers(2, 4)), 2 * int(rng.integers(2, 32)) + 1, int(rng.integers(32, 600)),
            int(rng.integers(1000, 5000)))[kind]


def draw_values(rng, name: str, n: int, mode: str) -> np.ndarray:
    """n elements of type `name` as numpy: "dyadic" (multiples of 1/8 in [-4, 4]: float sums are
    exact whatever their order), "uniform", "dup" (a few distinct values), "big" (integers near
    their type's limits: sums wrap), "special" (floats: +-0, +-inf, NaN, denormals, extremes)."""
    scalar, shape = TYPES[name]
    full = (n, *shape)
    if np.issubdtype(scalar, np.integer):
        info = np.iinfo(scalar)
        if mode == "big":
            v = rng.integers(info.min, info.max, full, dtype=scalar, endpoint=True)
        elif mode == "dup":
            v = rng.integers(max(info.min, -3), 4, full)
        else:
            v = rng.integers(max(info.min, -1000), min(info.max, 1000), full)
        return np.asarray(v).astype(scalar)
    if mode == "dyadic":
        v = rng.integers(-32, 33, full) / 8.0
    elif mode == "dup":
        v = rng.integers(-2, 3, full) / 2.0
    else:
        v = rng.uniform(-1, 1, full) * 10.0 ** rng.integers(-2, 3)
    v = v.astype(scalar)
    if mode == "special" and n:
        info = np.finfo(scalar)
        special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, info.tiny / 4, -info.tiny / 4, info.max,
                            -info.max, info.tiny, 1.0, -1.0], dtype=scalar)
        mask = rng.random(full) < 0.3
        v[mask] = special[rng.integers(0, len(special), int(mask.sum()))]
    return v


def bits(a: np.ndarray) -> np.ndarray:
    """a's elements as unsigned integers of the same width (floats compared to the bit, NaNs too)."""
    a = np.ascontiguousarray(a)
    return a.view(UNSIGNED_BITS[a.dtype.itemsize])


def wp_array(wp, data: np.ndarray, name: str, layout: str = "1d"):
    """data as a warp array of type `name`; layout "1d", "2d" (a (2, n/2) array where n is even)
    or "strided" (every second element of an array twice as long)."""
    dtype = wp_type(wp, name)
    if layout == "strided" and len(data):
        wide = np.repeat(data, 2, axis=0)
        wide[1::2] = 0
        return wp.array(wide, dtype=dtype, device="cpu")[::2]
    if layout == "2d" and len(data) and len(data) % 2 == 0:
        return wp.array(data.reshape(2, len(data) // 2, *data.shape[1:]), dtype=dtype, device="cpu")
    return wp.array(data, dtype=dtype, device="cpu")


class Case:
    """The operations of one case; each records under f"c{case}.{op}"."""

    def __init__(self, rec: Recorder, case: int):
        self.rec, self.wp, self.case = rec, rec.wp, case

    def rng(self, op):
        return self.rec.rng("utils", self.case, op)

    def key(self, op):
        return f"c{self.case}.{op}"

    def about(self, key, text):
        self.rec.out[f"{key}.about"] = np.array(text)

    def save(self, key, value):
        self.rec.out[key] = np.asarray(value)

    # --- array_scan -----------------------------------------------------------------------
    def scan(self):
        wp, rng, key = self.wp, self.rng("scan"), self.key("scan")
        name = pick(rng, ["int32", "int64", "float32", "float64", "vec3", "vec3d", "vec2i", "vec3l", "mat22",
                          "uint32", "float16", "int8", "quat", "spatial_vector"],
                    p=[.14, .12, .14, .12, .08, .05, .06, .04, .05, .05, .05, .04, .03, .03])
        n = draw_size(rng)
        mode = pick(rng, ["dyadic", "uniform", "big"] if "int" in name else ["dyadic", "uniform", "special"],
                    p=[0.5, 0.35, 0.15])
        inclusive = bool(rng.integers(2))
        layout = pick(rng, ["1d", "2d", "strided"], p=[0.7, 0.15, 0.15])
        mismatch = pick(rng, ["none", "dtype", "size", "flat_out"], p=[0.85, 0.05, 0.05, 0.05])
        x = draw_values(rng, name, n, mode)
        self.about(key, f"{name} n={n} mode={mode} inclusive={inclusive} layout={layout} mismatch={mismatch}")
        self.save(key + ".input", x)

        def run():
            a = wp_array(wp, x, name, layout)
            out_name = {"dtype": "float64" if name != "float64" else "float32"}.get(mismatch, name)
            shape = (n + 1,) if mismatch == "size" else (n,) if mismatch == "flat_out" else a.shape
            out = wp.zeros(shape, dtype=wp_type(wp, out_name), device="cpu")
            wp.utils.array_scan(a, out, inclusive=inclusive)
            self.save(key, out.numpy().reshape(n, *TYPES[name][1]))
        self.rec.run(key, run)

    # --- radix_sort_pairs -----------------------------------------------------------------
    def radix(self):
        wp, rng, key = self.wp, self.rng("radix"), self.key("radix")
        kname = pick(rng, ["int32", "uint32", "float32", "int64", "uint64", "float64", "int8", "float16"],
                     p=[.2, .1, .2, .15, .1, .15, .05, .05])
        vname = pick(rng, ["int32", "uint32", "float32", "int64", "uint64", "float64", "vec2", "int8"],
                     p=[.4, .1, .1, .15, .05, .1, .05, .05])
        count = draw_size(rng)
        mode = pick(rng, ["full", "dup", "special"] if "float" in kname else ["full", "dup", "big"], p=[.4, .3, .3])
        capacity = 2 * count + int(rng.integers(0, 4)) * int(rng.random() < 0.5)
        layout = pick(rng, ["1d", "2d"], p=[.9, .1])  # a contiguous 2-d array is sorted as its storage
        if rng.random() < 0.03:
            count = -int(rng.integers(1, 3))
        if count and rng.random() < 0.07:
            capacity = 2 * count - 1
        bit_range = None
        width = 8 * np.dtype(TYPES[kname][0]).itemsize
        r = rng.random()
        if r < 0.15:
            b = int(rng.integers(0, width + 1))
            bit_range = (b, int(rng.integers(b, width + 1)))
        elif r < 0.18:
            bit_range = (int(rng.integers(0, width)), int(rng.integers(width + 1, width + 9)))
        capacity = max(capacity, 0)
        keys = draw_values(rng, kname, capacity, "uniform" if mode == "full" else mode)
        if mode == "full" and np.issubdtype(TYPES[kname][0], np.integer):
            keys = draw_values(rng, kname, capacity, "big")
        vals = (np.arange(capacity) % 100000).astype(TYPES[vname][0]) if vname != "vec2" else \
            np.stack([np.arange(capacity), -np.arange(capacity)], axis=1).astype(np.float32)
        self.about(key, f"keys {kname} values {vname} count={count} capacity={capacity} mode={mode} "
                        f"bits={bit_range} layout={layout}")
        self.save(key + ".input", keys[:max(count, 0)])

        def run():
            k, v = wp_array(wp, keys, kname, layout), wp_array(wp, vals, vname)
            extra = {} if bit_range is None else {"begin_bit": bit_range[0], "end_bit": bit_range[1]}
            wp.utils.radix_sort_pairs(k, v, count, **extra)
            kn, vn = k.numpy().reshape(capacity), v.numpy()
            c = max(count, 0)
            self.save(key + ".keys", bits(kn[:c]))
            self.save(key + ".values", bits(vn[:c]))
            self.save(key + ".tail", np.concatenate([bits(kn[2 * c:]), bits(vn[2 * c:]).reshape(-1)
                                                     .astype(bits(kn).dtype)]))
        self.rec.run(key, run)

    # --- segmented_sort_pairs -------------------------------------------------------------
    def segmented(self):
        wp, rng, key = self.wp, self.rng("segmented"), self.key("segmented")
        kname = pick(rng, ["int32", "float32", "int64", "uint32"], p=[.45, .45, .05, .05])
        vname = pick(rng, ["int32", "float32"], p=[.93, .07])
        count = draw_size(rng)
        mode = pick(rng, ["dup", "uniform", "signed_zero", "special"], p=[.35, .3, .2, .15])
        keys = draw_values(rng, kname, 2 * count + 2, "uniform" if mode == "signed_zero" else mode)
        if mode == "signed_zero" and kname.startswith("float"):
            keys[rng.random(len(keys)) < 0.5] = 0.0
            keys[rng.random(len(keys)) < 0.3] = -0.0
        vals = np.arange(2 * count + 2).astype(TYPES[vname][0])
        form = pick(rng, ["offsets", "start_end"], p=[.5, .5])
        nseg = int(rng.integers(0, min(count, 40) + 2))
        cuts = np.sort(rng.integers(0, count + 1, 2 * nseg)).astype(np.int32)
        if form == "offsets":
            starts = np.concatenate([[0], np.sort(rng.integers(0, count + 1, nseg)), [count]]).astype(np.int32)
            ends = None
            if rng.random() < 0.5 and len(starts) > 2:  # not covering everything
                starts = starts[1:-1]
        else:
            starts, ends = cuts[0::2].copy(), cuts[1::2].copy()  # disjoint, with gaps and empty segments
            order = rng.permutation(nseg)
            starts, ends = starts[order], ends[order]
        bad = "none"
        if nseg and rng.random() < 0.1:
            i = int(rng.integers(0, len(starts)))
            bad = pick(rng, ["negative", "past_count", "reversed"])
            target = starts if ends is None or bad != "past_count" else ends
            if bad == "negative":
                starts[i] = -1
            elif bad == "past_count":
                target[i] = count + 1
            elif ends is not None:
                starts[i], ends[i] = ends[i] + 1, starts[i]
            else:
                starts[i] = count + 1
        layout = pick(rng, ["1d", "2d"], p=[.9, .1])  # a contiguous 2-d array is sorted as its storage
        self.about(key, f"keys {kname} values {vname} count={count} mode={mode} form={form} segments={nseg} "
                        f"bad={bad} layout={layout}")
        self.save(key + ".input", keys[:count])

        def run():
            k, v = wp_array(wp, keys, kname, layout), wp_array(wp, vals, vname)
            s = wp.array(starts, dtype=wp.int32, device="cpu")
            e = None if ends is None else wp.array(ends, dtype=wp.int32, device="cpu")
            wp.utils.segmented_sort_pairs(k, v, count, s, e)
            kn, vn = k.numpy().reshape(-1), v.numpy()
            self.save(key + ".keys", bits(kn[:count]))
            self.save(key + ".values", bits(vn[:count]))
            self.save(key + ".tail", np.concatenate([bits(kn[2 * count:]), bits(vn[2 * count:])]))
        self.rec.run(key, run)

    # --- runlength_encode -----------------------------------------------------------------
    def runlength(self):
        wp, rng, key = self.wp, self.rng("runlength"), self.key("runlength")
        name = pick(rng, ["int32", "int64", "float32"], p=[.9, .05, .05])
        n = draw_size(rng)
        runs = rng.geometric(pick(rng, [0.9, 0.5, 0.1]), n)
        x = np.repeat(rng.integers(-3, 4, n), runs)[:n].astype(TYPES[name][0])
        vc = None
        r = rng.random()
        if r < 0.35:
            vc = int(rng.integers(0, n + 1))
        elif r < 0.4:
            vc = pick(rng, [-1, n + 1])
        outs = vc if vc is not None and 0 <= vc <= n and rng.random() < 0.5 else n
        outs += int(rng.integers(0, 3))
        if outs and rng.random() < 0.05:
            outs -= 1 + int(vc is None or vc >= outs)
        with_count = bool(rng.integers(2))
        vals_name = name if rng.random() < 0.95 else "float64"
        layout = pick(rng, ["1d", "2d", "strided"], p=[.8, .1, .1])
        self.about(key, f"values {name} n={n} value_count={vc} out size={outs} run_count={with_count} "
                        f"run_values {vals_name} layout={layout}")
        if vc is None or 0 <= vc <= n:  # what the encoding should be (the outputs' other slots keep their 77)
            m = n if vc is None else vc
            starts = np.flatnonzero(np.concatenate([[True], x[1:m] != x[:m - 1]])) if m else np.zeros(0, int)
            ref_values, ref_lengths = np.full(max(outs, 0), 77), np.full(max(outs, 0), 77)
            ref_values[:len(starts)], ref_lengths[:len(starts)] = x[starts], np.diff(np.append(starts, m))
            self.save(key + ".count.ref", len(starts))
            self.save(key + ".run_values.ref", ref_values)
            self.save(key + ".run_lengths.ref", ref_lengths)

        def run():
            v = wp_array(wp, x, name, layout)
            rv = wp.array(np.full(max(outs, 0), 77), dtype=wp_type(wp, vals_name), device="cpu")
            rl = wp.array(np.full(max(outs, 0), 77), dtype=wp.int32, device="cpu")
            rc = wp.array([77], dtype=wp.int32, device="cpu") if with_count else None
            ret = wp.utils.runlength_encode(v, rv, rl, run_count=rc, value_count=vc)
            kind = "int" if isinstance(ret, int) else "array" if isinstance(ret, wp.array) else type(ret).__name__
            self.save(key + ".returns", kind)
            count = int(ret) if rc is None else int(rc.numpy()[0])
            self.save(key + ".count", count)
            if kind == "array":
                self.save(key + ".returned_is_run_count", ret is rc)
            self.save(key + ".run_values", rv.numpy())
            self.save(key + ".run_lengths", rl.numpy())
        self.rec.run(key, run)

    # --- array_sum and array_inner --------------------------------------------------------
    def reduce(self, op: str):
        wp, rng, key = self.wp, self.rng(op), self.key(op)
        name = pick(rng, ["float32", "float64", "vec3", "vec3d", "mat22", "mat33d", "quat", "transformd", "float16",
                          "int32", "vec2h"], p=[.24, .19, .11, .07, .08, .06, .03, .03, .07, .06, .06])
        ndim = int(rng.integers(1, 5))
        total = draw_size(rng)
        shape = [1] * ndim
        for _ in range(int(np.log2(total + 1)) + 1):
            shape[int(rng.integers(0, ndim))] *= 2
        shape = [min(s, int(rng.integers(1, 3000))) if s > 1 else int(rng.integers(0, 4)) for s in shape]
        while np.prod(shape) > 6000:
            shape[int(np.argmax(shape))] //= 2
        size = int(np.prod(shape))
        axis = None if rng.random() < 0.5 else int(rng.integers(-ndim, ndim))
        if rng.random() < 0.03:
            axis = pick(rng, [ndim, -ndim - 1])
        count = None
        if rng.random() < 0.3:
            limit = size if axis is None else shape[axis % ndim] if -ndim <= axis < ndim else 1
            r = rng.random()
            count = int(rng.integers(0, limit + 1)) if r < 0.85 else limit + int(rng.integers(1, 4)) if r < 0.95 \
                else -int(rng.integers(1, 3))
        with_out = pick(rng, ["none", "right", "wrong_shape", "wrong_dtype"], p=[.55, .35, .05, .05])
        strided = size > 0 and shape[0] > 1 and rng.random() < 0.2  # (warp-lang cannot slice an empty array)
        mode = pick(rng, ["dyadic", "uniform", "special"], p=[.5, .45, .05])
        scalar, inner = TYPES[name]
        full = [2 * shape[0] if strided else shape[0], *shape[1:]]
        x = draw_values(rng, name, int(np.prod(full)), mode).reshape(*full, *inner)
        y = draw_values(rng, name, int(np.prod(full)), mode).reshape(*full, *inner)
        other_shape = op == "inner" and rng.random() < 0.04
        other_dtype = op == "inner" and rng.random() < 0.04
        self.about(key, f"{name} shape={'x'.join(map(str, shape))} axis={axis} count={count} out={with_out} "
                        f"strided={strided} mode={mode} other_shape={other_shape} other_dtype={other_dtype}")
        sel = x[::2] if strided else x
        with np.errstate(invalid="ignore", over="ignore"):  # the scale of the finite terms (infs and NaNs agree)
            terms = np.abs(sel.astype(np.float64) * (1 if op == "sum" else (y[::2] if strided else y)))
            self.save(key + ".scale", np.where(np.isfinite(terms), terms, 0.0).sum())
        self.save(key + ".count_n", size)
        self.save(key + ".eps", np.finfo(scalar).eps if np.issubdtype(scalar, np.floating) else 0.0)
        if -ndim <= (axis or 0) < ndim:
                self.save(key + ".ref", reduce_reference(op, sel, y[::2] if strided else y, ndim, axis, count))

        def run():
            dtype = wp_type(wp, name)
            a = wp.array(x, dtype=dtype, device="cpu")
            a = a[::2] if strided else a
            result_dtype = dtype if op == "sum" else wp_type(wp, np.dtype(scalar).name)
            out_shape = (1,) if axis is None else tuple(1 if d == axis % ndim else s for d, s in enumerate(shape))
            out = None
            if with_out != "none":
                if with_out == "wrong_shape":
                    out_shape = (*out_shape, 2)
                if with_out == "wrong_dtype":
                    result_dtype = wp.float64 if scalar is not np.float64 else wp.float32
                out = wp.zeros(out_shape, dtype=result_dtype, device="cpu")
            if op == "sum":
                ret = wp.utils.array_sum(a, out=out, value_count=count, axis=axis)
            else:
                b = wp.array(y, dtype=dtype, device="cpu")
                if other_dtype:  # the same shape, another scalar type
                    b = wp.zeros(b.shape, dtype=wp.float64 if scalar is not np.float64 else wp.float32, device="cpu")
                b = b[::2] if strided else b
                if other_shape:
                    b = wp.zeros((*b.shape, 1) if b.ndim < 4 else b.shape[:-1], dtype=b.dtype, device="cpu")
                ret = wp.utils.array_inner(a, b, out=out, count=count, axis=axis)
            self.save(key + ".returns", describe(wp, ret, out))
            value = ret.numpy() if isinstance(ret, wp.array) else np.asarray(ret)
            self.save(key, value.astype(np.float64))
        self.rec.run(key, run)

    # --- array_cast -----------------------------------------------------------------------
    def cast(self):
        wp, rng, key = self.wp, self.rng("cast"), self.key("cast")
        pairs = [("int32", "float32"), ("float32", "int32"), ("float64", "float32"), ("float32", "float64"),
                 ("int64", "float64"), ("float64", "int64"), ("int32", "int64"), ("int64", "int32"),
                 ("float32", "float16"), ("float16", "float64"), ("uint32", "float32"), ("int8", "int32"),
                 ("vec3", "vec3d"), ("vec3d", "vec3"), ("vec2i", "vec2"), ("vec2", "float32"), ("float32", "vec2"),
                 ("mat22", "vec2"), ("float64", "float64"), ("vec3", "vec3"), ("int32", "int32"), ("float32", "mat22")]
        src, dst = pairs[int(rng.integers(0, len(pairs)))]
        n = draw_size(rng)
        layout = pick(rng, ["1d", "2d", "2d_to_1d", "1d_to_2d", "2d_other", "strided_in", "strided_out"],
                      p=[.5, .12, .08, .08, .06, .08, .08])
        count = None if rng.random() < 0.6 else int(rng.integers(0, n + 3)) if rng.random() < 0.95 else -1
        out_n = n if rng.random() < 0.8 else int(rng.integers(0, 2 * n + 2))
        sscalar, sinner = TYPES[src]
        dscalar, dinner = TYPES[dst]
        x = draw_values(rng, src, n, "uniform")
        if np.issubdtype(sscalar, np.integer):
            x = draw_values(rng, src, n, "big")
        if np.issubdtype(dscalar, np.integer):  # a float out of the integer's range is undefined in C
            x = np.clip(x, -2**31 + 1, 2**31 - 1)
            if not np.issubdtype(sscalar, np.integer):
                x = (x * 1000).astype(sscalar)
        if dscalar is np.float16:
            x = np.clip(x, -6e4, 6e4)
        self.about(key, f"{src} -> {dst} n={n} out n={out_n} count={count} layout={layout}")

        def run():
            a = wp_array(wp, x, src, "2d" if layout.startswith("2d") else "strided" if layout == "strided_in" else "1d")
            m = out_n * int(np.prod(sinner or (1,))) // int(np.prod(dinner or (1,)))  # elements of dst
            shape = (m,)
            if layout == "2d" and out_n == n:
                shape = a.shape
            elif layout == "1d_to_2d" and m % 2 == 0 and m:
                shape = (2, m // 2)
            elif layout == "2d_other" and a.ndim == 2:
                shape = a.shape[::-1]
            if layout == "strided_out" and shape[0]:
                out = wp.zeros((2 * shape[0], *shape[1:]), dtype=wp_type(wp, dst), device="cpu")[::2]
            else:
                out = wp.zeros(shape, dtype=wp_type(wp, dst), device="cpu")
            wp.utils.array_cast(a, out, count=count)
            self.save(key, bits(out.numpy()))
        self.rec.run(key, run)

    # --- graph coloring -------------------------------------------------------------------
    def coloring(self):
        wp, rng, key = self.wp, self.rng("coloring"), self.key("coloring")
        nodes = int(rng.integers(1, 120))
        m = int(rng.integers(0, 3 * nodes))
        edges = rng.integers(0, nodes, (m, 2)).astype(np.int32)
        edges = edges[edges[:, 0] != edges[:, 1]]
        self.about(key, f"nodes={nodes} edges={len(edges)}")
        e = wp.array(edges, dtype=wp.int32, device="cpu") if len(edges) else wp.zeros((0, 2), dtype=wp.int32,
                                                                                       device="cpu")
        for algo in ("MCS", "GREEDY"):
            def assign(algo=algo):
                colors = wp.zeros(nodes, dtype=wp.int32, device="cpu")
                n = wp.utils.graph_coloring_assign(e, colors, getattr(wp.utils.GraphColoringAlgorithm, algo))
                c = colors.numpy()
                valid = bool(np.all(c[edges[:, 0]] != c[edges[:, 1]])) and c.min() >= 0 and c.max() < n
                self.save(f"{key}.{algo}.valid", valid)
                self.save(f"{key}.{algo}.colors", c)
                self.save(f"{key}.{algo}.color_count", n)
            self.rec.run(f"{key}.{algo}", assign)
        base = greedy_colors(nodes, edges)
        count = int(base.max()) + 1
        target = float(pick(rng, [1.0, 1.05, 1.2, 1.5, 2.0]))

        def balance():
            colors = wp.array(base, dtype=wp.int32, device="cpu")
            ratio = wp.utils.graph_coloring_balance(e, colors, count, target)
            self.save(f"{key}.balance.colors", colors.numpy())
            self.save(f"{key}.balance.ratio", float(ratio))
            for as_wp in (False, True):
                groups = wp.utils.graph_coloring_get_groups(colors, count, return_wp_array=as_wp)
                flat = [g.numpy() if as_wp else g for g in groups]
                self.save(f"{key}.balance.groups{int(as_wp)}",
                          np.concatenate([[len(g) for g in flat], *flat]).astype(np.int64))
        self.rec.run(f"{key}.balance", balance)


def reduce_reference(op: str, x: np.ndarray, y: np.ndarray, ndim: int, axis, count) -> np.ndarray:
    """What array_sum / array_inner should give, in float64: the first `count` elements in
    row-major order (along `axis` if given; none for a negative count)."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    if op == "inner":  # the products, summed over each element's components
        x = (x * y).reshape(*x.shape[:ndim], int(np.prod(x.shape[ndim:]))).sum(axis=-1)
    if axis is None:
        size = int(np.prod(x.shape[:ndim]))
        n = size if count is None else max(0, min(count, size))
        return x.reshape(size, *x.shape[ndim:])[:n].sum(axis=0)
    axis %= ndim
    n = x.shape[axis] if count is None else max(0, min(count, x.shape[axis]))
    return np.take(x, range(n), axis=axis).sum(axis=axis, keepdims=True)


def describe(wp, ret, out) -> str:
    """What a reduction returned: "out" (the array passed), "array" (a new one), or a Python /
    numpy type's name and shape."""
    if out is not None and ret is out:
        return "out"
    if isinstance(ret, wp.array):
        return f"array{tuple(ret.shape)}"
    return f"{type(ret).__module__}.{type(ret).__name__}{np.shape(ret)}"


def greedy_colors(nodes: int, edges: np.ndarray) -> np.ndarray:
    """A valid coloring, smallest free color in node order (the same on both sides)."""
    neighbours = [[] for _ in range(nodes)]
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    colors = np.full(nodes, -1, dtype=np.int32)
    for v in range(nodes):
        used = {colors[u] for u in neighbours[v]}
        colors[v] = next(c for c in range(nodes + 1) if c not in used)
    return colors


OPERATIONS = ("scan", "radix", "segmented", "runlength", "sum", "inner", "cast", "coloring")


def run_case(rec: Recorder, case: int, only=None) -> None:
    c = Case(rec, case)
    for op in only or OPERATIONS:
        if op in ("sum", "inner"):
            c.reduce(op)
        else:
            getattr(c, op)()


__all__ = ["OPERATIONS", "Recorder", "hash_str", "run_case"]
