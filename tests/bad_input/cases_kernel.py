"""Bad-input cases inside kernels and funcs: unsupported Python, bad annotations, wrong types and
argument counts, recursion, struct misuse. Each is `(name, source)`; the line marked `# <-` is the
one the error message must name (`line N`). The runner adds `import warp_nb as wp` and
`import numpy as np` in front of every source (so line numbers count from there, see runner.py)."""

from __future__ import annotations


def _k(body: str, params: str = "a: wp.array(dtype=float)", launch: str = "wp.launch(k, dim=1, inputs=[wp.zeros(4)])") -> str:
    """A kernel `k` with `body` (indented here) and a launch that compiles it."""
    lines = "\n".join("    " + line for line in body.strip("\n").splitlines())
    return f"@wp.kernel\ndef k({params}):\n    i = wp.tid()\n{lines}\n{launch}\n"


UNSUPPORTED = [
    ("list_comprehension", _k("b = [1.0 for j in range(3)]  # <-")),
    ("dict_comprehension", _k("b = {j: 1.0 for j in range(3)}  # <-")),
    ("set_comprehension", _k("b = {j for j in range(3)}  # <-")),
    ("generator_expression", _k("b = sum(float(j) for j in range(3))  # <-")),
    ("try_except", _k("try:  # <-\n    a[i] = 1.0\nexcept Exception:\n    pass")),
    ("try_finally", _k("try:  # <-\n    a[i] = 1.0\nfinally:\n    pass")),
    ("raise", _k("raise ValueError('no')  # <-")),
    ("lambda", _k("f = lambda x: x + 1.0  # <-\na[i] = f(1.0)")),
    ("class_def", _k("class P:  # <-\n    pass")),
    ("nested_def", _k("def helper(x):  # <-\n    return x\na[i] = helper(1.0)")),
    ("with_statement", _k("with wp.ScopedDevice('cpu'):  # <-\n    a[i] = 1.0")),
    ("global_statement", _k("global G  # <-\na[i] = 1.0")),
    ("nonlocal_like_global", _k("global a  # <-")),
    ("yield", _k("yield 1.0  # <-")),
    ("yield_from", _k("yield from range(3)  # <-")),
    ("fstring", _k("s = f'{i}'  # <-")),
    ("fstring_print", _k("print(f'value {a[i]}')  # <-")),
    ("string_local", _k("s = 'hello'  # <-\na[i] = 1.0")),
    ("bytes_local", _k("s = b'hello'  # <-")),
    ("list_literal", _k("b = [1.0, 2.0]  # <-\na[i] = b[0]")),
    ("dict_literal", _k("b = {'x': 1.0}  # <-")),
    ("set_literal", _k("b = {1.0, 2.0}  # <-")),
    ("del_statement", _k("b = 1.0\ndel b  # <-")),
    ("import_in_kernel", _k("import math  # <-\na[i] = 1.0")),
    ("import_from_in_kernel", _k("from math import sin  # <-\na[i] = 1.0")),
    ("star_args", _k("args = (1.0,)\na[i] = wp.sin(*args)  # <-\n# expect: either")),
    ("kwargs_call", _k("a[i] = wp.sin(**{'x': 1.0})  # <-")),
    ("walrus", _k("if (b := a[i]) > 0.0:  # <-\n    a[i] = b")),
    ("for_else", _k("for j in range(3):  # <-\n    a[i] = 1.0\nelse:\n    a[i] = 2.0")),
    ("while_else", _k("j = int(0)\nwhile j < 3:  # <-\n    j += 1\nelse:\n    a[i] = 2.0")),
    ("range_four_args", _k("for j in range(0, 3, 1, 1):  # <-\n    a[i] = 1.0")),
    ("range_float", _k("for j in range(0.5):  # <-\n    a[i] = 1.0")),
    ("range_no_args", _k("for j in range():  # <-\n    a[i] = 1.0")),
    ("async_for_like_await", "import asyncio\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = asyncio.sleep(1.0)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("ellipsis", _k("b = ...  # <-")),
    ("none_local", _k("b = None  # <-\na[i] = b")),
    ("complex_literal", _k("b = 1j  # <-\na[i] = b")),
    ("starred_assign", _k("b, *c = 1.0, 2.0, 3.0  # <-")),
    ("tuple_unpack_count", _k("b, c = 1.0, 2.0, 3.0  # <-")),
    ("matmul_operator_scalars", _k("a[i] = 1.0 @ 2.0  # <-")),
    ("string_compare", _k("if 'a' == 'b':  # <-\n    a[i] = 1.0")),
    ("in_operator_list", _k("if i in [1, 2]:  # <-\n    a[i] = 1.0")),
    ("slice_array", _k("b = a[1:3]  # <-\n# expect: either")),  # array views in kernels, as in Warp
    ("attribute_on_float", _k("b = a[i].real  # <-")),
    ("vec_bad_swizzle", _k("v = wp.vec3(1.0, 2.0, 3.0)\na[i] = v.w  # <-")),
    ("vec_const_index_oob", _k("v = wp.vec3(1.0, 2.0, 3.0)\na[i] = v[3]  # <-")),
    ("mat_const_index_oob", _k("m = wp.mat22(1.0, 2.0, 3.0, 4.0)\na[i] = m[2, 0]  # <-")),
    ("too_many_array_indices", _k("a[i, 0] = 1.0  # <-")),
    ("return_value_from_kernel", _k("return 1.0  # <-")),
    ("assert_string_only", _k("b = 'x' + 'y'  # <-")),
    ("python_builtin_len_of_float", _k("a[i] = float(len(1.0))  # <-")),
    ("python_builtin_sorted", _k("b = sorted(a)  # <-")),
    ("python_builtin_open", _k("f = open('x')  # <-")),
    ("np_fabs", _k("a[i] = np.fabs(1.0)  # <-")),  # np.sin compiles as wp.sin, as in Warp
    ("math_module_attr", "import math\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = math.gamma(1.0)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("plain_python_helper", "def helper(x):\n    return x * 2.0\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = helper(1.0)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("unknown_name", _k("a[i] = undefined_thing + 1.0  # <-")),
    ("unknown_wp_function", _k("a[i] = wp.sinn(1.0)  # <-")),
    ("misspelled_local", _k("value = 1.0\na[i] = valeu  # <-")),
    ("use_before_assign", _k("a[i] = later  # <-\nlater = 1.0")),
    ("host_object_in_kernel", "table = {'a': 1.0}\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = table['a']  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("host_list_in_kernel", "values = [1.0, 2.0]\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = values[0]  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("kernel_calls_kernel", "@wp.kernel\ndef inner(a: wp.array(dtype=float)):\n    i = wp.tid()\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    inner(a)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("launch_inside_kernel", _k("wp.launch(k, dim=1, inputs=[a])  # <-")),
]

TYPES = [
    ("int_times_float", _k("a[i] = i * 0.5  # <-")),
    ("vec_plus_float", _k("v = wp.vec3(1.0, 2.0, 3.0)\nw = v + 1.0  # <-")),
    ("vec3_plus_vec2", _k("v = wp.vec3(1.0, 2.0, 3.0) + wp.vec2(1.0, 2.0)  # <-")),
    ("dot_vec3_vec2", _k("a[i] = wp.dot(wp.vec3(1.0, 2.0, 3.0), wp.vec2(1.0, 2.0))  # <-")),
    ("cross_of_floats", _k("a[i] = wp.cross(1.0, 2.0)  # <-")),
    ("length_of_float", _k("a[i] = wp.length(1.0)  # <-")),
    ("sin_of_vec", _k("v = wp.sin(wp.vec3(1.0, 2.0, 3.0))  # <-\na[i] = v[0]")),
    ("sin_two_args", _k("a[i] = wp.sin(1.0, 2.0)  # <-")),
    ("sin_no_args", _k("a[i] = wp.sin()  # <-")),
    ("clamp_two_args", _k("a[i] = wp.clamp(1.0, 2.0)  # <-")),
    ("vec3_two_args", _k("v = wp.vec3(1.0, 2.0)  # <-")),
    ("vec3_four_args", _k("v = wp.vec3(1.0, 2.0, 3.0, 4.0)  # <-")),
    ("mat22_three_args", _k("m = wp.mat22(1.0, 2.0, 3.0)  # <-")),
    ("unknown_keyword_to_builtin", _k("a[i] = wp.sin(y=1.0)  # <-")),
    ("store_vec_into_float_array", _k("a[i] = wp.vec3(1.0, 2.0, 3.0)  # <-")),
    ("store_float_into_int_array", _k("a[i] = 1.5  # <-", params="a: wp.array(dtype=int)", launch="wp.launch(k, dim=1, inputs=[wp.zeros(4, dtype=int)])")),
    ("retype_local", _k("b = int(1)\nb = 2.5  # <-")),
    ("retype_local_in_branch", _k("b = 1.0\nif i > 0:\n    b = wp.vec3(1.0, 2.0, 3.0)  # <-")),
    ("bool_array_arith", _k("a[i] = True + wp.vec3(1.0, 2.0, 3.0)  # <-")),
    ("compare_vectors_lt", _k("if wp.vec3(1.0, 2.0, 3.0) < wp.vec3(0.0, 0.0, 0.0):  # <-\n    a[i] = 1.0")),
    ("array_as_scalar", _k("b = a + 1.0  # <-")),
    ("index_float", _k("a[0.5] = 1.0  # <-")),
    ("index_vec", _k("a[wp.vec3(1.0, 2.0, 3.0)] = 1.0  # <-")),
    ("int_index_of_float_var", _k("b = 1.0\nc = b[0]  # <-")),
    ("tid_unpack_too_many", _k("i2, j2, k2, l2, m2 = wp.tid()  # <-")),
    ("bitwise_on_floats", _k("a[i] = 1.0 & 2.0  # <-")),
    ("shift_float", _k("a[i] = 1.0 << 2  # <-")),
    ("mod_vec", _k("v = wp.vec3(1.0, 2.0, 3.0) % wp.vec3(1.0, 2.0, 3.0)  # <-\n# expect: either")),  # Warp has componentwise mod
    ("atomic_add_on_local", _k("b = 1.0\nwp.atomic_add(b, 0, 1.0)  # <-")),
    ("atomic_add_wrong_value_type", _k("wp.atomic_add(a, i, wp.vec3(1.0, 2.0, 3.0))  # <-")),
    ("matmul_shape_mismatch", _k("m = wp.mat22(1.0, 2.0, 3.0, 4.0)\nv = m @ wp.vec3(1.0, 2.0, 3.0)  # <-")),
    ("float_to_vec_assign", _k("v = wp.vec3(1.0, 2.0, 3.0)\nv = 1.0  # <-")),
]

ANNOTATIONS = [
    ("missing_annotation", "@wp.kernel\ndef k(a):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("list_annotation", "@wp.kernel\ndef k(a: list):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[[1.0]])\n"),
    ("ndarray_annotation", "@wp.kernel\ndef k(a: np.ndarray):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[np.zeros(3)])\n"),
    ("str_dtype_array", "@wp.kernel\ndef k(a: wp.array(dtype=str)):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("array_ndim_5", "@wp.kernel\ndef k(a: wp.array(dtype=float, ndim=5)):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("string_annotation_unknown", "@wp.kernel\ndef k(a: 'nonsense_type'):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("numpy_dtype_annotation", "@wp.kernel\ndef k(a: wp.array(dtype=np.complex64)):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("default_value_kernel_param", "@wp.kernel\ndef k(a: wp.array(dtype=float), s: float = 1.0):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])  # <-\n# expect: either\n"),
    ("varargs_kernel", "@wp.kernel\ndef k(*args):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("kwargs_kernel", "@wp.kernel\ndef k(**kw):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("vector_length_zero", "@wp.kernel\ndef k(a: wp.array(dtype=wp.types.vector(length=0, dtype=float))):  # <-\n    i = wp.tid()\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])  # <-\n"),
    ("func_bad_annotation", "@wp.func\ndef f(x: dict):  # <-\n    return 1.0\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
]

FUNCS = [
    ("func_too_few_args", "@wp.func\ndef f(x: float, y: float):\n    return x + y\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_too_many_args", "@wp.func\ndef f(x: float):\n    return x\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0, 2.0)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_wrong_arg_type", "@wp.func\ndef f(x: wp.vec3):\n    return x[0]\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_unknown_keyword", "@wp.func\ndef f(x: float):\n    return x\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(z=1.0)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_returns_two_types", "@wp.func\ndef f(x: float):\n    if x > 0.0:\n        return 1.0\n    return wp.vec3(0.0, 0.0, 0.0)  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_returns_float_then_int", "@wp.func\ndef f(x: float):\n    if x > 0.0:\n        return 1.0\n    return 2  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_returns_float_var_then_int", "@wp.func\ndef f(x: float):\n    if x > 0.0:\n        return x\n    return 0  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_no_return_used", "@wp.func\ndef f(x: float):\n    y = x\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("recursion", "@wp.func\ndef f(x: int) -> int:\n    if x <= 0:\n        return 0\n    return f(x - 1) + 1  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = float(f(3))\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("mutual_recursion", "@wp.func\ndef g(x: int) -> int:\n    return h(x - 1)  # <-\n@wp.func\ndef h(x: int) -> int:\n    return g(x - 1)  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = float(g(3))\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_return_annotation_mismatch", "@wp.func\ndef f(x: float) -> wp.vec3:\n    return x  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)[0]\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_error_inside", "@wp.func\ndef f(x: float):\n    return x + undefined_name  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_list_comprehension", "@wp.func\ndef f(x: float):\n    return sum([x for _ in range(2)])  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
    ("func_tid", "@wp.func\ndef f(x: float):\n    return x + float(wp.tid())  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = f(1.0)\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
]

STRUCTS = [
    ("struct_unknown_field", "@wp.struct\nclass S:\n    x: float\n@wp.kernel\ndef k(s: S, a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = s.nope  # <-\nwp.launch(k, dim=1, inputs=[S(), wp.zeros(4)])\n"),
    ("struct_field_wrong_type_in_kernel", "@wp.struct\nclass S:\n    x: float\n@wp.kernel\ndef k(s: S, a: wp.array(dtype=float)):\n    i = wp.tid()\n    t = S()\n    t.x = wp.vec3(1.0, 2.0, 3.0)  # <-\nwp.launch(k, dim=1, inputs=[S(), wp.zeros(4)])\n"),
    ("struct_list_field", "@wp.struct\nclass S:  # <-\n    x: list  # <-\n"),
    ("struct_unannotated_field", "@wp.struct\nclass S:\n    x: float\n    y = 2.0\ns = S()\ns.y = 'text'  # <-\n@wp.kernel\ndef k(s: S, a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = s.y  # <-\nwp.launch(k, dim=1, inputs=[s, wp.zeros(4)])\n"),
    ("struct_as_number", "@wp.struct\nclass S:\n    x: float\n@wp.kernel\ndef k(s: S, a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = s + 1.0  # <-\nwp.launch(k, dim=1, inputs=[S(), wp.zeros(4)])\n"),
    ("struct_constructor_args_in_kernel", "@wp.struct\nclass S:\n    x: float\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    s = S(1.0, 2.0, 3.0)  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4)])\n"),
]

KERNEL_CASES = [(name, src) for group in (UNSUPPORTED, TYPES, ANNOTATIONS, FUNCS, STRUCTS) for name, src in group]
