"""Which memory a recorded launch has read, for the warning Warp gives when a later launch or copy
writes it (the earlier launch's adjoint would then see the new values): a flag on the array that
owns the memory, shared by all its views. A mixin of wp.array."""

from __future__ import annotations


class ReadTracking:
    def _memory_owner(self):
        a = self
        while hasattr(getattr(a, "_owner", None), "mark_read"):  # a view of another warp_nb array
            a = a._owner
        return a

    @property
    def _is_read(self) -> bool:
        """Whether a launch recorded on a tape has read this memory (views share the flag)."""
        return getattr(self._memory_owner(), "_read_flag", False)

    def mark_read(self) -> None:
        self._memory_owner()._read_flag = True

    def mark_init(self) -> None:
        self._memory_owner()._read_flag = False

    def mark_write(self, **context) -> None:
        """A recorded launch or copy writes this memory: warn (on stderr, as Warp) when an earlier
        recorded launch read it, since that launch's adjoint would then see the new values.
        `context`: arg_name, kernel_name, filename, lineno, or operation ("an array copy")."""
        if not self._is_read:
            return
        import sys
        where = f"{context.get('filename', '<unknown>')}:{context.get('lineno', 0)}"
        if "operation" in context:
            what = f"is being written to by {context['operation']} at {where} but"
        else:
            what = (f"passed to argument {context.get('arg_name', '?')} in kernel {context.get('kernel_name', '?')} "
                    f"at {where} is being written to but")
        sys.stderr.write(f"Warp UserWarning: Array {self} {what} has already been read from in a previous launch. "
                         "This may corrupt gradient computation in the backward pass.\n")
