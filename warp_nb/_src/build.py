"""`warp._src.build`: Warp's builder of CUDA link-time-optimised kernels (libmathdx GEMMs, solvers,
FFTs). warp_nb has no mathdx: tiles compute with its own native code on every target. The names a
test imports are here so the rest of its file runs; the mathdx builders themselves are absent."""


#: Warp's record of GEMM shapes whose operand alignment mathdx refused; none here (no mathdx)
_gemm_lto_alignment_unsupported: set = set()


def _gemm_operand_alignments(*args, **kwargs):
    """Warp's choice of operand alignments for a mathdx GEMM; warp_nb has no mathdx."""
    raise NotImplementedError("warp_nb has no mathdx: tile_matmul runs warp_nb's own native code")


# --- Warp's kernel-cache location: <base>/<version> ------------------------------------------
import os as _os  # noqa: E402

#: the folder init_kernel_cache chose last (so giving it back is not versioned a second time)
_resolved_kernel_cache_dir: str | None = None


def _add_long_path_prefix(path: str) -> str:
    """Windows' extended-length spelling of an absolute path (\\\\?\\C:\\..., \\\\?\\UNC\\server\\...);
    a relative or already prefixed path unchanged."""
    if path.startswith("\\\\?\\"):
        return path
    if path.startswith("\\\\"):
        return "\\\\?\\UNC\\" + path[2:]
    if len(path) > 2 and path[1] == ":" and path[2] in "\\/":
        return "\\\\?\\" + path
    return path


def init_kernel_cache(path: str | None = None) -> None:
    """Choose where compiled kernels are kept, as Warp does: `path`, else $WARP_CACHE_PATH, else the
    per-user cache folder, resolved, with a folder per package version inside (warp_nb's own cache
    then keys its entries below it); a folder this function chose before is taken as it is. Warns
    when the base folder holds Warp-style `wp_*` entries of an unversioned layout."""
    global _resolved_kernel_cache_dir
    from .. import config
    from . import logger
    base = path or _os.environ.get("WARP_CACHE_PATH")
    if not base:
        xdg = _os.environ.get("XDG_CACHE_HOME") or _os.path.join(_os.path.expanduser("~"), ".cache")
        base = _os.path.join(xdg, "warp_nb")
    base = _os.path.realpath(base)
    known = _resolved_kernel_cache_dir
    if known is not None and base in (known, known.removeprefix("\\\\?\\")):
        resolved = known
    else:
        if _os.path.isdir(base) and any(name.startswith("wp_") for name in _os.listdir(base)):
            logger.log_warning(f"the kernel cache folder {base} holds modules of a previous Warp version (wp_*); "
                               f"kernels are now kept in {_os.path.join(base, config.version)}, and the old "
                               "entries can be deleted")
        resolved = _os.path.join(base, config.version)
        if _os.name == "nt":
            resolved = _add_long_path_prefix(resolved)
    _os.makedirs(resolved, exist_ok=True)
    from ..toolchain import cache
    cache.use_folder(resolved)  # warp_nb's kernels go there too, not to a version folder inside it
    _resolved_kernel_cache_dir = resolved
