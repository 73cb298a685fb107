"""The operations of arrays_against_warp's cases (array_cases.py): each way of making an array
(`make`) and each Python-scope step on the current array (`OPS`), run on one side and recorded with
ctx.rec. A step writes what it did under `<key>.what`, its results under `<key>.*`."""

from __future__ import annotations

import numpy as np

from tests.fuzz.array_cases import Ctx, Kind, as_tuples, draw_values, one_value, other_kind_name

# --- making the first array -----------------------------------------------------------------

MAKERS = ("numpy", "numpy_nodtype", "numpy_cast", "numpy_strided", "list", "tuple", "objects", "scalar", "shape_kw",
          "shape_wrong", "inner_rows", "zeros", "ones", "full", "full_infer", "empty", "from_numpy",
          "from_numpy_nodtype", "ptr", "like", "requires_grad", "no_copy")


def make(ctx: Ctx, key: str, rng, shape: tuple):
    wp, kind, rec = ctx.wp, ctx.kind, ctx.rec
    how = str(rng.choice(MAKERS))
    data = ctx.data(rng, shape)
    T = kind.t

    def shape_arg():  # a 1-d shape as a bare int one time in two
        return shape[0] if len(shape) == 1 and rng.random() < 0.5 else shape

    if how == "numpy":
        rec.note(key, f"wp.array(np {data.dtype}{data.shape}, dtype={kind.name})")
        fn = lambda: wp.array(data, dtype=T)
    elif how == "numpy_nodtype":
        rec.note(key, f"wp.array(np {data.dtype}{data.shape})")
        fn = lambda: wp.array(data)
    elif how == "numpy_cast":  # another numpy type holding the same values, or values out of range
        other = str(rng.choice(["float64", "float32", "int64", "int32", "uint8", "bool", "float16"]))
        src = data.astype(other)
        rec.note(key, f"wp.array(np {other}{src.shape}, dtype={kind.name})")
        fn = lambda: wp.array(src, dtype=T)
    elif how == "numpy_strided":  # a numpy view: every other row, or a transposed layout
        if rng.random() < 0.5:
            big = ctx.data(rng, (shape[0] * 2,) + shape[1:])
            src, what = big[::2], "rows ::2"
        else:
            src = np.ascontiguousarray(np.swapaxes(data, 0, -1))
            src, what = np.swapaxes(src, 0, -1), "swapped axes"
        rec.note(key, f"wp.array(np {src.dtype}{src.shape} ({what}, strides {src.strides}), dtype={kind.name})")
        fn = lambda: wp.array(src, dtype=T)
    elif how in ("list", "tuple"):
        src = data.tolist() if how == "list" else as_tuples(data.tolist())
        with_dtype = rng.random() < 0.8
        rec.note(key, f"wp.array(nested {how} {data.shape}{', dtype=' + kind.name if with_dtype else ''})")
        fn = (lambda: wp.array(src, dtype=T)) if with_dtype else (lambda: wp.array(src))
    elif how == "objects":  # a list of vector / matrix objects (or of wp scalars)
        flat = data.reshape((-1,) + kind.inner)
        objs = [T(*v.reshape(-1).tolist()) if kind.composite else T(v.item()) for v in flat]
        with_dtype = rng.random() < 0.7
        rec.note(key, f"wp.array([{len(objs)} {kind.name} objects]{', dtype=' + kind.name if with_dtype else ''})")
        fn = (lambda: wp.array(objs, dtype=T)) if with_dtype else (lambda: wp.array(objs))
    elif how == "scalar":
        value = one_value(wp, kind, rng)
        rec.note(key, f"wp.array({value!r}, dtype={kind.name})")
        fn = lambda: wp.array(value, dtype=T)
    elif how in ("shape_kw", "shape_wrong"):
        flat = data.reshape(-1)
        if how == "shape_wrong":
            flat = np.concatenate([flat, flat[:1]]) if rng.random() < 0.5 or not flat.size else flat[:-1]
        rec.note(key, f"wp.array(flat np {flat.shape}, dtype={kind.name}, shape={shape})")
        fn = lambda: wp.array(flat, dtype=T, shape=shape)
    elif how == "inner_rows":  # data whose last dimension is not the element's
        rows = int(rng.integers(1, 10))
        src = draw_values(rng, kind.scalar, shape[:1] + (rows,))
        rec.note(key, f"wp.array(np {src.shape}, dtype={kind.name})")
        fn = lambda: wp.array(src, dtype=T)
    elif how == "zeros":
        s = shape_arg()
        rec.note(key, f"wp.zeros({s}, dtype={kind.name})")
        fn = lambda: wp.zeros(s, dtype=T)
    elif how == "ones":
        s = shape_arg()
        rec.note(key, f"wp.ones({s}, dtype={kind.name})")
        fn = lambda: wp.ones(s, dtype=T)
    elif how == "full":
        value, s = one_value(wp, kind, rng), shape_arg()
        rec.note(key, f"wp.full({s}, {value!r}, dtype={kind.name})")
        fn = lambda: wp.full(s, value, dtype=T)
    elif how == "full_infer":
        value, s = one_value(wp, kind, rng), shape_arg()
        rec.note(key, f"wp.full({s}, {value!r}) (no dtype)")
        fn = lambda: wp.full(s, value)
    elif how == "empty":
        rec.note(key, f"wp.empty({shape}, dtype={kind.name})")
        rec.value(key, rec.run(key, lambda: wp.empty(shape, dtype=T)), values=False)
        return None
    elif how in ("from_numpy", "from_numpy_nodtype"):
        src = data if rng.random() < 0.7 else data.astype(np.float64)
        give_shape = rng.random() < 0.3
        if how == "from_numpy":
            rec.note(key, f"wp.from_numpy(np {src.dtype}{src.shape}, dtype={kind.name}"
                          f"{', shape=' + str(shape) if give_shape else ''})")
            fn = (lambda: wp.from_numpy(src, dtype=T, shape=shape)) if give_shape else \
                (lambda: wp.from_numpy(src, dtype=T))
        else:
            rec.note(key, f"wp.from_numpy(np {src.dtype}{src.shape}{', shape=' + str(shape) if give_shape else ''})")
            fn = (lambda: wp.from_numpy(src, shape=shape)) if give_shape else (lambda: wp.from_numpy(src))
    elif how == "ptr":  # memory of a numpy array, viewed
        src = np.ascontiguousarray(data.astype(kind.np))
        ctx.keep.append(src)
        rec.note(key, f"wp.array(ptr=<np {src.shape}>, shape={shape}, dtype={kind.name}, device='cpu')")
        fn = lambda: wp.array(ptr=src.ctypes.data, shape=shape, dtype=T, device="cpu")
    elif how == "like":
        which = str(rng.choice(["zeros_like", "ones_like", "full_like", "clone", "empty_like"]))
        base = rec.run(f"{key}.base", lambda: wp.array(data, dtype=T))
        if base is None:
            return None
        value = one_value(wp, kind, rng)
        rec.note(key, f"wp.{which}(wp.array(np {data.shape}, dtype={kind.name}){', ' + repr(value) if which == 'full_like' else ''})")
        fns = {"zeros_like": lambda: wp.zeros_like(base), "ones_like": lambda: wp.ones_like(base),
               "full_like": lambda: wp.full_like(base, value), "clone": lambda: wp.clone(base),
               "empty_like": lambda: wp.empty_like(base)}
        out = rec.run(key, fns[which])
        rec.value(key, out, values=which != "empty_like")
        return None if which == "empty_like" else out
    elif how == "requires_grad":
        rec.note(key, f"wp.array(np {data.shape}, dtype={kind.name}, requires_grad=True)")
        out = rec.run(key, lambda: wp.array(data, dtype=T, requires_grad=True))
        rec.value(key, out)
        if out is not None:
            rec.value(f"{key}.grad", out.grad)
        return out
    else:  # no_copy: copy=False shares numpy memory where it can
        src = data if rng.random() < 0.7 else data.astype(np.float64)
        rec.note(key, f"wp.array(np {src.dtype}{src.shape}, dtype={kind.name}, copy=False); then np[...] written")
        out = rec.run(key, lambda: wp.array(src, dtype=T, copy=False))
        rec.value(key, out)
        if out is not None and src.size:
            src.reshape(-1)[0] = 1
            rec.value(f"{key}.after_np_write", out)
        return out
    out = rec.run(key, fn)
    rec.value(key, out)
    return out


# --- steps on the current array -------------------------------------------------------------


def draw_index(rng, shape) -> tuple:
    """A random key: per dimension an int (possibly negative or out of range) or a slice (steps of
    both signs, ends past either side), sometimes fewer parts than dimensions, an Ellipsis or None."""
    parts = []
    count = int(rng.integers(1, len(shape) + 1))
    if rng.random() < 0.05:
        count = len(shape) + 1
    if rng.random() < 0.5 and 0 not in shape and count <= len(shape):  # one warp-lang takes too (warp_takes)
        for n in shape[:count]:
            if rng.random() < 0.3:
                parts.append(int(rng.integers(-n, n)))
                continue
            start = int(rng.integers(0, n))
            stop = int(rng.integers(start, n + 1))
            step = rng.choice([None, 1, 2, 3])
            parts.append(slice(start - n if start and rng.random() < 0.3 else start if rng.random() < 0.8 else None
                               if start == 0 else start, stop - n if stop < n and rng.random() < 0.3 else stop,
                               None if step is None else int(step)))
        return tuple(parts) if len(parts) > 1 or rng.random() < 0.5 else parts[0]
    for axis in range(count):
        n = shape[axis] if axis < len(shape) else 1
        r = rng.random()
        if r < 0.3:
            i = int(rng.integers(-n, n)) if n else 0
            if rng.random() < 0.08:
                i = n + int(rng.integers(0, 3)) if rng.random() < 0.5 else -n - 1
            parts.append(i)
        elif r < 0.96:
            def end(n=n):
                return None if rng.random() < 0.3 else int(rng.integers(-n - 2, n + 3))
            step = rng.choice([None, 1, 2, 3, -1, -2], p=[0.4, 0.2, 0.2, 0.08, 0.08, 0.04])
            parts.append(slice(end(), end(), None if step is None else int(step)))
        elif r < 0.98:
            parts.append(Ellipsis)
        else:
            parts.append(None)
    return tuple(parts) if len(parts) > 1 or rng.random() < 0.5 else parts[0]


def op_props(ctx: Ctx, key, rng):
    rec, a = ctx.rec, ctx.cur
    rec.note(key, "shape, strides, len(), dtype, ...")
    rec.value(key, a)
    rec.out[f"{key}.len"] = np.array(str(rec.run(f"{key}.len", lambda: len(a))))


def warp_takes(k, shape) -> bool:
    """Whether warp-lang 1.19 takes the key: ints in range, and slices with a positive step whose
    start and stop (negative ones counted from the end) satisfy 0 <= start < n and start <= stop <= n;
    a dimension left out is a full slice, so it must not be empty. (It refuses other slices, and gets
    some with negative steps wrong; warp_nb follows Python's rules, docs/compat.md.)"""
    parts = k if isinstance(k, tuple) else (k,)
    if len(parts) > len(shape):
        return False
    for axis, n in enumerate(shape):
        p = parts[axis] if axis < len(parts) else slice(None)
        if isinstance(p, int):
            if not -n <= p < n:
                return False
        elif isinstance(p, slice):
            start = 0 if p.start is None else p.start + (n if p.start < 0 else 0)
            stop = n if p.stop is None else p.stop + (n if p.stop < 0 else 0)
            if (p.step or 1) < 0 or not (0 <= start < n and start <= stop <= n):
                return False
        else:
            return False
    return True


def op_index(ctx: Ctx, key, rng):
    """a[key]; the view becomes the current array only where Warp takes the key (so that the sides
    go on from the same array), and each side says whether its result is numpy's for the key."""
    rec, a = ctx.rec, ctx.cur
    k = draw_index(rng, a.shape)
    rec.note(key, f"a[{k!r}]")
    out = rec.run(key, lambda: a[k])
    rec.value(key, out)
    parts = k if isinstance(k, tuple) else (k,)
    if isinstance(out, ctx.wp.array) and all(isinstance(p, (int, slice)) for p in parts):
        expect = a.numpy()[k]
        got = out.numpy()
        rec.out[f"{key}.numpy_agrees"] = np.array(got.shape == expect.shape and got.tobytes() == expect.tobytes())
    if warp_takes(k, a.shape):
        ctx.adopt(rng, out)


def random_factors(rng, size: int) -> tuple:
    """A shape of 1 to 4 dimensions whose product is `size`."""
    ndim = int(rng.integers(1, 5))
    dims = [1] * ndim
    rest = size
    if size == 0:
        dims = [int(v) for v in rng.integers(0, 4, ndim)]
        dims[int(rng.integers(ndim))] = 0
        return tuple(dims)
    for p in (2, 3, 5, 7):
        while rest % p == 0:
            dims[int(rng.integers(ndim))] *= p
            rest //= p
    dims[int(rng.integers(ndim))] *= rest
    return tuple(dims)


def op_reshape(ctx: Ctx, key, rng):
    a = ctx.cur
    shape = list(random_factors(rng, a.size))
    if rng.random() < 0.3 and a.size:
        shape[int(rng.integers(len(shape)))] = -1
    if rng.random() < 0.08:
        shape[0] += 1  # does not fit
    arg = shape[0] if len(shape) == 1 and rng.random() < 0.4 else tuple(shape)
    ctx.rec.note(key, f"a.reshape({arg})")
    out = ctx.rec.run(key, lambda: a.reshape(arg))
    ctx.rec.value(key, out)
    ctx.adopt(rng, out)


def op_view(ctx: Ctx, key, rng):
    name = other_kind_name(rng, ctx.kind, same_size=rng.random() < 0.5)
    ctx.rec.note(key, f"a.view({name})")
    out = ctx.rec.run(key, lambda: ctx.cur.view(getattr(ctx.wp, name)))
    ctx.rec.value(key, out)
    if isinstance(out, ctx.wp.array) and rng.random() < 0.5:  # carry on with the new dtype
        ctx.cur, ctx.kind = out, Kind(ctx.wp, name)


def op_transpose(ctx: Ctx, key, rng):
    a = ctx.cur
    r = rng.random()
    axes = None if r < 0.4 else list(rng.permutation(a.ndim).tolist())
    if r > 0.93 and axes:
        axes = axes[:-1] if rng.random() < 0.5 else axes + [0]
    ctx.rec.note(key, f"a.transpose({axes}) (and whether it is a)")
    out = ctx.rec.run(key, (lambda: a.transpose()) if axes is None else (lambda: a.transpose(axes)))
    ctx.rec.value(key, out)
    ctx.rec.out[f"{key}.same"] = np.array(out is a)
    ctx.adopt(rng, out)


def op_flatten(ctx: Ctx, key, rng):
    ctx.rec.note(key, "a.flatten() (and whether it is a)")
    out = ctx.rec.run(key, lambda: ctx.cur.flatten())
    ctx.rec.value(key, out)
    ctx.rec.out[f"{key}.same"] = np.array(out is ctx.cur)
    ctx.adopt(rng, out)


def op_contiguous(ctx: Ctx, key, rng):
    ctx.rec.note(key, "a.contiguous() (and whether it is a)")
    out = ctx.rec.run(key, lambda: ctx.cur.contiguous())
    ctx.rec.value(key, out)
    ctx.rec.out[f"{key}.same"] = np.array(out is ctx.cur)
    ctx.adopt(rng, out)


def op_numpy(ctx: Ctx, key, rng):
    """a.numpy(), and a write into it: seen by the array when numpy() is a view, as Warp's on the CPU."""
    rec, a = ctx.rec, ctx.cur
    rec.note(key, "a.numpy(); its first value written; root.numpy()")
    x = rec.run(key, lambda: a.numpy())
    if x is None:
        return
    rec.value(key, x)
    rec.out[f"{key}.npdtype"] = np.array(str(x.dtype))
    if x.size:
        rec.run(f"{key}.write", lambda: x.__setitem__((0,) * x.ndim, 1))
        rec.value(f"{key}.root", ctx.root)


def op_asarray(ctx: Ctx, key, rng):
    rec = ctx.rec
    rec.note(key, "np.asarray(a), np.array(a)")
    rec.value(key, rec.run(key, lambda: np.asarray(ctx.cur)))
    rec.value(f"{key}.array", rec.run(f"{key}.array", lambda: np.array(ctx.cur)))


def op_list(ctx: Ctx, key, rng):
    rec = ctx.rec
    rec.note(key, "a.list()")
    rec.value(key, rec.run(key, lambda: ctx.cur.list()))


def op_item(ctx: Ctx, key, rng):
    """a[i, j] with an int per dimension: Warp refuses both the read and the write from Python."""
    rec, a = ctx.rec, ctx.cur
    idx = tuple(int(rng.integers(0, max(n, 1))) for n in a.shape)
    k = idx if len(idx) > 1 else idx[0]
    if rng.random() < 0.5:
        rec.note(key, f"a[{k!r}]")
        rec.value(key, rec.run(key, lambda: a[k]))
    else:
        value = one_value(ctx.wp, ctx.kind, rng)
        rec.note(key, f"a[{k!r}] = {value!r}")

        def setitem():
            a[k] = value
        rec.run(key, setitem)
        rec.value(f"{key}.root", ctx.root)


def op_fill(ctx: Ctx, key, rng):
    rec, a = ctx.rec, ctx.cur
    r = rng.random()
    if r < 0.75:
        value = one_value(ctx.wp, ctx.kind, rng)
    elif r < 0.85:  # a scalar into a composite, or a composite into a scalar array
        value = draw_values(rng, ctx.kind.scalar, ()).item() if ctx.kind.composite else [1, 2]
    else:  # the wrong number of components
        value = draw_values(rng, ctx.kind.scalar, (ctx.kind.length + int(rng.choice([-1, 1])),)).tolist()
    rec.note(key, f"a.fill_({value!r})")
    rec.run(key, lambda: a.fill_(value))
    rec.value(key, a)
    rec.value(f"{key}.root", ctx.root)


def op_zero(ctx: Ctx, key, rng):
    ctx.rec.note(key, "a.zero_()")
    ctx.rec.run(key, lambda: ctx.cur.zero_())
    ctx.rec.value(key, ctx.cur)
    ctx.rec.value(f"{key}.root", ctx.root)


def op_assign(ctx: Ctx, key, rng):
    rec, a, wp, kind = ctx.rec, ctx.cur, ctx.wp, ctx.kind
    data = ctx.data(rng, a.shape)
    how = str(rng.choice(["numpy", "numpy_f64", "list", "array", "strided_array", "flat", "wrong_size", "other_dtype"]))
    if how == "numpy":
        src, what = data, f"np {data.dtype}{data.shape}"
    elif how == "numpy_f64":
        src, what = data.astype(np.float64), f"np float64{data.shape}"
    elif how == "list":
        src, what = data.tolist(), f"nested list {data.shape}"
    elif how == "flat":
        src, what = data.reshape(-1), f"flat np {data.size}"
    elif how == "wrong_size":
        src = ctx.data(rng, (a.shape[0] + 1,) + a.shape[1:])
        what = f"np {src.shape}"
    else:
        name = kind.name if how != "other_dtype" else other_kind_name(rng, kind, same_size=rng.random() < 0.5)
        src = rec.run(f"{key}.src", lambda: wp.array(data, dtype=kind.t))
        if src is None:
            return
        if how == "strided_array" and a.size:  # (warp-lang cannot slice an empty array)
            big = rec.run(f"{key}.src", lambda: wp.zeros((a.shape[0] * 2,) + a.shape[1:], dtype=kind.t))
            if big is None:
                return
            wp.copy(big[::2], src)
            src = big[::2]
        if how == "other_dtype":
            src = rec.run(f"{key}.src", lambda: wp.zeros(a.shape, dtype=getattr(wp, name)))
        what = f"wp.array {how} {name}{a.shape}"
    rec.note(key, f"a.assign({what})")
    rec.run(key, lambda: a.assign(src))
    rec.value(key, a)
    rec.value(f"{key}.root", ctx.root)


def op_copy(ctx: Ctx, key, rng):
    """wp.copy between the current array and a fresh one (contiguous, a strided view, another
    shape or dtype), either way round, with offsets and a count one time in two."""
    rec, a, wp, kind = ctx.rec, ctx.cur, ctx.wp, ctx.kind
    r = rng.random()
    shape = a.shape if r < 0.45 else (a.size,) if r < 0.6 else random_factors_any(rng)
    name = kind.name if rng.random() < 0.85 else other_kind_name(rng, kind, same_size=rng.random() < 0.7)
    strided = rng.random() < 0.3 and 0 not in shape  # (warp-lang cannot slice an empty array)
    data = draw_values(rng, Kind(wp, name).scalar, ((shape[0] * 2 if strided else shape[0]),) + shape[1:]
                       + Kind(wp, name).inner)
    other = rec.run(f"{key}.other", lambda: wp.array(data, dtype=getattr(wp, name)))
    if other is None:
        return
    if strided:
        other = other[::2]
    into_other = rng.random() < 0.5
    args = {}
    if rng.random() < 0.5:
        n_src = other.size if not into_other else a.size
        n_dst = a.size if not into_other else other.size
        args = {"dest_offset": int(rng.integers(0, n_dst + 2)) if rng.random() < 0.7 else 0,
                "src_offset": int(rng.integers(0, n_src + 2)) if rng.random() < 0.7 else 0,
                "count": int(rng.integers(0, max(n_src, n_dst) + 2)) if rng.random() < 0.8 else 0}
    dest, src = (other, a) if into_other else (a, other)
    rec.note(key, f"wp.copy({'b' if into_other else 'a'}, {'a' if into_other else 'b'}, **{args}) with b "
                  f"{name}{other.shape}{' (every other row)' if strided else ''}")
    rec.run(key, lambda: wp.copy(dest, src, **args))
    rec.value(key, a)
    rec.value(f"{key}.other", other)
    rec.value(f"{key}.root", ctx.root)


def random_factors_any(rng) -> tuple:
    ndim = int(rng.integers(1, 4))
    return tuple(int(v) for v in rng.integers(1, 6, ndim))


def op_text(ctx: Ctx, key, rng):
    rec = ctx.rec
    rec.note(key, "str(a), repr(a) (repr: only whether it raises)")
    rec.value(key, rec.run(key, lambda: str(ctx.cur)))
    rec.value(f"{key}.repr", rec.run(f"{key}.repr", lambda: repr(ctx.cur) and "ok"))


def op_identity(ctx: Ctx, key, rng):
    rec, a, wp = ctx.rec, ctx.cur, ctx.wp
    rec.note(key, "a == a, a == wp.clone(a), a != a, a.to('cpu') is a, bool(a) ...")
    rec.value(f"{key}.eq", rec.run(f"{key}.eq", lambda: a == a))  # noqa: PLR0124 - identity is what is checked
    rec.value(f"{key}.eq_clone", rec.run(f"{key}.eq_clone", lambda: a == wp.clone(a)))
    rec.value(f"{key}.ne", rec.run(f"{key}.ne", lambda: a != a))  # noqa: PLR0124
    rec.value(f"{key}.to", rec.run(f"{key}.to", lambda: a.to("cpu") is a))
    rec.value(f"{key}.hash", rec.run(f"{key}.hash", lambda: hash(a) == hash(a)))


def op_clone(ctx: Ctx, key, rng):
    rec, wp = ctx.rec, ctx.wp
    which = str(rng.choice(["clone", "zeros_like", "ones_like", "full_like", "empty_like", "to"]))
    value = one_value(wp, ctx.kind, rng)
    rec.note(key, f"wp.{which}(a{', ' + repr(value) if which == 'full_like' else ''})")
    fns = {"clone": lambda: wp.clone(ctx.cur), "zeros_like": lambda: wp.zeros_like(ctx.cur),
           "ones_like": lambda: wp.ones_like(ctx.cur), "full_like": lambda: wp.full_like(ctx.cur, value),
           "empty_like": lambda: wp.empty_like(ctx.cur), "to": lambda: ctx.cur.to("cpu")}
    out = rec.run(key, fns[which])
    rec.value(key, out, values=which != "empty_like")
    if which != "empty_like":
        ctx.adopt(rng, out)


def op_grad(ctx: Ctx, key, rng):
    rec, a = ctx.rec, ctx.cur
    rec.note(key, "a.requires_grad = True; a.grad")

    def turn_on():
        a.requires_grad = True
        return a.grad
    rec.value(key, rec.run(key, turn_on))


ARITH_KINDS = ("float32", "float64", "int32", "vec3f")


def op_arith(ctx: Ctx, key, rng):
    """Python-scope arithmetic (element-wise kernels: kept to a few dtypes, each compiles)."""
    rec, a, wp = ctx.rec, ctx.cur, ctx.wp
    if ctx.kind.name not in ARITH_KINDS:
        return
    which = str(rng.choice(["a + a", "a - a", "2 * a", "a * 2", "a * 2.0", "-a", "a += a"]))
    rec.note(key, which)

    def run():
        if which == "a += a":
            b = wp.clone(a)
            b += b
            return b
        return eval(which, {"a": a})  # (one of the expressions above)
    out = rec.run(key, run)
    rec.value(key, out)


OPS = {"props": op_props, "index": op_index, "reshape": op_reshape, "view": op_view, "transpose": op_transpose,
       "flatten": op_flatten, "contiguous": op_contiguous, "numpy": op_numpy, "asarray": op_asarray, "list": op_list,
       "item": op_item, "fill": op_fill, "zero": op_zero, "assign": op_assign, "copy": op_copy, "text": op_text,
       "identity": op_identity, "clone": op_clone, "grad": op_grad, "arith": op_arith}
_WEIGHTS = {"props": 1, "index": 4, "reshape": 2, "view": 1.5, "transpose": 1.5, "flatten": 1, "contiguous": 1,
            "numpy": 1.5, "asarray": 0.7, "list": 0.7, "item": 0.7, "fill": 2, "zero": 0.7, "assign": 2, "copy": 3,
            "text": 0.5, "identity": 0.5, "clone": 1, "grad": 0.5, "arith": 0.5}
OP_NAMES = tuple(OPS)
OP_WEIGHTS = np.array([_WEIGHTS[n] for n in OP_NAMES]) / sum(_WEIGHTS.values())
