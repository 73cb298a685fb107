"""The design as the code shows it: the pipeline reads top to bottom in one function, the
subpackages depend on each other without circles, and no file grows past what a reader can hold."""

import ast
import re
import inspect
from pathlib import Path

import pytest

from warp_nb.compiler import pipeline

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "warp_nb"


#: The layers, bottom to top: a unit (a subpackage or loose module of warp_nb) imports only units of
#: its own layer or below. "base" is what every layer may use (settings, errors and warnings).
LAYERS = [
    ("base", {"config", "errors", "version"}),
    ("core", {"types", "builtins", "toolchain", "runtime", "arrays", "cuda", "native"}),
    ("compiler", {"compiler"}),
    ("program", {"program"}),
    ("launch", {"launch"}),
    ("autograd", {"autograd"}),
    ("library", {"utils", "optim", "render", "geometry", "textures", "sparse", "fem", "interop", "jax_experimental", "_src"}),
    ("notebook", {"widgets", "magics"}),
]
LAYER_OF = {unit: k for k, (_, units) in enumerate(LAYERS) for unit in units}
#: The only imports of a higher layer, each lazy (inside a function) and with its reason.
UPWARD = {
    ("render", "widgets"): "OpenGLRenderer shows its frames in a notebook widget when it runs in a notebook",
    ("program", "_src"): "Kernel.adj (Warp's view of a definition) loads the compatibility package on first use",
}
#: Loose modules allowed at the top of warp_nb/.
LOOSE = {"__init__", "__main__", "config", "errors", "version"}
ROOT_PACKAGE = "<warp_nb>"  # an import of the root package itself (`import warp_nb`, `from warp_nb import wp_name`)


def _is_unit(name: str) -> bool:
    return (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").exists() or name in ("kernels", "magics", "native")


def _units_imported(path: Path) -> set:
    """The top-level parts of warp_nb (subpackages or modules) that a file imports, anywhere in it;
    ROOT_PACKAGE for an import of the package itself or of a name it defines."""
    rel = path.relative_to(ROOT).with_suffix("").parts
    package = rel[:-1]
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
        for parts in names:
            found.add(parts[1] if len(parts) > 1 and _is_unit(parts[1]) else ROOT_PACKAGE)
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
    """(The few lazy upward imports of UPWARD are left out: they run after everything is loaded.)"""
    graph = {unit: {d for d in deps if (unit, d) not in UPWARD} for unit, deps in _unit_graph().items()}
    assert {"compiler", "builtins", "toolchain", "runtime", "arrays", "cuda", "types", "program", "launch"} <= set(graph)
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


def test_every_unit_sits_in_a_layer_and_imports_only_below():
    graph = _unit_graph()
    unplaced = sorted(set(graph) - set(LAYER_OF))
    assert not unplaced, f"place these in a layer (LAYERS): {unplaced}"
    upward = [f"{unit} ({LAYERS[LAYER_OF[unit]][0]}) imports {dep} ({LAYERS[LAYER_OF[dep]][0]})"
              for unit, deps in graph.items() for dep in deps if dep in LAYER_OF
              and LAYER_OF[dep] > LAYER_OF[unit] and (unit, dep) not in UPWARD]
    assert not upward, upward


def test_only_the_library_and_above_import_the_root_package():
    """`import warp_nb as wp` is how library code (written as users write kernels) reads; below the
    library layer it would make a module depend on the whole package, itself included."""
    library = next(k for k, (name, _) in enumerate(LAYERS) if name == "library")
    below = sorted(unit for unit, deps in _unit_graph().items() if ROOT_PACKAGE in deps
                   and LAYER_OF.get(unit, len(LAYERS)) < library)
    assert not below, below


def test_only_a_few_modules_lie_loose_at_the_top():
    loose = {p.stem for p in PACKAGE.glob("*.py")}
    assert loose <= LOOSE, sorted(loose - LOOSE)


def test_warp_compatibility_shims_load_only_when_asked():
    """Warp's implementation names (warp_nb._src) load when Warp's code reaches for them, never on
    `import warp_nb`; no module finds them through sys.modules."""
    import subprocess
    import sys
    code = "import sys, warp_nb; print(sorted(m for m in sys.modules if m.startswith('warp_nb._src')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
    lookups = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py") if p.parent.name != "_src"
               and re.search(r"sys\.modules[^\n]*_src", p.read_text())]
    assert not lookups, lookups


def test_stages_depend_only_on_earlier_stages():
    graph = _unit_graph()
    assert not graph["types"] & {"builtins", "compiler", "runtime", "arrays", "cuda", "program"}
    assert not graph["compiler"] & {"runtime", "arrays", "cuda", "program", "launch"}, graph["compiler"]
    assert not graph["toolchain"] & {"compiler", "runtime", "cuda", "program"}, graph["toolchain"]
    assert not graph["runtime"] & {"cuda", "arrays", "program", "compiler"}, graph["runtime"]


def test_the_pipeline_is_two_halves_each_reading_top_to_bottom():
    """compile_kernel composes the two halves; each half calls its stages, in order, itself."""
    def calls_of(function) -> list:
        source = inspect.getsource(function)
        nodes = sorted((n for n in ast.walk(ast.parse(source.lstrip())) if isinstance(n, ast.Call)
                        and isinstance(n.func, (ast.Name, ast.Attribute))), key=lambda n: (n.lineno, n.col_offset))
        assert len(source.splitlines()) < 30, function.__name__
        return [n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id for n in nodes]

    def in_order(calls, stages):
        positions = [calls.index(s) for s in stages]
        assert positions == sorted(positions), calls

    in_order(calls_of(pipeline.front_half), ["parse_definition", "typecheck_kernel", "adjoint_unit", "emit_kernel",
                                             "cache_key"])
    in_order(calls_of(pipeline.back_half), ["fetch_or_build", "load"])
    in_order(calls_of(pipeline.compile_kernel), ["front_half", "back_half"])


def test_no_driver_spells_the_stages_out_again():
    """Only compiler/pipeline.py calls the stage functions; every other driver calls the halves."""
    stages = {"typecheck_kernel", "adjoint_unit", "emit_kernel"}  # (parsing alone reads a definition)
    offenders = []
    for path in list(PACKAGE.rglob("*.py")) + list((ROOT / "magics").glob("*.py")):
        if path.parent.name == "compiler" or path.parent.parent.name == "compiler":
            continue  # the stages themselves, and the pipeline
        tree = ast.parse(path.read_text())
        for n in ast.walk(tree):
            if isinstance(n, ast.Call):
                name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
                if name in stages:
                    offenders.append(f"{path.relative_to(ROOT)}:{n.lineno} {name}")
    assert not offenders, offenders


def test_no_file_is_too_long_to_read():
    long = []
    for pattern in ("warp_nb/**/*.py", "magics/*.py", "kernels/*.py", "native/**/*.h", "native/**/*.cpp",
                    "tests/**/*.py"):
        for path in ROOT.glob(pattern):
            n = len(path.read_text().splitlines())
            if n > 600:
                long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not long, long
