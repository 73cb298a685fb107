"""`warp_nb.fem.integrand`: the decorator keeps the function, its name, argument specification and
docstring, the module it belongs to and the kernel options; it is not callable from Python; bad
input names the argument; names of warp.fem not built yet raise an error that says so."""

import inspect

import pytest

import warp_nb as wp
from warp_nb import fem


@fem.integrand
def mass_like(s: fem.Sample, scale: float):
    """A sample's quadrature weight, scaled."""
    return s.qp_weight * scale


def test_integrand_keeps_the_declaration():
    assert isinstance(mass_like, fem.Integrand)
    assert mass_like.name == "mass_like" and mass_like.__name__ == "mass_like"
    assert mass_like.__doc__ == "A sample's quadrature weight, scaled."
    assert mass_like.func.__code__.co_name == "mass_like"
    # the argument specification is the function's own, annotations as written
    assert mass_like.argspec == inspect.getfullargspec(mass_like.func)
    assert mass_like.argspec.args == ["s", "scale"]
    assert mass_like.argspec.annotations["s"] is fem.Sample
    assert mass_like.module is wp.get_module(__name__)
    assert mass_like.kernel_options == {}
    # caches the integrate / interpolate drivers fill, empty until then
    assert mass_like.cached_kernels == {} and mass_like.cached_funcs == {} and mass_like.operators is None


def test_integrand_with_kernel_options():
    options = {"enable_backward": False}

    @fem.integrand(kernel_options=options)
    def value(s: fem.Sample):
        return float(s.qp_index)

    assert isinstance(value, fem.Integrand)
    assert value.kernel_options == options
    assert value.kernel_options is not options  # a copy: later edits of the caller's dict do not leak in
    assert value.name.endswith("value")


def test_integrand_is_not_callable_from_python():
    with pytest.raises(TypeError):
        mass_like(None, 1.0)


def test_bad_input_names_the_argument():
    with pytest.raises(TypeError, match="`func`"):
        fem.integrand(3)
    with pytest.raises(TypeError, match="`kernel_options`"):
        fem.integrand(lambda s: 1.0, kernel_options=[("enable_backward", False)])


def test_sample_is_a_struct_with_warps_fields():
    s = fem.Sample()
    s.qp_index = 3
    s.qp_weight = 0.5
    assert s.qp_index == 3 and s.qp_weight == 0.5
    assert set(fem.Sample.fields) == {"element_index", "element_coords", "qp_index", "qp_weight", "test_dof",
                                      "trial_dof"}


def test_missing_parts_say_so():
    with pytest.raises(AttributeError, match="warp.fem.no_such_part is not available in warp_nb yet"):
        fem.no_such_part  # noqa: B018
