"""Grouped trees (Warp's `groups=` of wp.Bvh and wp.Mesh): one subtree per group id, joined under
a small tree over the groups' bounds, so a query can start at a group's root
(`wp.bvh_get_group_root(id, group)`) and see that group's items only, or at the root and see all.

The native builder makes each group's subtree; the joining tree (median splits over the group
boxes) is made here. Layout: the joining tree's nodes come first; each of its leaves is replaced
by the root of its group's subtree, whose other nodes follow, so children always sit after their
parents (the builder's refit walks nodes backwards) and every inner node's two children stay
adjacent (bvh.h reads them at `start` and `start + 1`)."""

from __future__ import annotations

import numpy as np

from . import native


def _joining_tree(glo: np.ndarray, ghi: np.ndarray) -> list:
    """Nodes [lower, upper, is_leaf, ref] over the group boxes: ref is a group index for a leaf,
    the index of the first child for an inner node."""
    nodes: list = [None]

    def build(members: np.ndarray, at: int) -> None:
        lo, hi = glo[members].min(axis=0), ghi[members].max(axis=0)
        if len(members) == 1:
            nodes[at] = [lo, hi, True, int(members[0])]
            return
        centres = 0.5 * (glo[members] + ghi[members])
        axis = int(np.argmax(centres.max(axis=0) - centres.min(axis=0)))
        members = members[np.argsort(centres[:, axis], kind="stable")]
        half = len(members) // 2
        first = len(nodes)
        nodes.extend([None, None])
        nodes[at] = [lo, hi, False, first]
        build(members[:half], first)
        build(members[half:], first + 1)

    build(np.arange(len(glo)), 0)
    return nodes


def build_grouped_tree(build_tree, lo: np.ndarray, hi: np.ndarray, groups: np.ndarray, leaf_size: int):
    """(nodes, items, node count, group ids (sorted), their root nodes) of a tree over boxes
    lo[k]..hi[k] whose item k belongs to group groups[k]. build_tree(lo, hi, leaf_size) builds one
    subtree: (nodes, items, count) with local item indices."""
    order = np.argsort(groups, kind="stable")
    ids, starts = np.unique(groups[order], return_index=True)
    ends = np.append(starts[1:], len(order))
    subtrees = []
    for s, e in zip(starts, ends):
        members = order[s:e]
        nodes, items, count = build_tree(np.ascontiguousarray(lo[members]), np.ascontiguousarray(hi[members]),
                                         leaf_size)
        subtrees.append((nodes[:count], members[items[: e - s]].astype(np.int32)))
    joining = _joining_tree(np.array([t[0]["lower"][0] for t in subtrees]),
                            np.array([t[0]["upper"][0] for t in subtrees]))
    total = len(joining) + sum(len(t[0]) - 1 for t in subtrees)
    out = np.zeros(total, dtype=native.NODE_DTYPE)
    items_out = np.concatenate([t[1] for t in subtrees]).astype(np.int32)
    roots = np.zeros(len(ids), dtype=np.int32)
    next_node, item_base = len(joining), np.concatenate([[0], np.cumsum([len(t[1]) for t in subtrees])])
    for at, (nlo, nhi, is_leaf, ref) in enumerate(joining):
        if not is_leaf:
            out[at] = (nlo, ref, nhi, 0)
            continue
        sub, _ = subtrees[ref]
        base = next_node - 1  # local node i >= 1 goes to base + i; local 0 (the root) to `at`
        placed = sub.copy()
        inner = placed["count"] == 0
        placed["start"][inner] += base
        placed["start"][~inner] += item_base[ref]
        out[at] = placed[0]
        out[next_node: next_node + len(sub) - 1] = placed[1:]
        next_node += len(sub) - 1
        roots[ref] = at
    return out, items_out, total, ids.astype(np.int32), roots


def group_array(groups, count: int, what: str) -> np.ndarray:
    """The group ids (one per item) as an int32 numpy array, checked against the item count."""
    g = np.asarray(groups.numpy() if hasattr(groups, "numpy") else groups).astype(np.int32).reshape(-1)
    if g.size != count:
        raise ValueError(f"{what} groups has {g.size} entries for {count} items")
    return g
