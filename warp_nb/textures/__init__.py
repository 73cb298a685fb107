"""Textures: wp.Texture1D / 2D / 3D (texture.py) with their sampling options (options.py) and mip
chains (mipmaps.py). Kernels sample them with wp.texture_sample, declared in
warp_nb/builtins/textures.py over native/textures/texture.h."""

from .options import TextureAddressMode, TextureFilterMode  # noqa: F401
from .texture import Texture, Texture1D, Texture2D, Texture3D  # noqa: F401
