"""The code examples in warp-lang's own documentation (the doc strings of its kernel builtins and of
its public Python names), each run as a script by warp-lang and by warp_nb, compared by what they
print and whether (and with which exception type) they raise.

CI has no warp-lang, so this is a tool, not a test: give it a Python that has warp-lang installed,
e.g. the conformance runner's baseline venv.

    python -m tests.fuzz.doc_examples_against_warp \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

In warp-lang's process, the examples are read from `warp._src.context.builtin_functions` (each
builtin's `.doc`) and from the `__doc__` of every public name of `warp` (and of `warp.utils`,
`warp.sparse`, `warp.fem`, `warp.autograd`, `warp.optim`, `warp.render`) and of their classes'
methods (reading documentation, not code): doctest blocks (`>>>`), `.. testcode::` (with the
`.. testsetup::` before it and the `.. testoutput::` after it), `.. code-block:: python` and
`Example::` literal blocks, deduplicated (a builtin exported to Python scope has one doc in both
places). Each block then runs, on the CPU, in a subprocess of its own with a timeout, after the
same prelude (`import numpy as np`, `import warp as wp`, `wp.config.log_level = wp.LOG_WARNING`,
which silences the banner and the module load lines) and with every `import warp` changed to
`import warp_nb` on warp_nb's side, nothing else; a doctest block runs its examples one by one as
an interactive session would, echoing values and printing the type of an
exception raised. A block is:

    agree      both print the same and end the same way (both fine, or both raise the same type);
    differ     a difference: warp_nb's bug or gap;
    known      a difference listed in KNOWN, with the reason (docs/compat.md says more);
    both fail  both raise the same exception type, which is not a fragment's;
    fragment   not runnable alone: both raise NameError (a name the text leaves to the reader) or
               ImportError (a package not installed here, e.g. pyglet);
    cuda only  warp-lang fails on the CPU with an error naming CUDA (a "cuda:0" it does not have),
               or fails and the block's `:skipif:` says CUDA.

Exit status 1 when a block differs (not counting known ones). `--names GLOB` runs a subset,
`--list` prints the blocks and stops, `--verbose` prints both outputs of each difference."""

from __future__ import annotations

import argparse
import concurrent.futures
import fnmatch
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.fuzz import two_sides

PRELUDE = "import numpy as np\nimport warp as wp\nwp.config.log_level = wp.LOG_WARNING\n"
#: a doctest block's script: its examples run one by one as `python -i` would, echoing values
DOCTEST_RUNNER = '''
for _source in _EXAMPLES:
    try:
        exec(compile(_source, "<doctest>", "single"), globals())
    except Exception as _e:  # noqa: BLE001
        print("raised", type(_e).__name__)
'''
#: block name -> why its difference is deliberate, or not warp_nb's (see docs/compat.md)
KNOWN: dict[str, str] = {
    "ScopedCapture": "a fragment (my_kernel undefined); warp-lang fails first, on its own runtime not yet "
                     "initialised (capture_begin reads runtime.get_device of None), warp_nb initialises on demand",
}
#: public submodules whose names' docs are read too (wp.utils.segmented_sort_pairs, wp.fem ...)
SUBMODULES = ("utils", "sparse", "fem", "autograd", "optim", "render")
FRAGMENT_ERRORS = ("NameError", "ModuleNotFoundError", "ImportError")
DIRECTIVE = re.compile(r"^(\s*)\.\. (testcode|testsetup|testoutput|code-block)::\s*(\S*)\s*$")
ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


# --- extraction, in warp-lang's process ---------------------------------------------------------

def generate(path: str) -> None:
    """In warp-lang's Python: every example block of its documentation, as a JSON list."""
    import warp as wp
    from warp._src import context  # its table of builtins: where each builtin's doc lives

    docs = [(name, f.doc) for name, f in sorted(context.builtin_functions.items()) if getattr(f, "doc", None)]
    import importlib
    submodules = [(f"{m}.", importlib.import_module(f"warp.{m}")) for m in SUBMODULES]
    for prefix, module in [("", wp)] + submodules:
        for name in sorted(dir(module)):
            obj = getattr(module, name)
            doc = getattr(obj, "__doc__", None)
            if name.startswith("_") or inspect.ismodule(obj) or not doc or doc == type(obj).__doc__ or not _warps(obj):
                continue  # a constant (or a TypeVar, or an alias of int) carries Python's doc, not warp's
            docs.append((prefix + name, doc))
            if inspect.isclass(obj):  # its methods and properties: wp.array.view, wp.Graph.set_param ...
                for attr, member in vars(obj).items():
                    member = getattr(member, "__func__", getattr(member, "fget", member))
                    doc = getattr(member, "__doc__", None)
                    if not attr.startswith("_") and callable(member) and doc and _warps(member):
                        docs.append((f"{prefix}{name}.{attr}", doc))
    blocks, seen = [], set()
    for name, doc in docs:
        found = [b for b in blocks_of(doc) if b["code"] not in seen]
        for k, block in enumerate(found):
            seen.add(block["code"])
            blocks.append({"name": name if len(found) == 1 else f"{name}#{k + 1}", **block})
    Path(path).write_text(json.dumps(blocks, indent=1))


def _warps(obj) -> bool:
    """Whether `obj` is defined by warp (its doc is warp's), not by Python (int's methods ...)."""
    return str(getattr(obj, "__module__", None) or "").startswith("warp")


def blocks_of(doc: str) -> list[dict]:
    """The example blocks of one doc string: {"kind", "code", "expected" (or None), "skipif"}."""
    lines = inspect.cleandoc(doc).splitlines()
    blocks, setup, i = [], "", 0
    while i < len(lines):
        line = lines[i]
        m = DIRECTIVE.match(line)
        if m:
            indent, directive, lang = len(m.group(1)), m.group(2), m.group(3)
            options, body, i = _directive_body(lines, i + 1, indent)
            if directive == "testsetup":
                setup += body
            elif directive == "testoutput":
                if blocks and blocks[-1]["expected"] is None:
                    blocks[-1]["expected"] = body
            elif directive == "testcode" or lang in ("", "python"):
                blocks.append({"kind": directive, "code": setup + body, "expected": None,
                               "skipif": options.get("skipif", "")})
                setup = ""
            continue
        if line.lstrip().startswith(">>>"):
            examples, expected, i = _doctest(lines, i)
            code = f"_EXAMPLES = {examples!r}\n{DOCTEST_RUNNER}"
            blocks.append({"kind": "doctest", "code": code, "expected": expected, "skipif": ""})
            continue
        if line.rstrip().endswith("::") and not line.lstrip().startswith(".."):
            _, body, i = _directive_body(lines, i + 1, _indent(line))
            if body.strip():
                blocks.append({"kind": "literal", "code": body, "expected": None, "skipif": ""})
            continue
        i += 1
    return blocks


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _directive_body(lines: list, i: int, indent: int) -> tuple[dict, str, int]:
    """The options and dedented body of a directive (or literal block) opened at `indent`."""
    options = {}
    while i < len(lines) and lines[i].strip().startswith(":") and _indent(lines[i]) > indent:
        key, _, value = lines[i].strip()[1:].partition(":")
        options[key] = value.strip()
        i += 1
    body = []
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
        body.append(lines[i])
        i += 1
    while body and not body[-1].strip():
        body.pop()
    text = inspect.cleandoc("\n".join(body)) if body else ""
    return options, text + "\n" if text else "", i


def _doctest(lines: list, i: int) -> tuple[list, str, int]:
    """The `>>>` examples from line i to the end of the group, and their expected output."""
    indent, examples, expected = _indent(lines[i]), [], []
    while i < len(lines) and lines[i].strip() and _indent(lines[i]) >= indent:
        text = lines[i].strip()
        if text.startswith(">>>"):
            examples.append(text[4:])
        elif text.startswith("...") and examples:
            examples[-1] += "\n" + lines[i][indent + 4:]
        else:
            expected.append(text)
        i += 1
    return [e + "\n" for e in examples], "\n".join(expected) + "\n", i


# --- running ------------------------------------------------------------------------------------

def script(code: str, module: str) -> str:
    """A block's script for one side: warp_nb's differs from warp-lang's in its imports alone."""
    text = PRELUDE + code
    if module == "warp_nb":
        text = re.sub(r"^(\s*)import warp as wp\b", r"\1import warp_nb as wp", text, flags=re.M)
        text = re.sub(r"^(\s*)import warp\s*$", r"\1import warp_nb as warp", text, flags=re.M)
        text = re.sub(r"^(\s*)from warp import\b", r"\1from warp_nb import", text, flags=re.M)
    return text


def run_block(python: str, module: str, block: dict, folder: Path, timeout: float) -> dict:
    """One block run as a script by `python`: its stdout and the type of exception it died of."""
    stem = re.sub(r"\W", "_", block["name"])
    path = folder / module / f"doc_{stem}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script(block["code"], module))
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONPATH=str(two_sides.ROOT))
    try:
        proc = subprocess.run([python, path.name], cwd=path.parent, env=env, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired as e:
        return {"out": _text(e.stdout), "raised": "timeout", "err": ""}
    raised = None
    if proc.returncode != 0:
        names = re.findall(r"^(?:[\w.]+\.)?(\w+(?:Error|Exception|Exit|Interrupt))\b", proc.stderr, re.M)
        raised = names[-1] if names else f"exit status {proc.returncode}"
    return {"out": proc.stdout, "raised": raised, "err": proc.stderr[-600:]}


def _text(data) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else (data or "")


def normalized(out: str) -> str:
    return "\n".join(ADDRESS.sub("0x?", line.rstrip()) for line in out.strip().splitlines())


def classify(block: dict, warp: dict, ours: dict) -> str:
    same = normalized(warp["out"]) == normalized(ours["out"]) and warp["raised"] == ours["raised"]
    if same and warp["raised"] in FRAGMENT_ERRORS:
        return "fragment"
    last_line = (warp["err"].strip().splitlines() or [""])[-1].lower()
    if warp["raised"] and ("cuda" in last_line or "cuda" in block["skipif"].lower()):
        return "cuda only"  # warp-lang's own error names CUDA (a device it lacks), or the doc skips it on the CPU
    if same:
        return "both fail" if warp["raised"] else "agree"
    return "known" if block["name"] in KNOWN else "differ"


def matches_doc(block: dict, side: dict) -> bool | None:
    """Whether a side printed the documented output (whitespace aside), where the doc shows one."""
    if not block["expected"] or side["raised"]:
        return None
    return " ".join(block["expected"].split()) == " ".join(side["out"].split())


CATEGORIES = ("agree", "differ", "known", "both fail", "fragment", "cuda only")


def main(argv=None) -> int:
    p = two_sides.parser(__doc__)
    p.add_argument("--generate", help=argparse.SUPPRESS)
    p.add_argument("--names", default="*", help="run the blocks whose names match this glob (comma-separated)")
    p.add_argument("--timeout", type=float, default=240.0, help="seconds per block and side")
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--list", action="store_true", help="print the blocks and stop")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    if args.generate:
        generate(args.generate)
        return 0
    with tempfile.TemporaryDirectory(prefix="wpnb-docex-") as tmp:
        cases = os.path.join(tmp, "blocks.json")
        subprocess.run([args.warp_python, "-m", "tests.fuzz.doc_examples_against_warp", "--generate", cases],
                       cwd=two_sides.ROOT, check=True, env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
        globs = args.names.split(",")
        blocks = [b for b in json.loads(Path(cases).read_text()) if any(fnmatch.fnmatch(b["name"], g) for g in globs)]
        if args.list:
            for b in blocks:
                print(f"{b['name']:40s} {b['kind']:10s} {len(b['code'].splitlines()):3d} lines")
            return 0

        def both(block):
            return [run_block(python, module, block, Path(tmp), args.timeout)
                    for module, python in (("warp", args.warp_python), ("warp_nb", sys.executable))]

        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(both, blocks))
    counts, named = dict.fromkeys(CATEGORIES, 0), {c: [] for c in CATEGORIES}
    doc_ok, doc_missed = {"warp": 0, "warp_nb": 0, "shown": 0}, {"warp-lang": [], "warp_nb": []}
    for block, (warp, ours) in zip(blocks, results):
        kind = classify(block, warp, ours)
        counts[kind] += 1
        named[kind].append(block["name"])
        if matches_doc(block, warp) is not None or block["expected"]:
            doc_ok["shown"] += 1
            doc_ok["warp"] += bool(matches_doc(block, warp))
            doc_ok["warp_nb"] += bool(matches_doc(block, ours))
            for side, r in (("warp-lang", warp), ("warp_nb", ours)):
                if not matches_doc(block, r):
                    doc_missed[side].append(block["name"])
        if kind in ("differ", "known") or args.verbose and kind != "agree":
            reason = f" ({KNOWN[block['name']]})" if kind == "known" else ""
            print(f"  {kind}: {block['name']} [{block['kind']}]: warp-lang {warp['raised'] or 'ok'}, "
                  f"warp_nb {ours['raised'] or 'ok'}{reason}")
            if args.verbose or kind == "differ":
                for side, r in (("warp-lang", warp), ("warp_nb", ours)):
                    shown = normalized(r["out"])[-600:] + ("\n" + r["err"].strip()[-400:] if r["raised"] else "")
                    print(f"    --- {side}:\n" + "\n".join("      " + s for s in shown.splitlines()))
    print(f"{len(blocks)} example blocks: " + ", ".join(f"{counts[c]} {c}" for c in CATEGORIES))
    for kind in ("both fail", "fragment", "cuda only"):
        if named[kind]:
            print(f"  {kind}: {', '.join(named[kind])}")
    print(f"the documented output, where shown ({doc_ok['shown']} blocks): warp-lang prints it in "
          f"{doc_ok['warp']}, warp_nb in {doc_ok['warp_nb']}")
    for side, names in doc_missed.items():
        if names:
            print(f"  not the documented output from {side}: {', '.join(names)}")
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
