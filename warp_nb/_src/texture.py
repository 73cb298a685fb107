"""`warp._src.texture`: Warp's texture module as its tests reach for it: the descriptor layouts
(texture1d_t ...) and the texture classes, from warp_nb's own (builtins/textures.py, textures/)."""

from ..builtins.textures import texture1d_t, texture2d_t, texture3d_t  # noqa: F401
from ..textures import Texture, Texture1D, Texture2D, Texture3D, TextureAddressMode, TextureFilterMode  # noqa: F401
