"""The reference elements geometries return from `reference_cell()` / `reference_side()`: helper
fem-shape's `element.py` once present, a minimal stand-in until then."""

try:
    from .element import Element  # noqa: F401
except ImportError:
    from ._element_standin import Element  # noqa: F401
