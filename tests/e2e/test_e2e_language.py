"""End to end: kernel-language features (control flow, thread indices, functions, structs,
integer semantics, dtypes, constants, closures, printing, array views) compiled, launched on
the CPU and checked against numpy or plain Python."""

import typing

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import Body, arr, rng, run

pytestmark = pytest.mark.needs_cxx

# --- functions ----------------------------------------------------------------------------------

@wp.func
def sq(x: float):
    return x * x

@wp.func
def hyp(a: float, b: float):
    return wp.sqrt(sq(a) + sq(b))

@wp.func
def divmod_trunc(a: int, b: int):
    return a / b, a % b

@wp.func
def min_max_sum(v: wp.vec3):
    return wp.min(v), wp.max(v), v[0] + v[1] + v[2]

@wp.func
def scaled(x: float):
    return x * 2.0

@wp.func
def scaled(x: int):  # noqa: F811  (an overload by argument type)
    return x * 3

@wp.func
def scaled(x: wp.vec3):  # noqa: F811
    return x * 4.0

@wp.func
def doubled(x: typing.Any):
    return x + x

@wp.func
def kinetic(b: Body, mass: float):
    return 0.5 * mass * wp.dot(b.vel, b.vel)

@wp.func
def moved(b: Body, dt: float):
    r = b
    r.pos = b.pos + b.vel * dt
    r.hits = b.hits + 1
    return r

@wp.func
def store(out: wp.array(dtype=float), i: int, v: float):
    out[i] = v

@wp.func
def find(a: wp.array(dtype=int), x: int):
    for i in range(len(a)):
        if a[i] == x:
            return i  # a return from inside a loop
    return -1

@wp.func
def first_at_least(a: wp.array(dtype=int), x: int):
    i = int(0)
    while i < a.shape[0]:
        if a[i] >= x:
            return i
        i += 1
    return -1

@wp.kernel
def k_funcs(a: wp.array(dtype=float), ints: wp.array(dtype=int), vecs: wp.array(dtype=wp.vec3),
            bodies: wp.array(dtype=Body), out: wp.array(dtype=float, ndim=2), out_i: wp.array(dtype=int, ndim=2),
            out_v: wp.array(dtype=wp.vec3, ndim=2), out_b: wp.array(dtype=Body)):
    i = wp.tid()
    x = a[i]
    out[i, 0] = hyp(x, 2.0)
    q, r = divmod_trunc(ints[i], 3)
    out_i[i, 0] = q
    out_i[i, 1] = r
    lo, hi, s = min_max_sum(vecs[i])
    out[i, 1] = lo
    out[i, 2] = hi
    out[i, 3] = s
    out[i, 4] = scaled(x)
    out_i[i, 2] = scaled(ints[i])
    out_v[i, 0] = scaled(vecs[i])
    out[i, 5] = doubled(x)
    out_i[i, 3] = doubled(ints[i])
    out_v[i, 1] = doubled(vecs[i])
    out[i, 6] = kinetic(bodies[i], 3.0)
    out_b[i] = moved(bodies[i], 0.5)
    store(out[i], 7, 42.0)  # a row of a 2-D array passed as a 1-D array
    out_i[i, 4] = find(ints, i - 1)
    out_i[i, 5] = first_at_least(ints, i)

@pytest.mark.slow
def test_functions_nested_tuples_overloads_generic_structs():
    n = 6
    g = rng(2)
    a = g.uniform(-5, 5, n).astype(np.float32)
    ints = np.array([-7, -6, -1, 0, 5, 11], np.int32)
    vecs = g.uniform(-1, 1, (n, 3)).astype(np.float32)
    bodies = wp.zeros(n, dtype=Body)
    bn = bodies.numpy()
    bn["pos"], bn["vel"], bn["hits"] = g.uniform(-1, 1, (n, 3)), g.uniform(-1, 1, (n, 3)), np.arange(n)
    b0 = bn.copy()
    out, out_i = wp.zeros((n, 8)), wp.zeros((n, 6), dtype=int)
    out_v, out_b = wp.zeros((n, 2), dtype=wp.vec3), wp.zeros(n, dtype=Body)
    run(k_funcs, n, arr(a), wp.array(ints, dtype=int), wp.array(vecs, dtype=wp.vec3), bodies, out, out_i, out_v, out_b)
    o, oi, ov, ob = out.numpy(), out_i.numpy(), out_v.numpy(), out_b.numpy()
    np.testing.assert_allclose(o[:, 0], np.hypot(a, 2.0), rtol=1e-6)
    np.testing.assert_array_equal(oi[:, 0], np.fix(ints / 3).astype(int))
    np.testing.assert_array_equal(oi[:, 1], np.fmod(ints, 3))
    np.testing.assert_allclose(o[:, 1:4], np.stack([vecs.min(1), vecs.max(1), vecs.sum(1)], 1), rtol=1e-6)
    np.testing.assert_allclose(o[:, 4], a * 2, rtol=1e-6)
    np.testing.assert_array_equal(oi[:, 2], ints * 3)
    np.testing.assert_allclose(ov[:, 0], vecs * 4, rtol=1e-6)
    np.testing.assert_allclose(o[:, 5], a + a, rtol=1e-6)
    np.testing.assert_array_equal(oi[:, 3], ints * 2)
    np.testing.assert_allclose(ov[:, 1], vecs * 2, rtol=1e-6)
    np.testing.assert_allclose(o[:, 6], 1.5 * (b0["vel"] ** 2).sum(1), rtol=1e-5)
    np.testing.assert_allclose(ob["pos"], b0["pos"] + 0.5 * b0["vel"], rtol=1e-6)
    np.testing.assert_allclose(ob["vel"], b0["vel"])
    np.testing.assert_array_equal(ob["hits"], b0["hits"] + 1)
    np.testing.assert_array_equal(bodies.numpy()["hits"], np.arange(n))  # the argument was not modified
    np.testing.assert_array_equal(o[:, 7], 42.0)
    np.testing.assert_array_equal(oi[:, 4], [list(ints).index(i - 1) if i - 1 in ints else -1 for i in range(n)])
    np.testing.assert_array_equal(oi[:, 5], [next((k for k, v in enumerate(ints) if v >= i), -1) for i in range(n)])

# --- structs ------------------------------------------------------------------------------------

@wp.struct
class Material:
    color: wp.vec3
    density: float

@wp.struct
class Particle:
    pos: wp.vec3
    mass: float
    mat: Material
    id: int
    frame: wp.mat22

@wp.struct
class Grid:
    origin: wp.vec3
    spacing: float
    values: wp.array(dtype=float)
    weights: wp.array2d(dtype=float)
    rot: wp.mat33

@wp.kernel
def k_struct_arrays(ps: wp.array(dtype=Particle), out: wp.array(dtype=float, ndim=2), made: wp.array(dtype=Particle)):
    i = wp.tid()
    p = ps[i]
    out[i, 0] = p.mass * p.mat.density
    out[i, 1] = p.mat.color.y + p.pos[2] + p.frame[1, 0]
    out[i, 2] = float(p.id)
    ps[i].mass = p.mass * 2.0  # field writes into array elements, in place
    ps[i].mat.density = -1.0
    ps[i].pos.x = 7.0
    ps[i].frame[0, 1] = 3.0
    m = Material(color=wp.vec3(1.0, 2.0, float(i)), density=0.25)  # construction inside the kernel
    q = Particle(pos=p.pos * 3.0, mass=1.5, mat=m, id=i + 100)
    q.mat.density = q.mat.density + 1.0
    q.frame[1, 1] = float(i)
    made[i] = q

def test_arrays_of_nested_structs_read_write_construct():
    n = 5
    g = rng(3)
    ps = wp.zeros(n, dtype=Particle)
    pn = ps.numpy()
    pn["pos"], pn["mass"], pn["id"] = g.uniform(-1, 1, (n, 3)), g.uniform(1, 2, n), np.arange(n) * 11
    pn["mat"]["color"], pn["mat"]["density"] = g.uniform(0, 1, (n, 3)), g.uniform(3, 4, n)
    pn["frame"] = g.uniform(-1, 1, (n, 2, 2))
    p0 = pn.copy()
    out, made = wp.zeros((n, 3)), wp.zeros(n, dtype=Particle)
    run(k_struct_arrays, n, ps, out, made)
    o = out.numpy()
    np.testing.assert_allclose(o[:, 0], p0["mass"] * p0["mat"]["density"], rtol=1e-6)
    np.testing.assert_allclose(o[:, 1], p0["mat"]["color"][:, 1] + p0["pos"][:, 2] + p0["frame"][:, 1, 0], rtol=1e-6)
    np.testing.assert_array_equal(o[:, 2], p0["id"])
    p1 = ps.numpy()
    np.testing.assert_allclose(p1["mass"], p0["mass"] * 2, rtol=1e-6)
    np.testing.assert_array_equal(p1["mat"]["density"], -1.0)
    np.testing.assert_array_equal(p1["pos"][:, 0], 7.0)
    np.testing.assert_array_equal(p1["pos"][:, 1:], p0["pos"][:, 1:])
    np.testing.assert_array_equal(p1["mat"]["color"], p0["mat"]["color"])
    np.testing.assert_array_equal(p1["id"], p0["id"])
    f = p0["frame"].copy()
    f[:, 0, 1] = 3.0
    np.testing.assert_array_equal(p1["frame"], f)
    m = made.numpy()
    np.testing.assert_allclose(m["pos"], p0["pos"] * 3, rtol=1e-6)
    np.testing.assert_array_equal(m["mass"], 1.5)
    np.testing.assert_array_equal(m["mat"]["color"], np.stack([np.ones(n), 2 * np.ones(n), np.arange(n)], 1))
    np.testing.assert_array_equal(m["mat"]["density"], 1.25)
    np.testing.assert_array_equal(m["id"], np.arange(n) + 100)
    np.testing.assert_array_equal(m["frame"][:, 1, 1], np.arange(n))
    np.testing.assert_array_equal(m["frame"][:, 0], 0.0)

@wp.kernel
def k_struct_arg(g: Grid, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    local = g.rot * ((pts[i] - g.origin) / g.spacing)
    cell = int(wp.floor(local[0]))
    v = float(0.0)
    if cell >= 0 and cell < g.values.shape[0]:
        v = g.values[cell]
    out[i] = v + g.weights[i % 2, 1] + float(len(g.values))
    g.values[9] = 99.0  # writes through an array field reach the caller's array (no thread reads cell 9)

def test_struct_argument_with_vector_matrix_array_fields():
    vals = np.arange(10, dtype=np.float32) * 1.5
    weights = np.array([[1, 2], [3, 4]], np.float32)
    rot = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], np.float32)  # swaps x and y
    g = Grid()
    g.origin, g.spacing, g.rot = wp.vec3(1.0, 1.0, 1.0), 0.5, wp.mat33(*rot.reshape(-1))
    g.values, g.weights = wp.array(vals), wp.array(weights)
    pts = np.array([[1.0, 1.0, 0], [1.2, 2.3, 0], [5, 1.0, 0], [1.0, 9.0, 1]], np.float32)
    out = wp.zeros(len(pts))
    run(k_struct_arg, len(pts), g, wp.array(pts, dtype=wp.vec3), out)
    cells = np.floor((rot @ ((pts - 1.0) / 0.5).T).T[:, 0]).astype(int)
    v = np.where((cells >= 0) & (cells < 10), vals[np.clip(cells, 0, 9)], 0.0)
    np.testing.assert_allclose(out.numpy(), v + weights[np.arange(4) % 2, 1] + 10, rtol=1e-6)
    assert g.values.numpy()[9] == 99.0

@wp.kernel
def k_materials(ms: wp.array(dtype=Material), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ms[i].color[0] * ms[i].density + ms[i].color.z

def test_array_of_struct_instances_from_a_list():
    items = [Material(color=wp.vec3(float(i), 0.0, 1.0 + i), density=0.5 * i) for i in range(4)]
    out = wp.zeros(4)
    run(k_materials, 4, wp.array(items, dtype=Material), out)
    np.testing.assert_allclose(out.numpy(), [i * 0.5 * i + 1 + i for i in range(4)])

# --- integer semantics and dtypes ---------------------------------------------------------------

def _int_ops_kernel(dtype):
    @wp.kernel
    def k(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), out: wp.array(dtype=dtype, ndim=2)):
        i = wp.tid()
        out[i, 0] = a[i] / b[i]
        out[i, 1] = a[i] % b[i]
        out[i, 2] = a[i] // b[i]
        out[i, 3] = a[i] * b[i] - a[i]
        out[i, 4] = (a[i] & b[i]) ^ (a[i] | dtype(5))
        out[i, 5] = a[i] >> dtype(1)
    return k

@pytest.mark.parametrize("dtype,np_dtype", [(wp.int32, np.int32), (wp.int64, np.int64)])
def test_integer_division_modulo_floordiv(dtype, np_dtype):
    pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (1, 5), (-1, 5), (0, -3), (123456, -1000),
             (5, 0), (-5, 0)]
    if np_dtype is np.int64:
        pairs.append((-(2 ** 40) - 3, 7))
    a, b = np.array(pairs, np_dtype).T.copy()
    out = wp.zeros((len(a), 6), dtype=dtype)
    run(_int_ops_kernel(dtype), len(a), wp.array(a, dtype=dtype), wp.array(b, dtype=dtype), out)
    o, z, bz = out.numpy(), b == 0, np.where(b == 0, 1, b)  # a zero divisor gives 0 (documented)
    np.testing.assert_array_equal(o[:, 0], np.where(z, 0, np.fix(a / bz)).astype(np_dtype))  # / truncates
    np.testing.assert_array_equal(o[:, 1], np.where(z, 0, np.fmod(a, bz)))  # % takes the sign of the dividend
    np.testing.assert_array_equal(o[:, 2], np.where(z, 0, np.floor_divide(a, bz)))  # // rounds toward -inf
    np.testing.assert_array_equal(o[:, 3], a * b - a)
    np.testing.assert_array_equal(o[:, 4], (a & b) ^ (a | 5))
    np.testing.assert_array_equal(o[:, 5], a >> 1)

@wp.kernel
def k_float_mod(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float, ndim=2)):
    i = wp.tid()
    out[i, 0] = a[i] % b[i]
    out[i, 1] = a[i] // b[i]
    out[i, 2] = a[i] / b[i]

def test_float_modulo_and_floordiv():
    a = np.array([7.5, -7.5, 7.5, -7.5, 0.25], np.float32)
    b = np.array([2.0, 2.0, -2.0, -2.0, 0.1], np.float32)
    out = wp.zeros((5, 3))
    run(k_float_mod, 5, arr(a), arr(b), out)
    np.testing.assert_allclose(out.numpy(), np.stack([np.fmod(a, b), np.floor(a / b), a / b], 1), rtol=1e-6)

def _dtype_kernel(dtype):
    @wp.kernel
    def k(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), out: wp.array(dtype=dtype), total: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = a[i] * b[i] + a[i]
        if a[i] > b[i]:
            total[0] += a[i]  # wp.atomic_add refuses 8/16-bit integers, as Warp; `+=` still adds them
    return k

DTYPE_CASES = [(wp.int8, np.int8), (wp.uint8, np.uint8), (wp.int16, np.int16), (wp.uint32, np.uint32),
               (wp.int64, np.int64), (wp.uint64, np.uint64), (wp.float16, np.float16), (wp.float32, np.float32),
               (wp.float64, np.float64)]

@pytest.mark.parametrize("dtype,np_dtype", DTYPE_CASES, ids=[n.__name__ for _, n in DTYPE_CASES])
def test_scalar_dtype_arrays(dtype, np_dtype):
    g = rng(4)
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        a = g.integers(max(info.min, -100), min(info.max, 100), 64).astype(np_dtype)
        b = g.integers(max(info.min, -5), min(info.max, 6), 64).astype(np_dtype)
    else:
        a, b = g.uniform(-4, 4, 64).astype(np_dtype), g.uniform(-4, 4, 64).astype(np_dtype)
    out, total = wp.zeros(64, dtype=dtype), wp.zeros(1, dtype=dtype)
    run(_dtype_kernel(dtype), 64, wp.array(a, dtype=dtype), wp.array(b, dtype=dtype), out, total)
    with np.errstate(over="ignore"):
        exp, exp_total = (a * b + a).astype(np_dtype), a[a > b].sum(dtype=np_dtype)  # small ints wrap like C
    assert out.numpy().dtype == np_dtype
    if np_dtype == np.float16:
        np.testing.assert_allclose(out.numpy().astype(np.float32), exp.astype(np.float32), rtol=2e-3, atol=2e-2)
        assert float(total.numpy()[0]) == pytest.approx(float(a[a > b].astype(np.float32).sum()), rel=1e-2, abs=0.1)
    elif np.issubdtype(np_dtype, np.floating):
        np.testing.assert_allclose(out.numpy(), exp, rtol=1e-6 if np_dtype == np.float32 else 1e-12)
        assert total.numpy()[0] == pytest.approx(exp_total, rel=1e-5)
    else:
        np.testing.assert_array_equal(out.numpy(), exp)
        assert total.numpy()[0] == exp_total

@wp.kernel
def k_bool(a: wp.array(dtype=wp.bool), x: wp.array(dtype=float), out: wp.array(dtype=wp.bool),
           count: wp.array(dtype=int)):
    i = wp.tid()
    big = x[i] > 0.5
    out[i] = (a[i] and not big) or (big and not a[i])
    if a[i]:
        wp.atomic_add(count, 0, 1)

def test_bool_arrays():
    g = rng(5)
    a, x = g.random(50) > 0.5, g.random(50).astype(np.float32)
    out, count = wp.zeros(50, dtype=wp.bool), wp.zeros(1, dtype=int)
    run(k_bool, 50, wp.array(a, dtype=wp.bool), arr(x), out, count)
    assert out.numpy().dtype == np.bool_
    np.testing.assert_array_equal(out.numpy(), a ^ (x > 0.5))
    assert count.numpy()[0] == a.sum()

@wp.kernel
def k_conversions(x: wp.array(dtype=wp.float64), out_i: wp.array(dtype=wp.int64), out_h: wp.array(dtype=wp.float16),
                  out_u: wp.array(dtype=wp.uint8), out_f: wp.array(dtype=float)):
    i = wp.tid()
    out_i[i] = wp.int64(x[i])
    out_h[i] = wp.float16(x[i])
    out_u[i] = wp.uint8(wp.int32(x[i]))
    out_f[i] = float(x[i]) + float(out_i[i])

def test_scalar_conversions():
    x = np.array([-3.7, -0.2, 0.0, 2.5, 300.9, 1e10], np.float64)
    n = len(x)
    oi, oh = wp.zeros(n, dtype=wp.int64), wp.zeros(n, dtype=wp.float16)
    ou, of = wp.zeros(n, dtype=wp.uint8), wp.zeros(n)
    run(k_conversions, n, wp.array(x, dtype=wp.float64), oi, oh, ou, of)
    np.testing.assert_array_equal(oi.numpy(), np.trunc(x).astype(np.int64))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(oh.numpy(), x.astype(np.float16))  # 1e10 -> inf
    np.testing.assert_array_equal(ou.numpy()[:5], np.trunc(x[:5]).astype(np.int32).astype(np.uint8))
    np.testing.assert_allclose(of.numpy(), x.astype(np.float32) + np.trunc(x).astype(np.float32), rtol=1e-6)

# --- constants, closures, printing --------------------------------------------------------------

SCALE = wp.constant(2.5)
OFFSET = 3
LIMIT = wp.constant(np.float64(0.125))
AXIS = wp.constant(wp.vec3(1.0, -2.0, 0.5))
USE_SQUARE = True

@wp.kernel
def k_constants(x: wp.array(dtype=float), out: wp.array(dtype=float, ndim=2), out_d: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i, 0] = x[i] * SCALE + float(OFFSET)
    out[i, 1] = wp.dot(AXIS, wp.vec3(x[i], 1.0, 2.0))
    if USE_SQUARE:
        out[i, 2] = x[i] * x[i]
    else:
        out[i, 2] = -1.0
    for k in range(OFFSET):
        out[i, 3] = out[i, 3] + wp.pi
    out_d[i] = wp.float64(x[i]) * LIMIT

def test_global_constants():
    x = np.array([0.0, 1.0, -2.0], np.float32)
    out, out_d = wp.zeros((3, 4)), wp.zeros(3, dtype=wp.float64)
    run(k_constants, 3, arr(x), out, out_d)
    np.testing.assert_allclose(out.numpy(), np.stack([x * 2.5 + 3, x - 2 + 1, x * x, np.full(3, 3 * np.pi)], 1),
                               rtol=1e-6)
    np.testing.assert_allclose(out_d.numpy(), x * 0.125, rtol=1e-12)

def _make_affine(a, b):
    @wp.kernel
    def affine(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        out[i] = x[i] * a + b
    return affine

def test_closure_captures_python_value():
    x = np.arange(6, dtype=np.float32)
    out = wp.zeros(6)
    run(_make_affine(3.0, -1.0), 6, arr(x), out)
    np.testing.assert_allclose(out.numpy(), x * 3 - 1)
    run(_make_affine(0.5, 10.0), 6, arr(x), out)  # each closure is launched before the next is made
    np.testing.assert_allclose(out.numpy(), x * 0.5 + 10)

@wp.kernel
def k_print(x: wp.array(dtype=int), f: float):
    i = wp.tid()
    print("value", x[i], f, x[i] > 2)
    wp.printf("printf %d|%.2f|ok\n", x[i] * 2, f)

def test_print_and_printf(capfd):
    capfd.readouterr()
    run(k_print, 1, wp.array(np.array([3], np.int32), dtype=int), 1.5)
    out = capfd.readouterr().out
    assert "value 3 1.5 True" in out
    assert "printf 6|1.50|ok" in out

@wp.kernel
def k_print_composites(v: wp.vec3, m: wp.mat22, flag: wp.bool):
    wp.print(v)
    wp.print(m)
    wp.print(flag)
    wp.print(wp.float32(17.0))


def test_print_writes_composites_as_warp(capfd):
    capfd.readouterr()
    run(k_print_composites, 1, wp.vec3(1.0, 2.5, -3.0), wp.mat22(1.0, 2.0, 3.0, 4.0), False)
    # components each followed by a space, matrices one row a line (Warp's layout)
    assert capfd.readouterr().out == "1 2.5 -3 \n1 2 \n3 4 \nFalse\n17\n"


@wp.kernel
def k_printf33():
    wp.printf("%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d \n",
              1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)


def test_printf_refuses_more_than_32_values():
    with pytest.raises(RuntimeError, match="variadic arguments that can be passed to `printf` is 32$"):
        run(k_printf33, 1)


def test_python_scope_scalars_print_as_warp():
    assert repr(wp.float16(-1)) == "float16(-1)" and str(wp.float32(-1)) == "-1"
    assert repr(wp.float32(1.5)) == "float32(1.5)" and repr(wp.uint8(-1)) == "uint8(255)"


# --- array views, shapes, sub-arrays ------------------------------------------------------------

@wp.kernel
def k_view(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] * 10.0 + float(a.shape[0]) * 1000.0 + float(len(a)) * 100000.0

@pytest.mark.parametrize("which", ["step", "column", "row", "reversed_slice", "transpose_row"])
def test_array_views_passed_to_kernels(which):
    base1, base2 = np.arange(12, dtype=np.float32) * 1.5, np.arange(20, dtype=np.float32).reshape(4, 5)
    a1, a2 = wp.array(base1), wp.array(base2)
    view, exp = {"step": (a1[2:8:2], base1[2:8:2]), "column": (a2[:, 1], base2[:, 1]), "row": (a2[1], base2[1]),
                 "reversed_slice": (a1[9:1:-3], base1[9:1:-3]), "transpose_row": (a2.transpose()[3], base2.T[3])}[which]
    n = len(exp)
    out = wp.zeros(n)
    run(k_view, n, view, out)
    np.testing.assert_allclose(out.numpy(), exp * 10 + n * 1000 + n * 100000)

@wp.kernel
def k_fill_index(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = float(i + 1)

def test_writes_through_views_land_in_the_base_array():
    base = wp.zeros((4, 5))
    run(k_fill_index, 4, base[:, 2])
    run(k_fill_index, 3, base[3, 1:4])
    exp = np.zeros((4, 5), np.float32)
    exp[:, 2], exp[3, 1:4] = [1, 2, 3, 4], [1, 2, 3]
    np.testing.assert_array_equal(base.numpy(), exp)

@wp.kernel
def k_subarray(m: wp.array3d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    plane = m[i]
    row = plane[j]
    row2 = m[i, j]
    s = float(0.0)
    for k in range(row.shape[0]):
        s += row[k] * float(k + 1) + row2[k]
    out[i, j] = s + float(plane.shape[0] * 100 + plane.shape[1] * 10 + len(row))

def test_sub_array_indexing_in_kernels():
    m = rng(6).uniform(-1, 1, (3, 4, 5)).astype(np.float32)
    out = wp.zeros((3, 4))
    run(k_subarray, (3, 4), wp.array(m), out)
    np.testing.assert_allclose(out.numpy(), (m * np.arange(1, 6)).sum(-1) + m.sum(-1) + 455, rtol=1e-5)

@wp.kernel
def k_shapes(m: wp.array4d(dtype=float), out: wp.array(dtype=int)):
    s = m.shape
    out[0] = m.shape[0]
    out[1] = m.shape[1]
    out[2] = m.shape[2]
    out[3] = m.shape[3]
    out[4] = len(m)
    out[5] = s[0] * s[1] * s[2] * s[3]

def test_shape_and_len_of_4d_array():
    out = wp.zeros(6, dtype=int)
    run(k_shapes, 1, wp.zeros((2, 3, 4, 5)), out)
    np.testing.assert_array_equal(out.numpy(), [2, 3, 4, 5, 2, 120])


@wp.func
def _continued_sum(a: float, b: float):
    return a * 2.0 + \
        b * 3.0


@wp.kernel
def _continued_lines(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    a = x[i] * 2.0 + \
        x[i] * 3.0
    b = (x[i] * 2.0 +
         x[i] * 3.0)
    c = 0.0
    if x[i] > 0.0 and \
            x[i] < 10.0:
        c = 1.0
    d = _continued_sum(x[i],
                       x[i])
    e = x[i] + \
        \
        x[i]
    y[i * 5 + 0] = a
    y[i * 5 + 1] = b
    y[i * 5 + 2] = c
    y[i * 5 + 3] = d
    y[i * 5 + 4] = e


def test_every_way_python_continues_a_line():
    """A statement continued with a backslash was silently wrong (the C++ comment that carries
    the user's line ended in a backslash and swallowed the next line of code): backslashes,
    brackets, a condition and a @wp.func body, against the same arithmetic in numpy."""
    x = np.array([1.0, 2.5, 12.0], dtype=np.float32)
    y = wp.zeros(15, dtype=float)
    wp.launch(_continued_lines, 3, inputs=[wp.array(x, dtype=float), y])
    got = y.numpy().reshape(3, 5)
    expected = np.stack([5 * x, 5 * x, ((x > 0) & (x < 10)).astype(np.float32), 5 * x, 2 * x], axis=1)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@wp.kernel
def _loop_locals_after_the_loop(x: wp.array(dtype=float), n: int, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    length = float(0.0)
    k = int(0)
    while length < 3.0:
        p = wp.vec3(x[i] + float(k), 0.0, 0.0)  # first bound inside the loop
        length = wp.length(p)
        k += 1
    for j in range(n):
        q = float(j) * 10.0
    out[i] = p * 2.0 + wp.vec3(0.0, q, 0.0)  # q is 0 when the loop did not run (as Warp)


def test_names_first_bound_in_a_loop_are_visible_after_it():
    """Warp declares a kernel's variables up front: a name first assigned inside a dynamic loop
    keeps its last value after the loop, zero when the loop never ran."""
    x = np.array([0.5, 2.5], dtype=np.float32)
    for n in (0, 3):
        out = wp.zeros(2, dtype=wp.vec3)
        run(_loop_locals_after_the_loop, 2, wp.array(x, dtype=float), n, out)
        expected_p = x + np.ceil(3.0 - x)  # the first x + k (k = 0, 1, ...) of length at least 3
        np.testing.assert_allclose(out.numpy()[:, 0], 2.0 * expected_p)
        np.testing.assert_allclose(out.numpy()[:, 1], 0.0 if n == 0 else 10.0 * (n - 1))

