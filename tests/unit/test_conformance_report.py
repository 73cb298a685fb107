"""The conformance runner's report: reasons classified by rules, and the per-file table written
into docs/compat.md between its markers."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "warp_conformance"))
import conformance_report as rep  # noqa: E402


def test_table_counts_passed_cases_and_reasons_per_file():
    rows = [("test_a", 8, 10, 10, 0, 1.0, ""), ("test_b", 3, 3, 3, 0, 1.0, ""), ("test_none", 0, None, 0, 0, 0, "")]
    expectations = {"test_a::x": "todo: boom", "test_a::y": "internal: warp._src"}
    text = rep.compat_table(rows, expectations, "2026-12-02")
    assert "| `test_a` | 8 | 10 | 80 | 1 | 1 | 0 | 0 |" in text
    assert "| `test_b` | 3 | 3 | 100 | 0 | 0 | 0 | 0 |" in text
    assert "test_none" not in text  # no baseline: not in the table
    assert "| **total** | **11** | **13** | **84.6** | 1 | 1 | 0 | 0 |" in text


def test_table_replaces_only_the_text_between_the_markers(tmp_path):
    page = tmp_path / "compat.md"
    page.write_text(f"intro\n{rep.TABLE_START}\nold table\n{rep.TABLE_END}\noutro\n")
    rep.write_compat_table(page, "new table")
    assert page.read_text() == f"intro\n{rep.TABLE_START}\nnew table\n{rep.TABLE_END}\noutro\n"
    page.write_text("no markers")
    with pytest.raises(SystemExit, match="markers"):
        rep.write_compat_table(page, "x")


def test_unknown_errors_are_todo_and_private_access_is_internal():
    assert rep.classify("AttributeError: boom").startswith("todo: ")
    assert rep.classify("AttributeError: module 'warp' has no attribute '_private'").startswith("internal: ")
