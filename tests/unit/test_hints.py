"""Suggestions for names a kernel cannot use: edit distance finds short typos a similarity ratio
misses; only names in scope (or wp's builtins) are suggested; an ambiguous short name gets none."""

import pytest

from warp_nb.compiler.hints import builtin_names, did_you_mean, edit_distance


@pytest.mark.parametrize("a, b, d", [("", "", 0), ("tid", "tid", 0), ("tid", "tdi", 1), ("vel", "vell", 1),
                                     ("x", "y", 1), ("pos", "psn", 2), ("kitten", "sitting", 3), ("ab", "ba", 1)])
def test_edit_distance(a, b, d):
    assert edit_distance(a, b) == d == edit_distance(b, a)


@pytest.mark.parametrize("name, scope, expected", [
    ("vx", ["v", "out", "i"], "v"),  # one key too many
    ("ou", ["v", "out", "i"], "out"),
    ("tdi", ["tid", "i", "n"], "tid"),  # two keys swapped
    ("velcity", ["velocity", "pos"], "velocity"),
    ("valeu", ["value", "x"], "value"),
    ("j", ["i", "n", "out"], None),  # i and n are both one edit away: no guess
    ("k", ["i", "out"], "i"),  # the only one-letter name in scope
    ("zzz", ["x", "y"], None),
])
def test_suggestions_among_the_names_in_scope(name, scope, expected):
    text = did_you_mean(name, scope)
    assert text == (f" Did you mean `{expected}`?" if expected else ""), text


def test_builtins_are_suggested_with_their_prefix():
    assert did_you_mean("sinn", builtin_names(), "wp.") == " Did you mean `wp.sin`?"
    assert did_you_mean("lenght", builtin_names(), "wp.") == " Did you mean `wp.length`?"
    assert did_you_mean("tdi", builtin_names(), "wp.") == " Did you mean `wp.tid`?"
