"""`warp._src.builtins`: where Warp declares its builtins with their type rules (value and dispatch
functions). warp_nb declares its builtins once, in its registry (warp_nb/builtins/), so the names of
this module are stand-ins that raise when used (see _internal.py): a test file that imports one
imports, and its cases that use the public builtins run."""


def __getattr__(name):
    """Any name of Warp's builtin declarations: a stand-in that raises when used."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.builtins.{name}")
