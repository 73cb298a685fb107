"""wp.capture_save / wp.capture_load end to end on the CPU: a captured graph (launches, a fill, a copy,
a conditional, a while loop) saved, loaded in a fresh Python process that never defines the kernels,
replayed with new inputs, and compared with numpy; a damaged file is refused there with a
RuntimeError (the process survives); a library that does not load is rebuilt from the saved source."""

import glob
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def affine(x: wp.array(dtype=float), y: wp.array(dtype=float), s: float, t: float):
    i = wp.tid()
    y[i] = x[i] * s + t


@wp.kernel
def countdown(c: wp.array(dtype=wp.int32), acc: wp.array(dtype=float)):
    acc[0] = acc[0] + 1.0
    c[0] = c[0] - 1


def _bytes(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _save(path, source_fallback=False):
    n = 16
    x = wp.array(np.arange(n, dtype=np.float32))
    y = wp.zeros(n, dtype=float)
    z = wp.zeros(n, dtype=float)
    flag = wp.array([1], dtype=wp.int32)
    c = wp.array([0], dtype=wp.int32)
    acc = wp.zeros(1, dtype=float)
    with wp.ScopedCapture(device="cpu", apic=True) as capture:
        z.fill_(5.0)
        wp.launch(affine, dim=n, inputs=[x, y, 3.0, 1.0])
        wp.copy(z, y, dest_offset=0, src_offset=8, count=8)  # z[:8] = y[8:]
        wp.capture_if(flag, on_true=lambda: wp.launch(affine, dim=n, inputs=[y, y, 2.0, 0.0]))
        c.fill_(3)
        wp.capture_while(c, lambda: wp.launch(countdown, dim=1, inputs=[c, acc]))
    wp.capture_save(capture.graph, path, inputs={"x": x, "flag": flag}, outputs={"y": y, "z": z, "acc": acc},
                    source_fallback=source_fallback)


def _expected(x, flag, acc0):
    y = x * 3.0 + 1.0
    z = np.full_like(x, 5.0)
    z[:8] = y[8:]
    if flag:
        y = y * 2.0
    return y, z, acc0 + 3.0


_REPLAY = textwrap.dedent("""
    import sys, json
    import numpy as np
    import warp_nb as wp
    g = wp.capture_load(sys.argv[1], device="cpu")
    x = np.linspace(-1.0, 1.0, 16).astype(np.float32)
    g.set_param("x", wp.array(x))
    g.set_param("flag", wp.array([int(sys.argv[2])], dtype=wp.int32))
    wp.capture_launch(g)
    wp.capture_launch(g)
    out = {}
    for name, n in (("y", 16), ("z", 16), ("acc", 1)):
        a = wp.zeros(n, dtype=float)
        g.get_param(name, a)
        out[name] = a.numpy().tolist()
    print(json.dumps(out))
""")


def _replay(path, flag):
    import json
    result = subprocess.run([sys.executable, "-c", _REPLAY, path, str(flag)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    return {k: np.array(v, dtype=np.float32) for k, v in json.loads(result.stdout.splitlines()[-1]).items()}


@pytest.mark.parametrize("flag", [0, 1])
def test_round_trip_in_a_fresh_process(tmp_path, flag):
    path = str(tmp_path / "graph")
    _save(path)
    assert os.path.exists(path + ".wrp") and os.listdir(path + "_modules")
    out = _replay(path, flag)
    x = np.linspace(-1.0, 1.0, 16).astype(np.float32)
    y, z, acc = _expected(x, flag, 0.0)
    np.testing.assert_allclose(out["y"], y, rtol=1e-6)
    np.testing.assert_allclose(out["z"], z, rtol=1e-6)
    # two launches: the while loop ran three times in each (the graph refills its counter)
    np.testing.assert_allclose(out["acc"], [acc + 3.0])


def test_damaged_file_is_refused_in_a_fresh_process(tmp_path):
    path = str(tmp_path / "graph")
    _save(path)
    with open(path + ".wrp", "r+b") as f:
        data = bytearray(f.read())
        data[16:24] = (1 << 40).to_bytes(8, "little")  # the section table's offset
        f.seek(0)
        f.write(data)
    script = ("import warp_nb as wp, sys\n"
              "try:\n    wp.capture_load(sys.argv[1])\nexcept RuntimeError as e:\n    print('refused:', e)\n")
    result = subprocess.run([sys.executable, "-c", script, path], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "refused: Failed to load APIC graph" in result.stdout and "section table is out of bounds" in result.stdout


def test_library_that_does_not_load_is_rebuilt_from_source(tmp_path):
    for source_fallback in (False, True):
        path = str(tmp_path / f"graph{int(source_fallback)}")
        _save(path, source_fallback=source_fallback)
        for library in glob.glob(path + "_modules/*"):
            with open(library, "wb") as f:
                f.write(b"\x7fELF damaged")
        if not source_fallback:
            with pytest.raises(RuntimeError, match="does not load"):
                wp.capture_load(path)
            continue
        g = wp.capture_load(path)
        wp.capture_launch(g)
        y = wp.zeros(16, dtype=float)
        g.get_param("y", y)
        np.testing.assert_allclose(y.numpy(), _expected(np.arange(16, dtype=np.float32), 1, 0.0)[0])


def test_saving_needs_an_apic_capture(tmp_path):
    a = wp.zeros(4, dtype=float)
    with wp.ScopedCapture(device="cpu") as capture:
        a.fill_(1.0)
    with pytest.raises(RuntimeError, match="apic=True"):
        wp.capture_save(capture.graph, str(tmp_path / "g"))
    assert not os.path.exists(str(tmp_path / "g.wrp"))
    with pytest.raises(RuntimeError, match="Failed to load APIC graph from .*missing.wrp"):
        wp.capture_load(str(tmp_path / "missing"))


@wp.kernel
def closest_distance(meshes: wp.array(dtype=wp.uint64), points: wp.array(dtype=wp.vec3),
                     out: wp.array2d(dtype=float)):
    m, i = wp.tid()
    q = wp.mesh_query_point_no_sign(meshes[m], points[i], 100.0)
    out[m, i] = wp.length(wp.mesh_eval_position(meshes[m], q.face, q.u, q.v) - points[i])


@wp.kernel
def closest_distance_one(mesh: wp.uint64, points: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.mesh_query_point_no_sign(mesh, points[i], 100.0)
    out[i] = wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - points[i])


def test_meshes_are_rebuilt_in_a_fresh_process(tmp_path):
    # a unit square (two triangles in z=0) and a triangle lifted to z=1: distances from points are known
    square = wp.Mesh(wp.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=wp.vec3),
                     wp.array([0, 1, 2, 0, 2, 3], dtype=wp.int32))
    lifted = wp.Mesh(wp.array([[0, 0, 1], [1, 0, 1], [0, 1, 1]], dtype=wp.vec3), wp.array([0, 1, 2], dtype=wp.int32))
    ids = wp.array([square.id, lifted.id], dtype=wp.uint64)  # ids in array data
    points = wp.array([[0.25, 0.25, 0.5], [0.5, 0.5, 3.0]], dtype=wp.vec3)
    out = wp.zeros((2, 2), dtype=float)
    one = wp.zeros(2, dtype=float)
    with wp.ScopedCapture(device="cpu", apic=True) as capture:
        wp.launch(closest_distance, dim=(2, 2), inputs=[ids, points, out])
        wp.launch(closest_distance_one, dim=2, inputs=[lifted.id, points, one])  # an id as an argument
    path = str(tmp_path / "meshes")
    wp.capture_save(capture.graph, path, inputs={"points": points}, outputs={"out": out, "one": one})
    script = textwrap.dedent("""
        import sys, json
        import warp_nb as wp
        g = wp.capture_load(sys.argv[1])
        wp.capture_launch(g)
        out, one = wp.zeros((2, 2), dtype=float), wp.zeros(2, dtype=float)
        g.get_param("out", out)
        g.get_param("one", one)
        print(json.dumps([out.numpy().tolist(), one.numpy().tolist()]))
    """)
    result = subprocess.run([sys.executable, "-c", script, path], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    import json
    out_np, one_np = (np.array(v) for v in json.loads(result.stdout.splitlines()[-1]))
    expected = np.array([[0.5, 3.0], [0.5, 2.0]])  # square: z distance; lifted: |z - 1|
    np.testing.assert_allclose(out_np, expected, atol=1e-5)
    np.testing.assert_allclose(one_np, expected[1], atol=1e-5)


def test_random_damage_raises_runtime_error_only(tmp_path):
    """Bytes flipped or cut anywhere in a saved file: loading either succeeds or raises RuntimeError."""
    import random
    path = str(tmp_path / "graph")
    _save(path)
    with open(path + ".wrp", "rb") as f:
        data = f.read()
    modules = {name: _bytes(os.path.join(path + "_modules", name))
               for name in os.listdir(path + "_modules")}
    rng = random.Random(1)
    for _ in range(400):
        damaged = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        if rng.random() < 0.2:
            damaged = damaged[:rng.randrange(len(damaged))]
        try:
            wp.capture_load_from_bytes(bytes(damaged), modules)
        except RuntimeError:
            pass


@wp.kernel
def count_hits(bvh: wp.uint64, hits: wp.array(dtype=wp.int32)):
    q = wp.bvh_query_aabb(bvh, wp.vec3(-1.0), wp.vec3(2.0))
    i = int(0)  # noqa: UP018, RUF046  (a kernel's dynamic variable)
    while wp.bvh_query_next(q, i):
        hits[0] = hits[0] + 1


def test_bvh_id_argument_is_refused_at_save(tmp_path):
    bvh = wp.Bvh(wp.array([[0.0, 0.0, 0.0]], dtype=wp.vec3), wp.array([[1.0, 1.0, 1.0]], dtype=wp.vec3))
    hits = wp.zeros(1, dtype=wp.int32)
    with wp.ScopedCapture(device="cpu", apic=True) as capture:
        wp.launch(count_hits, dim=1, inputs=[bvh.id, hits])
    wp.capture_launch(capture.graph)  # the live graph runs
    assert hits.numpy()[0] == 1
    with pytest.raises(RuntimeError, match="id of a Bvh"):
        wp.capture_save(capture.graph, str(tmp_path / "bvh"))
    assert not os.path.exists(str(tmp_path / "bvh.wrp"))


@wp.kernel
def no_tid():
    pass


def test_launch_of_2_31_threads_needs_a_kernel_without_tid():
    big = 2 ** 31 + 1
    cmd = wp.launch(no_tid, dim=big, record_cmd=True)  # no wp.tid(): no int32 index to overflow (as Warp)
    assert cmd.dim == big
    with pytest.raises(ValueError, match="using wp.tid\\(\\) with extent 2147483649 in dimension 0"):
        wp.launch(affine, dim=big, inputs=[wp.zeros(1), wp.zeros(1), 1.0, 0.0], record_cmd=True)


def test_failed_save_leaves_the_earlier_export(tmp_path, monkeypatch):
    path = str(tmp_path / "graph")
    _save(path)
    before = {name: _bytes(os.path.join(path + "_modules", name)) for name in os.listdir(path + "_modules")}
    wrp = _bytes(path + ".wrp")
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst).endswith(".wrp"):
            raise OSError("injected failure")
        return real_replace(src, dst)
    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="injected"):
        _save(path)
    monkeypatch.undo()
    assert _bytes(path + ".wrp") == wrp
    after = {name: _bytes(os.path.join(path + "_modules", name)) for name in os.listdir(path + "_modules")}
    assert after == before
    assert sorted(os.listdir(tmp_path)) == ["graph.wrp", "graph_modules"]


@wp.kernel
def copy_handle(h: wp.handle, out: wp.array(dtype=wp.uint64)):
    out[0] = h


@wp.kernel
def copy_word(h: wp.uint64, out: wp.array(dtype=wp.uint64)):
    out[0] = h


def test_a_handle_argument_must_name_a_live_mesh_at_save(tmp_path):
    """A scalar wp.handle argument is 0 or a live wp.Mesh's id (Warp refuses anything else at save:
    a loaded graph would replay a dangling id); a uint64 argument may hold any value."""
    import gc
    mesh = wp.Mesh(wp.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=wp.vec3), wp.array([0, 1, 2], dtype=wp.int32))
    gone = wp.Mesh(wp.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], dtype=wp.vec3), wp.array([0, 1, 2], dtype=wp.int32))
    stale = gone.id
    del gone
    gc.collect()
    bvh = wp.Bvh(wp.array([[0.0, 0.0, 0.0]], dtype=wp.vec3), wp.array([[1.0, 1.0, 1.0]], dtype=wp.vec3))
    out = wp.zeros(1, dtype=wp.uint64)
    for value, ok in ((0, True), (mesh.id, True), (1, False), (stale, False), (bvh.id, False), (2**63 + 5, False)):
        with wp.ScopedCapture(device="cpu", apic=True) as capture:
            wp.launch(copy_handle, dim=1, inputs=[value, out])
        path = str(tmp_path / f"h{value}")
        if ok:
            wp.capture_save(capture.graph, path)
        else:
            with pytest.raises(RuntimeError, match=f"parameter `h` \\(a wp.handle\\).*{value:#x}, an invalid or "
                                                   "expired mesh ID"):
                wp.capture_save(capture.graph, path)
            assert not os.path.exists(path + ".wrp")
    with wp.ScopedCapture(device="cpu", apic=True) as capture:
        wp.launch(copy_word, dim=1, inputs=[1, out])  # a plain uint64: any value
    wp.capture_save(capture.graph, str(tmp_path / "word"))


def test_handle_is_a_subtype_of_uint64_that_kernels_see_as_uint64():
    assert wp.handle is not wp.uint64 and issubclass(wp.handle, wp.uint64)
    assert isinstance(wp.handle(3), wp.uint64) and wp.handle(3).value == 3
    assert wp.types.canonical_scalar(wp.handle) is wp.uint64
    assert wp.zeros(2, dtype=wp.handle).dtype is wp.uint64
    out = wp.zeros(1, dtype=wp.uint64)
    wp.launch(copy_handle, dim=1, inputs=[2**64 - 1, out])
    assert int(out.numpy()[0]) == 2**64 - 1
