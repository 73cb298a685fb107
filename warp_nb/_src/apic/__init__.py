"""`warp._src.apic`: the names of Warp's APIC (saved capture graph) package that its tests import.
warp_nb's own saving and loading is launch/apic_save.py and launch/apic_load.py."""

from . import capture, types  # noqa: F401
