"""CI runs the README's test command as a newcomer does (issue 24 item 1): in a fresh venv, as
written, before anything optional is installed; the optional packages come after it, with only the
tests that need them. Read from the two files, so neither can drift from the other."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    return [line.strip() for line in block.splitlines() if line.strip()]


def _ci_lines() -> list[str]:
    return [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
            if line.strip() and not line.strip().startswith("#")]


def test_ci_runs_the_readme_test_command_in_a_fresh_venv_before_anything_optional():
    test_command = next(c for c in _readme_commands() if "pytest" in c)
    lines = _ci_lines()
    runs = [k for k, line in enumerate(lines) if test_command in line]
    assert runs, f"{test_command!r} is not in .ci/run"
    first = runs[0]
    venv = next(k for k, line in enumerate(lines) if re.search(r"python3? -m venv ", line))
    activate = next(k for k, line in enumerate(lines) if re.search(r"(source|\.) .*bin/activate", line))
    assert venv < activate < first
    assert "--system-site-packages" not in lines[venv]  # nothing the machine has installed leaks in
    installs = [k for k, line in enumerate(lines) if re.search(r"pip3? install|apt-get install", line)]
    before = [lines[k] for k in installs if k < first and "g++" not in lines[k]]
    assert not before, f"installed before the README's test command: {before}"
    # and after it, the optional packages and the tests that need them
    after = " ".join(lines[first + 1:])
    for needed in ("torch", "playwright", '".[lab]"', "tests/browser", "warp_conformance/run.py"):
        assert needed in after, needed
