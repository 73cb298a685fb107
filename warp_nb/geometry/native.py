"""The geometry builders (native/runtime/geometry.cpp), built once per machine into the kernel
cache like the CPU runtime and loaded with ctypes, and the ctypes mirrors of the descriptors
that kernels receive through an object's `id` (native/geometry/: bvh.h, mesh.h, hash_grid.h, volume.h)."""

from __future__ import annotations

import ctypes
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..runtime import native as runtime_native
from ..runtime.devices import cpu_thread_count
from ..toolchain import cache, cxx
from ..toolchain.headers import headers_digest, native_dir

_P = ctypes.c_void_p
_I32 = ctypes.c_int32
_F32 = ctypes.c_float


class BvhDesc(ctypes.Structure):
    _fields_ = [("nodes", _P), ("items", _P), ("lowers", _P), ("uppers", _P), ("num_nodes", _I32),
                ("num_items", _I32), ("group_ids", _P), ("group_roots", _P), ("num_groups", _I32), ("pad", _I32)]


class MeshDesc(ctypes.Structure):
    _fields_ = [("bvh", BvhDesc), ("points", _P), ("velocities", _P), ("indices", _P), ("dipoles", _P), ("tris", _P),
                ("num_points", _I32), ("num_tris", _I32), ("average_edge_length", _F32), ("pad", _I32),
                ("points_grad", _P), ("velocities_grad", _P)]


class HashGridDesc(ctypes.Structure):
    _fields_ = [("point_ids", _P), ("cell_starts", _P), ("cell_ends", _P), ("point_groups", _P),
                ("cell_width_inv_d", ctypes.c_double), ("cell_width", _F32), ("cell_width_inv", _F32), ("dim_x", _I32),
                ("dim_y", _I32), ("dim_z", _I32), ("num_points", _I32)]


class VolumeTable(ctypes.Structure):
    _fields_ = [("keys", _P), ("values", _P), ("shift", _I32), ("log2_capacity", _I32)]


class VolumeDesc(ctypes.Structure):
    _fields_ = [("data", _P), ("const_values", _P), ("levels", VolumeTable * 4), ("num_tiles", _I32),
                ("value_size", _I32), ("xform", _F32 * 9), ("inv_xform", _F32 * 9), ("translation", _F32 * 3),
                ("pad", _I32), ("background", ctypes.c_uint64 * 4), ("active_masks", _P), ("voxel_offsets", _P),
                ("voxel_count", _I32), ("pad2", _I32)]


#: numpy dtype of bvh.h's bvh_node_t (32 bytes)
NODE_DTYPE = np.dtype([("lower", np.float32, 3), ("start", np.int32), ("upper", np.float32, 3), ("count", np.int32)])


def ptr(a) -> int:
    """Address of a numpy array's data (0 for None)."""
    return 0 if a is None else int(a.ctypes.data)


def threads() -> int:
    from .. import config
    return int(config.cpu_threads or 0) or cpu_thread_count()


@lru_cache(maxsize=1)
def library():
    """The loaded builder library (compiled on first use, then from the cache)."""
    native = native_dir()
    source = (native / "runtime" / "geometry.cpp").read_text()
    # the .cpp files it includes (the tree builder, the pool's loops) are not in the headers' digest
    included = [(native / "runtime" / name).read_text() for name in ("bvh_builder.cpp", "host_parallel.cpp")]
    # exceptions on: the builders catch a failed allocation and return 0 instead of aborting
    flags = "-O3 -pthread -fexceptions"
    # every header (geometry.cpp includes the geometry family, and through it core/ and the prelude's target part)
    key = cache.make_key(source, *included, headers_digest(), cxx.identity_key(), flags, cache.VERSION)

    def compile_geometry(out: Path) -> None:
        cxx.compile_library(source, out, native, "release", "-pthread -fexceptions", libraries=("-pthread",))

    path, _ = cache.get_or_build("wpnb_geometry", key, compile_geometry, counter="runtime_compiled")
    lib = ctypes.CDLL(str(path))
    i32, p, f32, i64 = ctypes.c_int32, ctypes.c_void_p, ctypes.c_float, ctypes.c_int64
    lib.wpnb_bvh_build.argtypes = [p, p, i32, i32, p, p, i32]
    lib.wpnb_bvh_build.restype = i32
    lib.wpnb_bvh_refit.argtypes = [p, i32, p, p, p, i32]
    lib.wpnb_bvh_refit.restype = None
    lib.wpnb_mesh_build.argtypes = [p, p, i32, i32, p, p, p, p, p, p, i32]
    lib.wpnb_mesh_build.restype = i32
    lib.wpnb_mesh_refit.argtypes = [p, p, i32, p, i32, p, p, p, p, p, i32]
    lib.wpnb_mesh_refit.restype = None
    lib.wpnb_mesh_soup.argtypes = [p, p, p, i32, p, i32]
    lib.wpnb_mesh_soup.restype = None
    lib.wpnb_hash_grid_build.argtypes = [p, i64, i32, f32, i32, i32, i32, p, p, p, i32]
    lib.wpnb_hash_grid_build.restype = i32
    lib.wpnb_volume_table_build.argtypes = [p, i32, i32, p, p, i32]
    lib.wpnb_volume_table_build.restype = i32
    lib.wpnb_geometry_last_error.argtypes = []
    lib.wpnb_geometry_last_error.restype = ctypes.c_char_p
    lib.wpnb_geometry_set_pool.argtypes = [p]
    lib.wpnb_geometry_set_pool.restype = None
    lib.wpnb_geometry_set_pool(runtime_native.parallel_address())  # loops on the runtime's pool
    lib.wpnb_geometry_sizes.argtypes = [p]
    lib.wpnb_geometry_sizes.restype = None
    sizes = np.zeros(5, dtype=np.int64)
    lib.wpnb_geometry_sizes(sizes.ctypes.data)
    want = [ctypes.sizeof(BvhDesc), ctypes.sizeof(HashGridDesc), ctypes.sizeof(VolumeDesc), NODE_DTYPE.itemsize,
            ctypes.sizeof(MeshDesc)]
    if list(sizes) != want:
        raise RuntimeError(f"warp_nb's geometry descriptors do not match native/*.h ({list(sizes)} != {want}); "
                           "reinstall warp_nb")
    return lib


def last_error() -> str:
    """The message of the last failed tree build on this thread ("" when none failed)."""
    return library().wpnb_geometry_last_error().decode(errors="replace")


def mesh_create_host(*args) -> int:
    """Build a mesh's tree on the CPU: the node count, 0 when the build failed (last_error says why)."""
    return library().wpnb_mesh_build(*args)


# wp.Mesh builds through Warp's name on the runtime's core, so a failure reads as Warp reports it
