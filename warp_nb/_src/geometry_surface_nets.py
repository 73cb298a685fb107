"""`warp._src.geometry.surface_nets`: surface nets' lookup tables under Warp's private names, as
warp_nb.geometry.surface_nets_tables generates them (Warp's tests check their invariants and feed them
to a reference implementation)."""

from ..geometry.surface_nets_tables import AMBIGUOUS_FACE as _SN_AMBIGUOUS_FACE  # noqa: F401
from ..geometry.surface_nets_tables import CORNER_OFFSETS as _SN_CORNER_OFFSETS  # noqa: F401
from ..geometry.surface_nets_tables import EDGE_GROUP_TABLE as _SN_EDGE_GROUP_TABLE  # noqa: F401
from ..geometry.surface_nets_tables import EDGE_TO_CORNERS as _SN_EDGE_TO_CORNERS  # noqa: F401
