"""Which counted loops test the interrupt flag (Ctrl-C, a notebook's Interrupt: runtime/interrupts.py)
at the top of each iteration, so that a launch that would run for hours stops within a moment.

Every `while` loop tests it (emit/body.py): its end depends on data, and it is the loop a student
writes that never ends. A `for` loop tests it when its body may run a long loop: a `while` loop, a
query loop (mesh, BVH, hash grid), or a counted loop whose count is not a small constant, directly,
under a branch, or in a function it calls. An innermost counted loop does not: its counter is an
int32, so it ends within 2**31 iterations (seconds), and a test in it would stop GCC from
vectorising it. The loop around it then stops within one of its runs. So `for i in range(n): for j
in range(n)` tests once per i, and `for i in range(n): for k in range(3)` not at all.

In CPU blocks of several lanes as well: lanes that left a loop at different iterations could not
pass the same barriers, but once the flag is set the fiber scheduler resumes no lane
(native/tiles/block_cpu.h), so none waits at a barrier for another."""

from __future__ import annotations

from . import ir

#: a constant count above this makes a loop long (its caller's loop tests the flag)
SHORT_COUNT = 4096


def _count(loop: ir.For, consts: dict):
    """The loop's number of iterations if its range is constant, else None."""
    try:
        start, stop, step = (int(consts[id(v)]) for v in (loop.start, loop.stop, loop.step))
    except (KeyError, TypeError, ValueError):
        return None
    if step == 0:
        return None
    return max(0, -((start - stop) // step)) if step > 0 else max(0, -((stop - start) // -step))


class _Finder:
    def __init__(self):
        self.long_funcs: dict = {}  # id(FuncInstance) -> whether calling it may run a long loop
        self.polled: set = set()  # ids of the For statements that test the flag

    def func_is_long(self, inst) -> bool:
        key = id(inst)
        if key not in self.long_funcs:
            self.long_funcs[key] = False  # (a cycle, which the language refuses anyway, ends here)
            if getattr(inst, "native", None) is None:
                body = inst.ir.body
                self.long_funcs[key] = self.visit(body, ir.constants(body))
        return self.long_funcs[key]

    def visit(self, stmts, consts: dict) -> bool:
        """Mark the For loops in `stmts` that test the flag; whether `stmts` may run a long loop."""
        long = False
        for s in stmts:
            if isinstance(s, (ir.Let, ir.Effect)) and isinstance(s.value, ir.CallFunc):
                long |= self.func_is_long(s.value.func)
            elif isinstance(s, (ir.While, ir.Iterate)):
                self.visit_blocks(s, consts)
                long = True
            elif isinstance(s, ir.For):
                if self.visit(s.body, consts):
                    self.polled.add(id(s))
                    long = True
                else:
                    count = _count(s, consts)
                    long |= count is None or count > SHORT_COUNT
            else:
                long |= self.visit_blocks(s, consts)
        return long

    def visit_blocks(self, s, consts: dict) -> bool:
        found = False
        for block in ir.child_blocks(s):
            found |= self.visit(block, consts)
        return found


def polled_loops(fn: ir.Function) -> frozenset:
    """The ids of the For statements of `fn` (not of the functions it calls: each is written with
    its own) that test the interrupt flag at the top of each iteration."""
    finder = _Finder()
    finder.visit(fn.body, ir.constants(fn.body))
    return frozenset(finder.polled)
