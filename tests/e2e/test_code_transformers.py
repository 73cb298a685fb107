"""wp.Kernel(func, code_transformers=[...]): Warp's ast.NodeTransformers rewrite the kernel's syntax
tree before it is compiled (the user's function keeps its own); a wp.static call whose node a
transformer puts in two places is evaluated once per place, and a callee node bound to a function
(`node.func.warp_func = f`) calls that function. Expected values are warp-lang 1.19's (probed)."""

import ast

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


class _DoubleStore(ast.NodeTransformer):
    """out[0] = v  ->  out[0] = v + v"""

    def visit_Assign(self, node):
        node.value = ast.BinOp(node.value, ast.Add(), node.value)
        return ast.copy_location(node, node)


def test_the_transformed_tree_is_compiled_and_the_function_keeps_its_own():
    def raw(out: wp.array(dtype=float), v: float):
        out[0] = v

    transformed = wp.Kernel(raw, module=wp.get_module("code_transformers_double"), code_transformers=[_DoubleStore()])
    plain = wp.Kernel(raw, module=wp.get_module("code_transformers_plain"))
    for kernel, expected in ((transformed, 6.0), (plain, 3.0)):
        out = wp.zeros(1, dtype=float, device="cpu")
        wp.launch(kernel, dim=1, inputs=[out, 3.0], device="cpu")
        assert out.numpy()[0] == expected


def test_a_reused_static_call_is_evaluated_at_each_place():
    calls = []

    def bump():
        calls.append(len(calls) + 1.0)
        return calls[-1]

    def raw(out: wp.array(dtype=float)):
        x = wp.static(bump())
        y = 0.0
        out[0] = 10.0 * x + y

    class Reuse(ast.NodeTransformer):
        def visit_FunctionDef(self, node):
            node.body[1].value = node.body[0].value  # y = <the same wp.static(bump()) node>
            return node

    kernel = wp.Kernel(raw, module=wp.get_module("code_transformers_reuse"), code_transformers=[Reuse()])
    assert calls == [1.0, 2.0]  # at declaration, once per place
    out = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(kernel, dim=1, inputs=[out], device="cpu")
    assert out.numpy()[0] == 12.0 and calls == [1.0, 2.0]


def test_a_callee_bound_by_a_transformer_is_called():
    @wp.func
    def triple(value: float):
        return 3.0 * value

    @wp.func
    def negate(value: float):
        return -value

    def raw(out: wp.array(dtype=float)):
        out[0] = negate(2.0)

    class Bind(ast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if isinstance(node.func, ast.Name) and node.func.id == "negate":
                node.func.warp_func = triple
            return node

    kernel = wp.Kernel(raw, module=wp.get_module("code_transformers_bind"), code_transformers=[Bind()])
    out = wp.zeros(1, dtype=float, device="cpu")
    wp.launch(kernel, dim=1, inputs=[out], device="cpu")
    np.testing.assert_array_equal(out.numpy(), [6.0])
