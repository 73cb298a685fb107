"""Compile and run the C++ tests of native/ (tests/native/test_*.cpp), check that every
native header is self-contained and warning-free, and that NVRTC accepts all of them.

C++ compiler: $CXX, else g++. Each test_*.cpp is a plain `int main()` program that exits
with 0 when all of its checks pass and prints what failed otherwise.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.native import nvrtc_util

HERE = Path(__file__).resolve().parent

REPO_ROOT = HERE.parents[1]
NATIVE_DIR = REPO_ROOT / "native"
CPP_TESTS = sorted(HERE.glob("test_*.cpp"))
#: every header, by its path below native/ (the include root): "core/scalar.h", "tiles/tile.h" ...
HEADERS = sorted(p.relative_to(NATIVE_DIR).as_posix() for p in NATIVE_DIR.rglob("*.h"))


def _cxx() -> list[str]:
    """The C++ compiler command ($CXX may carry arguments), or skip the test when none is found."""
    cmd = shlex.split(os.environ.get("CXX", "g++"))
    if not cmd or shutil.which(cmd[0]) is None:
        pytest.skip(f"C++ compiler {cmd[0] if cmd else '(empty $CXX)'} not found")
    return cmd


def _run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)


#: (test, extra flags): every test as the CPU target builds, and the decompositions once more in
#: float32 arithmetic, as on CUDA (WPNB_WIDE_DECOMPOSITIONS in core/prelude.h)
CPP_BUILDS = [(p, []) for p in CPP_TESTS] + [(HERE / "test_mat_decomp.cpp", ["-DWPNB_WIDE_DECOMPOSITIONS=0"])]


@pytest.mark.slow
@pytest.mark.needs_cxx
@pytest.mark.parametrize("source,flags", CPP_BUILDS, ids=[p.stem + "".join(f) for p, f in CPP_BUILDS])
def test_cpp_program(source: Path, flags: list, tmp_path: Path):
    """Compile tests/native/<source> with -std=c++17 -O1 -Wall (and `flags`), run it, expect exit status 0."""
    exe = tmp_path / source.stem
    compile_cmd = _cxx() + ["-std=c++17", "-O1", "-Wall", *flags, "-I", str(NATIVE_DIR), str(source), "-o", str(exe)]
    built = _run(compile_cmd, timeout=300)
    assert built.returncode == 0, f"compile failed: {' '.join(compile_cmd)}\n{built.stdout}"
    ran = _run([str(exe)], timeout=300)
    assert ran.returncode == 0, f"{source.name} exited with status {ran.returncode}:\n{ran.stdout}"


@pytest.mark.needs_cxx
@pytest.mark.parametrize("header", HEADERS)
def test_header_is_self_contained(header: str, tmp_path: Path):
    """`#include "<header>"` alone compiles with -Wall -Wextra -Werror (no missing includes, no warnings)."""
    src = tmp_path / f"only_{header.replace('/', '_')[:-2]}.cpp"
    src.write_text(f'#include "{header}"\n#include "{header}"\n')  # twice: include guards work
    cmd = _cxx() + ["-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I", str(NATIVE_DIR), str(src)]
    res = _run(cmd, timeout=120)
    assert res.returncode == 0, f"{header} does not compile alone: {' '.join(cmd)}\n{res.stdout}"


def _skip_without_nvrtc():
    reason = nvrtc_util.nvrtc_unavailable_reason()
    if reason is not None:
        pytest.skip(reason)


@pytest.mark.needs_nvrtc
def test_nvrtc_compiles_all_headers():
    """Every native header together, plus a trivial kernel, compiles to PTX for compute_90."""
    _skip_without_nvrtc()
    assert HEADERS, "no headers found in native/"
    includes = "".join(f'#include "{h}"\n' for h in HEADERS)
    source = includes + 'extern "C" __global__ void wpnb_trivial_kernel(float* out) { out[threadIdx.x] = 1.0f; }\n'
    ok, out = nvrtc_util.compile_to_ptx(source, name="all_headers.cu")
    assert ok, out
    assert "wpnb_trivial_kernel" in out


@pytest.mark.needs_nvrtc
def test_nvrtc_scalar_and_random_kernel():
    """Device code that calls scalar builtins (every float width, ints, half), the RNG, the
    samplers and noise (instantiating their templates) compiles."""
    _skip_without_nvrtc()
    headers = [h for h in ("core/scalar.h", "core/random.h", "core/random_sample.h", "core/noise.h")
               if (NATIVE_DIR / h).exists()]
    source = "".join(f'#include "{h}"\n' for h in headers) + r"""
namespace w = wpnb;
extern "C" __global__ void wpnb_scalar_kernel(float* f, double* d, int* i, unsigned short* h, unsigned* u) {
    const int t = threadIdx.x;
    float x = f[t], ax = 0.0f;
    w::adj_pow(x, 2.5f, ax, ax, 1.0f);
    w::adj_smoothstep(0.0f, 1.0f, x, ax, ax, ax, 1.0f);
    f[t] = w::sqrt(x) + w::erf(x) + w::atan2(x, 1.0f) + w::clamp(x, 0.0f, 1.0f) + w::sign(x) + w::round(x) + ax;
    double y = d[t], ay = 0.0;
    w::adj_acos(y, ay, 1.0);
    d[t] = w::cbrt(y) + w::mod(y, 0.5) + w::floordiv(y, 0.5) + w::lerp(y, 1.0, 0.5) + ay + double(w::isnan(y));
    i[t] = w::div(i[t], i[t + 1]) + w::floordiv(i[t], 3) + w::mod(i[t], -3) + w::lshift(i[t], 3) + w::abs(i[t]);
    w::half hx; hx.bits = h[t];
    w::half hr = w::add(w::sqrt(hx), w::cast<w::half>(w::int64(i[t])));
    w::half ah; w::adj_tanh(hx, ah, hr);
    h[t] = w::add(hr, ah).bits;
#ifdef WPNB_HAVE_RANDOM
    unsigned s = w::rand_init(1234, t);
    u[t] = w::randu(s) + w::uint32(w::randi(s, -5, 5)) + w::uint32(1000.0f * (w::randf(s) + w::randn(s)))
         + w::poisson(s, 3.5f) + w::poisson(s, 250.0f);
#else
    u[t] = 0u;
#endif
#ifdef WPNB_HAVE_NOISE
    unsigned s2 = w::rand_init(7, t);
    w::vec_t<3, float> p = w::sample_unit_sphere(s2), q = w::sample_unit_cube(s2);
    w::vec_t<2, float> b = w::sample_triangle(s2);
    w::vec_t<4, float> p4(p.c[0], p.c[1], p.c[2], b.c[0]), a4;
    w::vec_t<3, float> c3 = w::curlnoise(s2, q, 3u, 2.0f, 0.5f), a3;
    unsigned us = 0u, uo = 0u; float al = 0.0f, ag = 0.0f;
    w::adj_curlnoise(s2, p, 2u, 2.0f, 0.5f, us, a3, uo, al, ag, c3);
    w::adj_noise(s2, p4, us, a4, 1.0f);
    f[t] += w::noise(s2, p) + w::pnoise(s2, p4, 2, 3, 4, 5) + w::noise(s2, b.c[1]) + a3.c[0] + a4.c[3];
#endif
}
"""
    if "core/random.h" in headers:
        source = "#define WPNB_HAVE_RANDOM 1\n" + source
    if "core/noise.h" in headers and "core/random_sample.h" in headers:
        source = "#define WPNB_HAVE_NOISE 1\n" + source
    ok, out = nvrtc_util.compile_to_ptx(source, name="scalar_kernel.cu")
    assert ok, out
    assert "wpnb_scalar_kernel" in out


@pytest.mark.needs_nvrtc
def test_nvrtc_keeps_whole_tile_loops_rolled():
    """One thread's whole-tile product and scan (tile_mma_into, tile_scan_*) compile to loops
    unrolled a few times, not to their elements one by one: NVRTC unrolls loops of constant count
    completely, which made a kernel with a 16 x 16 tile_matmul take 14 s to compile and 200-element
    scans 10 s (prelude.h WPNB_CUDA_UNROLL). Unrolled, this kernel has 256 fused multiply-adds."""
    _skip_without_nvrtc()
    source = '#include "tiles/tile.h"\n#include "tiles/tile_ops.h"\n#include "tiles/tile_reduce.h"\n' + r"""
extern "C" __global__ void wpnb_whole_tiles(const float* a, float* out) {
    wpnb::tile_t<float, 16, 16> x, y;
    for (int k = 0; k < 256; ++k) { x.data[k] = a[k]; y.data[k] = a[256 + k]; }
    const wpnb::tile_t<float, 16, 16> s = wpnb::tile_scan_inclusive(wpnb::tile_mma(x, y));
    for (int k = 0; k < 256; ++k) out[k] = s.data[k];
}
"""
    ok, ptx = nvrtc_util.compile_to_ptx(source, name="whole_tiles.cu")
    assert ok, ptx
    fmas = ptx.count("fma.rn.f32")
    adds = ptx.count("add.f32") + ptx.count("add.rn.f32")
    assert 0 < fmas <= 16 and 0 < adds <= 16, (fmas, adds)
