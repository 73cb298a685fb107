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
    text = rep.compat_table(rep.compat_rows(rows, expectations), "2026-12-02")
    assert "| `test_a` | 8 | 10 | 80 | 1 | 1 | 0 | 0 |" in text
    assert "| `test_b` | 3 | 3 | 100 | 0 | 0 | 0 | 0 |" in text
    assert "test_none" not in text  # no baseline: not in the table
    assert "| **total** | **11** | **13** | **84.6** | 1 | 1 | 0 | 0 |" in text
    assert "under 75% of warp-lang's passes: none." in text


def test_out_of_scope_files_are_marked_and_left_out_of_the_per_file_target(tmp_path):
    listing = tmp_path / "out_of_scope.txt"
    listing.write_text("# comment\n\ntest_build  Warp's own linker flags\n")
    out_of_scope = rep.read_out_of_scope(listing)
    assert out_of_scope == {"test_build": "Warp's own linker flags"}
    listing.write_text("test_build\n")  # a file without its reason
    with pytest.raises(SystemExit, match="reason"):
        rep.read_out_of_scope(listing)
    rows = rep.compat_rows([("test_build", 1, 5, 5, 0, 1.0, ""), ("test_low", 2, 4, 4, 0, 1.0, ""),
                            ("test_ok", 3, 4, 4, 0, 1.0, "")], {"test_build::a": "out-of-scope: x"})
    assert rep.under_target(rows, out_of_scope) == [("test_low", 2, 4)]  # 3/4 reaches 75%
    assert rep.under_target(rows, {}) == [("test_build", 1, 5), ("test_low", 2, 4)]
    text = rep.compat_table(rows, "2026-12-05", out_of_scope)
    assert "| `test_build` (out of scope) | 1 | 5 | 20 | 0 | 0 | 1 | 0 |" in text
    assert "- `test_build`: Warp's own linker flags" in text
    assert "under 75% of warp-lang's passes: `test_low` 2/4." in text
    assert "| **total** | **6** | **13** |" in text  # still counted in the totals


def test_a_partial_run_replaces_its_rows_and_recomputes_the_total(tmp_path):
    page = tmp_path / "compat.md"
    page.write_text(f"intro\n{rep.TABLE_START}\nold\n{rep.TABLE_END}\noutro\n")
    full = rep.compat_rows([("test_a", 8, 10, 10, 0, 1.0, ""), ("test_b", 1, 3, 3, 0, 1.0, "")],
                           {"test_a::x": "todo: boom", "test_a::y": "internal: z", "test_b::y": "differs: w"})
    rep.write_compat_rows(page, full, "2026-12-01", {"test_a": "why"})
    assert rep.parse_compat_rows(page.read_text()) == full
    rerun = rep.compat_rows([("test_b", 3, 3, 3, 0, 1.0, "")], {})
    rep.write_compat_rows(page, rerun, "2026-12-05", {"test_a": "why"}, complete=False)
    text = page.read_text()
    assert "Run of 2026-12-01 (rows of some files rerun on 2026-12-05)" in text
    assert "| `test_a` (out of scope) | 8 | 10 | 80 | 1 | 1 | 0 | 0 |" in text  # kept
    assert "| `test_b` | 3 | 3 | 100 | 0 | 0 | 0 | 0 |" in text  # replaced
    assert "| **total** | **11** | **13** | **84.6** | 1 | 1 | 0 | 0 |" in text
    assert text.startswith("intro\n") and text.endswith("outro\n")


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
