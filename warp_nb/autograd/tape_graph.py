"""`Tape.visualize()`: the recorded launches as a GraphViz (dot) graph, returned as text and
optionally written to a file. Arrays are ellipses, launches boxes; an edge runs from each array a
launch reads to the launch, and from the launch to each array it writes. Named scopes
(`record_scope_begin/end`) become clusters. With `simplify_graph`, a run of identical launches
(same kernel, same arguments) is drawn once, labelled "repeated Nx". Knows the tape's records;
draws nothing itself (render the text with GraphViz)."""

from __future__ import annotations

import html

from .. import types as T
from ..compiler.param_access import param_access
from ..arrays.array import array
from .tape_records import CopyRecord, LaunchRecord


def visualize(tape, filename=None, simplify_graph=True, hide_readonly_arrays=False, array_labels=None,
              choose_longest_node_name=True, ignore_graph_scopes=False, track_inputs=None, track_outputs=None,
              track_input_names=None, track_output_names=None, graph_direction="LR") -> str:

    labels = {id(a): name for a, name in (array_labels or {}).items()}
    tracked = {}
    for arrays, names, color in ((track_inputs, track_input_names, "#bde4ff"),
                                 (track_outputs, track_output_names, "#ffd9b3")):
        for k, a in enumerate(arrays or ()):
            tracked[id(a)] = color
            if names and k < len(names):
                labels[id(a)] = names[k]

    steps = []  # (record index, label, tooltip, read arrays, written arrays, identity for merging)
    for n, record in enumerate(tape.launches):
        if isinstance(record, LaunchRecord):
            args = record.inputs + record.outputs
            read, written = param_access(record.typed_ir())
            reads = [args[k] for k in sorted(read) if isinstance(args[k], array)]
            writes = [args[k] for k in sorted(written) if isinstance(args[k], array)]
            params = ", ".join(f"{name}: {_describe(v)}" for name, v in zip(record.kernel.param_names, args))
            identity = (id(record.kernel), tuple(id(a) if isinstance(a, array) else repr(a) for a in args))
            steps.append((n, record.kernel.key, params, reads, writes, identity))
        elif isinstance(record, CopyRecord):
            steps.append((n, "copy", "wp.copy", [record.src], [record.dest], ("copy", id(record.src), id(record.dest))))
        elif hasattr(record, "backward"):
            name = getattr(record.backward, "__name__", "function")
            steps.append((n, f"{name} (recorded function)", "tape.record_func", list(record.arrays), [], None))

    merged = []  # [step, repeat count]
    for step in steps:
        if simplify_graph and merged and step[5] is not None and merged[-1][0][5] == step[5] \
                and not _scope_boundary(tape, step[0]):
            merged[-1][1] += 1
        else:
            merged.append([step, 1])

    lines = [f'digraph Tape {{\n  rankdir="{graph_direction}";\n  node [fontname="Helvetica"];']
    arrays_seen: dict = {}
    written_ids = {id(a) for (step, _) in merged for a in step[4]}
    for step, _ in merged:
        for a in step[3] + step[4]:
            if hide_readonly_arrays and id(a) not in written_ids and id(a) not in tracked:
                continue
            arrays_seen.setdefault(id(a), a)
    for k, (key, a) in enumerate(arrays_seen.items()):
        label = labels.get(key, f"a{k}")
        tip = f"array: dtype={T.type_name(a.dtype)}, shape={a.shape}"
        fill = f', style=filled, fillcolor="{tracked[key]}"' if key in tracked else ""
        lines.append(f'  arr{key} [label="{_esc(label)}", shape=ellipse, tooltip="{_esc(tip)}"{fill}];')

    scopes = [] if ignore_graph_scopes else tape.scopes
    depth = 0
    markers = sorted(((index, order, name) for order, (index, name, _meta) in enumerate(scopes)))
    m = 0
    for k, (step, repeats) in enumerate(merged):
        while m < len(markers) and markers[m][0] <= step[0]:
            depth = _open_or_close(lines, markers[m], depth)
            m += 1
        label = step[1] + (f" (repeated {repeats}x)" if repeats > 1 else "")
        lines.append(f'  op{k} [label="{_esc(label)}", shape=box, style=rounded, tooltip="{_esc(step[2])}"];')
        for a in step[3]:
            if id(a) in arrays_seen:
                lines.append(f"  arr{id(a)} -> op{k};")
        for a in step[4]:
            if id(a) in arrays_seen:
                lines.append(f"  op{k} -> arr{id(a)};")
    while m < len(markers):
        depth = _open_or_close(lines, markers[m], depth)
        m += 1
    lines.extend(["  }"] * depth)
    lines.append("}")
    text = "\n".join(lines) + "\n"
    if filename:
        with open(filename, "w") as f:
            f.write(text)
    return text


def _open_or_close(lines, marker, depth) -> int:
    _index, order, name = marker
    if name is None:
        if depth:
            lines.append("  }")
            return depth - 1
        return depth
    lines.append(f'  subgraph cluster_{order} {{\n  label="{_esc(name)}";')
    return depth + 1


def _scope_boundary(tape, index) -> bool:
    return any(i == index for i, _name, _meta in tape.scopes)


def _describe(value) -> str:
    if isinstance(value, array):
        return f"array({T.type_name(value.dtype)}, shape={value.shape})"
    return repr(value)


def _esc(text: str) -> str:
    return html.escape(str(text), quote=True)
