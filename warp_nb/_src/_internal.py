"""Stand-ins for names of Warp's implementation that warp_nb does not have: importing them works
(so the rest of a file that imports one runs); using one raises an error that says so."""


def internal(qualname: str):
    def unavailable(*args, **kwargs):
        raise NotImplementedError(f"{qualname} is part of Warp's internal implementation; warp_nb does not "
                                  "provide it (see docs/compat.md)")
    unavailable.__name__ = qualname.rsplit(".", 1)[-1]
    unavailable.__qualname__ = qualname
    return unavailable
