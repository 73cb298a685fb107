"""@wp.kernel(entry_point_abi=...): Warp's values are checked with Warp's ValueErrors; 'warp' is what
warp_nb compiles; 'external_constant_params' (a CUDA entry point other programs launch) is accepted
and recorded, as in Warp, but such a kernel cannot be launched with wp.launch, and warp_nb compiles
it for no target (Warp: not on the CPU)."""

import pytest

import warp_nb as wp


@wp.struct
class Params:
    value: wp.float32


@pytest.mark.parametrize("options, error, words", [
    ({"entry_point_abi": "external"}, ValueError, "must be 'warp' or 'external_constant_params'"),
    ({"entry_point_abi": 3}, ValueError, "must be 'warp' or 'external_constant_params'"),
    ({"entry_point_abi": "external_constant_params"}, ValueError, "requires enable_backward=False"),
])
def test_kernel_entry_point_abi_is_checked(options, error, words):
    with pytest.raises(error, match=words):
        @wp.kernel(module="unique", **options)
        def k():
            return


def test_the_default_entry_point_abi_is_accepted():
    @wp.kernel(module="unique", enable_backward=False, entry_point_abi="warp")
    def k():
        return

    assert k.key.endswith("k") and "entry_point_abi" not in k.options


def _external():
    @wp.kernel(module="unique", enable_backward=False, entry_point_abi="external_constant_params")
    def external(params: Params):
        value = params.value  # noqa: F841

    return external


def test_an_external_entry_point_is_recorded_and_hashed():
    k = _external()
    assert k.options["entry_point_abi"] == "external_constant_params"

    @wp.kernel(module="unique", enable_backward=False)
    def plain(params: Params):
        value = params.value  # noqa: F841

    assert k.module.hash_module() != plain.module.hash_module()


@pytest.mark.parametrize("dim", [1, 0])
def test_an_external_entry_point_is_not_launched(dim):
    k = _external()
    with pytest.raises(RuntimeError, match="entry_point_abi='external_constant_params' and cannot be launched with "
                                           r"wp.launch\(\)"):
        wp.launch(k, dim=dim, inputs=[Params()], device="cpu")


def test_an_external_entry_point_is_not_compiled_for_the_cpu():
    k = _external()
    with pytest.raises(wp.WarpCodegenError, match="not supported by the CPU backend"):
        wp.load_module(k.module, device="cpu")


def _refusal(kernel) -> str:
    with pytest.raises(wp.WarpCodegenError) as info:
        wp.load_module(kernel.module, device="cpu")
    return str(info.value)


def test_an_external_entry_point_takes_one_struct():
    @wp.kernel(module="unique", enable_backward=False, entry_point_abi="external_constant_params")
    def none():
        return

    @wp.kernel(module="unique", enable_backward=False, entry_point_abi="external_constant_params")
    def scalar(value: wp.uint32):
        _ = value

    for k in (none, scalar):
        with pytest.raises(wp.WarpCodegenTypeError, match="exactly one Warp struct argument"):
            wp.load_module(k.module, device="cpu")


def test_an_external_entry_point_has_no_launch_grid_shared_tiles_or_determinism():
    @wp.kernel(module="unique", enable_backward=False, entry_point_abi="external_constant_params")
    def reads_tid(params: Params):
        _ = wp.tid()

    @wp.kernel(module="unique", enable_backward=False, entry_point_abi="external_constant_params")
    def shared_tile(params: Params):
        t = wp.tile_zeros(shape=32, dtype=wp.float32, storage="shared")  # noqa: F841

    @wp.kernel(module="unique", enable_backward=False, entry_point_abi="external_constant_params",
               module_options={"deterministic": wp.DeterministicMode.RUN_TO_RUN})
    def deterministic(params: Params):
        _ = params.value

    assert "cannot use wp.tid()" in _refusal(reads_tid)
    assert "cannot use shared-memory tiles" in _refusal(shared_tile)
    assert "does not support deterministic lowering" in _refusal(deterministic)
