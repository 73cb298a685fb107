"""Bad-input cases on the host side: launches with wrong arguments, dims and devices, arrays made
wrongly, out-of-range access at run time, Tape misuse, geometry misuse, and the few cases whose
outcome is undefined behaviour that cannot be checked. Each is `(name, source)`; the line marked
`# <-` is the one the error must point at (the innermost traceback frame in the script, or for a
kernel's own line, `line N` in the message). See runner.py for the prelude added in front."""

from __future__ import annotations

#: a kernel every launch case uses: float array, int, vec3
K = """@wp.kernel
def k(a: wp.array(dtype=float), n: int, v: wp.vec3):
    i = wp.tid()
    a[i] = float(n) + v[0]
"""
A = "a = wp.zeros(8)\n"


def _launch(call: str, setup: str = A) -> str:
    return K + setup + call + "  # <-\n"


LAUNCH = [
    ("float64_array_for_float32", _launch("wp.launch(k, dim=8, inputs=[wp.zeros(8, dtype=wp.float64), 1, wp.vec3()])")),
    ("int_array_for_float", _launch("wp.launch(k, dim=8, inputs=[wp.zeros(8, dtype=int), 1, wp.vec3()])")),
    ("vec3_array_for_float", _launch("wp.launch(k, dim=8, inputs=[wp.zeros(8, dtype=wp.vec3), 1, wp.vec3()])")),
    ("array2d_for_1d", _launch("wp.launch(k, dim=8, inputs=[wp.zeros((2, 4)), 1, wp.vec3()])")),
    ("too_few_inputs", _launch("wp.launch(k, dim=8, inputs=[a, 1])")),
    ("too_many_inputs", _launch("wp.launch(k, dim=8, inputs=[a, 1, wp.vec3(), 5])")),
    ("no_inputs", _launch("wp.launch(k, dim=8)")),
    ("checked_none_for_array_then_store", "@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = 1.0  # <-\nwp.launch(k, dim=8, inputs=[None])  # <-\n"),
    ("list_for_array", _launch("wp.launch(k, dim=8, inputs=[[1.0, 2.0], 1, wp.vec3()])")),
    ("string_for_int", _launch("wp.launch(k, dim=8, inputs=[a, 'one', wp.vec3()])")),
    ("float_for_int", _launch("wp.launch(k, dim=8, inputs=[a, 1.5, wp.vec3()])")),
    ("array_for_int", _launch("wp.launch(k, dim=8, inputs=[a, a, wp.vec3()])")),
    ("none_for_int", _launch("wp.launch(k, dim=8, inputs=[a, None, wp.vec3()])")),
    ("string_for_float", "@wp.kernel\ndef s(x: wp.array(dtype=float), a: float):\n    x[wp.tid()] *= a\n"
                         "wp.launch(s, dim=4, inputs=[wp.ones(4), '2.0'])  # <-\n"),
    ("none_for_float", "@wp.kernel\ndef s(x: wp.array(dtype=float), a: float):\n    x[wp.tid()] *= a\n"
                       "wp.launch(s, dim=4, inputs=[wp.ones(4), None])  # <-\n"),
    ("string_for_bool", "@wp.kernel\ndef s(x: wp.array(dtype=float), on: bool):\n    if on:\n        x[wp.tid()] = 0.0\n"
                        "wp.launch(s, dim=4, inputs=[wp.ones(4), 'no'])  # <-\n"),
    ("float_for_vec3", _launch("wp.launch(k, dim=8, inputs=[a, 1, 2.0])")),
    ("short_tuple_for_vec3", _launch("wp.launch(k, dim=8, inputs=[a, 1, (1.0, 2.0)])")),
    ("string_for_vec3", _launch("wp.launch(k, dim=8, inputs=[a, 1, 'xyz'])")),
    ("vec2_for_vec3", _launch("wp.launch(k, dim=8, inputs=[a, 1, wp.vec2()])")),
    ("dict_for_array", _launch("wp.launch(k, dim=8, inputs=[{'a': 1}, 1, wp.vec3()])")),
    ("bool_for_array", _launch("wp.launch(k, dim=8, inputs=[True, 1, wp.vec3()])")),
    ("complex_for_int", _launch("wp.launch(k, dim=8, inputs=[a, 1j, wp.vec3()])")),
    ("huge_int_for_int32", _launch("wp.launch(k, dim=8, inputs=[a, 2**40, wp.vec3()])")),
    ("dim_string", _launch("wp.launch(k, dim='8', inputs=[a, 1, wp.vec3()])")),
    ("dim_float", _launch("wp.launch(k, dim=8.5, inputs=[a, 1, wp.vec3()])")),
    ("dim_none", _launch("wp.launch(k, dim=None, inputs=[a, 1, wp.vec3()])")),
    ("dim_five_dims", _launch("wp.launch(k, dim=(1, 1, 1, 1, 1), inputs=[a, 1, wp.vec3()])")),
    ("dim_negative", _launch("wp.launch(k, dim=-3, inputs=[a, 1, wp.vec3()])")),
    ("dim_huge", _launch("wp.launch(k, dim=(2**31, 2**31, 2**31), inputs=[a, 1, wp.vec3()])")),
    ("dim_list_of_strings", _launch("wp.launch(k, dim=['2', '4'], inputs=[a, 1, wp.vec3()])")),
    ("device_missing_cuda", _launch("wp.launch(k, dim=8, inputs=[a, 1, wp.vec3()], device='cuda:7')")),
    ("device_int", _launch("wp.launch(k, dim=8, inputs=[a, 1, wp.vec3()], device=123)")),
    ("device_bogus_name", _launch("wp.launch(k, dim=8, inputs=[a, 1, wp.vec3()], device='tpu')")),
    ("kernel_unknown_keyword", "def f(a: wp.array(dtype=float)):\n    pass\nwp.kernel(f, mode='debug')  # <-\n"),
    ("launch_plain_function", "def f(a):\n    pass\nwp.launch(f, dim=1, inputs=[wp.zeros(3)])  # <-\n"),
    ("launch_func", "@wp.func\ndef f(x: float):\n    return x\nwp.launch(f, dim=1, inputs=[1.0])  # <-\n"),
    ("launch_none", "wp.launch(None, dim=1, inputs=[])  # <-\n"),
    ("launch_kernel_name_string", _launch("wp.launch('k', dim=8, inputs=[a, 1, wp.vec3()])")),
    ("inputs_not_a_list", _launch("wp.launch(k, dim=8, inputs=5)")),
    ("outputs_wrong_type", "@wp.kernel\ndef k(a: wp.array(dtype=float), b: wp.array(dtype=float)):\n    i = wp.tid()\n    b[i] = a[i]\nwp.launch(k, dim=4, inputs=[wp.zeros(4)], outputs=[3.0])  # <-\n"),
    ("unknown_launch_keyword", _launch("wp.launch(k, dim=8, inputs=[a, 1, wp.vec3()], threads=4)")),
    ("call_kernel_directly", K + A + "k(a, 1, wp.vec3())  # <-\n"),
    ("struct_wrong_struct_type", "@wp.struct\nclass S:\n    x: float\n@wp.struct\nclass T:\n    x: float\n@wp.kernel\ndef k(s: S, a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = s.x\nwp.launch(k, dim=1, inputs=[T(), wp.zeros(4)])  # <-\n"),
    ("struct_dict_for_struct", "@wp.struct\nclass S:\n    x: float\n@wp.kernel\ndef k(s: S, a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = s.x\nwp.launch(k, dim=1, inputs=[{'x': 1.0}, wp.zeros(4)])  # <-\n"),
    ("struct_field_assign_wrong_type", "@wp.struct\nclass S:\n    x: float\ns = S()\ns.x = 'text'  # <-\n"),
    ("struct_field_assign_array_dtype", "@wp.struct\nclass S:\n    a: wp.array(dtype=float)\ns = S()\ns.a = wp.zeros(3, dtype=int)  # <-\n"),
    ("struct_unknown_attribute_host", "@wp.struct\nclass S:\n    x: float\ns = S()\ns.nope = 1.0  # <-\n"),
    ("struct_positional_args_host", "@wp.struct\nclass S:\n    x: float\ns = S(1.0, 2.0)  # <-\n"),
    ("array_dtype_vec_for_float_struct_field", "@wp.struct\nclass S:\n    v: wp.vec3\ns = S()\ns.v = 5  # <-\n"),
    ("launch_array_of_other_shape_2d", "@wp.kernel\ndef k(a: wp.array2d(dtype=float)):\n    i, j = wp.tid()\n    a[i, j] = 1.0\nwp.launch(k, dim=(2, 2), inputs=[wp.zeros(4)])  # <-\n"),
    ("launch_numpy_float64_for_float32", _launch("wp.launch(k, dim=8, inputs=[np.zeros(8), 1, wp.vec3()])")),
]

#: a kernel that uses the constant C (the error may come where C is made or where it is used)
_USE_C = "@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = C  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(1)])\n"

ARRAYS = [
    ("zeros_negative", "a = wp.zeros(-1)  # <-\n"),
    ("zeros_negative_2d", "a = wp.zeros((3, -2))  # <-\n"),
    ("zeros_huge", "a = wp.zeros((2**33, 2**33))  # <-\n"),
    ("zeros_string_shape", "a = wp.zeros('abc')  # <-\n"),
    ("zeros_float_shape", "a = wp.zeros(2.5)  # <-\n"),
    ("zeros_five_dims", "a = wp.zeros((1, 1, 1, 1, 1))  # <-\n"),
    ("zeros_str_dtype", "a = wp.zeros(3, dtype=str)  # <-\n"),
    ("zeros_object_dtype", "a = wp.zeros(3, dtype=object)  # <-\n"),
    ("zeros_bad_device", "a = wp.zeros(3, device='cuda:9')  # <-\n"),
    ("zeros_bad_device_name", "a = wp.zeros(3, device='gpu')  # <-\n"),
    ("array_complex", "a = wp.array([1.0, 2.0, 3j])  # <-\n"),
    ("array_complex_numpy", "a = wp.array(np.ones(3, dtype=np.complex64))  # <-\n"),
    ("array_ragged", "a = wp.array([[1.0, 2.0], [3.0]])  # <-\n"),
    ("array_strings", "a = wp.array(np.array(['a', 'b']))  # <-\n"),
    ("array_objects", "a = wp.array([object(), object()])  # <-\n"),
    ("array_vec3_wrong_inner", "a = wp.array(np.zeros((5, 2)), dtype=wp.vec3)  # <-\n"),
    ("array_vec3_rows_split_vectors", "a = wp.array(np.zeros((3, 4), dtype=np.float32), dtype=wp.vec3)  # <-\n"),
    ("array_mat33_wrong_inner", "a = wp.array(np.zeros((5, 3)), dtype=wp.mat33)  # <-\n"),
    ("array_shape_mismatch", "a = wp.array(np.zeros(6), shape=(4, 2))  # <-\n"),
    ("array_none_data_no_shape_then_launch", "a = wp.array(None, dtype=float)\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = 1.0\nwp.launch(k, dim=4, inputs=[a])  # <-\n"),
    ("reshape_wrong_size", "a = wp.zeros((2, 3))\nb = a.reshape((4,))  # <-\n"),
    ("reshape_two_minus_one", "a = wp.zeros((2, 3))\nb = a.reshape((-1, -1))  # <-\n"),
    ("copy_size_mismatch", "a = wp.zeros(3)\nb = wp.zeros(10)\nwp.copy(a, b)  # <-\n"),
    ("copy_dtype_mismatch", "a = wp.zeros(3)\nb = wp.zeros(3, dtype=wp.vec3)\nwp.copy(a, b)  # <-\n"),
    ("copy_offset_out_of_range", "a = wp.zeros(3)\nb = wp.zeros(3)\nwp.copy(a, b, dest_offset=5, count=3)  # <-\n"),
    ("copy_to_numpy", "a = wp.zeros(3)\nwp.copy(np.zeros(3), a)  # <-\n"),
    ("assign_wrong_shape", "a = wp.zeros(3)\na.assign(np.zeros(5))  # <-\n"),
    ("assign_wrong_type", "a = wp.zeros(3)\na.assign('abc')  # <-\n"),
    ("fill_wrong_type", "a = wp.zeros(3)\na.fill_(wp.vec3(1.0, 2.0, 3.0))  # <-\n"),
    ("fill_string", "a = wp.zeros(3)\na.fill_('x')  # <-\n"),
    ("full_string_value", "a = wp.full(3, 'x')  # <-\n"),
    ("host_setitem", "a = wp.zeros(3)\na[0] = 1.0  # <-\n"),
    ("host_getitem_out_of_range", "a = wp.zeros(3)\nb = a[5]  # <-\n"),
    ("host_getitem_too_many_indices", "a = wp.zeros(3)\nb = a[0, 0, 0]  # <-\n"),
    ("host_getitem_string", "a = wp.zeros(3)\nb = a['x']  # <-\n"),
    ("from_numpy_object_array", "a = wp.from_numpy(np.array([None, None]))  # <-\n"),
    ("array_negative_shape_kw", "a = wp.empty(shape=(-4,))  # <-\n"),
    ("array_ptr_without_shape", "a = wp.array(ptr=1234, dtype=float)  # <-\nb = a.numpy()  # <-\n"),
    ("vec3_wrong_count_host", "v = wp.vec3(1.0, 2.0)  # <-\n"),
    ("vec3_strings_host", "v = wp.vec3('a', 'b', 'c')  # <-\n"),
    ("mat33_three_args_host", "m = wp.mat33(1.0, 2.0, 3.0)  # <-\n"),
    ("vec_negative_length", "V = wp.types.vector(length=-1, dtype=float)  # <-\n"),
    ("vec_bad_dtype", "V = wp.types.vector(length=3, dtype=str)  # <-\n"),
    ("vec_index_out_of_range_host", "v = wp.vec3(1.0, 2.0, 3.0)\nx = v[5]  # <-\n"),
    ("constant_string", "C = wp.constant('text')  # <-\n" + _USE_C),
    ("constant_list", "C = wp.constant([1.0, 2.0])  # <-\n" + _USE_C),
    ("constant_none", "C = wp.constant(None)  # <-\n" + _USE_C),
    ("numpy_of_bad_dtype_view", "a = wp.zeros(3)\nb = a.view(str)  # <-\n"),
    ("array_grad_wrong_shape", "a = wp.zeros(3, requires_grad=True)\na.grad = wp.zeros(5)  # <-\n"),
]

RUNTIME = [
    ("debug_oob_read", "wp.config.mode = 'debug'\n@wp.kernel\ndef k(a: wp.array(dtype=float), b: wp.array(dtype=float)):\n    i = wp.tid()\n    b[i] = a[i + 10]  # <-\nwp.launch(k, dim=4, inputs=[wp.zeros(4), wp.zeros(4)])\nwp.synchronize()\n"),
    ("debug_oob_write", "wp.config.mode = 'debug'\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i * 3] = 1.0  # <-\nwp.launch(k, dim=4, inputs=[wp.zeros(4)])\nwp.synchronize()\n"),
    ("debug_oob_negative", "wp.config.mode = 'debug'\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i - 9] = 1.0  # <-\nwp.launch(k, dim=4, inputs=[wp.zeros(4)])\nwp.synchronize()\n"),
    ("debug_oob_2d", "wp.config.mode = 'debug'\n@wp.kernel\ndef k(a: wp.array2d(dtype=float)):\n    i = wp.tid()\n    a[i, 7] = 1.0  # <-\nwp.launch(k, dim=2, inputs=[wp.zeros((2, 3))])\nwp.synchronize()\n"),
    ("debug_oob_in_func", "wp.config.mode = 'debug'\n@wp.func\ndef get(a: wp.array(dtype=float), j: int):\n    return a[j]  # <-\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[0] = get(a, i + 100)\nwp.launch(k, dim=4, inputs=[wp.zeros(4)])\nwp.synchronize()\n"),
    ("debug_oob_atomic", "wp.config.mode = 'debug'\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    wp.atomic_add(a, i + 4, 1.0)  # <-\nwp.launch(k, dim=4, inputs=[wp.zeros(4)])\nwp.synchronize()\n"),
    ("checked_oob_write", "@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = -a[i]  # <-\nwp.launch(k, dim=20, inputs=[wp.zeros(10)])\nwp.synchronize()\n"),
    ("checked_oob_far_write", "@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i * 1000000] = 1.0  # <-\nwp.launch(k, dim=64, inputs=[wp.zeros(10)])\nwp.synchronize()\n"),
    ("debug_vec_runtime_index", "wp.config.mode = 'debug'\n@wp.kernel\ndef k(a: wp.array(dtype=float), j: int):\n    i = wp.tid()\n    v = wp.vec3(1.0, 2.0, 3.0)\n    a[i] = v[j]  # <-\nwp.launch(k, dim=1, inputs=[wp.zeros(4), 7])\nwp.synchronize()\n"),
    ("int_division_by_zero", "@wp.kernel\ndef k(a: wp.array(dtype=int), n: int):\n    i = wp.tid()\n    a[i] = 10 // n  # <-\nb = wp.zeros(4, dtype=int)\nwp.launch(k, dim=4, inputs=[b, 0])\nwp.synchronize()\n# expect: either\n"),
    ("int_modulo_by_zero", "@wp.kernel\ndef k(a: wp.array(dtype=int), n: int):\n    i = wp.tid()\n    a[i] = 10 % n  # <-\nb = wp.zeros(4, dtype=int)\nwp.launch(k, dim=4, inputs=[b, 0])\nwp.synchronize()\n# expect: either\n"),
    ("int_min_div_minus_one", "@wp.kernel\ndef k(a: wp.array(dtype=int), n: int):\n    i = wp.tid()\n    a[i] = (-2147483647 - 1) // n  # <-\nb = wp.zeros(4, dtype=int)\nwp.launch(k, dim=4, inputs=[b, -1])\nwp.synchronize()\n# expect: either\n"),
    ("sqrt_of_negative_is_nan", "@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = wp.sqrt(-1.0)\nb = wp.zeros(4)\nwp.launch(k, dim=4, inputs=[b])\nwp.synchronize()\nassert np.isnan(b.numpy()).all()  # <-\n# expect: either\n"),
]

TAPE = [
    ("nested_tapes", K + A + "with wp.Tape() as t1:\n    with wp.Tape() as t2:  # <-\n        wp.launch(k, dim=8, inputs=[a, 1, wp.vec3()])\n"),
    ("backward_without_loss", "t = wp.Tape()\nt.backward()  # <-\n"),
    ("backward_loss_many_elements", "@wp.kernel\ndef k(a: wp.array(dtype=float), b: wp.array(dtype=float)):\n    i = wp.tid()\n    b[i] = a[i] * 2.0\na = wp.ones(4, requires_grad=True)\nb = wp.zeros(4, requires_grad=True)\nwith wp.Tape() as t:\n    wp.launch(k, dim=4, inputs=[a, b])\nt.backward(loss=b)  # <-\n"),
    ("backward_numpy_loss", "t = wp.Tape()\nt.backward(loss=np.zeros(1))  # <-\n"),
    ("backward_float_loss", "t = wp.Tape()\nt.backward(loss=1.0)  # <-\n"),
    ("backward_int_loss", "@wp.kernel\ndef k(a: wp.array(dtype=float), l: wp.array(dtype=int)):\n    i = wp.tid()\n    wp.atomic_add(l, 0, int(a[i]))\na = wp.ones(4, requires_grad=True)\nl = wp.zeros(1, dtype=int, requires_grad=True)\nwith wp.Tape() as t:\n    wp.launch(k, dim=4, inputs=[a, l])\nt.backward(loss=l)  # <-\n"),
    ("backward_grads_wrong_key", "t = wp.Tape()\nt.backward(grads={'x': 1.0})  # <-\n"),
    ("tape_enter_twice", "t = wp.Tape()\nwith t:\n    with t:  # <-\n        pass\n"),
]

GEOMETRY = [
    ("mesh_points_none", "m = wp.Mesh(points=None, indices=wp.array([0, 1, 2], dtype=int))  # <-\n"),
    ("mesh_indices_not_multiple_of_3", "m = wp.Mesh(points=wp.zeros(3, dtype=wp.vec3), indices=wp.array([0, 1], dtype=int))  # <-\n"),
    ("mesh_points_wrong_dtype", "m = wp.Mesh(points=wp.zeros(3), indices=wp.array([0, 1, 2], dtype=int))  # <-\n"),
    ("mesh_indices_out_of_range", "m = wp.Mesh(points=wp.zeros(3, dtype=wp.vec3), indices=wp.array([0, 1, 7], dtype=int))  # <-\n"),
    ("mesh_indices_float", "m = wp.Mesh(points=wp.zeros(3, dtype=wp.vec3), indices=wp.zeros(3))  # <-\n"),
    ("hashgrid_negative_dims", "g = wp.HashGrid(-1, 4, 4)  # <-\n"),
    ("hashgrid_build_wrong_dtype", "g = wp.HashGrid(4, 4, 4)\ng.build(wp.zeros(10), 1.0)  # <-\n"),
    ("volume_garbage_bytes", "v = wp.Volume.load_from_nvdb(b'not a volume at all')  # <-\n"),
    ("volume_missing_file", "v = wp.Volume.load_from_nvdb('/nonexistent/file.nvdb')  # <-\n"),
    ("volume_root_offset_past_grid",
     "import struct\ng = bytearray(wp.Volume.load_from_numpy(np.ones((8, 8, 8), np.float32)).array().numpy())\n"
     "struct.pack_into('<Q', g, 696, len(g))\nv = wp.Volume(wp.array(np.frombuffer(bytes(g), np.uint8)))  # <-\n"),
    ("volume_lower_child_out_of_tree",
     "import struct\ng = bytearray(wp.Volume.load_from_numpy(np.ones((8, 8, 8), np.float32)).array().numpy())\n"
     "lower = 672 + struct.unpack_from('<Q', g, 680)[0]\nstruct.pack_into('<q', g, lower + 1088, 1 << 40)\n"
     "v = wp.Volume.load_from_nvdb(bytes(g))  # <-\n"),
    ("bvh_lowers_wrong_dtype", "b = wp.Bvh(wp.zeros(3), wp.zeros(3))  # <-\n"),
]

#: fem.integrate's sparse-output options (fem/bsr_assembly.py): refused before any kernel runs
_FEM = ("import warp_nb.fem as fem\n@fem.integrand\ndef mass(s: fem.Sample, u: fem.Field, v: fem.Field):\n"
        "    return u(s) * v(s)\nspace = fem.make_polynomial_space(fem.Grid2D(res=wp.vec2i(2)), degree=1)\n"
        "fields = {'u': fem.make_trial(space), 'v': fem.make_test(space)}\n")
FEM = [
    ("fem_mapped_with_pruning", _FEM + "m = fem.integrate(mass, fields=fields, bsr_options={'construction': 'mapped', "
                                       "'prune_numerical_zeros': True})  # <-\n"),
    ("fem_mapped_reuse_without_map", _FEM + "m = fem.integrate(mass, fields=fields)\nfem.integrate(mass, fields=fields, "
                                            "output=m, bsr_options={'construction': 'mapped', 'capacity': 'reuse'})  # <-\n"),
    ("fem_mapped_with_add", _FEM + "m = fem.integrate(mass, fields=fields, bsr_options={'construction': 'mapped'})\n"
                                   "fem.integrate(mass, fields=fields, output=m, add=True, "
                                   "bsr_options={'construction': 'mapped'})  # <-\n"),
    ("fem_unknown_construction", _FEM + "m = fem.integrate(mass, fields=fields, bsr_options={'construction': "
                                        "'scatter'})  # <-\n"),
]

DEVICES = [
    ("set_device_missing", "wp.set_device('cuda:5')  # <-\n"),
    ("get_device_bogus", "d = wp.get_device('gpu9')  # <-\n"),
    ("scoped_device_bogus", "with wp.ScopedDevice('nope'):  # <-\n    pass\n"),
    ("synchronize_device_bogus", "wp.synchronize_device('bogus')  # <-\n"),
    ("array_to_bogus_device", "a = wp.zeros(3)\nb = a.to('elsewhere')  # <-\n"),
    ("config_mode_bogus", "wp.config.mode = 'turbo'\n" + K + A + "wp.launch(k, dim=8, inputs=[a, 1, wp.vec3()])  # <-\n"),
]

#: outcomes that cannot be checked: a made-up mesh id and raw pointers are trusted as Warp trusts
#: them, and so are indices in release code (the kernel cannot know what an id or address points at); any result, a crash included,
#: is listed rather than counted
UNDEFINED = [
    # Release code (wp.config.bounds_check = False) trusts indices, as Warp's release mode does; the
    # checked_* twins above, with the default (checked) code, must end in an IndexError. These
    # run unchecked: listed, not judged.
    ("release_oob_write", "wp.config.bounds_check = False\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = -a[i]  # <-\nwp.launch(k, dim=20, inputs=[wp.zeros(10)])\nwp.synchronize()\n"),
    ("release_oob_far_write", "wp.config.bounds_check = False\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i * 1000000] = 1.0  # <-\nwp.launch(k, dim=64, inputs=[wp.zeros(10)])\nwp.synchronize()\n"),
    ("release_none_for_array_then_store", "wp.config.bounds_check = False\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = 1.0\nwp.launch(k, dim=8, inputs=[None])  # <-\n"),
    ("ub_made_up_mesh_id", "@wp.kernel\ndef k(m: wp.uint64, a: wp.array(dtype=float)):\n    i = wp.tid()\n    q = wp.mesh_query_point(m, wp.vec3(0.0, 0.0, 0.0), 10.0)\n    a[i] = q.u\nwp.launch(k, dim=1, inputs=[wp.uint64(123456789), wp.zeros(1)])  # <-\nwp.synchronize()\n"),
    ("ub_raw_null_pointer", "a = wp.array(ptr=0, shape=(16,), dtype=float, device='cpu')\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = 1.0  # <-\nwp.launch(k, dim=16, inputs=[a])\nwp.synchronize()\n"),
    ("ub_raw_bogus_pointer", "a = wp.array(ptr=0x10, shape=(16,), dtype=float, device='cpu')\nb = a.numpy()  # <-\n"),
]

#: cases where Warp's own answer may be a clean run as well as a clear error: both are fine here,
#: only a crash, a hang or an unclear message is not
EITHER = {
    "dim_negative", "launch_numpy_float64_for_float32", "tape_enter_twice",
    "array_ptr_without_shape", "mesh_indices_out_of_range", "config_mode_bogus", "backward_grads_wrong_key",
    "huge_int_for_int32", "struct_unknown_attribute_host", "float_for_vec3",
    "array_dtype_vec_for_float_struct_field", "array_grad_wrong_shape", "backward_without_loss",
    "copy_offset_out_of_range",
}

HOST_CASES = [(name, src + ("# expect: either\n" if name in EITHER else ""))
              for group in (LAUNCH, ARRAYS, RUNTIME, TAPE, GEOMETRY, FEM, DEVICES) for name, src in group]
UNDEFINED_CASES = UNDEFINED
