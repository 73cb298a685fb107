"""Fields: test and trial fields of a space, discrete fields (fields.py), and the device functions
their operators evaluate (evaluation.py)."""

from .analytic import ImplicitField, NonconformingField, UniformField  # noqa: F401
from .fields import (  # noqa: F401
    DiscreteField, FieldLike, FieldRestriction, GeometryField, TestField, TrialField, make_discrete_field, make_restriction, make_test,
    make_trial,
)
