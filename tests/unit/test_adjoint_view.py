"""Kernel.adj (program/adjoint_view.py) and the function-source extraction behind it
(compiler/function_source.py): what the view reports is warp_nb's own record of a definition."""

import ast
import functools
import gc
import os
import textwrap
import typing

import numpy as np

import warp_nb as wp
from warp_nb._src import codegen
from warp_nb.compiler import function_source as fs

SCALE = 3.0


@wp.func
def _double(x: float):
    return 2.0 * x


_HANDLERS = {"double": _double}


def _lambda_factory():
    return lambda q, qd: (
        q[0] == 0.0
        and q[1] == 0.0
    )


def test_fast_extraction_reads_the_definition_and_unwraps():
    def plain(a):
        return (
            a + 1
        )
        # a trailing body comment

    source, first, tree = fs.extract_function_source(plain)
    assert first == plain.__code__.co_firstlineno
    assert tree.body[0].name == "plain" and "# a trailing body comment" in source

    @functools.wraps(plain)
    def wrapper(a):
        return plain(a)

    assert fs.extract_function_source(wrapper)[2].body[0].name == "plain"


def test_extraction_falls_back_when_the_fast_slice_is_wrong():
    def shifted():
        x = 1
        return x

    calls = []

    def slow(func):
        calls.append(func)
        return fs.inspect_extract_function_source(func)

    # a slice that starts inside the body parses but is not the function: inspect's text is used
    bad_fast = lambda code: ("x = 1\n", code.co_firstlineno + 1)  # noqa: E731
    source, _first, tree = fs.extract_function_source(shifted, fast=bad_fast, slow=slow)
    assert calls == [shifted] and tree.body[0].name == "shifted" and source.startswith("def shifted")


def test_extraction_rereads_a_rewritten_file(tmp_path):
    path = tmp_path / "rewritten.py"

    def load(text):
        path.write_text(text)
        namespace = {}
        exec(compile(text, str(path), "exec"), namespace)
        return namespace["f"]

    assert "return 1" in fs.extract_function_source(load("def f():\n    return 1\n"))[0]
    assert "return 22" in fs.extract_function_source(load("def f():\n    return 22\n"))[0]


def test_lambda_body_keeps_its_parentheses():
    body = fs.extract_lambda_source(_lambda_factory(), only_body=True)
    assert body.startswith("(") and body.endswith(")") and "q[1] == 0.0" in body
    ast.parse(f"def g(q, qd):\n    return {body}\n")


def test_shared_source_is_per_code_object_and_goes_with_it():
    def make(v):
        def f():
            return v
        return f

    a, b = make(1), make(2)
    assert fs.shared_source(a) is fs.shared_source(b)
    code = compile("def g():\n    return 3\n", "g.py", "exec").co_consts[0]
    other = compile("def g():\n    return 3\n", "g.py", "exec").co_consts[0]
    fs.store_shared_source(code, fs.SharedFunctionSource("src", 0, None))
    assert fs.shared_source_for_code(code) is not None and fs.shared_source_for_code(other) is None
    key = id(code)
    del code
    gc.collect()
    assert key not in fs.shared_function_sources


def test_kernel_adj_reports_static_values_references_and_dim():
    @wp.kernel(module="unique")
    def k(out: wp.array2d(dtype=float)):
        i, j = wp.tid()
        add = wp.static(_HANDLERS["double"])
        out[i, j] = add(wp.static(1.0 + 2.0)) * SCALE

    adj = k.adj
    assert adj.kernel_dim == 2
    assert 3.0 in adj.resolved_static_expressions.values() and not adj.has_unresolved_static_expressions
    constants, _types, functions = adj.get_references()
    assert constants == {"SCALE": 3.0}
    assert wp._src.context.builtin_functions["add"] not in functions  # `add` is a local here
    # the literal static value is in the view's tree; the shared tree keeps the call
    assert 3.0 in {n.value for n in ast.walk(adj.tree) if isinstance(n, ast.Constant)}
    assert adj._shared_source is None and not hasattr(adj, "blocks")

    out = wp.zeros((2, 2), dtype=float, device="cpu")
    wp.launch(k, (2, 2), [out], device="cpu")
    np.testing.assert_allclose(out.numpy(), np.full((2, 2), 18.0))


def test_static_naming_a_loop_variable_is_left_for_typing():
    def body(out: wp.array(dtype=int)):
        for i in range(3):
            out[i] = wp.static(i + 1)

    adj = codegen.Adjoint(body)
    assert adj.has_unresolved_static_expressions
    assert adj._shared_source is fs.shared_source(body)


def test_is_tid_call_needs_the_warp_module():
    class Refs:
        def resolve_external_reference(self, name):
            return {"wp": wp, "other": object()}.get(name)

    assert codegen._is_tid_call(ast.parse("wp.tid()").body[0].value, Refs())
    assert not codegen._is_tid_call(ast.parse("other.tid()").body[0].value, Refs())


def test_substitution_copies_only_the_path():
    tree = ast.parse(textwrap.dedent("a = 1\nb = f(g(x))\n"))
    leaf = tree.body[1].value.args[0].args[0]
    ancestors = {tree, tree.body[1], tree.body[1].value, tree.body[1].value.args[0]}
    view = codegen._substitute_nodes(tree, {leaf: ast.Constant(5)}, ancestors)
    assert view.body[0] is tree.body[0] and view.body[1] is not tree.body[1]
    assert view.body[1].value.args[0].args[0].value == 5 and tree.body[1].value.args[0].args[0] is leaf


def test_variables_after_a_module_build():
    @wp.kernel(module="unique")
    def k(out: wp.array(dtype=float)):
        out[wp.tid()] = 1.0

    assert k.adj.variables == []
    wp._src.context.ModuleBuilder(k.module, k.module.options)
    assert len(k.adj.variables) >= 1 and k.adj.variables[0].name.startswith("out")
    assert os.path.basename(k.adj.filename) == "test_adjoint_view.py"


def test_args_lists_the_parameters_with_label_and_type():
    """kernel.adj.args, as NVIDIA's tutorial helpers read it to check a kernel's signature: each
    parameter in order with `label` and `type` (the declared kernel type); arg_types by name."""

    @wp.kernel
    def k(points: wp.array(dtype=wp.vec3), scale: float, n: int, out: wp.array2d(dtype=wp.float64)):
        pass

    args = k.adj.args
    assert [a.label for a in args] == ["points", "scale", "n", "out"]
    assert args[0].type == wp.array(dtype=wp.vec3) and args[0].type.dtype is wp.vec3
    assert args[1].type is wp.float32 and args[2].type is wp.int32
    assert args[3].type.ndim == 2 and args[3].type.dtype is wp.float64
    assert k.adj.arg_types == {a.label: a.type for a in args}

    @wp.kernel
    def generic(a: wp.array(dtype=typing.Any), s: typing.Any):
        pass

    assert [(a.label, a.type) for a in generic.adj.args][1] == ("s", typing.Any)


def test_args_say_what_the_built_kernel_reads_and_writes():
    @wp.kernel(module="unique", enable_backward=False)
    def k(a: wp.array(dtype=wp.int32), b: wp.array(dtype=wp.int32), c: wp.array(dtype=wp.int32), s: int):
        i = wp.tid()
        wp.atomic_max(a, i, 3)  # an atomic update writes
        c[i] = b[i] + s

    arrays = [wp.zeros(2, dtype=wp.int32, device="cpu") for _ in range(3)]
    wp.launch(k, dim=2, inputs=[*arrays, 1], device="cpu")
    flags = [(a.label, a.is_read, a.is_write) for a in k.adj.args]
    assert flags == [("a", False, True), ("b", True, False), ("c", False, True), ("s", False, False)]
