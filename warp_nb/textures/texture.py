"""wp.Texture1D, wp.Texture2D, wp.Texture3D: read-only grids of texels (1, 2 or 4 channels of uint8,
int8, uint16, int16, float16, float32, int32 or uint32) that kernels sample with
`wp.texture_sample` (builtins/textures.py over native/textures/texture.h), with optional mip levels.

The texels are kept twice: as given (for copy_to and the dtype the user sees) and as float32
levels on the texture's device, already normalised, which the software sampler reads through a
small storage table; `id` is that table's address. There are no hardware (CUDA) texture objects,
so the CUDA interop handles are refused on every device (docs/compat.md)."""

from __future__ import annotations

import ctypes

import numpy as np

from .. import types as T
from ..arrays.array import array
from ..builtins.textures import Texture1DType, Texture2DType, Texture3DType
from ..runtime import live_handles
from ..runtime.devices import get_device
from . import mipmaps, options
from .options import TextureAddressMode


class _Storage(ctypes.Structure):
    """texture_storage_t of native/textures/texture.h."""

    _fields_ = [("levels", ctypes.c_uint64 * mipmaps.MAX_LEVELS), ("sizes", (ctypes.c_int32 * 3) * mipmaps.MAX_LEVELS),
                ("channels", ctypes.c_int32), ("num_levels", ctypes.c_int32)]


_AXES = ("width", "height", "depth")


class Texture:
    """What the three texture classes share; `ndim` and `_wp_kernel_type_` say which one it is."""

    ndim = 0  # (each class names its kernel type in _wp_kernel_type_; this base class is none)

    def __init__(self, data=None, sizes: tuple = (), num_channels: int = 0, dtype=None, filter_mode=None,
                 address_mode=TextureAddressMode.CLAMP, per_axis: tuple = (), normalized_coords: bool = True,
                 num_mip_levels: int = 1, mip_filter_mode=None, device=None, surface_access: bool = False,
                 cuda_array: int = 0):
        self._levels = None  # set last: __del__ and the properties check it
        if cuda_array:
            raise RuntimeError(f"{type(self).__name__}(cuda_array=...) wraps a CUDA array, which warp_nb's software "
                               "textures do not use; pass the texel data instead")
        self.device = get_device(device)
        base = self._base_texels(data, sizes, num_channels, dtype)
        self._dtype = options.texel_dtype(base.dtype.type)
        self._num_channels = 1 if base.ndim == self.ndim else int(base.shape[-1])
        self._sizes = tuple(int(n) for n in base.shape[: self.ndim][::-1])  # width, height, depth
        self._num_mip_levels = mipmaps.level_count(self._sizes, num_mip_levels)
        self._filter_mode, self._mip_filter_mode = options.sampling_filters(
            self._dtype, filter_mode, mip_filter_mode, self._num_mip_levels)
        self._address_modes = options.address_modes(self.ndim, address_mode, per_axis)
        self._normalized = bool(normalized_coords)
        self._surface_access = bool(surface_access)
        self._texels = base  # as given, for copy_to
        self._upload(base)

    # --- construction -------------------------------------------------------------------------
    def _base_texels(self, data, sizes, num_channels, dtype) -> np.ndarray:
        """The base level as a numpy array (spatial axes, depth first, then channels if more than one)."""
        name = type(self).__name__
        if data is None:
            if any(int(n) <= 0 for n in sizes) or len(sizes) != self.ndim:
                raise ValueError(f"{name}: give `data`, or {', '.join(_AXES[:self.ndim])} (each at least 1)")
            channels = int(num_channels) if num_channels else 1
            np_dtype = T.dtype_to_numpy(options.texel_dtype(float if dtype is None else dtype))
            return np.zeros(tuple(sizes[::-1]) + ((channels,) if channels > 1 else ()), dtype=np_dtype)
        if getattr(type(data), "_wp_array_", False):
            inner = data.dtype
            values = data.numpy()
            if T.is_composite_type(inner):  # wp.vec4 elements: the channels
                values = values.reshape(values.shape[: data.ndim] + (-1,))
        else:
            values = np.asarray(data)
        if dtype is not None and options.texel_dtype(dtype) is not T.scalar_from_numpy(values.dtype.type):
            values = values.astype(T.dtype_to_numpy(options.texel_dtype(dtype)))
        options.texel_dtype(values.dtype.type, "data of dtype")  # refuses float64, bool, ...
        if values.ndim not in (self.ndim, self.ndim + 1):
            raise ValueError(f"{name}: data of shape {values.shape} has {values.ndim} dimensions; a {name} takes "
                             f"{self.ndim} (one channel) or {self.ndim + 1} (the last is the channels)")
        if values.size == 0:
            raise ValueError(f"{name}: data of shape {values.shape} is empty; a texture needs at least one texel")
        if values.ndim == self.ndim + 1 and values.shape[-1] not in (1, 2, 4):
            raise ValueError(f"{name}: data has {values.shape[-1]} channels (last axis of shape {values.shape}); "
                             "textures have 1, 2 or 4")
        if values.ndim == self.ndim + 1 and values.shape[-1] == 1:
            values = values[..., 0]
        for n in values.shape[: self.ndim]:
            if n >= 2**31:
                raise ValueError(f"{name}: a size of {n} texels does not fit the descriptor's int32")
        return np.ascontiguousarray(values)

    def _generate_mipmap_chain(self, data) -> list:
        """The mip levels of `data` (laid out as this texture's texels), base first, in its dtype."""
        return mipmaps.chain(np.asarray(data), self.ndim, self._num_mip_levels)

    def _upload(self, base: np.ndarray) -> None:
        """Float32 levels on the device and the storage table pointing at them."""
        levels = [options.to_sampled(level, self._dtype) for level in self._generate_mipmap_chain(base)]
        self._levels = [array(np.ascontiguousarray(level).reshape(-1), dtype=T.float32, device=self.device)
                        for level in levels]
        table = _Storage()
        for k, (level, sizes) in enumerate(zip(self._levels, mipmaps.level_sizes(self._sizes, len(levels)))):
            table.levels[k] = level.ptr
            table.sizes[k][:] = (tuple(sizes) + (1, 1))[:3]
        table.channels, table.num_levels = self._num_channels, len(levels)
        raw = np.frombuffer(bytes(table), dtype=np.uint8)
        self._table = array(raw, dtype=T.uint8, device=self.device)
        live_handles.register(self._table.ptr, self)  # (a saved graph cannot carry it: launch/apic_save.py)

    # --- what kernels and Warp's code read ---------------------------------------------------
    def __ctype__(self):
        """The descriptor a kernel receives (texture{1,2,3}d_t)."""
        kind = self._wp_kernel_type_
        address = tuple(self._address_modes) + (TextureAddressMode.WRAP,) * (3 - self.ndim)
        return kind.ctype(self.id, *self._sizes, self._num_channels, options.DTYPE_CODES[self._dtype],
                          self._filter_mode, self._mip_filter_mode, self._num_mip_levels, int(self._normalized),
                          *address)

    @property
    def id(self) -> int:
        """The address of the storage table (nonzero; device independent)."""
        return self._table.ptr if self._levels is not None else 0

    width = property(lambda self: self._sizes[0])
    height = property(lambda self: self._sizes[1] if self.ndim > 1 else 1)
    depth = property(lambda self: self._sizes[2] if self.ndim > 2 else 1)
    num_channels = property(lambda self: self._num_channels)
    dtype = property(lambda self: self._dtype)
    filter_mode = property(lambda self: self._filter_mode)
    mip_filter_mode = property(lambda self: self._mip_filter_mode)
    num_mip_levels = property(lambda self: self._num_mip_levels)
    is_mipmapped = property(lambda self: self._num_mip_levels > 1)
    normalized_coords = property(lambda self: self._normalized)
    address_mode_u = property(lambda self: self._address_modes[0])
    address_mode_v = property(lambda self: self._address_modes[1] if self.ndim > 1 else None)
    address_mode_w = property(lambda self: self._address_modes[2] if self.ndim > 2 else None)

    def _cuda_only(self, what: str):
        raise RuntimeError(f"{type(self).__name__}.{what} is only supported for CUDA textures; warp_nb's textures are "
                           "sampled in software on every device and have no CUDA texture objects")

    cuda_texture = property(lambda self: self._cuda_only("cuda_texture"))
    cuda_array = property(lambda self: self._cuda_only("cuda_array"))
    cuda_surface = property(lambda self: self._cuda_only("cuda_surface"))

    # --- copies -------------------------------------------------------------------------------
    def _shape(self) -> tuple:
        """The texel layout as numpy shows it: spatial axes depth first, channels last when more than one."""
        return self._texels.shape

    def _check_copy(self, other, direction: str) -> np.ndarray | None:
        if self.is_mipmapped:
            raise RuntimeError(f"{type(self).__name__}.copy_{'from' if direction == 'source' else 'to'}: copies of "
                               "mipmapped textures are not supported (the levels would go stale)")
        if isinstance(other, Texture):
            return None
        if getattr(type(other), "_wp_array_", False):
            inner = other.dtype
            shape = tuple(other.shape) + ((inner._shape_[0],) if T.is_composite_type(inner) and inner._shape_[0] > 1
                                          else ())
            dtype = T.scalar_type_of(inner) if T.is_composite_type(inner) else inner
        else:
            other = np.asarray(other)
            shape, dtype = other.shape, T.scalar_from_numpy(other.dtype.type)
        if tuple(shape) != self._shape():
            raise ValueError(f"Incompatible array shape for copy: texture shape={self._shape()}, {direction} "
                             f"shape={tuple(shape)}")
        if dtype is not self._dtype:
            raise ValueError(f"Incompatible array data type for copy: texture dtype={T.type_name(self._dtype)}, "
                             f"{direction} dtype={T.type_name(dtype) if dtype is not None else other.dtype}")
        return other

    def copy_from(self, src) -> None:
        """Replace the texels with those of `src` (a numpy array, wp.array or texture of the same shape and dtype)."""
        checked = self._check_copy(src, "source")
        if checked is None:
            if src._shape() != self._shape():
                raise ValueError(f"Incompatible texture shapes for copy: destination shape={self._shape()}, source "
                                 f"shape={src._shape()}")
            values = src._texels
        else:
            values = checked.numpy() if getattr(type(checked), "_wp_array_", False) else checked
        self._texels = np.ascontiguousarray(np.asarray(values).reshape(self._shape()).astype(self._texels.dtype))
        self._upload(self._texels)

    def copy_to(self, dst) -> None:
        """Write the texels into `dst` (a numpy array or wp.array of the texture's shape and dtype)."""
        checked = self._check_copy(dst, "destination")
        if checked is None:
            dst.copy_from(self)
            return
        if getattr(type(checked), "_wp_array_", False):
            checked.assign(array(self._texels.reshape(checked.numpy().shape), dtype=checked.dtype, device="cpu"))
        else:
            checked[...] = self._texels

    def __del__(self):
        # a texture made with __new__ alone (Warp's tests do so) has nothing to release
        self.__dict__.pop("_levels", None)

    def __repr__(self):
        sizes = "x".join(str(n) for n in self._sizes) if self.__dict__.get("_levels") is not None else "?"
        return f"{type(self).__name__}({sizes}, channels={self.__dict__.get('_num_channels')})"


class Texture1D(Texture):
    """A 1-D texture: data of shape (width,) or (width, channels)."""

    ndim = 1
    _wp_kernel_type_ = Texture1DType

    def __init__(self, data=None, width: int = 0, num_channels: int = 0, dtype=None, filter_mode=None,
                 address_mode=TextureAddressMode.CLAMP, address_mode_u=None, normalized_coords: bool = True,
                 num_mip_levels: int = 1, mip_filter_mode=None, device=None, surface_access: bool = False,
                 cuda_array: int = 0):
        super().__init__(data, (width,), num_channels, dtype, filter_mode, address_mode, (address_mode_u,),
                         normalized_coords, num_mip_levels, mip_filter_mode, device, surface_access, cuda_array)


class Texture2D(Texture):
    """A 2-D texture: data of shape (height, width) or (height, width, channels)."""

    ndim = 2
    _wp_kernel_type_ = Texture2DType

    def __init__(self, data=None, width: int = 0, height: int = 0, num_channels: int = 0, dtype=None,
                 filter_mode=None, address_mode=TextureAddressMode.CLAMP, address_mode_u=None, address_mode_v=None,
                 normalized_coords: bool = True, num_mip_levels: int = 1, mip_filter_mode=None, device=None,
                 surface_access: bool = False, cuda_array: int = 0):
        super().__init__(data, (width, height), num_channels, dtype, filter_mode, address_mode,
                         (address_mode_u, address_mode_v), normalized_coords, num_mip_levels, mip_filter_mode, device,
                         surface_access, cuda_array)


class Texture3D(Texture):
    """A 3-D texture: data of shape (depth, height, width) or (depth, height, width, channels)."""

    ndim = 3
    _wp_kernel_type_ = Texture3DType

    def __init__(self, data=None, width: int = 0, height: int = 0, depth: int = 0, num_channels: int = 0, dtype=None,
                 filter_mode=None, address_mode=TextureAddressMode.CLAMP, address_mode_u=None, address_mode_v=None,
                 address_mode_w=None, normalized_coords: bool = True, num_mip_levels: int = 1, mip_filter_mode=None,
                 device=None, surface_access: bool = False, cuda_array: int = 0):
        super().__init__(data, (width, height, depth), num_channels, dtype, filter_mode, address_mode,
                         (address_mode_u, address_mode_v, address_mode_w), normalized_coords, num_mip_levels,
                         mip_filter_mode, device, surface_access, cuda_array)
