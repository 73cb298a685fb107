"""wp.utils graph coloring: colorings checked edge by edge on random graphs, balancing against a
plain-list transcription of its documented move rules, groups against numpy, and bad input.
No C++ compiler is needed (the algorithms are sequential numpy)."""

import warnings

import numpy as np
import pytest

import warp_nb as wp

ALGORITHMS = list(wp.utils.GraphColoringAlgorithm)


def _random_graph(rng, n, p):
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if rng.uniform() < p]
    pairs = [(a, b) if rng.uniform() < 0.5 else (b, a) for a, b in pairs]
    return np.array(pairs, dtype=np.int32).reshape(-1, 2)


def _assign(edges, n, algorithm):
    colors = wp.empty(n, dtype=wp.int32, device="cpu")
    count = wp.utils.graph_coloring_assign(wp.array(edges, dtype=wp.int32, device="cpu"), colors, algorithm)
    return count, colors.numpy()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_colorings_of_random_graphs_are_valid(algorithm):
    rng = np.random.default_rng(1)
    for _ in range(40):
        n = int(rng.integers(1, 60))
        edges = _random_graph(rng, n, rng.uniform(0.0, 0.4))
        count, colors = _assign(edges, n, algorithm)
        assert not np.any(colors[edges[:, 0]] == colors[edges[:, 1]])
        assert sorted(set(colors.tolist())) == list(range(count))  # every color used, none beyond count
        degree = np.bincount(edges.ravel(), minlength=n)
        assert count <= degree.max(initial=0) + 1  # a greedy coloring never needs more


@pytest.mark.parametrize("n", [2, 3, 7])
def test_complete_graphs_need_one_color_per_node(n):
    edges = np.array([(i, j) for i in range(n) for j in range(i + 1, n)], dtype=np.int32)
    for algorithm in ALGORITHMS:
        assert _assign(edges, n, algorithm)[0] == n


def test_mcs_colors_trees_with_two_colors():
    """A tree is chordal, where maximum cardinality search followed by greedy is optimal."""
    rng = np.random.default_rng(2)
    for _ in range(20):
        n = int(rng.integers(2, 80))
        parents = [int(rng.integers(0, v)) for v in range(1, n)]
        edges = np.array([(v + 1, p) for v, p in enumerate(parents)], dtype=np.int32)
        assert _assign(edges, n, wp.utils.GraphColoringAlgorithm.MCS)[0] == 2


def _reference_balance(n, edges, colors, color_count, target, max_iterations):
    """The balancing rules of coloring_algorithms.py, written out with plain lists."""
    neighbors = [set() for _ in range(n)]
    for a, b in edges:
        if a != b:
            neighbors[a].add(b)
            neighbors[b].add(a)
    colors = list(colors)
    members = [[v for v in range(n) if colors[v] == c] for c in range(color_count)]

    def ratio():
        sizes = [len(m) for m in members]
        return float("inf") if min(sizes) == 0 else float(np.float32(max(sizes)) / np.float32(min(sizes)))

    best, moves, at_limit = ratio(), 0, False
    while best > np.float32(target):
        sizes = [len(m) for m in members]
        if max(sizes) <= min(sizes) + 2:
            break
        dst = sizes.index(min(sizes))
        move = None
        for src in sorted(range(color_count), key=lambda c: (-sizes[c], c)):
            if src == dst or sizes[src] < sizes[dst]:
                continue
            for k, v in enumerate(members[src]):
                if all(colors[u] != dst for u in neighbors[v]):
                    move = (src, k, v)
                    break
            if move:
                break
        if move is None:
            break
        if moves == max_iterations:
            at_limit = True
            break
        src, k, v = move
        members[src][k] = members[src][-1]
        members[src].pop()
        members[dst].append(v)
        colors[v] = dst
        moves += 1
        if ratio() > best:
            colors[v] = src
            break
        best = ratio()
    return colors, best, at_limit


def test_balance_follows_its_rules_on_random_graphs():
    rng = np.random.default_rng(3)
    for _ in range(60):
        n = int(rng.integers(3, 40))
        edges = _random_graph(rng, n, rng.uniform(0.0, 0.3))
        count, colors = _assign(edges, n, ALGORITHMS[int(rng.integers(0, 2))])
        color_count = count + int(rng.integers(0, 3))  # unused colors make the ratio infinite at first
        target = float(rng.choice([1.0, 1.1, 1.5]))
        limit = int(rng.integers(0, n + 1))
        node_colors = wp.array(colors, dtype=wp.int32, device="cpu")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ratio = wp.utils.graph_coloring_balance(wp.array(edges, dtype=wp.int32, device="cpu"), node_colors,
                                                    color_count, target, max_iterations=limit)
        want_colors, want_ratio, want_warning = _reference_balance(n, edges, colors, color_count, target, limit)
        balanced = node_colors.numpy()
        assert balanced.tolist() == want_colors
        assert ratio == pytest.approx(want_ratio)
        assert any("iteration limit" in str(w.message) for w in caught) == want_warning
        assert not np.any(balanced[edges[:, 0]] == balanced[edges[:, 1]])
        sizes = np.bincount(balanced, minlength=color_count)
        assert ratio == (np.inf if sizes.min() == 0 else pytest.approx(sizes.max() / sizes.min(), rel=1e-6))


def test_balance_evens_out_a_graph_without_edges():
    node_colors = wp.zeros(100, dtype=wp.int32, device="cpu")
    ratio = wp.utils.graph_coloring_balance(wp.zeros((0, 2), dtype=wp.int32, device="cpu"), node_colors, 4, 1.0)
    sizes = np.bincount(node_colors.numpy(), minlength=4)
    assert sizes.sum() == 100 and sizes.max() - sizes.min() <= 2
    assert ratio == pytest.approx(sizes.max() / sizes.min())


def test_balance_warns_at_its_iteration_limit():
    node_colors = wp.array([0, 0, 0, 0, 0, 0, 1], dtype=wp.int32, device="cpu")
    with pytest.warns(UserWarning) as caught:
        ratio = wp.utils.graph_coloring_balance(wp.zeros((0, 2), dtype=wp.int32, device="cpu"), node_colors, 2, 1.0,
                                                max_iterations=1)
    assert [str(w.message) for w in caught] == [
        "Graph coloring stopped because it reached the 1-iteration limit (achieved ratio 2.5, target 1)."]
    assert ratio == 2.5 and np.bincount(node_colors.numpy()).tolist() == [5, 2]


def test_groups_partition_the_nodes():
    colors = np.random.default_rng(4).integers(0, 5, 50).astype(np.int32)
    groups = wp.utils.graph_coloring_get_groups(wp.array(colors, dtype=wp.int32, device="cpu"), 6)
    as_numpy = wp.utils.graph_coloring_get_groups(wp.array(colors, dtype=wp.int32, device="cpu"), 6,
                                                  return_wp_array=False)
    assert len(groups) == 6 and all(isinstance(g, wp.array) for g in groups)
    for c in range(6):
        assert groups[c].numpy().tolist() == np.flatnonzero(colors == c).tolist() == as_numpy[c].tolist()


def test_bad_input_is_refused_with_the_argument_named():
    edges = wp.array([[0, 1]], dtype=wp.int32, device="cpu")
    colors = wp.array([0, 1], dtype=wp.int32, device="cpu")
    balance = wp.utils.graph_coloring_balance
    with pytest.raises(ValueError, match="color_count"):
        balance(edges, colors, 0, 1.1)
    with pytest.raises(ValueError, match="target_max_min_ratio"):
        balance(edges, colors, 2, float("nan"))
    with pytest.raises(TypeError, match="max_iterations"):
        balance(edges, colors, 2, 1.1, max_iterations=2.0)
    with pytest.raises(ValueError, match="max_iterations"):
        balance(edges, colors, 2, 1.1, max_iterations=-3)
    with pytest.raises(RuntimeError, match=r"Node 0 has color 3, but valid colors are in the range \[0, 2\)"):
        balance(edges, wp.array([3, 1], dtype=wp.int32, device="cpu"), 2, 1.1)
    with pytest.raises(RuntimeError, match="edges array must have dtype int32"):
        wp.utils.graph_coloring_assign(wp.array([[0, 1]], dtype=wp.int64, device="cpu"), colors)
    with pytest.raises(RuntimeError, match=r"edges array must have shape \(edge_count, 2\)"):
        wp.utils.graph_coloring_assign(wp.zeros((2, 3), dtype=wp.int32, device="cpu"), colors)
    with pytest.raises(TypeError, match="edges must be a warp array"):
        wp.utils.graph_coloring_assign(np.array([[0, 1]], dtype=np.int32), colors)
    with pytest.raises(RuntimeError, match="Cannot color an empty graph"):
        wp.utils.graph_coloring_assign(edges, wp.empty(0, dtype=wp.int32, device="cpu"))
    with pytest.raises(RuntimeError, match="Unrecognized coloring algorithm number: 7"):
        wp.utils.graph_coloring_assign(edges, colors, 7)
    with pytest.raises(RuntimeError, match=r"Graph edge 0 has endpoints \(0, 5\)"):
        wp.utils.graph_coloring_assign(wp.array([[0, 5]], dtype=wp.int32, device="cpu"), colors)
    assert colors.numpy().tolist() == [0, 1]  # refused calls leave the colors alone


def test_native_entries_report_failures_through_the_runtime():
    from warp_nb._src.context import _get_runtime
    runtime = _get_runtime(init=True)
    edges = wp.array([[0, 1]], dtype=wp.int32, device="cpu")
    colors = wp.empty(2, dtype=wp.int32, device="cpu")
    assert runtime.core.wp_graph_coloring(2, edges.__ctype__(), 5, colors.__ctype__()) == -1
    assert runtime.get_error_string() == "Unrecognized coloring algorithm number: 5!"
    assert runtime.core.wp_balance_coloring(-2, edges.__ctype__(), 2, 1.1, 1, colors.__ctype__(), None) == -1.0
    assert runtime.get_error_string() == "The num_nodes value must be non-negative, got -2!"
    # a call that succeeds clears the message (it is about the last call)
    assert runtime.core.wp_graph_coloring(2, edges.__ctype__(), 0, colors.__ctype__()) == 2
    assert colors.numpy().tolist() in ([0, 1], [1, 0])
    assert runtime.core.python_error == ""
