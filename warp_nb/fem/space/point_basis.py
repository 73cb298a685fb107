"""`fem.PointBasisSpace`: a basis whose nodes are the points of a quadrature (PIC particles, an
explicit or regular rule), each node's basis function a radial kernel of the squared distance to
its point (by default a Dirac: 1 at the point itself, within a squared distance of 1e-6, 0 elsewhere).

In comes a quadrature over a geometry's cells and, optionally, the kernel `k(squared_dist,
point_index, *values)` and its gradient function `g` (the weight's gradient is g * grad(squared_dist)),
the extra kernel arguments' values, the space the distance is measured in ("reference" element
coordinates or "world" positions). Out come the topology (node n of element e is the n-th point of
e, numbered by the quadrature's point index; a slot past e's point count is NULL_NODE_INDEX) and the
"shape": device functions that, unlike a polynomial shape's, read the space argument and the
element, since each element has its own points (field/point_evaluation.py evaluates fields with
them). The space argument is {qp: the quadrature's Arg, values: the kernel's extra arguments}.

Knows nothing about fields, integrands or kernels' assembly loops."""

from __future__ import annotations

from typing import Any

import warp_nb as wp

from ... import types as T
from ...types.structs import struct
from ..codegen import define
from ..integrand import Integrand
from ..types import NULL_NODE_INDEX, Domain, Sample, make_free_sample, warp_type
from .basis_space import BasisSpace
from .topology import SpaceTopology

_DISTANCE_SPACES = ("reference", "world")


@wp.func
def _dirac_kernel(squared_dist: float, point_index: int):
    # 1 at the point itself, within a squared distance of 1e-6 (what warp-lang does, probed)
    return wp.where(squared_dist < 1.0e-6, 1.0, 0.0)


def _struct_of(name: str, fields: dict, doc: str):
    return struct(type(name, (), {"__annotations__": dict(fields), "__doc__": doc}))


_ARG_STRUCTS: dict = {}


def _point_arg_struct(qp_arg, values_struct):
    key = (qp_arg, values_struct)
    if key not in _ARG_STRUCTS:
        _ARG_STRUCTS[key] = _struct_of("PointBasisArg", {"qp": qp_arg, "values": values_struct},
                                       "The quadrature whose points are the nodes, and the kernel's extra values.")
    return _ARG_STRUCTS[key]


def _kernel_params(function, what: str) -> list:
    """[(name, type)] of a radial kernel's parameters, checking its first two are (float32, int32)."""
    if not isinstance(function, wp.Function):
        raise TypeError(f"fem.PointBasisSpace: `{what}` must be a @wp.func, got {type(function).__name__}")
    params = [(name, warp_type(t)) for name, t in function.overloads[0].input_types.items()]
    head = tuple(t for _, t in params[:2])
    if head != (T.float32, T.int32):
        got = ", ".join(T.type_name(t) if t is not None else "Any" for t in head)
        raise TypeError(f"Radial kernel '{function.__name__}' argument types must be (float32, int32), got ({got})")
    return params[2:]


def _kernel_call(function, extra: list, values_struct):
    """A device function (squared_dist, point_index, values) -> function(squared_dist, point_index, *values)."""
    args = "".join(f", values.{name}" for name, _ in extra)
    source = (f"def radial_kernel_call(squared_dist: float, point_index: int, values: _values_t):\n"
              f"    return _kernel(squared_dist, point_index{args})\n")
    python_function = define("radial_kernel_call", source, {"_kernel": function, "_values_t": values_struct},
                             what="fem.PointBasisSpace")
    return wp.func(python_function)


class PointTopology(SpaceTopology):
    """Nodes at the points of `quadrature`: node n of element e is its n-th point (the quadrature's
    point index), NULL_NODE_INDEX past the element's point count."""

    def __init__(self, quadrature, nodes_per_element: int, arg_struct, arg_value, shape):
        super().__init__(quadrature.domain.geometry, nodes_per_element)
        self.quadrature = quadrature
        self.TopologyArg = arg_struct
        self._arg_value = arg_value
        self.shape = shape  # what a restriction made from the topology alone evaluates with
        count, index = quadrature.point_count, quadrature.point_index

        @wp.func
        def point_node_index(cell_arg: Any, topo_arg: Any, element_index: int, node: int):
            if node < 0 or node >= count(cell_arg, topo_arg.qp, element_index, element_index):
                return NULL_NODE_INDEX
            return index(cell_arg, topo_arg.qp, element_index, element_index, node)

        @wp.func
        def point_node_count(cell_arg: Any, topo_arg: Any, element_index: int):
            return count(cell_arg, topo_arg.qp, element_index, element_index)

        self.element_node_index = point_node_index
        self.element_node_count = point_node_count

    @property
    def name(self) -> str:
        return f"PointTopology_{self.quadrature.name}_{self.geometry.name}"

    def node_count(self) -> int:
        return self.quadrature.total_point_count()

    def topo_arg_value(self, device):
        return self._arg_value(device)


class PointShape:
    """The basis functions of a point basis, as device functions of (element arguments, space
    argument, element or sample, node): `NODES_FROM_ARG` tells the drivers to pass those."""

    NODES_FROM_ARG = True
    ORDER = 0

    def __init__(self, quadrature, kernel, kernel_grad, distance_space: str, name: str):
        from ..geometry.element import Element
        self.name = name
        geo = quadrature.domain.geometry
        count, coords_of, weight_of, index_of = (quadrature.point_count, quadrature.point_coords,
                                                 quadrature.point_weight, quadrature.point_index)
        cell_dim = geo.cell_dimension
        grad_t = T.vector(length=geo.dimension, dtype=T.float32)
        barycentric = geo.reference_cell() == Element.TRIANGLE
        world = distance_space == "world"
        position, inv_grad = geo.cell_position, geo.cell_inverse_deformation_gradient

        @wp.func
        def node_coords(cell_arg: Any, basis_arg: Any, element_index: int, node: int):
            if node < 0 or node >= count(cell_arg, basis_arg.qp, element_index, element_index):
                return wp.vec3()
            return coords_of(cell_arg, basis_arg.qp, element_index, element_index, node)

        @wp.func
        def node_weight(cell_arg: Any, basis_arg: Any, element_index: int, node: int):
            if node < 0 or node >= count(cell_arg, basis_arg.qp, element_index, element_index):
                return 0.0
            return weight_of(cell_arg, basis_arg.qp, element_index, element_index, node)

        @wp.func
        def offset(cell_arg: Any, s: Any, c: wp.vec3):
            # from the node to the sample, in the distance space (world, or reference coordinates)
            if wp.static(world):
                return position(cell_arg, s) - position(cell_arg, make_free_sample(s.element_index, c))
            return s.element_coords - c

        # the node's point index, also with use_evaluation_point_index (warp-lang's kernels get the
        # same index either way)
        @wp.func
        def kernel_index(cell_arg: Any, basis_arg: Any, s: Any, node: int):
            return index_of(cell_arg, basis_arg.qp, s.element_index, s.element_index, node)

        @wp.func
        def value(cell_arg: Any, basis_arg: Any, s: Any, node: int):
            if node < 0 or node >= count(cell_arg, basis_arg.qp, s.element_index, s.element_index):
                return 0.0
            d = offset(cell_arg, s, coords_of(cell_arg, basis_arg.qp, s.element_index, s.element_index, node))
            return kernel(wp.dot(d, d), kernel_index(cell_arg, basis_arg, s, node), basis_arg.values)

        @wp.func
        def reference_to_world(cell_arg: Any, s: Any, d: wp.vec3):
            # d(squared_dist)/d(coords) is 2 d; the reference gradient is along the cell's own
            # parameters (barycentric triangles: the last two coordinates), then mapped to world
            if wp.static(barycentric):
                r = wp.vec2(2.0 * (d[1] - d[0]), 2.0 * (d[2] - d[0]))
            elif wp.static(cell_dim == 2):
                r = wp.vec2(2.0 * d[0], 2.0 * d[1])
            else:
                r = 2.0 * d
            return r * inv_grad(cell_arg, s)

        @wp.func
        def gradient(cell_arg: Any, basis_arg: Any, s: Any, node: int):
            g = grad_t()
            if wp.static(kernel_grad is None):  # no gradient function: the gradient is zero
                return g
            if node >= 0 and node < count(cell_arg, basis_arg.qp, s.element_index, s.element_index):
                c = coords_of(cell_arg, basis_arg.qp, s.element_index, s.element_index, node)
                d = offset(cell_arg, s, c)
                k = kernel_grad(wp.dot(d, d), kernel_index(cell_arg, basis_arg, s, node), basis_arg.values)
                if wp.static(world):
                    g = (2.0 * k) * d
                else:
                    g = k * reference_to_world(cell_arg, s, d)
            return g

        self._node_coords, self._node_weight, self._value, self._gradient = node_coords, node_weight, value, gradient

    def node_positions(self, quadrature, out=None, device=None):
        """World positions of the nodes: the quadrature's points, by point index."""
        from ..interpolate import interpolate
        vec = T.vector(length=quadrature.domain.geometry.dimension, dtype=T.float32)
        if out is None:
            out = wp.zeros(quadrature.total_point_count(), dtype=vec, device=device)
        interpolate(_world_position, dest=out, at=quadrature, device=out.device)
        return out

    # the FunctionSpace protocol (function_space.py), with the longer signatures of NODES_FROM_ARG
    def make_node_coords_in_element(self):
        return self._node_coords

    def make_node_quadrature_weight(self):
        return self._node_weight

    def make_element_inner_weight(self):
        return self._value

    def make_element_inner_weight_gradient(self):
        return self._gradient


class PointBasisSpace(BasisSpace):
    """Nodes at the points of `quadrature` (a quadrature over a geometry's cells), with radial
    kernel basis functions: `kernel_func(squared_dist: float, point_index: int, *values)` (a Dirac
    by default), its `kernel_grad_func` (none: zero gradients), `kernel_values` (the extra
    arguments by name), `distance_space` ("reference" or "world"), `max_nodes_per_element` (the
    quadrature's most points per element by default); `use_evaluation_point_index` is accepted and
    changes nothing here (the kernel gets the node's point index, as warp-lang's does either way)."""

    def __init__(self, quadrature, kernel_func=None, kernel_grad_func=None, kernel_values: dict | None = None,
                 distance_space: str = "reference", max_nodes_per_element: int = -1,
                 use_evaluation_point_index: bool = False):
        from ..domain import Cells
        from ..quadrature import Quadrature
        if not isinstance(quadrature, Quadrature):
            raise TypeError(f"fem.PointBasisSpace: `quadrature` must be a fem quadrature, got "
                            f"{type(quadrature).__name__}")
        if type(quadrature.domain) is not Cells:
            raise NotImplementedError(f"fem.PointBasisSpace: quadratures over {quadrature.domain.name} are not "
                                      "supported by warp_nb.fem yet (a quadrature over fem.Cells(geo) is)")
        if distance_space not in _DISTANCE_SPACES:
            raise ValueError(f"fem.PointBasisSpace: `distance_space` must be 'reference' or 'world', got "
                             f"{distance_space!r}")
        kernel_func = _dirac_kernel if kernel_func is None else kernel_func
        extra = _kernel_params(kernel_func, "kernel_func")
        if kernel_grad_func is not None and _kernel_params(kernel_grad_func, "kernel_grad_func") != extra:
            raise TypeError(f"fem.PointBasisSpace: `kernel_grad_func` ({kernel_grad_func.__name__}) must take the "
                            f"same extra arguments as `kernel_func` ({', '.join(n for n, _ in extra) or 'none'})")
        self.kernel_values = dict(kernel_values or {})
        missing = [n for n, _ in extra if n not in self.kernel_values]
        unknown = [n for n in self.kernel_values if n not in dict(extra)]
        if missing or unknown:
            raise ValueError(f"fem.PointBasisSpace: `kernel_values` must give the extra arguments of "
                             f"{kernel_func.__name__} ({', '.join(n for n, _ in extra) or 'none'}); "
                             f"missing {missing}, unknown {unknown}")
        values_fields = dict(extra) if extra else {"unused": T.int32}
        values_struct = _struct_of("PointKernelValues", values_fields, "The radial kernel's extra arguments.")
        self.ValueStruct = values_struct
        self.BasisArg = _point_arg_struct(quadrature.Arg, values_struct)
        kernel = _kernel_call(kernel_func, extra, values_struct)
        kernel_grad = None if kernel_grad_func is None else _kernel_call(kernel_grad_func, extra, values_struct)
        self.quadrature = quadrature
        self.distance_space = distance_space
        npe = quadrature.max_points_per_element() if max_nodes_per_element < 0 else int(max_nodes_per_element)

        def fn_name(f):
            return "none" if f is None else f"{f.module_name}.{f.__qualname__}".replace(".", "_")

        name = f"PointBasis_{fn_name(kernel_func)}_{fn_name(kernel_grad_func)}_{distance_space}"
        shape = PointShape(quadrature, kernel, kernel_grad, distance_space, name)
        self.use_evaluation_point_index = bool(use_evaluation_point_index)  # accepted; see docs/compat.md
        topology = PointTopology(quadrature, npe, self.BasisArg, self.basis_arg_value, shape)
        super().__init__(topology, shape)
        self._args: dict = {}

    def node_positions(self, out=None, device=None):
        """World positions of the nodes (the quadrature's points)."""
        return self.shape.node_positions(self.quadrature, out, device)

    def basis_arg_value(self, device):
        device = wp.get_device(device)
        arg = self.BasisArg()
        arg.qp = self.quadrature.arg_value(device)
        values = self.ValueStruct()
        for name, value in self.kernel_values.items():
            setattr(values, name, value)
        arg.values = values
        return arg

    @property
    def value(self):
        from .shape import ShapeFunction
        return ShapeFunction.Value.Scalar



@Integrand
def _world_position(s: Sample, domain: Domain):
    return domain(s)
