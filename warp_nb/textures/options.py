"""A texture's sampling options and texel formats, checked and made canonical before a texture is
built: filter modes, address modes (one for all axes, a tuple, or per axis), texel dtypes and their
codes in the descriptor, and how each dtype's values become the float32 the sampler reads.
Knows nothing about storage or kernels."""

from __future__ import annotations

import enum

import numpy as np

from .. import types as T


class TextureFilterMode(enum.IntEnum):
    """CLOSEST reads the texel under the point; LINEAR interpolates between texel centres."""

    CLOSEST = 0
    LINEAR = 1


class TextureAddressMode(enum.IntEnum):
    """What a coordinate outside the texture reads: WRAP repeats, CLAMP extends the edge texel,
    MIRROR reflects at each edge, BORDER reads zero."""

    WRAP = 0
    CLAMP = 1
    MIRROR = 2
    BORDER = 3


#: Texel dtypes and their descriptor codes (Warp's numbering).
DTYPE_CODES = {T.uint8: 0, T.uint16: 1, T.float32: 2, T.int8: 3, T.int16: 4, T.float16: 5, T.uint32: 6, T.int32: 7}
#: Small integers read as normalised floats: value / this ([0, 1] unsigned, [-1, 1] signed).
_NORMALISE = {T.uint8: 255.0, T.uint16: 65535.0, T.int8: 127.0, T.int16: 32767.0}
INTEGER32 = (T.int32, T.uint32)


def texel_dtype(dtype, what: str = "dtype"):
    """A texel dtype as Warp's scalar type (float -> wp.float32, int -> wp.int32, numpy types too);
    `what` names the argument it came from in the error."""
    t = T.canonical_scalar(dtype)
    if isinstance(t, np.dtype):
        t = T.scalar_from_numpy(t.type)
    if t not in DTYPE_CODES:
        shown = getattr(dtype, "__name__", repr(dtype))
        raise TypeError(f"texture {what} {shown} is not supported; textures hold "
                        f"{', '.join(T.type_name(x) for x in DTYPE_CODES)}")
    return t


def filter_mode(value, what: str = "filter mode"):
    try:
        return TextureFilterMode(value)
    except (ValueError, TypeError):
        raise ValueError(f"Invalid texture {what} {value!r}; use wp.TextureFilterMode.CLOSEST or LINEAR") from None


def address_mode(value):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        # a ValueError even for a wrong type ("wrap"), as Warp raises (its tests check it)
        raise ValueError(f"Invalid texture address mode {value!r}; use a wp.TextureAddressMode")  # noqa: TRY004
    try:
        return TextureAddressMode(int(value))
    except ValueError:
        raise ValueError(f"Invalid texture address mode {value!r}; use wp.TextureAddressMode.WRAP, CLAMP, MIRROR "
                         "or BORDER") from None


def address_modes(ndim: int, mode, per_axis: tuple) -> tuple:
    """One address mode per axis: `mode` for all axes or a tuple of one per axis, then the axes given
    one by one (address_mode_u, _v, _w) override it."""
    if isinstance(mode, (tuple, list)):
        if len(mode) != ndim:
            raise ValueError(f"address_mode has {len(mode)} entries; a {ndim}-D texture takes {ndim}")
        modes = [address_mode(m) for m in mode]
    else:
        modes = [address_mode(mode)] * ndim
    for k, m in enumerate(per_axis[:ndim]):
        if m is not None:
            modes[k] = address_mode(m)
    return tuple(modes)


def sampling_filters(dtype, spatial, mip, num_levels: int) -> tuple:
    """The spatial and mip filter modes: LINEAR by default, CLOSEST for 32-bit integer texels, which
    cannot be interpolated (a LINEAR request for them is refused; a mip filter only when used)."""
    default = TextureFilterMode.CLOSEST if dtype in INTEGER32 else TextureFilterMode.LINEAR
    spatial = default if spatial is None else filter_mode(spatial)
    mip = default if mip is None else filter_mode(mip, "mip filter mode")
    if dtype in INTEGER32:
        if spatial != TextureFilterMode.CLOSEST:
            raise ValueError(f"filter_mode must be TextureFilterMode.CLOSEST for {T.type_name(dtype)} textures "
                             "(32-bit integers are not interpolated)")
        if mip != TextureFilterMode.CLOSEST and num_levels > 1:
            raise ValueError(f"mip_filter_mode must be TextureFilterMode.CLOSEST for mipmapped {T.type_name(dtype)} "
                             "textures (32-bit integers are not interpolated)")
    return spatial, mip


def to_sampled(values: np.ndarray, dtype) -> np.ndarray:
    """Texels as the float32 the sampler reads: small integers normalised (signed ones clamped at -1,
    so -128 and -127 both read -1), 32-bit integers by value (rounded to float32), floats as they are."""
    scale = _NORMALISE.get(dtype)
    if scale is not None:
        out = values.astype(np.float64) / scale
        return np.maximum(out, -1.0).astype(np.float32)
    return values.astype(np.float64).astype(np.float32) if dtype in INTEGER32 else values.astype(np.float32)
