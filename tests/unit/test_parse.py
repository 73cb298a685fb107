"""parse: Python source -> syntax tree. Syntax only, errors at the user's line."""

import pytest

from warp_nb.compiler import syntax as S
from warp_nb.errors import KernelSyntaxError
from warp_nb.compiler.parse import parse_source

SRC = '''\
@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    """a docstring-like string is ignored"""
    if i < n and a[i] > 0.0:
        a[i] += 1.0
    for j in range(3):
        pass
    while n > 0:
        n -= 1
        break
'''


def test_structure_and_locations():
    fdef = parse_source(SRC, "file.py", first_line=10)
    assert fdef.name == "k" and fdef.params == ("a", "n")
    kinds = [type(s).__name__ for s in fdef.body]
    assert kinds == ["Assign", "If", "For", "While"]
    assign = fdef.body[0]
    assert isinstance(assign.value, S.Call) and assign.loc.line == 12 and assign.loc.file == "file.py"
    cond = fdef.body[1].test
    assert isinstance(cond, S.BoolOp) and cond.op == "and"
    aug = fdef.body[1].body[0]
    assert isinstance(aug, S.AugAssign) and aug.op == "add" and isinstance(aug.target, S.Subscript)
    assert fdef.body[2].target == "j" and fdef.body[2].body == ()  # pass is dropped


def test_chained_comparison_becomes_and():
    fdef = parse_source("def f(x: float):\n    return 0.0 < x < 1.0\n")
    value = fdef.body[0].value
    assert isinstance(value, S.BoolOp) and [c.op for c in value.values] == ["lt", "lt"]


@pytest.mark.parametrize("line, words", [
    ("    y = [v for v in range(3)]", "comprehensions"),
    ("    try:\n        x = 1\n    except Exception:\n        x = 2", "exceptions"),
    ("    raise ValueError()", "exceptions"),
    ("    f = lambda v: v", "lambdas"),
    ("    y = {1: 2}", "`ast.Dict` not supported"),
    ("    y = [1, 2]", "List constructs"),
    ("    global q", "global"),
    ("    import math", "imports"),
    ("    y = x if x is None else 1", "`is`"),
    ("    with open('f') as h:\n        pass", "`with`"),
    ("    def inner():\n        pass", "@wp.func"),
    ("    y = f'{x}'", "f-strings"),
    ("    a = b = 1", "chained assignment"),
    ("    for i in [1, 2]:\n        pass", "List constructs are not supported"),
])
def test_unsupported_constructs_are_refused_at_their_line(line, words):
    src = "def k(x: float):\n    z = 1\n" + line + "\n"
    with pytest.raises(KernelSyntaxError) as info:
        parse_source(src, "cell-7", first_line=20)
    message = str(info.value)
    assert words in message
    assert "cell-7, line 22" in message  # the construct is on the third line of the source
    assert "warp_nb" not in message


def test_syntax_error_points_at_line():
    with pytest.raises(KernelSyntaxError) as info:
        parse_source("def k(x: float):\n    y = (x +\n", "mod.py", first_line=5)
    assert "mod.py" in str(info.value)


def test_assigned_names_finds_component_roots():
    fdef = parse_source("def k(v: float):\n    a = 1\n    if a:\n        b = 2\n    c[0] = 3\n    d.x += 1\n")
    assert S.assigned_names(fdef.body) == {"a", "b", "c", "d"}


def test_the_inside_of_wp_static_is_any_python():
    fdef = parse_source("def k():\n    if wp.static(N in {1, 2} and [x for x in 'ab']):\n        pass\n")
    call = fdef.body[0].test
    assert isinstance(call, S.Call) and call.source.startswith("wp.static(N in {1, 2}")
