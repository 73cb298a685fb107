"""Loop bodies without early exits: `continue` and `break` become branches, on the syntax tree,
before a loop is typed. Syntax tree in, syntax tree out; knows nothing of types or the IR.

Why: the adjoint pass reverses a loop iteration statement by statement, so it must know which
statements ran. After this rewrite a body has no `continue`, and at most one `break`, as its
very last statement (`if <flag>: break`), so every iteration is straight structured code that
replays and reverses like any other block (Warp differentiates such loops too).

    for i in r:                       brk = False
        A                             for i in r:
        if c:                             A
            continue          ->         if c:
        B                                    pass
        if d:                            else:
            break                            B
        C                                    if d:
                                                 brk = True
                                             else:
                                                 C
                                          if brk:
                                              break

The rest of a block after an `if` that may leave is moved into the branches that fall through,
so it runs exactly when Python would run it. A branch that always leaves gets no copy, so the
common `if c: continue` pattern costs no duplication."""

from __future__ import annotations

from dataclasses import replace
from itertools import count

from .records import record
from . import syntax as S

_flags = count()


@record(frozen=True)
class StructuredBody:
    """A loop body rewritten without continue and with at most one break."""

    body: tuple  # the rewritten body: no continue; a break only in the final `if flag: break`
    break_flag: str | None  # the name of the bool set by a `break` (None: the body has no break)
    init: tuple  # statements to run once before the loop (the flag's `= False`)

    def unrolled_copy(self) -> tuple:
        """The body for one copy of an unrolled loop: skipped once an earlier copy broke."""
        if self.break_flag is None:
            return self.body
        loc = self.body[0].loc if self.body else None
        return (S.If(S.Name(self.break_flag, loc), (), _without_final_break(self.body), loc),)


def has_loop_exit(stmts) -> bool:
    """Whether this block contains a break or continue of its own loop (not of nested loops)."""
    for s in stmts:
        if isinstance(s, (S.Break, S.Continue)):
            return True
        if isinstance(s, S.If) and (has_loop_exit(s.body) or has_loop_exit(s.orelse)):
            return True
    return False


def structure_loop_body(body: tuple) -> StructuredBody:
    """Rewrite a loop body so that it leaves only at its end (see the module docstring)."""
    if not has_loop_exit(body):
        return StructuredBody(tuple(body), None, ())
    flag = None
    if _contains_break(body):
        # a name no Python source can bind: it never meets the user's own variables
        flag = f"wpnb.break{next(_flags)}"
    new_body = _rewrite(tuple(body), flag)
    if flag is None:
        return StructuredBody(new_body, None, ())
    loc = body[0].loc
    init = (S.Assign(S.Name(flag, loc), S.Constant(False, loc), loc),)
    exit_ = S.If(S.Name(flag, loc), (S.Break(loc),), (), loc)
    return StructuredBody(new_body + (exit_,), flag, init)


def _rewrite(stmts: tuple, flag: str | None) -> tuple:
    out: list = []
    for index, s in enumerate(stmts):
        if isinstance(s, S.Continue):
            return tuple(out)  # the rest of the block is skipped
        if isinstance(s, S.Break):
            out.append(S.Assign(S.Name(flag, s.loc), S.Constant(True, s.loc), s.loc))
            return tuple(out)
        if isinstance(s, S.If) and (has_loop_exit(s.body) or has_loop_exit(s.orelse)):
            rest = tuple(stmts[index + 1:])
            body = _rewrite(s.body + (rest if not _always_leaves(s.body) else ()), flag)
            orelse = _rewrite(s.orelse + (rest if not _always_leaves(s.orelse) else ()), flag)
            out.append(replace(s, body=body, orelse=orelse))
            return tuple(out)
        out.append(s)
    return tuple(out)


def _always_leaves(stmts) -> bool:
    """Whether this block always ends in a break, continue or return (then what follows never runs)."""
    for s in stmts:
        if isinstance(s, (S.Break, S.Continue, S.Return)):
            return True
        if isinstance(s, S.If) and _always_leaves(s.body) and _always_leaves(s.orelse):
            return True
    return False


def _contains_break(stmts) -> bool:
    for s in stmts:
        if isinstance(s, S.Break):
            return True
        if isinstance(s, S.If) and (_contains_break(s.body) or _contains_break(s.orelse)):
            return True
    return False


def _without_final_break(body: tuple) -> tuple:
    return body[:-1]
