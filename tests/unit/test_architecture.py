"""The design as the code shows it: the pipeline reads top to bottom in one function, the
subpackages depend on each other without circles, and no file grows past what a reader can hold."""

import ast
import inspect
from pathlib import Path

import pytest

from warp_nb.compiler import pipeline

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "warp_nb"


def _units_imported(path: Path) -> set:
    """The top-level parts of warp_nb (subpackages or modules) that a file imports, anywhere in it."""
    rel = path.relative_to(ROOT).with_suffix("").parts
    package = rel[:-1] if path.name != "__init__.py" else rel[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - node.level + 1]) + (node.module.split(".") if node.module else [])
            else:
                base = (node.module or "").split(".")
            if base[0] != "warp_nb":
                continue
            names = [base + [a.name] for a in node.names] if len(base) == 1 else [base]
        elif isinstance(node, ast.Import):
            names = [a.name.split(".") for a in node.names if a.name.split(".")[0] == "warp_nb"]
        found |= {parts[1] for parts in names if len(parts) > 1}
    return found


def _unit_graph() -> dict:
    graph: dict = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        unit = parts[0].removesuffix(".py") if len(parts) > 1 or parts[0] != "__init__.py" else "__init__"
        if unit in ("__init__", "__main__"):
            continue  # the public surface imports everything; nothing imports it back
        graph.setdefault(unit, set()).update(_units_imported(path) - {unit})
    return graph


def test_no_import_circle_between_subpackages():
    graph = _unit_graph()
    assert {"compiler", "builtins", "toolchain", "runtime", "arrays", "cuda", "types", "program"} <= set(graph)
    state: dict = {}

    def visit(unit, path):
        if state.get(unit) == "done":
            return
        if state.get(unit) == "open":
            cycle = path[path.index(unit):] + [unit]
            pytest.fail("import circle: " + " -> ".join(cycle))
        state[unit] = "open"
        for dep in sorted(graph.get(unit, ())):
            visit(dep, path + [unit])
        state[unit] = "done"

    for unit in sorted(graph):
        visit(unit, [])


def test_stages_depend_only_on_earlier_stages():
    graph = _unit_graph()
    assert not graph["types"] & {"builtins", "compiler", "runtime", "arrays", "cuda", "program"}
    assert not graph["compiler"] & {"runtime", "arrays", "cuda", "program", "launcher"}, graph["compiler"]
    assert not graph["toolchain"] & {"compiler", "runtime", "cuda", "program"}, graph["toolchain"]
    assert not graph["runtime"] & {"cuda", "arrays", "program", "compiler"}, graph["runtime"]


def test_the_pipeline_reads_top_to_bottom():
    """compile_kernel calls every stage, in order, itself."""
    source = inspect.getsource(pipeline.compile_kernel)
    nodes = sorted((n for n in ast.walk(ast.parse(source.lstrip())) if isinstance(n, ast.Call)
                    and isinstance(n.func, (ast.Name, ast.Attribute))), key=lambda n: (n.lineno, n.col_offset))
    calls = [n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id for n in nodes]
    stages = ["parse_definition", "typecheck_kernel", "adjoint_unit", "emit_kernel", "cache_key", "fetch_or_build",
              "load"]
    positions = [calls.index(s) for s in stages]
    assert positions == sorted(positions), calls
    assert len(source.splitlines()) < 30


def test_no_file_is_too_long_to_read():
    long = []
    for pattern in ("warp_nb/**/*.py", "magics/*.py", "kernels/*.py", "native/**/*.h", "native/**/*.cpp",
                    "tests/**/*.py"):
        for path in ROOT.glob(pattern):
            n = len(path.read_text().splitlines())
            if n > 600:
                long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not long, long
