"""The part of tests/fuzz/doc_examples_against_warp.py that needs no warp-lang: the example blocks it
reads from a doc string (in the four forms Warp's docs use), the script each side runs, and how a
pair of results is classed."""

import subprocess
import sys

from tests.fuzz import doc_examples_against_warp as tool

DOC = '''Do a thing.

    Example:
        >>> wp.bit_count(45)
        4
        >>> for i in range(2):
        ...     i
        0
        1

    .. testsetup::

        __name__ = "setup_module"

    .. testcode::
        :skipif: wp.get_cuda_device_count() == 0

        print(__name__)

    .. testoutput::

        setup_module

    .. code-block:: python

        import warp as wp
        x = 1

    .. code-block:: text

        not code

    Usage::

        y = 2
'''


def test_blocks_in_every_form():
    blocks = tool.blocks_of(DOC)
    assert [b["kind"] for b in blocks] == ["doctest", "testcode", "code-block", "literal"]
    doctest, testcode, code_block, literal = blocks
    assert doctest["expected"] == "4\n0\n1\n"
    assert testcode["code"] == '__name__ = "setup_module"\nprint(__name__)\n'
    assert testcode["expected"] == "setup_module\n" and "cuda" in testcode["skipif"]
    assert code_block["code"] == "import warp as wp\nx = 1\n" and code_block["expected"] is None
    assert literal["code"] == "y = 2\n"


def test_a_doctest_block_runs_as_an_interactive_session(tmp_path):
    code = tool.blocks_of(">>> 1 + 1\n2\n>>> [][0]\n>>> x = 3\n>>> x\n3\n")[0]["code"]
    path = tmp_path / "block.py"
    path.write_text(code)  # without the prelude: plain Python
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=True).stdout
    assert out == "2\nraised IndexError\n3\n"


def test_the_sides_differ_in_their_imports_alone():
    code = "import warp as wp\nimport warp\nfrom warp import vec3\nwarpage = 1\n"
    ours, theirs = tool.script(code, "warp_nb"), tool.script(code, "warp")
    assert theirs == tool.PRELUDE + code
    assert ours == (tool.PRELUDE + code).replace("import warp as wp", "import warp_nb as wp").replace(
        "import warp\n", "import warp_nb as warp\n").replace("from warp import", "from warp_nb import")


def test_classes_of_a_pair_of_results():
    block = {"name": "x", "code": "", "skipif": ""}

    def run(out="", raised=None, err=""):
        return {"out": out, "raised": raised, "err": err}

    assert tool.classify(block, run("1\n"), run("1  \n")) == "agree"
    assert tool.classify(block, run("1\n"), run("2\n")) == "differ"
    assert tool.classify(block, run(raised="NameError"), run(raised="NameError")) == "fragment"
    assert tool.classify(block, run(raised="TypeError"), run(raised="TypeError")) == "both fail"
    assert tool.classify(block, run(raised="TypeError"), run(raised="ValueError")) == "differ"
    cuda = run(raised="ValueError", err="ValueError: Invalid device identifier: cuda:0")
    assert tool.classify(block, cuda, run(raised="DeviceError")) == "cuda only"
    assert tool.classify(block, run("<a at 0x7f00aa11bb22>"), run("<a at 0x55aa00112233>")) == "agree"
    assert tool.classify({**block, "name": "ScopedCapture"}, run(raised="AttributeError"),
                         run(raised="NameError")) == "known"
