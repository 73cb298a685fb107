"""The statement writer's part for block-uniform tiles (compiler/block_uniform.py): in a kernel
typed for blocks of several lanes, the uniform tiles live in a frame the lanes of a block share
(native/tiles/block.h block_frame_t: CPU memory, or CUDA shared memory when it fits), the
statements that write them run on lane 0 alone (`if (wpnb_lead)`) or split (below), and fences
(barriers) go where another lane may still read what lane 0 is about to replace. The same text on
every target: when a launch's leading wp.tid() components vary inside a block, or a CUDA frame is
past the shared budget, each lane has a frame of its own, every lane leads, the fences do nothing
and the block-wide calls keep their cooperation (`wpnb_apart`).

Split statements (native/tiles/block.h coop_t, tile_coop.h): where the lanes share the frame and
split (CUDA, where it lives in shared memory; the CPU with wp.config.cpu_split_tiles), the
statements of builtins with a `split` in the registry (loads, stores, fills, elementwise arithmetic,
products, tile_map, whole-tile reductions and scans) and tile moves run on
every lane, each writing its part of the destination's elements, between two barriers; the
others stay lane 0's. On CUDA a barrier also follows each statement lane 0 runs alone
(`block_publish`), since there the other threads do not wait for it otherwise. Each split
statement is written twice, its split form under `if (wpnb_part.sync)` and the whole-tile form
(lane 0's, or every lane's when apart) under `else`, so the unsplit CPU keeps its code."""

from __future__ import annotations

from .. import ir
from ..block_uniform import _has_barrier, _memory, _value_vars
from ... import types as T
from ...types.tiles import TileType
from .cpp import cpp_type

#: the whole-tile reductions with a split form (native/tiles/tile_coop.h), by their native template
_REDUCTIONS = {f"wpnb::tile_{k}": k for k in ("sum", "min", "max", "argmin", "argmax")}
#: the scans' split form: native/tiles/tile_coop.h coop_scan<exclusive, fold>
_SCANS = {"tile_scan_inclusive": "false, wpnb::coop_fold_sum", "tile_scan_exclusive": "true, wpnb::coop_fold_sum",
          "tile_scan_max_inclusive": "false, wpnb::coop_fold_max", "tile_scan_min_inclusive": "false, wpnb::coop_fold_min"}


class BlockFrameWriter:
    """Mixed into emit/body.py FunctionWriter; `sharing` is set for a kernel's forward body only."""

    sharing = None  # compiler/block_uniform.BlockSharing
    leading = False  # writing a statement lane 0 runs alone

    def frame_struct(self) -> None:
        """The frame's type, before the kernel's body, at namespace scope: CUDA reads its size from
        the module (`<symbol>_frame_bytes`, native/tiles/block.h WPNB_FRAME_SIZE) to give a frame past
        the static shared budget dynamic shared memory at launch (cuda/target.py)."""
        sym = self.fn.symbol
        fields = " ".join(f"{cpp_type(v.type)} {v.name};" for v in self.sharing.shared.values())
        self.lines.append(f"struct {sym}_frame_t {{ {fields} }};  // the block's uniform tiles")
        self.lines.append(f"WPNB_FRAME_SIZE({sym})\n")

    def frame_declarations(self, depth: int) -> None:
        """The shared frame, and each shared tile as a reference into it (the body uses its name)."""
        pad = "    " * depth
        tiles = list(self.sharing.shared.values())
        self.lines.append(f"{pad}typedef {self.fn.symbol}_frame_t wpnb_frame_t;")
        self.lines.append(f"{pad}wpnb::block_frame_t<wpnb_frame_t> wpnb_frame;  // the block's uniform tiles")
        self.lines.append(f"{pad}wpnb_frame_t& wpnb_shared = wpnb_frame.get();")
        self.lines.append(f"{pad}const bool wpnb_lead = wpnb_frame.lead();  // this lane computes them")
        self.lines.append(f"{pad}const bool wpnb_apart = wpnb_frame.apart();  // each lane has its own frame")
        self.lines.append(f"{pad}const wpnb::coop_t wpnb_part = wpnb_frame.part();  // this lane's share of a split statement")
        self.lines.append(f"{pad}(void)wpnb_lead; (void)wpnb_apart; (void)wpnb_part;")
        self.unit.headers.add("tiles/tile_coop.h")
        for v in tiles:
            self.lines.append(f"{pad}{cpp_type(v.type)}& {v.name} = wpnb_shared.{v.name};")

    def is_shared(self, var) -> bool:
        return self.sharing is not None and id(var) in self.sharing.shared

    def fence_before(self, key, depth: int) -> None:
        if key in self.sharing.fences:  # another lane may still read what lane 0 replaces next
            self.line(depth, "if (!wpnb_apart) wpnb::block_sync();")

    def frame_statement(self, s, depth: int) -> bool:
        """Write statement `s` if lane 0 runs it alone (True), after its fence if it has one."""
        if self.in_neutral:
            return False
        self.fence_before(id(s), depth)
        if id(s) not in self.sharing.lead:
            if self.split_end == len(self.lines) and self.neutral(s):
                self.in_neutral = True  # (written here, so the split statements around stay adjacent)
                try:
                    self.statement(s, depth)
                finally:
                    self.in_neutral = False
                self.split_end = len(self.lines)
                return True
            return False
        split = self.split_text(s)
        if split is not None:
            self.split_statement(depth, *split, loc=getattr(s, "loc", None))
            self.line(depth, "} else if (wpnb_lead) {")
        else:
            self.line(depth, "if (wpnb_lead) {", getattr(s, "loc", None))
        self.leading = True
        try:
            self.statement(s, depth + 1)
        finally:
            self.leading = False
        self.line(depth, "}")
        if split is None:
            self.line(depth, "wpnb::block_publish(wpnb_apart);")
        else:
            self.split_end = len(self.lines)
        return True

    split_end = -1  # where the last split statement's text ended (emit/body.py's lines)
    in_neutral = False  # writing a statement that leaves split statements adjacent (neutral)

    def neutral(self, s) -> bool:
        """Whether a statement every lane runs is invisible to the others: a scalar value from
        values that are not shared tiles, without memory, barriers or effects (the index arithmetic
        between two split loads). Split statements on either side of it stay adjacent."""
        if not isinstance(s, ir.Let) or isinstance(s.dst.type, TileType) or _memory(s.value) \
                or _has_barrier(s.value) or any(self.is_shared(x) for x in _value_vars(s.value)):
            return False
        v = s.value
        if isinstance(v, ir.Call):
            return not (v.builtin.side_effects or v.builtin.atomic or v.builtin.inout_for(v.resolved.overload))
        return isinstance(v, (ir.Const, ir.Copy, ir.Tid))
    split_chain = None  # (its barrier after: line index, elements, memory touched since the last barrier)

    def split_statement(self, depth: int, text: str, own, loc=None) -> None:
        """Open `if (wpnb_part.sync) {` with the split form of a statement between barriers. Right
        after another split statement (nothing ran between), the barrier before is left out; and
        when both only touch their own elements (`own`: the tiles' element count and how the
        statement touches memory, "" / "r" / "w"; None: it reads other lanes' elements, a product)
        of tiles of one element count, each lane reads only what it wrote itself, so the barrier
        between them goes too (not between a store and a load or store, which may meet in memory)."""
        self.line(depth, "if (wpnb_part.sync) {", loc)
        adjacent = self.split_end >= 0 and not [
            t for t in self.lines[self.split_end:-1] if not t.lstrip().startswith("//")]
        chain = self.split_chain if adjacent else None
        if not adjacent:
            self.line(depth + 1, "wpnb::block_sync();")
        if chain is not None and own is not None and chain[1] == own[0] \
                and not (own[1] and chain[2] and "w" in own[1] + chain[2]):
            at = chain[0]
            self.lines[at] = self.lines[at].replace("wpnb::block_sync();", "// (own elements: no barrier)")
            own = (own[0], own[1] + chain[2])
        self.line(depth + 1, f"if (wpnb_part.on) {text};")
        self.line(depth + 1, "wpnb::block_sync();")
        self.split_chain = None if own is None else (len(self.lines) - 1, own[0], own[1])

    def split_text(self, s):
        """The split form (tile_coop.h) of lead statement `s`, or None when it has none."""
        if isinstance(s, ir.Assign) and isinstance(s.dst.type, TileType) and s.src.type == s.dst.type \
                and s.src.name != s.dst.name:
            return f"wpnb::coop_copy(wpnb_part, {s.dst.name}, {s.src.name})", (_elements(s.dst.type), "")
        if isinstance(s, ir.Let) and isinstance(s.dst.type, TileType):
            v, dst = s.value, s.dst.name
            if isinstance(v, ir.Copy) and v.src.type == s.dst.type and v.src.name != dst:
                return f"wpnb::coop_copy(wpnb_part, {dst}, {v.src.name})", (_elements(s.dst.type), "")
            if not isinstance(v, ir.Call) or v.resolved.overload.outputs:
                return None
            b, args = v.builtin, [a.name for a in v.args]
            if b.split == "elementwise":  # (the registry says how each builtin splits: Builtin.split)
                return self.elementwise_text(s)
            if b.split == "coop_map" and v.resolved.overload.template \
                    and all(a.type == v.args[0].type for a in v.args) and _elements(v.args[0].type) == _elements(s.dst.type):
                bindings = {k: (str(x) if isinstance(x, (int, str)) else cpp_type(x)) for k, x in v.resolved.bindings.items()}
                mapper = v.resolved.overload.template.format(**bindings)  # (as emit/body.py call_text)
                return f"wpnb::coop_map(wpnb_part, {', '.join([dst, mapper] + args)})", (_elements(s.dst.type), "")
            fn = b.split
            if fn in (None, "coop_map", "coop_tile_store") or dst in args:  # (a tile_map of mixed tiles: lead)
                return None
            if fn == "coop_reduce":
                return self.reduce_text(s)
            if fn == "coop_scan":  # (a scan of a tile of scalars into another: lane 0's element is element 0)
                if v.args[0].type.dtype is T.bool:
                    return None
                return f"wpnb::coop_scan<{_SCANS[b.name]}>(wpnb_part, {dst}, {args[0]})", None
            if fn == "coop_tile_load":
                arr = v.args[0].type
                if arr.ndim not in (1, 2) or len(v.args) != 1 + arr.ndim or len(s.dst.type.shape) != arr.ndim:
                    return None
            if fn == "coop_full" and len(args) != 1:
                return None
            if fn == "coop_mma" and len(args) not in (2, 5):
                return None
            own = None if fn == "coop_mma" else (_elements(s.dst.type), "r" if fn == "coop_tile_load" else "")
            return f"wpnb::{fn}(wpnb_part, {', '.join([dst] + args)})", own
        if isinstance(s, ir.Effect) and isinstance(s.value, ir.Call) and s.value.builtin.split == "coop_tile_store":
            v = s.value
            arr, tile = v.args[0].type, v.args[1].type
            if getattr(arr, "ndim", 0) in (1, 2) and isinstance(tile, TileType) and len(tile.shape) == arr.ndim \
                    and len(v.args) == 2 + arr.ndim:
                return f"wpnb::coop_tile_store(wpnb_part, {', '.join(a.name for a in v.args)})", (_elements(tile), "w")
        return None

    def reduce_text(self, s):
        """dst = a whole-tile reduction of a tile of scalars (tile_coop.h coop_tile_sum, ...): it reads
        other lanes' elements (no `own`); None for one along an axis or of other elements."""
        v = s.value
        kind = _REDUCTIONS.get(v.resolved.overload.template)
        src = v.args[0].type
        if kind is None or len(v.args) != 1 or not isinstance(src, TileType) or not T.is_scalar_type(src.dtype) \
                or src.dtype is T.bool:
            return None
        return f"wpnb::coop_tile_{kind}(wpnb_part, {s.dst.name}, {v.args[0].name})", None

    def elementwise_text(self, s):
        """dst = a (op) b on tiles of dst's shape and scalars, element by element."""
        v, t = s.value, s.dst.type
        if v.resolved.overload.template is not None:
            return None
        parts = []
        for a in v.args:
            if isinstance(a.type, TileType):
                if a.type != t:
                    return None
                parts.append(f"{a.name}.data[wpnb_e]")
            else:
                parts.append(a.name)
        if not any(isinstance(a.type, TileType) for a in v.args):
            return None
        return (f"wpnb::coop_each(wpnb_part, {s.dst.name}, [&](int wpnb_e) {{ "
                f"return {v.builtin.symbol}({', '.join(parts)}); }})"), (_elements(t), "")

    def move(self, depth: int, key, dst, src, loc=None) -> None:
        """dst = src for a phi, a loop state or a break/continue write: lane 0's alone into the frame."""
        if self.sharing is None:
            self.line(depth, f"{dst.name} = {src.name};", loc)
            return
        self.fence_before(key, depth)
        if key not in self.sharing.lead:
            self.line(depth, f"{dst.name} = {src.name};", loc)
            return
        if isinstance(dst.type, TileType) and dst.type == src.type and dst.name != src.name:
            self.split_statement(depth, f"wpnb::coop_copy(wpnb_part, {dst.name}, {src.name})",
                                 (_elements(dst.type), ""), loc)
            self.line(depth, f"}} else if (wpnb_lead) {dst.name} = {src.name};")
            self.split_end = len(self.lines)
            return
        self.line(depth, f"if (wpnb_lead) {dst.name} = {src.name};", loc)
        self.line(depth, "wpnb::block_publish(wpnb_apart);")

    def block_wide(self, lanes: str, text: str) -> str:
        """A store or an atomic (lanes "lead"), or a costly tile operation ("once_per_block"), as
        one lane does it for the block (native/tiles/block.h)."""
        if self.leading:  # lane 0 alone, unless the lanes are apart (then as below)
            fn = "block_lead_if" if lanes == "lead" else "block_once_if"
            return f"wpnb::{fn}(wpnb_apart, [&]() {{ return {text}; }})"
        fn = "block_lead" if lanes == "lead" else "block_once"
        return f"wpnb::{fn}([&]() {{ return {text}; }})"


def _elements(t: TileType) -> int:
    """How many elements a tile has (a split statement's lane k computes k, k + lanes, ... of them)."""
    n = 1
    for d in t.shape:
        n *= int(d)
    return n
