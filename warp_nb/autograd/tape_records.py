"""What a wp.Tape records: kernel launches, array copies and Python functions, one small record
each (read by tape.py, the graph of tape_graph.py and the checks of warp_nb.autograd)."""

from __future__ import annotations

from dataclasses import dataclass

from ..arrays.array import array
from ..types.structs import StructInstance


@dataclass
class LaunchRecord:
    """A kernel launch recorded on a tape."""

    kernel: object
    dim: object
    inputs: tuple
    outputs: tuple
    device: object
    typed: object = None  # the kernel's typed IR for this launch (a generic kernel's instance)
    block_dim: int = 256  # as launched, resolved: the backward pass runs in blocks of the same lanes

    # Warp's tape entries are tuples: (kernel, dim, max_blocks, inputs, outputs, device, block_dim, meta)
    _FIELDS = ("kernel", "dim", None, "inputs", "outputs", "device", "block_dim", None)

    def __len__(self) -> int:
        return len(self._FIELDS)

    def __getitem__(self, index):
        name = self._FIELDS[index]
        if name is None:
            return 0 if self._FIELDS.index(None) == index % len(self._FIELDS) else None  # max_blocks: 0
        return getattr(self, name)

    def __setitem__(self, index, value) -> None:
        name = self._FIELDS[index]
        if name is None:
            raise IndexError(f"tape launch entry {index} is not kept by warp_nb")
        setattr(self, name, value)

    def typed_ir(self):
        """The typed IR of the launched kernel (compiled already: it ran)."""
        if self.typed is None:
            from ..launch.launcher import concrete_signature
            args = self.inputs + self.outputs
            signature = concrete_signature(self.kernel, args) if self.kernel.is_generic else None
            self.typed = self.kernel.compiled(self.device, signature=signature).typed
        return self.typed


@dataclass
class CopyRecord:
    """An array copy recorded on a tape."""

    dest: array
    src: array
    dest_offset: int
    src_offset: int
    count: int


@dataclass
class FuncRecord:
    """A Python callback recorded on a tape (record_func)."""

    backward: object
    arrays: tuple


def arrays_in(values):
    """The arrays among launch arguments, including those held in struct arguments (recursively)."""
    for v in values:
        if isinstance(v, array):
            yield v
        elif isinstance(v, StructInstance):
            yield from arrays_in(getattr(v, name) for name in v._struct.fields)
