"""Forward mode, vjp, Jacobians, Hessians and higher derivatives.

Forward mode is checked against reverse mode by the dot-product test
<J·t, c> = <t, Jᵀ·c> on the test corpus; Hessians against finite differences
of gradients; third derivatives against closed forms.
"""

import math
import zlib

import numpy as np
import pytest

import srcad
from srcad.analysis import shapes
from srcad.modes import _forward
from srcad.request import optimizations
from tests import call_functions as calls
from tests import control_flow_functions as flows
from tests import mode_functions as mf
from tests.test_calls import CASES as CALL_CASES
from tests.test_containers import CASES as CONTAINER_CASES
from tests.test_control_flow import CASES as FLOW_CASES

RNG = np.random.RandomState(21)


def _random_like(value):
    return RNG.randn() if np.ndim(value) == 0 else RNG.randn(*np.shape(value))


def _vdot(a, b):
    return float(np.sum(np.asarray(a, dtype=float) * np.asarray(b, dtype=float)))


SCALAR_CASES = [c for c in FLOW_CASES + CALL_CASES + CONTAINER_CASES
                if c[0] not in (calls.recursive_power, calls.recursive_sum,
                                calls.calls_recursive)]


@pytest.mark.parametrize("case", SCALAR_CASES,
                         ids=lambda c: c[0].__name__ + "-" + str(c[1][0])[:5])
def test_forward_agrees_with_reverse(case):
    """<J·t, 1> from jvp equals <t, ∇f> from grad, for the scalar-output corpus."""
    function, args, wrt = case
    tangents = [None] * len(args)
    for position in wrt:
        tangents[position] = _random_like(args[position])
    out, out_tangent = srcad.jvp(function, args, tangents)
    assert out == pytest.approx(function(*args))
    gradients = srcad.grad(function, wrt=wrt)(*args)
    expected = sum(_vdot(g, tangents[p]) for p, g in zip(wrt, gradients))
    assert out_tangent == pytest.approx(expected, rel=1e-8, abs=1e-10)


ARRAY_CASES = [
    (mf.affine_tanh, (RNG.randn(3, 4), RNG.randn(4), RNG.randn(3))),
    (mf.elementwise_mix, (RNG.randn(5), RNG.randn(5))),
]


@pytest.mark.parametrize("case", ARRAY_CASES, ids=lambda c: c[0].__name__)
def test_dot_product_test_for_array_outputs(case):
    """<J·t, c> (jvp) = <t, Jᵀ·c> (vjp) for functions with array outputs."""
    function, args = case
    tangents = tuple(_random_like(a) for a in args)
    out, out_tangent = srcad.jvp(function, args, tangents)
    cotangent = _random_like(out)
    out_again, vjp_fn = srcad.vjp(function, *args)
    np.testing.assert_allclose(out, out_again)
    cotangents = vjp_fn(cotangent)
    assert len(cotangents) == len(args)
    for c, a in zip(cotangents, args):
        assert np.shape(c) == np.shape(a)
    left = _vdot(out_tangent, cotangent)
    right = sum(_vdot(t, c) for t, c in zip(tangents, cotangents))
    assert left == pytest.approx(right, rel=1e-10)


@pytest.mark.parametrize("case", ARRAY_CASES, ids=lambda c: c[0].__name__)
def test_jacobian_forward_reverse_and_finite_differences(case):
    function, args = case
    reverse = srcad.jacobian(function, wrt=0, mode="reverse")(*args)
    forward = srcad.jacobian(function, wrt=0, mode="forward")(*args)
    np.testing.assert_allclose(forward, reverse, rtol=1e-10, atol=1e-12)
    out = function(*args)
    assert reverse.shape == np.shape(out) + np.shape(args[0])
    eps = 1e-6
    x = np.asarray(args[0], dtype=float)
    for index in np.ndindex(*x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        column = (function(plus, *args[1:]) - function(minus, *args[1:])) / (2 * eps)
        np.testing.assert_allclose(reverse[(Ellipsis,) + index], column, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("function", [mf.rosenbrock, mf.rosenbrock_vectorized, mf.quartic])
def test_hessian_against_finite_differences_of_gradients(function):
    x = RNG.randn(5)
    hessian = srcad.hessian(function)(x)
    gradient = srcad.grad(function)
    eps = 1e-6
    for j in range(5):
        e = np.zeros(5)
        e[j] = eps
        column = (gradient(x + e) - gradient(x - e)) / (2 * eps)
        np.testing.assert_allclose(hessian[:, j], column, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(hessian, hessian.T, rtol=1e-10, atol=1e-8)


def test_hvp_is_hessian_times_vector_without_forming_it():
    x, v = RNG.randn(6), RNG.randn(6)
    product = srcad.hvp(mf.rosenbrock)(x, v)
    np.testing.assert_allclose(product, srcad.hessian(mf.rosenbrock)(x) @ v, rtol=1e-10)


def test_hvp_through_branches_and_loops():
    h = srcad.hessian(mf.with_branch_and_loop)(0.7, 4)
    g = srcad.grad(mf.with_branch_and_loop)
    eps = 1e-6
    assert h == pytest.approx((g(0.7 + eps, 4) - g(0.7 - eps, 4)) / (2 * eps), rel=1e-5)


def _third_derivative(function, x):
    """d/dx of the Hessian: forward mode over reverse mode over forward mode."""
    directional = _forward(function, ["x"], optimizations(True), tangent_only=True)
    first = directional.for_values((x, 1.0)).function  # x, v -> f'(x) v
    second = srcad.grad(first, wrt=0)  # x, v -> f''(x) v (reverse over forward)
    _, third = srcad.jvp(_specialized(second, (x, 1.0)), (x, 1.0), (1.0, None))
    return third


def _specialized(derivative, args):
    """The generated function a derivative runs for these arguments."""
    derivative(*args)
    return derivative.specializations[tuple(shapes.of_value(a) for a in args)].function


@pytest.mark.parametrize("function, closed_form", [
    (mf.sine, lambda x: -math.cos(x)),
    (mf.exp_square, lambda x: (8 * x ** 3 + 12 * x) * math.exp(x * x)),
    (mf.cubic_log, lambda x: 6 * math.log(x) + 11),
])
def test_third_derivative_closed_forms(function, closed_form):
    x = 0.7
    assert _third_derivative(function, x) == pytest.approx(closed_form(x), rel=1e-9)


def test_reverse_over_reverse_for_straight_line_code():
    """vjp of the generated gradient of the MLP loss is a Hessian-vector product."""
    args = (RNG.randn(4, 5) * 0.3, RNG.randn(5) * 0.1, RNG.randn(5, 2) * 0.3,
            RNG.randn(2) * 0.1, RNG.randn(6, 4), RNG.randn(6, 2))
    gradient = srcad.grad(mf.mlp, wrt=0)
    generated = _specialized(gradient, args)
    v = RNG.randn(4, 5)
    _, vjp_fn = srcad.vjp(generated, *args)
    hv = vjp_fn(v)[0]
    eps = 1e-6
    plus = gradient(args[0] + eps * v, *args[1:])
    minus = gradient(args[0] - eps * v, *args[1:])
    np.testing.assert_allclose(hv, (plus - minus) / (2 * eps), rtol=1e-5, atol=1e-7)


def test_forward_source_reads_like_the_function():
    source = srcad.source(flows.recurrence, wrt=(0, 1), mode="forward",
                          example_args=(3.1, 0.3))
    assert "def jvp_recurrence(r, x0, r_dot, x0_dot):" in source
    assert "_tape" not in source and source.count("for i in range(50):") == 1


def test_jvp_validates_its_arguments():
    with pytest.raises(srcad.SrcadError, match="one tangent per primal"):
        srcad.jvp(mf.sine, (0.5,), (1.0, 2.0))
    with pytest.raises(srcad.SrcadError):
        srcad.jacobian(mf.sine, mode="sideways")


@pytest.mark.parametrize("function, args", [
    (calls.recursive_power, (1.3, 4)), (calls.recursive_sum, (0.4, 3)),
    (calls.calls_recursive, (0.8,))])
def test_forward_mode_through_recursion(function, args):
    tangents = (1.0,) + (None,) * (len(args) - 1)
    _, tangent = srcad.jvp(function, args, tangents)
    assert tangent == pytest.approx(srcad.grad(function)(*args), rel=1e-12)


def test_vjp_of_gradient_code_with_several_gradients():
    """Generated code returning several gradients (rt.owned_tuple) is differentiable too."""
    args = (0.7, 1.3)
    generated = srcad.grad(mf.elementwise_mix, wrt=(0, 1)).generated_for(*args).function
    _, vjp_fn = srcad.vjp(generated, *args)
    rows = vjp_fn((1.0, 0.0))
    expected = srcad.hessian(mf.elementwise_mix, wrt=0)(*args)
    assert rows[0] == pytest.approx(expected, rel=1e-10)


def _template_cases():
    from tests.test_templates import CASES

    return [c for c in CASES if not c.xfail]


@pytest.mark.parametrize("case", _template_cases(), ids=lambda c: c.id)
def test_dot_product_forward_against_reverse_for_every_template(case):
    """<J·t, c> by jvp equals <t, Jᵀ·c> by vjp, for each function of the template corpus."""
    import inspect

    function, args = case.f, tuple(case.args)
    params = list(inspect.signature(function).parameters)
    wrt = case.wrt if isinstance(case.wrt, tuple) else (case.wrt,)
    positions = [params.index(w) if isinstance(w, str) else w for w in wrt]
    rng = np.random.RandomState(zlib.crc32(case.id.encode()))  # never the salted hash()
    tangents = [None] * len(args)
    for p in positions:
        tangents[p] = rng.randn() if np.ndim(args[p]) == 0 else rng.randn(*np.shape(args[p]))
    out, out_tangent = srcad.jvp(function, args, tangents)
    cotangent = rng.randn() if np.ndim(out) == 0 else rng.randn(*np.shape(out))
    _, vjp_fn = srcad.vjp(function, *args)
    cotangents = vjp_fn(cotangent)
    left = _vdot(out_tangent, cotangent)
    right = sum(_vdot(tangents[p], cotangents[p]) for p in positions)
    assert left == pytest.approx(right, rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("function, second", [
    (mf.sine, lambda x: -math.sin(x)),
    (mf.cubic_log, lambda x: 6 * x * math.log(x) + 5 * x),
])
def test_forward_over_forward_second_derivative(function, second):
    directional = _forward(function, ["x"], optimizations(True), tangent_only=True)
    first = directional.for_values((0.7, 1.0)).function  # x, v -> f'(x) v
    _, curvature = srcad.jvp(first, (0.7, 1.0), (1.0, None))
    assert curvature == pytest.approx(second(0.7), rel=1e-10)


def test_forward_over_forward_through_a_loop():
    directional = _forward(mf.with_branch_and_loop, ["x"], optimizations(True),
                           tangent_only=True)
    first = directional.for_values((0.7, 4, 1.0)).function
    _, curvature = srcad.jvp(first, (0.7, 4, 1.0), (1.0, None, None))
    assert curvature == pytest.approx(srcad.hessian(mf.with_branch_and_loop)(0.7, 4), rel=1e-8)


REVERSE_TWICE = [
    (flows.recurrence, (2.5, 0.3), 1),
    (flows.while_on_value, (0.5,), 0),
    (flows.loop_with_branch, (0.3, 8), 0),
    (flows.loop_over_rows, (RNG.randn(4, 3),), 0),
    (mf.with_branch_and_loop, (0.7, 4), 0),
]


@pytest.mark.parametrize("case", REVERSE_TWICE, ids=lambda c: c[0].__name__)
def test_reverse_over_reverse_through_loops_and_the_tape(case):
    """vjp of generated gradient code (with its tape) is a Hessian-vector product."""
    function, args, position = case
    gradient = srcad.grad(function, wrt=position)  # with its in-place accumulations
    generated = gradient.generated_for(*args).function
    v = _random_like(args[position])
    _, vjp_fn = srcad.vjp(generated, *args)
    expected = srcad.hvp(function, wrt=position)(*args, v)
    np.testing.assert_allclose(vjp_fn(v)[position], expected, rtol=1e-9, atol=1e-12)
