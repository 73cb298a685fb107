"""The three compile modes and what each turns on; read by emit (which C++ to write), the
toolchain (which flags) and the targets (whether a launch reads back a check state).

- "release": optimised, no checks (a kernel's or module's explicit mode="release", or
  wp.config.bounds_check = False);
- "checked": optimised, with bounds-checked array and component access (the default);
- "debug": -O0 -g, bounds checks and asserts."""


def has_checks(mode: str) -> bool:
    """Whether code compiled in `mode` checks array and component indices."""
    return mode in ("checked", "debug")
