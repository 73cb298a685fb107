"""Per-call cost of repeated small `fem.integrate` / `fem.interpolate` calls (issue 23: programs of
many small calls, such as Warp's example_kelvin_helmholtz, are bound by the Python work of each
call): the minimum over `repeats` calls of the same call on an 8 x 8 Grid2D with a discontinuous
vec4 Q1 space, for a linear form on cells, one on sides, an integral to a value and an
interpolation to a field.

    python benchmarks/bench_fem_calls.py [--module warp_nb|warp] [--repeats 300] [--threads 0]

Run it under each framework's interpreter (warp-lang: .bench/venv/bin/python --module warp); a
minimum of many repeats is what a busy machine measures best."""

import argparse
import importlib
import time


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", default="warp_nb")
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--threads", type=int, default=0, help="warp_nb's config.cpu_threads (0: every core)")
    args = parser.parse_args()
    wp = importlib.import_module(args.module)
    fem = importlib.import_module(args.module + ".fem")
    wp.config.quiet = True
    if hasattr(wp.config, "cpu_threads"):
        wp.config.cpu_threads = args.threads
    wp.init()

    @fem.integrand
    def cell_form(s: fem.Sample, u: fem.Field, v: fem.Field):
        return wp.dot(u(s), v(s))

    @fem.integrand
    def side_form(s: fem.Sample, domain: fem.Domain, u: fem.Field, v: fem.Field):
        n = fem.normal(domain, s)
        return wp.dot(fem.jump(u, s), fem.average(v, s)) * wp.dot(n, n)

    @fem.integrand
    def value_form(s: fem.Sample, u: fem.Field):
        return u(s)[0]

    @fem.integrand
    def doubled(s: fem.Sample, u: fem.Field):
        return u(s) * 2.0

    geo = fem.Grid2D(res=wp.vec2i(8))
    cells, sides = fem.Cells(geo), fem.Sides(geo)
    basis = fem.make_polynomial_basis_space(geo, degree=1, discontinuous=True)
    space = fem.make_collocated_function_space(basis, dtype=wp.vec4)
    u, dest = space.make_field(), space.make_field()
    u.dof_values.fill_(wp.vec4(1.0, 2.0, 3.0, 4.0))
    v, v_sides = fem.make_test(space, domain=cells), fem.make_test(space, domain=sides)
    cases = {
        "integrate, linear form on cells": lambda: fem.integrate(cell_form, fields={"u": u, "v": v},
                                                                 output_dtype=wp.vec4),
        "integrate, linear form on sides": lambda: fem.integrate(side_form, fields={"u": u.trace(), "v": v_sides},
                                                                 output_dtype=wp.vec4),
        "integrate to a value": lambda: fem.integrate(value_form, domain=cells, fields={"u": u}),
        "interpolate to a field": lambda: fem.interpolate(doubled, dest=dest, fields={"u": u}),
    }
    print(f"{args.module} {getattr(wp, '__version__', '')}: min of {args.repeats} calls")
    for name, call in cases.items():
        call(), call()  # builds the kernels
        best = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            call()
            best = min(best, time.perf_counter() - start)
        print(f"  {name:34s} {best * 1e6:9.1f} us")


if __name__ == "__main__":
    main()
