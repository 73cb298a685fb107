"""The kinds of programs values_against_warp draws (see value_cases): construction, indexing,
operators, conversions, copies and structs, each a function of a random generator that returns
(program text, approx). A program leaves its result in `r`."""

from __future__ import annotations

from tests.fuzz.value_cases import (
    FLOATS, INT_RANGE, SCALARS, any_spec, ctor, edgy, like, lit, matrix_spec, nice, quat_spec, scalar_text,
    transform_spec, values, vector_spec,
)


# --- construction -------------------------------------------------------------------------
def c_scalars(rng):
    s = any_spec(rng)
    vals = values(rng, s, edgy)
    return f"r = {s.expr}({', '.join(scalar_text(rng, s.scalar, v) for v in vals)})", False


def c_fill(rng):
    s = any_spec(rng)
    return f"r = {s.expr}({scalar_text(rng, s.scalar, edgy(rng, s.scalar))})", False


def c_empty(rng):
    s = any_spec(rng)
    return f"r = {s.expr}()", False


def c_sequence(rng):
    s = any_spec(rng)
    vals = values(rng, s, edgy if rng.random() < 0.3 else nice)
    items = ", ".join(lit(v) for v in vals)
    form = rng.randrange(6)
    if form == 0:
        arg = f"[{items}]"
    elif form == 1:
        arg = f"({items},)"
    elif form == 2:
        dtype = rng.choice(("float32", "float64", "int32", "int64", "float16", s.scalar))
        arg = f"np.array([{items}], dtype=np.{dtype})"
    elif form == 3 and s.kind == "matrix":
        cols = s.shape[1]
        rows = [vals[k:k + cols] for k in range(0, len(vals), cols)]
        arg = "[" + ", ".join("[" + ", ".join(lit(v) for v in row) + "]" for row in rows) + "]"
        if rng.random() < 0.4:
            arg = f"np.array({arg})"
    elif form == 4:  # another composite of the same shape: a conversion
        other = like(rng, s, rng.choice(SCALARS))
        arg = ctor(rng, other)
    else:
        arg = f"{s.expr}({items})"
    return f"r = {s.expr}({arg})", False


def c_wrong_count(rng):
    s = any_spec(rng)
    n = s.n + rng.choice((-1, 1, 2)) if s.n > 2 else s.n + 1
    vals = [nice(rng, s.scalar) for _ in range(max(n, 2))]
    if rng.random() < 0.5:
        return f"r = {s.expr}({', '.join(lit(v) for v in vals)})", False
    return f"r = {s.expr}([{', '.join(lit(v) for v in vals)}])", False


def c_convert(rng):
    """Floats into integer types, integers into float types, signs into unsigned types."""
    s = vector_spec(rng, scalar=rng.choice(tuple(INT_RANGE))) if rng.random() < 0.7 else matrix_spec(rng, None, "int32")
    vals = [rng.choice((1.7, -2.7, 2.5, -0.5, 3.0, 1e10, -1)) for _ in range(s.n)]
    forms = rng.randrange(4)
    if forms == 0:
        return f"r = {s.expr}({', '.join(lit(v) for v in vals)})", False
    if forms == 1:
        return f"r = {s.expr}([{', '.join(lit(v) for v in vals)}])", False
    if forms == 2:
        return f"r = {s.expr}(np.array([{', '.join(lit(v) for v in vals)}]))", False
    return f"r = {s.expr}({lit(vals[0])})", False


def c_matrix_rows(rng):
    s = matrix_spec(rng)
    rows, cols = s.shape
    row = vector_spec(rng, cols, s.scalar if rng.random() < 0.8 else rng.choice(SCALARS))
    col = vector_spec(rng, rows, s.scalar)
    form = rng.randrange(6)
    if form == 0:
        return f"r = {s.expr}({', '.join(ctor(rng, row) for _ in range(rows))})", False
    if form == 1:
        rows_text = ("[" + ", ".join(lit(nice(rng, s.scalar)) for _ in range(cols)) + "]" for _ in range(rows))
        return f"r = {s.expr}({', '.join(rows_text)})", False
    if form == 2:
        return f"r = wp.matrix_from_rows({', '.join(ctor(rng, row) for _ in range(rows))})", False
    if form == 3:
        return f"r = wp.matrix_from_cols({', '.join(ctor(rng, col) for _ in range(cols))})", False
    if form == 4:  # rows of the wrong length
        bad = vector_spec(rng, cols + 1, s.scalar)
        return f"r = {s.expr}({', '.join(ctor(rng, bad) for _ in range(rows))})", False
    return f"r = {s.expr}({ctor(rng, like(rng, s, rng.choice(SCALARS)))})", False


def c_quat(rng):
    s = quat_spec(rng)
    d = rng.choice(("wp.float32", "wp.float64", "wp.float16", "float", "np.float64"))
    v3 = vector_spec(rng, 3, s.scalar)
    forms = ["r = wp.quat_identity()", f"r = wp.quat_identity(dtype={d})", f"r = {s.expr}()",
             f"r = {s.expr}({ctor(rng, v3)}, {lit(nice(rng, s.scalar))})",
             f"r = wp.types.quaternion(dtype=wp.{s.scalar})({', '.join(lit(nice(rng, s.scalar)) for _ in range(4))})",
             f"r = {s.expr}({ctor(rng, like(rng, s, rng.choice(FLOATS)))})",
             f"r = {s.expr} is wp.types.quaternion(dtype=wp.{s.scalar})",
             f"r = wp.quat_from_axis_angle({ctor(rng, v3)}, {lit(nice(rng, s.scalar))})"]
    return rng.choice(forms), "axis_angle" in forms[-1]


def c_transform(rng):
    s = transform_spec(rng)
    p = vector_spec(rng, 3, s.scalar if rng.random() < 0.8 else rng.choice(FLOATS))
    q = quat_spec(rng, s.scalar if rng.random() < 0.8 else rng.choice(FLOATS))
    pv, qv = ctor(rng, p), ctor(rng, q)
    plist = "[" + ", ".join(lit(nice(rng, s.scalar)) for _ in range(3)) + "]"
    d = rng.choice(("wp.float32", "wp.float64", "wp.float16"))
    forms = [f"r = {s.expr}({pv}, {qv})", f"r = {s.expr}(p={pv}, q={qv})", f"r = {s.expr}(p={pv})",
             f"r = {s.expr}(q={qv})", f"r = {s.expr}({pv})", f"r = {s.expr}({plist}, {qv})",
             f"r = {s.expr}({plist}, [0.0, 0.0, 0.0, 1.0])", "r = wp.transform_identity()",
             f"r = wp.transform_identity(dtype={d})", f"r = {s.expr}()", f"r = {s.expr}({qv}, {pv})",
             f"r = {s.expr}({pv}, {qv}, 1.0)", f"r = {s.expr}({', '.join(lit(nice(rng, s.scalar)) for _ in range(6))})",
             f"t = {ctor(rng, s)}\nr = (t.p, t.q, type(t.p), type(t.q))"]
    return rng.choice(forms), False, ["transform_parts"] if s.scalar != "float32" else []


# --- indexing -------------------------------------------------------------------------------
def _index(rng, n):
    return rng.choice((rng.randrange(-n, n), rng.randrange(-n, n), rng.choice((n, -n - 1))))


def _slice(rng, n):
    def bound():
        return rng.choice(("", "", str(rng.randrange(-n - 1, n + 2))))
    step = rng.choice(("", "", "", ":-1", ":2", ":-2", ":0"))
    return f"{bound()}:{bound()}{step}"


def i_get(rng):
    s = any_spec(rng)
    rows = s.shape[0]
    lines = f"x = {ctor(rng, s)}\n"
    r = rng.random()
    if s.kind == "matrix":
        cols = s.shape[1]
        tags = ["nonsquare_slice"] if rows != cols else []
        keys = [f"{_index(rng, rows)}", f"{_index(rng, rows)}, {_index(rng, cols)}", f"{_slice(rng, rows)}",
                f"{_index(rng, rows)}, {_slice(rng, cols)}", f"{_slice(rng, rows)}, {_index(rng, cols)}",
                f"{_slice(rng, rows)}, {_slice(rng, cols)}", "0, 0, 0", "None", "1.0", "(0,)"]
        key = rng.choice(keys)
        if r < 0.15:
            return lines + f"r = x[{_index(rng, rows)}][{_index(rng, cols)}]", False
        return lines + f"r = x[{key}]", False, tags if ":" in key else []
    key = rng.choice((f"{_index(rng, rows)}",) * 3 + (f"{_slice(rng, rows)}",) * 3 +
                     ("None", "1.0", "'x'", "np.int64(1)"))
    return lines + f"r = x[{key}]", False


def i_set(rng):
    s = any_spec(rng)
    rows = s.shape[0]
    lines = f"x = {ctor(rng, s)}\n"
    value = scalar_text(rng, s.scalar, edgy(rng, s.scalar))
    if s.kind == "matrix":
        cols = s.shape[1]
        row = vector_spec(rng, cols, s.scalar if rng.random() < 0.7 else rng.choice(SCALARS))
        forms = [f"x[{_index(rng, rows)}, {_index(rng, cols)}] = {value}", f"x[{_index(rng, rows)}] = {ctor(rng, row)}",
                 f"x[{_index(rng, rows)}] = {value}",
                 f"x[{_index(rng, rows)}] = [{', '.join(lit(nice(rng, s.scalar)) for _ in range(cols))}]",
                 f"x[{_index(rng, rows)}][{_index(rng, cols)}] = {value}",
                 f"x[{_slice(rng, rows)}, {_index(rng, cols)}] = {value}",
                 f"x[:, {_index(rng, cols)}] = {ctor(rng, vector_spec(rng, rows, s.scalar))}",
                 f"x[{_index(rng, rows)}, {_index(rng, cols)}] = 'a'",
                 f"x.set_row({_index(rng, rows)}, {ctor(rng, row)})",
                 f"x.set_col({_index(rng, cols)}, {ctor(rng, vector_spec(rng, rows, s.scalar))})",
                 f"x[{_slice(rng, rows)}, {_slice(rng, cols)}] = {value}"]
        form = rng.choice(forms)
        tags = ["nonsquare_slice"] if rows != cols and ":" in form.split("=")[0] else []
        return lines + form + "\nr = x", False, tags
    else:
        sl = _slice(rng, rows)
        forms = [f"x[{_index(rng, rows)}] = {value}", f"x[{_index(rng, rows)}] = {value}",
                 f"x[{sl}] = {value}",
                 f"x[{sl}] = [{', '.join(lit(nice(rng, s.scalar)) for _ in range(rng.randrange(0, rows + 2)))}]",
                 f"x[{sl}] = {ctor(rng, vector_spec(rng, max(1, rng.randrange(1, rows + 1)), s.scalar))}",
                 f"x[{_index(rng, rows)}] = 'a'", f"x[{_index(rng, rows)}] = [1]",
                 f"x[{_index(rng, rows)}] = {lit(rng.choice((1.7, -1, 300, True)))}"]
    return lines + rng.choice(forms) + "\nr = x", False


def i_attrs(rng):
    s = rng.choice((vector_spec(rng), vector_spec(rng), quat_spec(rng), transform_spec(rng), matrix_spec(rng)))
    lines = f"x = {ctor(rng, s)}\n"
    v = scalar_text(rng, s.scalar, nice(rng, s.scalar))
    if s.kind == "transformation":
        forms = ["r = (x.p, x.q)", f"x.p = {ctor(rng, vector_spec(rng, 3, s.scalar))}\nr = x",
                 f"x.q = {ctor(rng, quat_spec(rng, s.scalar))}\nr = x", "x.p[0] = 9.0\nr = x",
                 "x.p = [1.0, 2.0, 3.0]\nr = x", "x.q = (0.0, 0.0, 0.0, 1.0)\nr = x", "x.p = 1.0\nr = x",
                 "r = x.x", f"x.q = {ctor(rng, vector_spec(rng, 3, s.scalar))}\nr = x"]
    else:
        a = rng.choice("xyzw")
        forms = [f"r = x.{a}", f"x.{a} = {v}\nr = x", f"r = x.{rng.choice(('xy', 'xyz', 'zyx', 'length', 'dtype'))}",
                 f"x.{rng.choice(('xy', 'foo'))} = {v}\nr = x"]
    tags = ["transform_parts"] if s.kind == "transformation" and s.scalar != "float32" else []
    return lines + rng.choice(forms), False, tags + (["matrix_attr"] if s.kind == "matrix" else [])


def i_sequence(rng):
    s = any_spec(rng)
    forms = ["r = len(x)", "r = list(x)", "r = tuple(x)", "r = [e for e in x]", "r = [type(e) for e in x]",
             "r = type(x[0])", "r = type(x[-1])", "r = sum(1 for _ in x)", f"r = {lit(nice(rng, s.scalar))} in x",
             "r = x[0] in x", "r = len(type(x)())", "r = list(reversed(x))"]
    return f"x = {ctor(rng, s)}\n" + rng.choice(forms), False


# --- operators ------------------------------------------------------------------------------------
ARITH = ("+", "-", "*", "/", "//", "%")


def _literal_tag(s, text: str) -> str:
    """'ok' for a scalar operand warp_nb takes for spec s (Warp, where its Python scope has the overload),
    'mixed' for one both refuse (a float for an integer composite, a bool, another type's Warp scalar)."""
    if text.startswith(("wp.", "np.")):
        return "ok" if text.startswith((f"wp.{s.scalar}(", f"np.{s.scalar}(")) else "mixed"
    if text == "True":
        return "mixed"
    is_float = any(c in text for c in ".en") or "inf" in text
    return "mixed" if is_float and s.is_int else "ok"


def _operand(rng, s):
    """Something to combine with a value of spec s, and its tag (see _literal_tag; 'other' for a value
    of another kind or shape)."""
    r = rng.random()
    if r < 0.35:
        return ctor(rng, s), "ok"
    if r < 0.65:
        text = (scalar_text(rng, s.scalar, nice(rng, s.scalar, small=True) or 2) if r < 0.55
                else lit(rng.choice((2, -3, 0.5, 2.0, True))))
        return text, _literal_tag(s, text)
    if r < 0.75:
        other = rng.choice(SCALARS)
        return ctor(rng, like(rng, s, other)), "ok" if other == s.scalar else "mixed"
    if r < 0.82:
        return f"[{', '.join(lit(nice(rng, s.scalar)) for _ in range(s.shape[0]))}]", "ok"
    if r < 0.88:
        other = rng.choice(SCALARS)
        return f"wp.{other}({lit(nice(rng, 'uint8', small=True) or 1)})", "ok" if other == s.scalar else "mixed"
    other = any_spec(rng)
    return ctor(rng, other), "ok" if other.scalar == s.scalar else "mixed"


def o_binary(rng):
    s = any_spec(rng)
    op = rng.choice(ARITH)
    x, (y, tag) = ctor(rng, s), _operand(rng, s)
    approx = op == "*" and s.kind in ("matrix", "quaternion", "transformation")
    if rng.random() < 0.3:
        x, y = y, x
    return f"r = {x} {op} {y}", approx, [tag]


def o_matmul(rng):
    scalar = rng.choice(FLOATS * 2 + ("int32", "int8", "uint8"))
    r, k, c = (rng.choice((1, 2, 3, 4)) for _ in range(3))
    a = matrix_spec(rng, (r, k), scalar)
    b = rng.choice((matrix_spec(rng, (k, c), scalar), vector_spec(rng, k, scalar),
                    matrix_spec(rng, (k + 1, c), scalar), vector_spec(rng, k, rng.choice(FLOATS))))
    op = rng.choice(("@", "*", "@", "*"))
    if rng.random() < 0.3:  # vector on the left
        v = vector_spec(rng, r, scalar)
        return f"r = {ctor(rng, v, [nice(rng, scalar, True) for _ in range(r)])} {op} {ctor(rng, a)}", True, ["ok"]
    if rng.random() < 0.15:
        q = quat_spec(rng, scalar if scalar in FLOATS else "float32")
        return f"r = {ctor(rng, q)} {op} {ctor(rng, rng.choice((q, vector_spec(rng, 3, q.scalar))))}", True, ["ok"]
    return f"r = {ctor(rng, a)} {op} {ctor(rng, b)}", True, ["ok" if b.scalar == scalar else "mixed"]


def o_unary(rng):
    s = any_spec(rng)
    vals = values(rng, s, edgy)
    x = ctor(rng, s, vals)
    return rng.choice((f"r = -{x}", f"r = +{x}", f"r = abs({x})", f"x = {x}\nr = (+x) is x", f"r = ~{x}",
                       f"r = {x} ** 2", f"r = 2 ** {x}", f"r = round({x})")), False, ["ok"]


def o_compare(rng):
    s = any_spec(rng)
    vals = values(rng, s)
    x = ctor(rng, s, vals)
    other = rng.choice((ctor(rng, s, vals), ctor(rng, s), ctor(rng, like(rng, s, rng.choice(SCALARS)), vals),
                        f"[{', '.join(lit(v) for v in vals)}]", f"({', '.join(lit(v) for v in vals)},)",
                        f"np.array([{', '.join(lit(v) for v in vals)}])", "None", "0", "'a'"))
    op = rng.choice(("==", "!=", "==", "!=", "<", "<=", ">", ">="))
    return f"r = {x} {op} {other}", False, ["np_matrix"] if s.kind == "matrix" else []


def o_hash(rng):
    s = any_spec(rng)
    vals = values(rng, s)
    a, b = ctor(rng, s, vals), ctor(rng, s, vals)
    return rng.choice((f"r = hash({a}) == hash({b})", f"r = type(hash({a}))", f"r = len({{{a}, {b}}})",
                       f"r = {{{a}: 1}}[{b}]", f"r = bool({a})", f"r = bool({s.expr}())",
                       f"r = {a} == {b} and {a} is not {b}")), False


def o_inplace(rng):
    s = any_spec(rng)
    op = rng.choice(ARITH + ("@",))
    y, tag = _operand(rng, s) if op != "@" else (ctor(rng, s), "ok")
    return (f"x = {ctor(rng, s)}\nalias = x\nx {op}= {y}\nr = (x, alias, x is alias)",
            op in "*@" and s.kind != "vector", [tag])


def o_divzero(rng):
    s = any_spec(rng)
    zero = rng.choice(("0", "0.0", f"wp.{s.scalar}(0)", f"{s.expr}()"))
    op = rng.choice(("/", "//", "%", "/"))
    return f"r = {ctor(rng, s)} {op} {zero}", False, [_literal_tag(s, zero) if "(" not in zero[-2:] else "ok"]


def o_overflow(rng):
    scalar = rng.choice(("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"))
    s = vector_spec(rng, scalar=scalar) if rng.random() < 0.7 else matrix_spec(rng, (2, 2), scalar)
    lo, hi = INT_RANGE[scalar]
    vals = [rng.choice((lo, hi, hi - 1, lo + 1, 1, 0, -1 if lo else 2)) for _ in range(s.n)]
    op = rng.choice(("+", "-", "*", "//", "%"))
    other = rng.choice((ctor(rng, s, [rng.choice((hi, lo, 2, 1, -1 if lo else 3)) for _ in range(s.n)]),
                        scalar_text(rng, scalar, 2), f"wp.{scalar}({hi})"))
    return rng.choice((f"r = {ctor(rng, s, vals)} {op} {other}", f"r = -{ctor(rng, s, vals)}")), False, ["ok"]


# --- conversions, copies, types -------------------------------------------------------------------
def v_convert(rng):
    s = any_spec(rng)
    vals = values(rng, s, edgy if rng.random() < 0.4 else nice)
    x = ctor(rng, s, vals)
    forms = ["r = list(x)", "r = tuple(x)", "r = np.array(x)", "r = np.array(x).shape",
             "r = np.asarray(x, dtype=np.float64)",
             "r = str(x)", "r = repr(x)", "r = repr(x[0])", "r = str(x[0])", "r = float(x[0])", "r = int(x[-1])",
             "r = np.array([x, x]).shape", "r = np.array(x).dtype", "r = list(np.array(x).ravel())",
             "r = repr(x[0]) if not hasattr(x[0], '__len__') else repr(x[0][0])", "r = f'{x}'",
             "r = bytes(x)", "r = np.array(x).tolist()"]
    return f"x = {x}\n" + rng.choice(forms), False, ["np_matrix"] if s.kind == "matrix" else []


def v_types(rng):
    s = any_spec(rng)
    o = any_spec(rng)
    forms = ["r = wp.types.type_size(T)", "r = wp.types.type_size_in_bytes(T)", "r = wp.types.type_repr(T)",
             "r = T._length_", "r = T._shape_", "r = T._wp_scalar_type_",
             "r = wp.types.types_equal(T, U)", "r = wp.types.type_is_vector(T)", "r = wp.types.type_is_matrix(T)",
             "r = wp.types.type_is_quaternion(T)", "r = wp.types.type_is_transformation(T)",
             "r = wp.types.is_vector(T())", "r = wp.types.is_matrix(T())", "r = wp.types.is_value(T())",
             "r = wp.types.type_to_warp(T)" if rng.random() < 0.1 else "r = T is U",
             "r = wp.types.type_repr(type(T()))", "r = T._wp_generic_type_str_", "r = wp.types.type_ctype(T)._length_",
             "r = isinstance(T(), U)",
             "r = wp.types.type_is_int(T._wp_scalar_type_)", "r = wp.dtype_to_numpy(T._wp_scalar_type_)"]
    return f"T = {s.expr}\nU = {rng.choice((s.expr, o.expr))}\n" + rng.choice(forms), False


def v_copy(rng):
    s = any_spec(rng)
    v = scalar_text(rng, s.scalar, nice(rng, s.scalar))
    forms = [f"y = copy.copy(x)\ny[0] = {v}\nr = (x, y)", "y = copy.deepcopy(x)\nr = (y, y == x, y is x)",
             "y = pickle.loads(pickle.dumps(x))\nr = (y, type(y) is type(x))",
             f"y = {s.expr}(x)\ny[0] = {v}\nr = (x, y)",
             "y = x.__class__(x)\nr = y", "r = x == copy.copy(x)", "import ctypes\nr = ctypes.sizeof(x)"]
    return f"x = {ctor(rng, s)}\n" + rng.choice(forms), False


# --- structs --------------------------------------------------------------------------------------------
def s_struct(rng):
    fields = []
    for k in range(rng.randrange(1, 5)):
        choice = rng.random()
        spec = (vector_spec(rng) if choice < 0.35 else matrix_spec(rng) if choice < 0.5 else
                quat_spec(rng) if choice < 0.55 else transform_spec(rng) if choice < 0.6 else None)
        scalar = rng.choice(SCALARS + ("bool",))
        fields.append((f"f{k}", spec, scalar))
    def annotation(spec, sc):
        return spec.expr if spec else "wp." + sc if sc != "float32" or rng.random() < 0.5 else "float"

    decl = "\n".join(f"    {n}: {annotation(spec, sc)}" for n, spec, sc in fields)
    src = f"@wp.struct\nclass S:\n{decl}\n\ns = S()\n"
    name, spec, scalar = rng.choice(fields)
    if spec is None:
        sval = "True" if scalar == "bool" else scalar_text(rng, scalar, edgy(rng, scalar))
        if scalar == "bool":
            sval = rng.choice(("True", "0", "2", "wp.bool(True)"))
        forms = [f"r = s.{name}", f"s.{name} = {sval}\nr = s.{name}", f"s.{name} = {sval}\nr = s.numpy_value()",
                 f"s.{name} = {sval}\nr = repr(s.{name})",
                 f"s.{name} = {ctor(rng, vector_spec(rng, 3, 'float32'))}\nr = s.{name}",
                 f"s.{name} = {lit(rng.choice((1.5, 7, -1, 'a')))}\nr = s.{name}", f"s.{name} = None\nr = s.{name}"]
    else:
        forms = [f"r = s.{name}", f"s.{name} = {ctor(rng, spec)}\nr = s.{name}",
                 f"s.{name} = [{', '.join(lit(nice(rng, spec.scalar)) for _ in range(spec.n))}]\nr = s.{name}",
                 f"s.{name} = np.array([{', '.join(lit(nice(rng, spec.scalar)) for _ in range(spec.n))}])"
                 f"\nr = s.{name}",
                 f"s.{name} = {lit(nice(rng, spec.scalar))}\nr = s.{name}",
                 f"s.{name}[0] = {lit(nice(rng, spec.scalar))}\nr = s.{name}",
                 f"s.{name} = {ctor(rng, like(rng, spec, rng.choice(SCALARS)))}\nr = s.{name}",
                 f"v = s.{name}\nv[0] = {lit(nice(rng, spec.scalar))}\nr = (s.{name}, v)",
                 f"s.{name} = None\nr = s.{name}",
                 f"s.{name} = {ctor(rng, spec)}\nr = s.numpy_value()"]
    others = ["r = S.numpy_dtype()", "r = wp.types.type_size_in_bytes(S)", "r = repr(s)[:200]",
              "r = wp.types.is_struct(s)", "r = [getattr(s, n) for n in S.vars]", "r = s.nope",
              f"s2 = S()\ns2.{name} = s.{name}\nr = s2.{name}",
              "c = copy.copy(s)\nr = (type(c) is type(s), repr(c) == repr(s))",
              "r = S(" + ", ".join(f"{n}={ctor(rng, sp) if sp else lit(nice(rng, sc if sc != 'bool' else 'uint8'))}"
                                   for n, sp, sc in fields) + ").numpy_value()"]
    return src + rng.choice(forms if rng.random() < 0.75 else others), False


def s_nested(rng):
    inner = vector_spec(rng, 3, rng.choice(FLOATS))
    src = (f"@wp.struct\nclass Inner:\n    v: {inner.expr}\n    k: wp.int32\n\n"
           "@wp.struct\nclass Outer:\n    a: Inner\n    b: wp.float32\n    arr: wp.array(dtype=wp.float32)\n\n"
           "o = Outer()\n")
    forms = ["r = o.a.v", f"o.a.v = {ctor(rng, inner)}\nr = o.a.v", "i = Inner()\ni.k = 5\no.a = i\ni.k = 6\nr = o.a.k",
             "o.a = 3\nr = o.a", "o.a.k = 7\nr = o.numpy_value()", "r = o.arr",
             "o.arr = wp.array([1.0, 2.0], dtype=wp.float32, device='cpu')\nr = o.arr.numpy()",
             "o.arr = wp.array([1, 2], dtype=wp.int32, device='cpu')\nr = o.arr", "o.arr = np.zeros(3)\nr = o.arr",
             "r = Outer.numpy_dtype()['names']", "r = wp.types.type_size_in_bytes(Outer)", "r = o.b",
             "o.b = 2.5\nr = (o.b, type(o.b))", "o.b = wp.float32(2.5)\nr = (o.b, type(o.b))",
             "o.b = np.float32(2.5)\nr = (o.b, type(o.b))", "r = repr(o)[:10]", "r = Inner(v=None).v"]
    return src + rng.choice(forms), False


#: (name, weight, generator)
KINDS = (
    ("c_scalars", 6, c_scalars), ("c_fill", 3, c_fill), ("c_empty", 1, c_empty), ("c_sequence", 5, c_sequence),
    ("c_wrong_count", 2, c_wrong_count), ("c_convert", 3, c_convert), ("c_matrix_rows", 3, c_matrix_rows),
    ("c_quat", 2, c_quat), ("c_transform", 3, c_transform), ("i_get", 7, i_get), ("i_set", 7, i_set),
    ("i_attrs", 3, i_attrs), ("i_sequence", 3, i_sequence), ("o_binary", 10, o_binary), ("o_matmul", 4, o_matmul),
    ("o_unary", 3, o_unary), ("o_compare", 4, o_compare), ("o_hash", 2, o_hash), ("o_inplace", 4, o_inplace),
    ("o_divzero", 2, o_divzero), ("o_overflow", 3, o_overflow), ("v_convert", 6, v_convert),
    ("v_types", 4, v_types), ("v_copy", 3, v_copy), ("s_struct", 6, s_struct), ("s_nested", 2, s_nested),
)
