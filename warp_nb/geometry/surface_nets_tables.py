"""The lookup tables of surface nets with one vertex per surface sheet of a cell (surface_nets.py), in
the layout of OpenVDB's uniform volume-to-mesh path that Warp's tables follow, generated here rather
than transcribed.

A cell's sign configuration has bit c set when corner c lies inside (value below the isovalue);
corners are numbered as OpenVDB numbers them (CORNER_OFFSETS), and so are the 12 edges. The surface
crosses an edge whose corners differ; crossed edges belong to one sheet (edge group) when the surface
joins them across a face of the cell. A face with two crossings joins them; a face whose inside and
outside corners alternate (ambiguous) is resolved by keeping its inside corners connected, i.e. the
surface cuts off each outside corner, which is OpenVDB's choice. Groups are numbered 1, 2, ... in the
order of their first edge. AMBIGUOUS_FACE names, for a configuration with at most three inside
corners and exactly one ambiguous face, that face (1..6: -z, +x, +z, -x, -y, +y); two neighbouring
cells that both see their shared face so flip one configuration to keep the mesh manifold there."""

from __future__ import annotations

CORNER_OFFSETS = ((0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1), (0, 1, 0), (1, 1, 0), (1, 1, 1), (0, 1, 1))
# each edge from its corner with the lower coordinate to the other
EDGE_TO_CORNERS = ((0, 1), (1, 2), (3, 2), (0, 3), (4, 5), (5, 6), (7, 6), (4, 7), (0, 4), (1, 5), (2, 6), (3, 7))
# faces 1..6 as corner cycles; FACE_NEIGHBOR: the cell across each face and that cell's name for the face
FACES = {1: (0, 1, 5, 4), 2: (1, 2, 6, 5), 3: (3, 2, 6, 7), 4: (0, 3, 7, 4), 5: (0, 1, 2, 3), 6: (4, 5, 6, 7)}
FACE_NEIGHBOR = {1: ((0, 0, -1), 3), 2: ((1, 0, 0), 4), 3: ((0, 0, 1), 1), 4: ((-1, 0, 0), 2), 5: ((0, -1, 0), 6),
                 6: ((0, 1, 0), 5)}

_EDGE_OF = {frozenset(e): i for i, e in enumerate(EDGE_TO_CORNERS)}


def _inside(signs: int, corner: int) -> bool:
    return bool((signs >> corner) & 1)


def _is_ambiguous(signs: int, face: int) -> bool:
    a, b, c, d = (_inside(signs, k) for k in FACES[face])
    return a == c and b == d and a != b


def _edge_groups(signs: int) -> tuple:
    """One row: the number of groups, then each edge's group (0 where the edge is not crossed)."""
    parent = list(range(12))

    def find(e):
        while parent[e] != e:
            e = parent[e]
        return e

    for cycle in FACES.values():
        sides = [(cycle[i], cycle[(i + 1) % 4]) for i in range(4)]
        crossed = [_EDGE_OF[frozenset(s)] for s in sides if _inside(signs, s[0]) != _inside(signs, s[1])]
        if len(crossed) == 2:
            parent[find(crossed[0])] = find(crossed[1])
        elif len(crossed) == 4:  # cut off each outside corner: join its two edges on this face
            for i, corner in enumerate(cycle):
                if not _inside(signs, corner):
                    a = _EDGE_OF[frozenset((cycle[i - 1], corner))]
                    b = _EDGE_OF[frozenset((corner, cycle[(i + 1) % 4]))]
                    parent[find(a)] = find(b)
    ids, row = {}, [0] * 13
    for e, (a, b) in enumerate(EDGE_TO_CORNERS):
        if _inside(signs, a) != _inside(signs, b):
            row[1 + e] = ids.setdefault(find(e), len(ids) + 1)
    row[0] = len(ids)
    return tuple(row)


def _ambiguous_face(signs: int) -> int:
    faces = [f for f in FACES if _is_ambiguous(signs, f)]
    return faces[0] if len(faces) == 1 and signs.bit_count() <= 3 else 0


EDGE_GROUP_TABLE = tuple(v for signs in range(256) for v in _edge_groups(signs))  # 256 rows of 13
AMBIGUOUS_FACE = tuple(_ambiguous_face(signs) for signs in range(256))
