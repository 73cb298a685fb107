"""compiler/loop_exits.py on syntax trees: after the rewrite a loop body has no continue and at
most one break, its last statement; the statements after an exit move into the branch that
falls through, and the user's own names are never touched."""

from warp_nb.compiler import syntax as S
from warp_nb.compiler.loop_exits import has_loop_exit, structure_loop_body
from warp_nb.compiler.parse import parse_source

SRC = '''
def f(n: int):
    s = 0
    for i in range(n):
        s += 1
        if i == 2:
            continue
        s += 2
        if s > 9:
            s += 3
            break
        s += 4
'''


def exits_outside_the_end(stmts) -> int:
    count = 0
    for s in stmts:
        if isinstance(s, (S.Break, S.Continue)):
            count += 1
        if isinstance(s, S.If):
            count += exits_outside_the_end(s.body) + exits_outside_the_end(s.orelse)
    return count


def test_exits_become_branches_and_one_final_break():
    loop = parse_source(SRC).body[1]
    structured = structure_loop_body(loop.body)
    *body, last = structured.body
    assert exits_outside_the_end(body) == 0 and not has_loop_exit(body)
    assert isinstance(last, S.If) and last.body == (S.Break(last.loc),) and last.test.id == structured.break_flag
    assert not structured.break_flag.isidentifier()  # no user variable can be called this
    assert isinstance(structured.init[0], S.Assign) and structured.init[0].value.value is False
    continued = body[1]  # if i == 2: (nothing) else: the rest of the iteration
    assert continued.body == () and len(continued.orelse) == 2
    broke = continued.orelse[1]  # if s > 9: s += 3; flag = True   else: s += 4
    assert broke.body[-1].target.id == structured.break_flag and broke.orelse[0].value.value == 4


def test_a_body_without_exits_is_unchanged():
    loop = parse_source("def f(n: int):\n    for i in range(n):\n        x = i\n").body[0]
    structured = structure_loop_body(loop.body)
    assert structured.body == loop.body and structured.break_flag is None and structured.init == ()
    assert structured.unrolled_copy() == loop.body
