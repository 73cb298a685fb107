"""`MeshAdjacency`: the edges of a triangle mesh with the faces on each side (what cloth bending
springs and edge-based constraints are built from), as Warp's `warp.utils.MeshAdjacency`."""

from __future__ import annotations


class MeshEdge:
    """An edge v0 -> v1 as first met (in face f0, where o0 is the vertex opposite the edge) and,
    when a second face shares it, that face f1 and its opposite vertex o1 (else -1)."""

    __slots__ = ("f0", "f1", "o0", "o1", "v0", "v1")

    def __init__(self, v0: int, v1: int, o0: int, o1: int, f0: int, f1: int):
        self.v0, self.v1, self.o0, self.o1, self.f0, self.f1 = v0, v1, o0, o1, f0, f1

    def __repr__(self):
        return f"MeshEdge(v0={self.v0}, v1={self.v1}, o0={self.o0}, o1={self.o1}, f0={self.f0}, f1={self.f1})"


class MeshAdjacency:
    """`MeshAdjacency(indices, num_tris)`: `.edges` maps (min vertex, max vertex) to a MeshEdge.
    Faces are walked in order, each as the edges (i, j), (j, k), (k, i); an edge met a third time
    is non-manifold: it is reported on stdout and keeps its first two faces."""

    def __init__(self, indices, num_tris: int):
        self.edges: dict = {}
        for f in range(int(num_tris)):
            i, j, k = (int(x) for x in indices[f])
            self.add_edge(i, j, k, f)
            self.add_edge(j, k, i, f)
            self.add_edge(k, i, j, f)

    def add_edge(self, i0: int, i1: int, o: int, f: int) -> None:
        key = (min(i0, i1), max(i0, i1))
        edge = self.edges.get(key)
        if edge is None:
            self.edges[key] = MeshEdge(i0, i1, o, -1, f, -1)
        elif edge.f1 != -1:
            print("Detected non-manifold edge")
        else:
            edge.o1, edge.f1 = o, f
