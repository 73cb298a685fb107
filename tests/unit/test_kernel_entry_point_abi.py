"""@wp.kernel(entry_point_abi=...): Warp's values are checked with Warp's ValueErrors; 'warp' is what
warp_nb compiles, 'external_constant_params' (CUDA entry points for other programs) is refused."""

import pytest

import warp_nb as wp


@pytest.mark.parametrize("options, error, words", [
    ({"entry_point_abi": "external"}, ValueError, "must be 'warp' or 'external_constant_params'"),
    ({"entry_point_abi": "external_constant_params"}, ValueError, "requires enable_backward=False"),
    ({"entry_point_abi": "external_constant_params", "enable_backward": False}, NotImplementedError,
     "not supported by warp_nb"),
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

    assert k.key.endswith("k")
