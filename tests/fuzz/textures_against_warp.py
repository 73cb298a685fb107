"""Texture sampling by warp_nb and by warp-lang on the same texels and coordinates, compared point
by point, for every filter mode, address mode and coordinate convention.

CI has no warp-lang, so this is a tool, not a test: give it a Python that has warp-lang installed,
e.g. the conformance runner's baseline venv.

    python -m tests.fuzz.textures_against_warp --seed 1 \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

A 2-D texture of 4 channels (sampled as vec4) and a 3-D texture of one channel (sampled as float),
of random texels, each built with CLOSEST and LINEAR filtering, the WRAP, CLAMP, MIRROR and BORDER
address modes, and normalized or texel coordinates, sampled at 400 points in and around it (50 of
them on texel edges and centres, where rounding decides which texel is read). Exit status 1 when
samples differ beyond 1e-4."""

from __future__ import annotations

import importlib
import os
import sys
import tempfile

import numpy as np

from tests.fuzz import two_sides

POINTS = 400
FILTERS = ("CLOSEST", "LINEAR")
ADDRESSES = ("WRAP", "CLAMP", "MIRROR", "BORDER")


def run_side(module: str, seed: int, out: str) -> None:
    os.environ["TEXTURES_AGAINST_WARP_MODULE"] = module
    wp = importlib.import_module(module)
    wp.config.quiet = True
    from tests.fuzz import texture_kernels as k
    rng = np.random.default_rng(seed)
    q2 = rng.uniform(-1.3, 2.3, (POINTS, 2)).astype(np.float32)
    q2[:50] = np.round(q2[:50] * 8) / 8  # texel edges and centres of the 7 x 5 texture
    q3 = rng.uniform(-1.3, 2.3, (POINTS, 3)).astype(np.float32)
    texels2 = rng.uniform(0, 1, (5, 7, 4)).astype(np.float32)
    texels3 = rng.uniform(0, 1, (3, 4, 6)).astype(np.float32)
    results = {}
    for f in FILTERS:
        for a in ADDRESSES:
            for normalized in (True, False):
                mode = dict(filter_mode=getattr(wp.TextureFilterMode, f),
                            address_mode=getattr(wp.TextureAddressMode, a), normalized_coords=normalized)
                key = f"{f}.{a}.{'normalized' if normalized else 'texel'}"
                out2 = wp.zeros(POINTS, dtype=wp.vec4)
                wp.launch(k.sample2d, dim=POINTS, inputs=[wp.Texture2D(texels2, **mode),
                                                          wp.array(q2 if normalized else q2 * 6, dtype=wp.vec2), out2])
                out3 = wp.zeros(POINTS, dtype=wp.float32)
                wp.launch(k.sample3d, dim=POINTS, inputs=[wp.Texture3D(texels3, **mode),
                                                          wp.array(q3 if normalized else q3 * 5, dtype=wp.vec3), out3])
                results[f"2d.{key}"], results[f"3d.{key}"] = out2.numpy(), out3.numpy()
    np.savez(out, **results)


def main(argv=None) -> int:
    p = two_sides.parser(__doc__)
    args = p.parse_args(argv)
    if args.side:
        run_side(args.side, args.seed, args.out)
        return 0
    results = {}
    with tempfile.TemporaryDirectory(prefix="wpnb-textures-") as tmp:
        for side, python in (("warp", args.warp_python), ("warp_nb", sys.executable)):
            out = os.path.join(tmp, f"{side}.npz")
            two_sides.run_side(python, "tests.fuzz.textures_against_warp",
                               ["--side", side, "--seed", str(args.seed), "--out", out])
            results[side] = dict(np.load(out))
    differ = 0
    for key in sorted(results["warp"]):
        a, b = results["warp"][key], results["warp_nb"][key]
        bad = ~np.isclose(a, b, rtol=1e-4, atol=1e-4).reshape(POINTS, -1).all(axis=1)
        if bad.any():
            differ += 1
            i = int(np.flatnonzero(bad)[0])
            print(f"  {key}: {int(bad.sum())} points, e.g. point {i}: warp-lang {a[i]}, warp_nb {b[i]}")
    print(f"seed {args.seed}: {len(results['warp'])} textures of {POINTS} samples each; {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
