"""Launch-time errors in a real IPython shell (issue 24 item 3): a failed bounds check, wrong
arguments, a wrong dim or device are shown from the cell's own line, without warp_nb's frames; an
error warp_nb did not raise for the user's line is shown exactly as IPython shows it."""

import re

import pytest

pytestmark = pytest.mark.needs_cxx


def _shown(ip, capsys, cell: str) -> str:
    """What the shell printed for a cell that raised (colours removed)."""
    capsys.readouterr()
    result = ip.run_cell(cell, store_history=True)
    assert result.error_in_exec is not None
    return re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)


@pytest.fixture
def checked(ip, uniq, monkeypatch):
    import warp_nb as wp
    monkeypatch.setattr(wp.config, "bounds_check", True)
    name = f"shift_{uniq}"
    result = ip.run_cell(f"@wp.kernel\ndef {name}(a: wp.array2d(dtype=float)):\n    i, j = wp.tid()\n"
                         f"    a[i, j] = a[i, j + 3]\n", store_history=True)
    assert result.error_in_exec is None, result.error_in_exec
    return name


def test_a_failed_bounds_check_is_shown_from_the_cells_line_with_the_thread_and_a_caret(ip, capsys, checked):
    out = _shown(ip, capsys, f"a = wp.zeros((2, 4))\nwp.launch({checked}, dim=(1, 2), inputs=[a])")
    head, message = out.split("IndexError: ", 1)
    assert f"----> 2 wp.launch({checked}" in head
    assert "warp_nb" not in head and "launcher.py" not in head, out  # no frame of ours above the message
    assert "at wp.tid() = (0, 1) (" in message, message  # the first (and only) failing thread: j + 3 == 4
    assert message.rstrip().endswith("a[i, j] = a[i, j + 3]\n" + " " * 19 + "^^^^^"), message


@pytest.mark.parametrize("call", ["wp.launch({k}, dim=(1, 2), inputs=[a, 1])",  # too many arguments
                                  "wp.launch({k}, dim=(1, 2), inputs=['a'])",  # the wrong kind of argument
                                  "wp.launch({k}, dim=(2, -4), inputs=[a])",  # a dim that is not one
                                  "wp.launch({k}, dim=(1, 2), inputs=[a], device='tpu')"])  # no such device
def test_argument_dim_and_device_errors_are_shown_from_the_cells_line(ip, capsys, checked, call):
    out = _shown(ip, capsys, "a = wp.zeros((2, 4))\n" + call.format(k=checked))
    head = re.split(r"^\w+Error: ", out, flags=re.MULTILINE)[0]
    assert "----> 2 wp.launch(" in head and "warp_nb" not in head, out


def test_other_errors_keep_ipythons_traceback(ip, capsys, checked):
    # after warp_nb's handler is set: an error raised elsewhere shows all its frames as before
    _shown(ip, capsys, f"wp.launch({checked}, dim=(1, 2), inputs=[wp.zeros((2, 4)), 1])")
    out = _shown(ip, capsys, "def inner():\n    raise IndexError('mine')\ndef outer():\n    inner()\nouter()")
    assert "----> 5 outer()" in out and "----> 2     raise IndexError('mine')" in out, out
    out = _shown(ip, capsys, "wp.zeros(4).numpy()[7]")  # not a launch: IPython's own traceback
    assert "IndexError: index 7 is out of bounds" in out
