"""wp.Volume refuses malformed NanoVDB input before anything reads its tree: each corruption of a
valid grid (written by warp_nb, offsets taken from NanoVDB's documented layout) raises a
RuntimeError naming what is wrong; FpN leaves decode like an independent numpy decoder; and a fuzz
of random byte flips, run in a subprocess, never kills the process."""

import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

GRID, TREE = 672, 672           # the grid header's size; the tree header follows it
ROOT_TILES, ROOT_TILE = 64, 32   # float root: header size, tile size
UPPER, LOWER = 270400, 33856     # float internal node sizes
LOWER_MASK, LOWER_TABLE = 544, 1088
INVALID = "Invalid NanoVDB grid structure"


def float_grid(shape=(16, 8, 8)) -> bytearray:
    """A small valid float grid buffer (one brick per 8^3 block of `shape`)."""
    values = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) * 0.5 + 1.0
    return bytearray(wp.Volume.load_from_numpy(values, bg_value=-2.0).array().numpy().tobytes())


def nvdb_file(*grids) -> bytes:
    """An uncompressed .nvdb file around raw grid buffers (header, a 176-byte record and name each)."""
    head = struct.pack("<QIHH", 0x304244566F6E614E, 32 << 21 | 3 << 10 | 3, len(grids), 0)
    records = b"".join(struct.pack("<QQ", len(g), len(g)) + bytes(120) + struct.pack("<I", 1) + bytes(36) + b"\0"
                       for g in grids)
    return head + records + b"".join(bytes(g) for g in grids)


def u64(buf, at):
    return struct.unpack_from("<Q", buf, at)[0]


def with_blind(grid: bytearray, name=b"density", payload=b"\1\2\3\4\5\6\7\x08") -> bytearray:
    """`grid` with one blind data array appended after its leaves: the 288-byte record, then data."""
    size = u64(grid, 32)
    out = bytearray(grid[:size]) + bytearray(288) + bytearray(payload) + bytearray(-(288 + len(payload)) % 32)
    struct.pack_into("<qQI", out, size, 288, len(payload), 1)
    out[size + 32:size + 32 + len(name)] = name
    struct.pack_into("<qI", out, 640, size, 1)
    struct.pack_into("<Q", out, 32, len(out))
    return out


def lower_children(grid):
    """File offsets of the set child-table entries of the first lower node."""
    lower = TREE + u64(grid, TREE + 8)
    mask = np.unpackbits(np.frombuffer(bytes(grid[lower + LOWER_MASK:lower + LOWER_MASK + 512]), np.uint8),
                         bitorder="little")
    return lower, [lower + LOWER_TABLE + 8 * int(s) for s in np.nonzero(mask)[0]]


def load(grid):
    return wp.Volume.load_from_nvdb(nvdb_file(grid), device="cpu")


def test_valid_grids_load_both_ways():
    g = float_grid()
    assert load(g).get_voxel_count() == 16 * 8 * 8
    assert wp.Volume(wp.array(np.frombuffer(bytes(g), np.uint8), dtype=wp.uint8)).get_voxel_count() == 16 * 8 * 8
    named = bytearray(g)
    named[40:52] = b"sdf-level-2\0"
    assert load(named).get_grid_info().name == "sdf-level-2"
    v = load(with_blind(g))
    info = v.get_feature_array_info(0)
    assert (info.name, info.value_size, info.value_count) == ("density", 1, 8)
    assert v.feature_array(0).numpy().tolist() == list(range(1, 9))


def patched(grid, fmt, at, value):
    g = bytearray(grid)
    struct.pack_into(fmt, g, at, value)
    return g


def unterminated_feature_name(grid, record):
    return grid[:record + 32] + b"A" * 256 + grid[record + 288:]


CASES = {
    "grid size zero": (lambda g: patched(g, "<Q", 32, 0), "the grid declares 0 bytes"),
    "grid size past the data": (lambda g: patched(g, "<Q", 32, len(g) + 64), "the grid declares"),
    "grid size not aligned": (lambda g: patched(g + bytearray(1), "<Q", 32, len(g) + 1), "not a multiple of 32"),
    "unterminated grid name": (lambda g: g[:40] + b"A" * 256 + g[296:], "grid name"),
    "unknown grid type": (lambda g: patched(g, "<I", 636, 0), "grid type Unknown"),
    "Int16 grid type": (lambda g: patched(g, "<I", 636, 3), "grid type Int16"),
    "root past the grid": (lambda g: patched(g, "<Q", TREE + 24, len(g)), "root node"),
    "root tiles past the grid": (lambda g: patched(g, "<I", TREE + u64(g, TREE + 24) + 24, 0xFFFFFFFF),
                                 "root tile nodes"),
    "leaf count too large": (lambda g: patched(g, "<I", TREE + 32, 0xFFFFFFFF), "leaf nodes"),
    "upper nodes over the root": (lambda g: patched(g, "<Q", TREE + 16, u64(g, TREE + 16) - 32),
                                  "upper nodes .* overlap the root tiles"),
    "leaves over the lower nodes": (lambda g: patched(g, "<Q", TREE, u64(g, TREE) - 32), "leaf nodes .* overlap"),
    "root child out of bounds": (lambda g: patched(g, "<q", TREE + u64(g, TREE + 24) + ROOT_TILES + 8, len(g)),
                                 "root tile refers to byte"),
    "lower child inside a leaf": (lambda g: patched(g, "<q", lower_children(g)[1][0],
                                                    struct.unpack_from("<q", g, lower_children(g)[1][0])[0] + 32),
                                  "lower node 0 slot .* not the start"),
    "child of an empty level": (lambda g: patched(g, "<I", TREE + 36, 0), "upper node 0 slot"),
    "blind records past the grid": (lambda g: patched(with_blind(g), "<q", 640, len(with_blind(g))),
                                    "blind metadata records"),
    "blind records over the leaves": (lambda g: patched(with_blind(g), "<q", 640, u64(g, 32) - 32),
                                      "blind metadata records"),
    "blind data before the grid": (lambda g: patched(with_blind(g), "<q", u64(g, 32), -u64(g, 32) - 1),
                                   "feature array 0 .* outside"),
    "blind data count overflow": (lambda g: patched(with_blind(g), "<Q", u64(g, 32) + 8, 1 << 63),
                                  "feature array 0 .* outside"),
    "unterminated feature name": (lambda g: unterminated_feature_name(with_blind(g), u64(g, 32)),
                                  "name of feature array 0"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_corrupt_grid_is_refused_with_its_reason(case):
    corrupt, reason = CASES[case]
    bad = corrupt(float_grid())
    with pytest.raises(RuntimeError, match=f"{INVALID}: .*{reason}"):
        load(bad)
    if case == "grid size not aligned":  # only a file's grids must be 32-byte multiples, as in Warp
        wp.Volume(wp.array(np.frombuffer(bytes(bad), np.uint8), dtype=wp.uint8))
        return
    with pytest.raises(RuntimeError, match=f"^Failed to create volume from input array: {INVALID}: .*{reason}"):
        wp.Volume(wp.array(np.frombuffer(bytes(bad), np.uint8), dtype=wp.uint8))


def test_depth_first_grid_is_unsupported_and_a_later_invalid_grid_wins():
    g = float_grid()
    depth_first = patched(g, "<I", 20, struct.unpack_from("<I", g, 20)[0] & ~32)
    with pytest.raises(RuntimeError, match="Unsupported NanoVDB tree layout: .*breadth-first"):
        load(depth_first)
    broken = patched(g, "<Q", TREE + 24, len(g))
    with pytest.raises(RuntimeError, match=INVALID):
        wp.Volume.load_from_nvdb(nvdb_file(depth_first, broken), device="cpu")
    with pytest.raises(RuntimeError, match=INVALID):  # every grid of a file is checked, not just the first
        wp.Volume.load_from_nvdb(nvdb_file(g, broken), device="cpu")


def test_truncated_inputs_are_refused():
    g = float_grid()
    data = nvdb_file(g)
    for cut in (0, 8, 16, 100, len(data) - len(g) + 500, len(data) - 1):
        with pytest.raises(RuntimeError):
            wp.Volume.load_from_nvdb(data[:cut], device="cpu")
    with pytest.raises(RuntimeError, match="Failed to create volume"):
        wp.Volume(wp.array(np.frombuffer(bytes(g[:700]), np.uint8), dtype=wp.uint8))


@wp.kernel
def lookup_all(vol: wp.uint64, out: wp.array3d(dtype=float)):
    i, j, k = wp.tid()
    out[i, j, k] = wp.volume_lookup_f(vol, i, j, k)


def test_leaves_are_placed_by_the_tree_not_by_their_origin_field():
    """A lookup walks the tree, so the leaf a lower node points at is the one used: swapping the
    two child references swaps the bricks, and a scribbled origin field in a leaf changes nothing."""
    g = float_grid()
    field = np.arange(16 * 8 * 8, dtype=np.float32).reshape(16, 8, 8) * 0.5 + 1.0
    _, (first, second) = lower_children(g)
    a, b = struct.unpack_from("<q", g, first)[0], struct.unpack_from("<q", g, second)[0]
    swapped = patched(patched(g, "<q", first, b), "<q", second, a)
    leaf0 = TREE + u64(g, TREE)
    swapped[leaf0:leaf0 + 12] = struct.pack("<3i", 4096, -4096, 800)
    out, vol = wp.zeros((16, 8, 8), dtype=float), load(swapped)  # vol keeps the tables its id points at
    wp.launch(lookup_all, dim=out.shape, inputs=[vol.id, out])
    np.testing.assert_array_equal(out.numpy(), np.roll(field, 8, axis=0))


def fpn_grid(bits):
    """The float grid with its leaves re-encoded as FpN leaves of `bits` bits each (random codes,
    minimum and quantum per leaf), and the expected values decoded independently: value k of a
    leaf is bits [k * b, (k + 1) * b) of its little-endian code stream, times quantum, plus minimum."""
    g = float_grid((8 * len(bits), 8, 8))
    leaf0 = TREE + u64(g, TREE)
    lower, entries = lower_children(g)
    out, expected, rng = bytearray(g[:leaf0]), [], np.random.default_rng(7)
    for k, (b, entry) in enumerate(zip(bits, entries)):
        at = len(out)
        struct.pack_into("<q", out, entry, at - lower)
        header = bytearray(g[leaf0 + 2144 * k:leaf0 + 2144 * k + 80])
        header[15] = (header[15] & 31) | (int(b).bit_length() - 1) << 5
        minimum, quantum = -1.5 + k, 0.25 * (k + 1)
        codes = rng.integers(0, 256, 64 * b, dtype=np.uint8)
        out += header + struct.pack("<ff", minimum, quantum) + bytes(8) + codes.tobytes()
        stream = np.unpackbits(codes, bitorder="little").reshape(512, b)
        expected.append(minimum + quantum * (stream * (1 << np.arange(b))).sum(1))
    out += bytearray(-len(out) % 32)
    struct.pack_into("<I", out, 636, 16)
    struct.pack_into("<Q", out, 32, len(out))
    struct.pack_into("<qI", out, 640, 0, 0)
    return out, np.concatenate(expected)


@wp.kernel
def lookup_bricks(vol: wp.uint64, out: wp.array(dtype=float)):
    t = wp.tid()
    out[t] = wp.volume_lookup_f(vol, t // 64 % 8 + 8 * (t // 512), t // 8 % 8, t % 8)


def test_fpn_leaves_decode_like_numpy():
    bits = (1, 2, 4, 8, 16)
    grid, expected = fpn_grid(bits)
    vol = load(grid)
    assert vol.get_grid_info().type_str == "FloatN"
    out = wp.zeros(512 * len(bits), dtype=float)
    wp.launch(lookup_bricks, dim=out.shape[0], inputs=[vol.id, out])
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    truncated = patched(grid[:len(grid) - 1024], "<Q", 32, len(grid) - 1024)
    with pytest.raises(RuntimeError, match=f"{INVALID}: FpN leaf"):
        load(truncated)
    too_wide = bytearray(grid)
    too_wide[TREE + u64(grid, TREE) + 15] |= 7 << 5
    with pytest.raises(RuntimeError, match="128-bit values"):
        load(too_wide)


FUZZ = textwrap.dedent("""
    import struct, sys
    import numpy as np
    import warp_nb as wp
    from tests.e2e.geometry.test_volume_validation import float_grid, lower_children, nvdb_file, with_blind

    @wp.kernel
    def probe(vol: wp.uint64, out: wp.array(dtype=float)):
        t = wp.tid()
        p = wp.vec3(float(t % 41) - 12.0, float(t // 41 % 41) - 12.0, float(t // 1681) - 12.0)
        a = wp.volume_lookup_f(vol, int(p[0]), int(p[1]), int(p[2]))
        b = wp.volume_sample_f(vol, p * 0.7, wp.Volume.LINEAR)
        out[t] = a + b

    seed, trials = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(seed)
    grid = with_blind(float_grid())
    n = len(grid)
    children = lower_children(grid)[1]  # child references deep in the tree
    out = wp.zeros(41 ** 3, dtype=float)
    loaded = refused = 0
    for trial in range(trials):
        g = bytearray(grid)
        for _ in range(int(rng.integers(1, 5))):  # mostly where offsets live: headers, root, child tables
            r = rng.random()
            at = (int(rng.integers(0, 1024)) if r < 0.5 else
                  children[int(rng.integers(0, len(children)))] + int(rng.integers(0, 8)) if r < 0.7 else
                  int(rng.integers(0, n)))
            g[at] ^= 1 << int(rng.integers(0, 8))
        data = bytearray(nvdb_file(g))
        if trial % 4 == 1:  # the file header and grid record too (sizes, count, codec)
            data[int(rng.integers(0, 193))] ^= 1 << int(rng.integers(0, 8))
        try:
            vol = wp.Volume.load_from_nvdb(bytes(data)) if trial % 2 else wp.Volume(
                wp.array(np.frombuffer(bytes(g), np.uint8), dtype=wp.uint8))
        except RuntimeError:
            refused += 1
            continue
        wp.launch(probe, dim=out.shape[0], inputs=[vol.id, out])
        out.numpy()
        loaded += 1
    print("fuzz ok", loaded, refused)
""")


@pytest.mark.parametrize("seed", [1, 2])
def test_random_byte_flips_never_crash(seed, tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    script = tmp_path / "fuzz_volume.py"  # kernels need a source file
    script.write_text(FUZZ)
    proc = subprocess.run([sys.executable, str(script), str(seed), "150"], cwd=root, capture_output=True,
                          text=True, timeout=600, check=False, env=dict(os.environ, PYTHONPATH=root))
    assert proc.returncode == 0, proc.stderr[-3000:]
    loaded, refused = map(int, proc.stdout.split("fuzz ok")[1].split())
    assert loaded + refused == 150 and loaded > 0 and refused > 0
