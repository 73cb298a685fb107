"""`warp._src.build`: Warp's builder of CUDA link-time-optimised kernels (libmathdx GEMMs, solvers,
FFTs). warp_nb has no mathdx: tiles compute with its own native code on every target. The names a
test imports are here so the rest of its file runs; the mathdx builders themselves are absent."""


#: Warp's record of GEMM shapes whose operand alignment mathdx refused; none here (no mathdx)
_gemm_lto_alignment_unsupported: set = set()


def _gemm_operand_alignments(*args, **kwargs):
    """Warp's choice of operand alignments for a mathdx GEMM; warp_nb has no mathdx."""
    raise NotImplementedError("warp_nb has no mathdx: tile_matmul runs warp_nb's own native code")
