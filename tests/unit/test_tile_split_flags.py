"""The launch flags that say how a block's lanes hold their block-uniform tiles (launch_t::one_lane,
launch/launcher.py _block_flags): bit 0 one lane for all (CPU), bit 1 a shared frame (CPU and CUDA,
when the block's leading wp.tid() components are its own), bit 2 split statements (the CPU with
wp.config.cpu_split_tiles; CUDA always splits a shared frame: native/tiles/block.h)."""

from types import SimpleNamespace

import pytest

import warp_nb as wp
from warp_nb.launch.launcher import _block_flags


def _launcher(cpu: bool, tid_count: int, lanes: int = 64, agree: bool = False):
    return SimpleNamespace(device=SimpleNamespace(is_cpu=cpu), tid_count=tid_count, block_dim=lanes,
                           lanes_agree=agree)


@pytest.mark.parametrize("split", (False, True))
def test_cpu_flags(monkeypatch, split):
    monkeypatch.setattr(wp.config, "cpu_split_tiles", split)
    bit = 4 if split else 0
    assert _block_flags(_launcher(True, 3), (4, 4, 64)) == 2 | bit
    assert _block_flags(_launcher(True, 2), (4, 4 * 64)) == 2 | bit
    assert _block_flags(_launcher(True, 2), (4, 50)) == bit  # blocks span rows: apart
    assert _block_flags(_launcher(True, 2, agree=True), (4, 4, 64)) == 1 | 2 | bit
    assert _block_flags(_launcher(True, 2), (4, 4, 64), adjoint=True) == 0


@pytest.mark.parametrize("split", (False, True))
def test_cuda_flags_share_or_keep_apart_and_ignore_the_cpu_switch(monkeypatch, split):
    monkeypatch.setattr(wp.config, "cpu_split_tiles", split)
    assert _block_flags(_launcher(False, 3, agree=True), (4, 4, 64)) == 2
    assert _block_flags(_launcher(False, 1), 1000) == 2
    assert _block_flags(_launcher(False, 2), (4, 50)) == 0
    assert _block_flags(_launcher(False, 2), (4, 4, 64), adjoint=True) == 0
