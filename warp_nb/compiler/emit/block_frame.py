"""The statement writer's part for block-uniform tiles (compiler/block_uniform.py): in a kernel
typed for blocks of several lanes, the uniform tiles live in a frame the lanes of a CPU block
share (native/tiles/block.h block_frame_t), the statements that write them run on lane 0 alone
(`if (wpnb_lead)`), and fences (barriers) go where another lane may still read what lane 0 is
about to replace. The same text on every target: on CUDA, and on the CPU when a launch's leading
wp.tid() components vary inside a block, each lane has a frame of its own, every lane leads, the
fences do nothing and the block-wide calls keep their cooperation (`wpnb_apart`)."""

from __future__ import annotations

from .cpp import cpp_type


class BlockFrameWriter:
    """Mixed into emit/body.py FunctionWriter; `sharing` is set for a kernel's forward body only."""

    sharing = None  # compiler/block_uniform.BlockSharing
    leading = False  # writing a statement lane 0 runs alone

    def frame_declarations(self, depth: int) -> None:
        """The shared frame, and each shared tile as a reference into it (the body uses its name)."""
        pad = "    " * depth
        tiles = list(self.sharing.shared.values())
        fields = " ".join(f"{cpp_type(v.type)} {v.name};" for v in tiles)
        self.lines.append(f"{pad}struct wpnb_frame_t {{ {fields} }};")
        self.lines.append(f"{pad}wpnb::block_frame_t<wpnb_frame_t> wpnb_frame;  // the block's uniform tiles")
        self.lines.append(f"{pad}wpnb_frame_t& wpnb_shared = wpnb_frame.get();")
        self.lines.append(f"{pad}const bool wpnb_lead = wpnb_frame.lead();  // this lane computes them")
        self.lines.append(f"{pad}const bool wpnb_apart = wpnb_frame.apart();  // each lane has its own frame")
        self.lines.append(f"{pad}(void)wpnb_lead; (void)wpnb_apart;")
        for v in tiles:
            self.lines.append(f"{pad}{cpp_type(v.type)}& {v.name} = wpnb_shared.{v.name};")

    def is_shared(self, var) -> bool:
        return self.sharing is not None and id(var) in self.sharing.shared

    def fence_before(self, key, depth: int) -> None:
        if key in self.sharing.fences:  # another lane may still read what lane 0 replaces next
            self.line(depth, "if (!wpnb_apart) wpnb::block_sync();")

    def frame_statement(self, s, depth: int) -> bool:
        """Write statement `s` if lane 0 runs it alone (True), after its fence if it has one."""
        self.fence_before(id(s), depth)
        if id(s) not in self.sharing.lead:
            return False
        self.line(depth, "if (wpnb_lead) {", getattr(s, "loc", None))
        self.leading = True
        try:
            self.statement(s, depth + 1)
        finally:
            self.leading = False
        self.line(depth, "}")
        return True

    def move(self, depth: int, key, dst, src, loc=None) -> None:
        """dst = src for a phi, a loop state or a break/continue write: lane 0's alone into the frame."""
        if self.sharing is None:
            self.line(depth, f"{dst.name} = {src.name};", loc)
            return
        self.fence_before(key, depth)
        lead = "if (wpnb_lead) " if key in self.sharing.lead else ""
        self.line(depth, f"{lead}{dst.name} = {src.name};", loc)

    def block_wide(self, lanes: str, text: str) -> str:
        """A store or an atomic (lanes "lead"), or a costly tile operation ("once_per_block"), as
        one lane does it for the block (native/tiles/block.h)."""
        if self.leading:  # lane 0 alone, unless the lanes are apart (then as below)
            fn = "block_lead_if" if lanes == "lead" else "block_once_if"
            return f"wpnb::{fn}(wpnb_apart, [&]() {{ return {text}; }})"
        fn = "block_lead" if lanes == "lead" else "block_once"
        return f"wpnb::{fn}([&]() {{ return {text}; }})"
