"""Small shared helpers for the end-to-end kernel tests (tests/test_e2e_*.py)."""

import contextlib

import numpy as np

import warp_nb as wp


def run(kernel, dim, *inputs):
    """Launch `kernel` over `dim` threads with positional `inputs`."""
    wp.launch(kernel, dim=dim, inputs=list(inputs))


def arr(values, dtype=wp.float32):
    """A wp.array holding `values` (numpy-convertible) as `dtype`."""
    return wp.array(np.asarray(values), dtype=dtype)


def rng(seed=0):
    return np.random.default_rng(seed)


@contextlib.contextmanager
def config(**settings):
    """Temporarily change wp.config settings (restored afterwards, also on failure)."""
    old = {k: getattr(wp.config, k) for k in settings}
    for k, v in settings.items():
        setattr(wp.config, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(wp.config, k, v)


def launch_in_mode(kernel, mode: str, dim, inputs) -> None:
    """Launch `kernel` on the CPU with bounds checks on (`mode="checked"`) or off (`"release"`) and
    wait for it, so that a failed check raises here."""
    with config(bounds_check=mode == "checked"):
        wp.launch(kernel, dim=dim, inputs=inputs, device="cpu")
        wp.synchronize()


@wp.struct
class Body:
    """A struct for end-to-end tests: vectors and an int as fields, carried through loops and funcs."""
    pos: wp.vec3
    vel: wp.vec3
    hits: int
