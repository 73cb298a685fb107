"""Texture builtins (native/textures/texture.h) and the kernel-side texture types. A wp.Texture1D /
2D / 3D object reaches a kernel by value as a small descriptor (texture{1,2,3}d_t: storage address,
base size, packed options), so textures can be kernel parameters, struct fields and array elements.
`wp.texture_sample(tex, coord, dtype=float | wp.vec2f | wp.vec3f | wp.vec4f, lod=...)` is one hidden
builtin per result type, chosen by `dtype=`; each is differentiable in the coordinates and in lod.
The Python classes live in warp_nb/textures/; this module knows their descriptors only."""

import ctypes

import numpy as np

from .. import types as T
from .registry import Exact, OpaqueType, builtin, ov

# The bits of a descriptor's `metadata` word, low to high (Warp's packing; its tests check it):
# channels 3, dtype 3, filter 1, mip filter 1, mip levels 5, normalised 1, address modes 2 per axis.
_BITS = (("num_channels", 0, 3), ("dtype", 3, 3), ("filter_mode", 6, 1), ("mip_filter_mode", 7, 1),
         ("num_mip_levels", 8, 5), ("use_normalized_coords", 13, 1), ("address_mode_u", 14, 2),
         ("address_mode_v", 16, 2), ("address_mode_w", 18, 2))
_OPTIONS = tuple(name for name, _, _ in _BITS)


def pack_metadata(**options) -> int:
    word = 0
    for name, shift, bits in _BITS:
        word |= (int(options.get(name, 0)) & ((1 << bits) - 1)) << shift
    return word


class _Descriptor(ctypes.Structure):
    """Positional construction as Warp's: tex, the sizes, then the options of _BITS in order."""

    _sizes: tuple = ()

    def __init__(self, tex=0, *args):
        sizes, options = args[: len(self._sizes)], args[len(self._sizes):]
        super().__init__(tex, *sizes, pack_metadata(**dict(zip(_OPTIONS, options))))


def _option(name, shift, bits):
    return property(lambda self: (self.metadata >> shift) & ((1 << bits) - 1), doc=f"`{name}` of the metadata word")


for _name, _shift, _bits in _BITS:
    setattr(_Descriptor, _name, _option(_name, _shift, _bits))


class texture1d_t(_Descriptor):
    _fields_ = [("tex", ctypes.c_uint64), ("width", ctypes.c_int32), ("metadata", ctypes.c_uint32)]
    _sizes = ("width",)


class texture2d_t(_Descriptor):
    _fields_ = [("tex", ctypes.c_uint64), ("width", ctypes.c_int32), ("height", ctypes.c_int32),
                ("metadata", ctypes.c_uint32)]
    _sizes = ("width", "height")


class texture3d_t(_Descriptor):
    _fields_ = [("tex", ctypes.c_uint64), ("width", ctypes.c_int32), ("height", ctypes.c_int32),
                ("depth", ctypes.c_int32), ("metadata", ctypes.c_uint32)]
    _sizes = ("width", "height", "depth")


class TextureType(OpaqueType):
    """The kernel type of wp.TextureND: an opaque native descriptor that, unlike query objects, is
    made on the Python side (a launch argument, a struct field, an array element). Its values are
    the texture objects themselves, which give their descriptor through `__ctype__()`."""

    def __init__(self, ndim: int, ctype):
        super().__init__(f"Texture{ndim}D", f"wpnb::texture{ndim}d_t", "textures/texture.h",
                         {name: T.int32 for name in ctype._sizes})
        self.ndim, self.ctype = ndim, ctype

    def descriptor(self, value, where: str):
        """The descriptor of `value` (a texture of this rank, or None for an empty one)."""
        if value is None:
            return self.ctype()
        if getattr(value, "_wp_kernel_type_", None) is not self:
            raise TypeError(f"{where} expects a wp.{self.name}, got {type(value).__name__}")
        return value.__ctype__()

    def numpy_dtype(self) -> np.dtype:
        return np.dtype(self.ctype)

    def numpy_value(self, value):
        """One record of an array of textures (wp.array([tex0, tex1], dtype=wp.Texture2D))."""
        return np.frombuffer(bytes(self.descriptor(value, "an array of textures")), dtype=np.dtype(self.ctype))[0]


Texture1DType, Texture2DType, Texture3DType = (TextureType(1, texture1d_t), TextureType(2, texture2d_t),
                                               TextureType(3, texture3d_t))

# --- texture_sample -----------------------------------------------------------------------------
F, V2, V3 = Exact(T.float32), Exact(T.vec2f), Exact(T.vec3f)
_RESULTS = {T.float32: "f", T.vec2f: "v2", T.vec3f: "v3", T.vec4f: "v4"}
_t = dict(header="textures/texture.h", category="textures", export=False, cpp="wpnb::texture_sample")


def _overloads(result):
    """Every coordinate form of every rank, with and without lod."""
    cpp = f"wpnb::texture_sample<{'wpnb::float32' if result is T.float32 else f'wpnb::vec_t<{result._shape_[0]}, wpnb::float32>'}>"
    forms = ((Texture1DType, (F,), ("u",)), (Texture2DType, (V2,), ("uv",)), (Texture2DType, (F, F), ("u", "v")),
             (Texture3DType, (V3,), ("uvw",)), (Texture3DType, (F, F, F), ("u", "v", "w")))
    out = []
    for tex, coords, names in forms:
        out.append(ov(Exact(tex), *coords, ret=result, names=("tex", *names), template=cpp))
        out.append(ov(Exact(tex), *coords, F, ret=result, names=("tex", *names, "lod"), template=cpp))
    return out


for _r, _suffix in _RESULTS.items():
    builtin(f"texture_sample_{_suffix}", *_overloads(_r),
            doc=f"Sample a texture as {T.type_name(_r)} (channels beyond the texture's are zero).", **_t)
builtin("texture_sample", *_overloads(T.float32), by_dtype={r: f"texture_sample_{s}" for r, s in _RESULTS.items()},
        header="textures/texture.h", category="textures", cpp="wpnb::texture_sample",
        doc="Sample texture `tex` at normalised (or, with normalized_coords=False, texel-space) coordinates: "
            "`wp.texture_sample(tex, uv, dtype=wp.vec4f, lod=1.0)`. CLOSEST reads the texel under the point, LINEAR "
            "interpolates the nearest 2, 4 or 8 texel centres; address modes WRAP, CLAMP, MIRROR, BORDER (zero). "
            "Without lod the base level is read. Differentiable in the coordinates (LINEAR) and in lod (LINEAR mip "
            "filtering: at an integer lod the slope toward the next level).")
