"""The IRs on their own: nodes are immutable, the verifiers catch broken IR (and accept what the
typechecker and the adjoint pass produce), the reverse-mode IR has a stable printer, and a
function's C++ symbol depends on what it computes, not on where it is written."""

import dataclasses
import textwrap

import pytest

import warp_nb as wp
from warp_nb.compiler import adjoint_ir as A
from warp_nb.compiler import ir
from warp_nb.compiler.adjoint import adjoint_function, adjoint_unit
from warp_nb.compiler.parse import parse_source
from warp_nb.compiler.scope import Scope
from warp_nb.compiler.typecheck import Context, typecheck_kernel
from warp_nb.compiler.verify import IRVerifyError, verify, verify_adjoint
from warp_nb.errors import Loc
from warp_nb.types.array_type import ArrayType

F1 = ArrayType(wp.float32, 1)


def typed(src: str, params: list, backward: bool = False, first_line: int = 1):
    fdef = parse_source(textwrap.dedent(src), "k.py", first_line)
    scope = Scope(lambda: None)
    scope.globals = {"wp": wp, "square": square, "scale_ref": scale_ref}
    return typecheck_kernel(fdef, params, scope, Context("release", backward))


@wp.func
def square(v: float):
    return v * v


@wp.func_native("x = x * y;", adj_snippet="adj_y += x * adj_x; adj_x = y * adj_x;")
def scale_ref(x: wp.ref[float], y: float): ...


SQUARES = """
    def squares(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = square(x[i]) + 3.0
    """


def test_ir_nodes_are_immutable():
    fn = typed(SQUARES, [F1, F1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        fn.symbol = "other"
    with pytest.raises(dataclasses.FrozenInstanceError):
        fn.body[0].dst = fn.params[0]


def test_the_verifier_accepts_what_the_passes_produce():
    fn = typed(SQUARES, [F1, F1], backward=True)
    verify(fn)
    unit = adjoint_unit(fn)
    verify_adjoint(unit.kernel)
    assert len(unit.funcs) == 1
    for adj in unit.funcs.values():
        verify_adjoint(adj)


def _let(name, t, value):
    return ir.Let(ir.Var(name, t), value, Loc("k.py", 1))


def _function(body, params=(), locals_=()):
    return ir.Function("broken", "k_broken", list(params), [p.name for p in params], tuple(body), None, True,
                       Loc("k.py", 1), locals=list(locals_))


def test_the_verifier_names_the_broken_variable():
    a = ir.Var("a", wp.float32)
    use = _let("b", wp.float32, ir.Copy(a))
    with pytest.raises(IRVerifyError, match="a is used where it is not defined"):
        verify(_function([use], locals_=[use.dst]))
    twice = _let("c", wp.float32, ir.Const(1.0, wp.float32))
    with pytest.raises(IRVerifyError, match="c is defined twice"):
        verify(_function([twice, twice], locals_=[twice.dst]))
    with pytest.raises(IRVerifyError, match="not listed in the function's locals"):
        verify(_function([twice]))
    with pytest.raises(IRVerifyError, match="assigned but not mutable"):
        verify(_function([twice, ir.Assign(twice.dst, twice.dst, Loc("k.py", 2))], locals_=[twice.dst]))
    x = ir.Var("x", F1)
    i = _let("i", wp.int32, ir.Tid(0, 1))
    wrong = _let("v", wp.int32, ir.Load(x, (i.dst,)))
    with pytest.raises(IRVerifyError, match="a load of x has type int32"):
        verify(_function([i, wrong], params=[x], locals_=[i.dst, wrong.dst]))
    flag = _let("f", wp.float32, ir.Const(1.0, wp.float32))
    branch = ir.If(flag.dst, (), (), Loc("k.py", 3))
    with pytest.raises(IRVerifyError, match="not bool"):
        verify(_function([flag, branch], locals_=[flag.dst]))


def test_the_adjoint_verifier_finds_undeclared_variables():
    fn = typed(SQUARES, [F1, F1])
    adj = adjoint_function(fn)
    stray = ir.Var("adj_stray", wp.float32)
    broken = dataclasses.replace(adj, reverse=adj.reverse + (A.Zero(stray),))
    with pytest.raises(IRVerifyError, match="adj_stray is not declared"):
        verify_adjoint(broken)


def test_the_adjoint_printer_shows_replay_and_reverse():
    fn = typed("""
        def loss(x: wp.array(dtype=float), out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = wp.sin(x[i]) * x[i]
        """, [F1, F1])
    text = A.format_adjoint(adjoint_function(fn))
    lines = text.splitlines()
    assert lines[0].startswith("adjoint of k_loss") and lines[1].strip() == "replay:"
    reverse = lines[lines.index("    reverse:"):]
    assert any("adj_mul(" in ln for ln in reverse) and any("adj_sin(" in ln for ln in reverse)
    assert any(ln.strip().startswith("x_") and ".grad[" in ln and "add adj_" in ln for ln in reverse)
    assert any(".grad[" in ln and ln.strip().startswith("adj_") for ln in reverse)  # out's gradient read back
    assert text == A.format_adjoint(adjoint_function(typed("""
        def loss(x: wp.array(dtype=float), out: wp.array(dtype=float)):
            i = wp.tid()
            out[i] = wp.sin(x[i]) * x[i]
        """, [F1, F1])))  # stable text


def test_a_functions_symbol_names_what_it_computes():
    here = typed(SQUARES, [F1, F1])
    moved = typed("\n\n\n" + SQUARES, [F1, F1], first_line=40)
    (f_here,), (f_moved,) = ir.called_instances(here), ir.called_instances(moved)
    assert f_here.symbol == f_moved.symbol and f_here.symbol.startswith("f_square_")
    assert ir.fingerprint(here) == ir.fingerprint(moved)
    changed = typed(SQUARES.replace("3.0", "4.0"), [F1, F1])
    assert ir.fingerprint(changed) != ir.fingerprint(here)


def test_a_call_writing_its_argument_is_replayed_and_differentiated_at_the_value_before_it():
    """scale_ref(t, y) writes t through a reference: the caller passes a copy `r = t`. The replay runs
    the call (what follows reads r), and its adjoint is given t, the value before the call, with r's
    adjoint (that of the value after it), which the copy then passes on to t."""
    fn = typed("""
        def k(x: wp.array(dtype=float), out: wp.array(dtype=float)):
            i = wp.tid()
            t = x[i] + 1.0
            scale_ref(t, x[i])
            out[i] = t
        """, [F1, F1], backward=True)
    verify(fn)
    (call,) = [s for s in fn.body if isinstance(s, ir.Effect)]
    (copy,) = [s for s in fn.body if isinstance(s, ir.Let) and s.dst is call.value.args[0]]
    adj = adjoint_unit(fn).kernel
    verify_adjoint(adj)
    assert call in adj.replay
    (rev,) = [s for s in adj.reverse if isinstance(s, A.AdjFuncCall)]
    assert rev.args[0] is copy.value.src and rev.adj_args[0] is adj.adj[id(copy.dst)]
