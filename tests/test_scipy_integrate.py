"""scipy.integrate.odeint and solve_ivp (srcad/templates/scipy_integrate.py).

Gradients in the initial state, the parameters passed through ``args`` and odeint's times
against central differences of the whole function (primal solved at rtol = atol = 1e-10,
so the differences are accurate to ~1e-6), forward mode against reverse mode, and the
calls srcad refuses (second order, dense output, events, fixed times), each with a located
error rather than a number.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import srcad
from tests._fd import numeric_grad

integrate = pytest.importorskip("scipy.integrate")
odeint, solve_ivp = integrate.odeint, integrate.solve_ivp

TIGHT = 1e-10  # the primal's rtol and atol
RTOL = 2e-6  # the adjoint gradient against differences, at TIGHT (measured: below 1e-7)


def lotka_volterra(y, t, alpha, beta, gamma_delta):
    """Predators and prey; gamma_delta is an array parameter (gamma, delta)."""
    prey, predators = y[0], y[1]
    return np.array([alpha * prey - beta * prey * predators,
                     gamma_delta[1] * prey * predators - gamma_delta[0] * predators])


damped = lambda t, y, stiffness, friction: np.array(  # noqa: E731
    [y[1], -stiffness * y[0] - friction * y[1] + 0.3 * np.sin(2.0 * t)])


def populations(y0, alpha, gamma_delta, times):
    ys = odeint(lotka_volterra, y0, times, args=(alpha, 0.4, gamma_delta), rtol=TIGHT,
                atol=TIGHT)
    return np.sum(ys[-1] * ys[1]) + np.sum(np.log(ys))


def oscillator(y0, stiffness, friction):
    ys = odeint(damped, y0, np.linspace(0.0, 3.0, 7), args=(stiffness, friction), rtol=TIGHT,
                atol=TIGHT, tfirst=True)
    return np.sum(ys[:, 0] ** 2)


def make_oscillator(omega):
    def right_side(t, y, friction):
        return np.array([y[1], -omega * omega * y[0] - friction * y[1]])
    return right_side


OSCILLATOR = make_oscillator(1.5)  # a closure, module-level


def final_state(y0, friction, right_side):
    """The common pattern: the state at the end of t_span; a closure passed in."""
    solution = solve_ivp(right_side, (0.0, 2.0), y0, args=(friction,), rtol=TIGHT, atol=TIGHT)
    return np.sum(solution.y[:, -1] ** 2)


def sampled(y0, stiffness, friction):
    """solve_ivp at given times, its .t read as a value (no derivative)."""
    solution = solve_ivp(damped, (0.0, 2.5), y0, method="DOP853",
                         t_eval=np.array([0.5, 1.0, 2.5]), args=(stiffness, friction),
                         rtol=TIGHT, atol=TIGHT)
    return np.sum(solution.y[0] * solution.t) + np.sum(solution.y[1] ** 2)


Y0 = np.array([1.2, 0.8])
TIMES = np.array([0.0, 0.7, 1.5, 2.0])
GAMMA_DELTA = np.array([0.9, 0.3])
CASES = {
    "odeint, args with an array": (populations, (Y0, 1.1, GAMMA_DELTA, TIMES), (0, 1, 2, 3)),
    "odeint, lambda, tfirst": (oscillator, (np.array([1.0, -0.5]), 2.0, 0.3), (0, 1, 2)),
    "solve_ivp .y[:, -1], closure": (final_state,
                                     (np.array([1.0, -0.5]), 0.3, make_oscillator(1.5)),
                                     (0, 1)),
    "solve_ivp t_eval, .t": (sampled, (np.array([0.5, 0.2]), 2.0, 0.3), (0, 1, 2)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gradient_against_differences(name):
    function, args, wrt = CASES[name]
    gradients = srcad.grad(function, wrt=wrt)(*args)
    for position, gradient in zip(wrt, gradients):
        expected = numeric_grad(function, args, position, eps=1e-5)
        assert np.shape(gradient) == np.shape(args[position])
        assert type(gradient) is type(args[position]) or np.ndim(gradient) > 0
        np.testing.assert_allclose(gradient, expected, rtol=RTOL, atol=1e-7)


@pytest.mark.parametrize("name", list(CASES))
def test_forward_against_reverse(name):
    """The dot-product test: jvp along random tangents == <gradient, tangents>."""
    function, args, wrt = CASES[name]
    gradients = srcad.grad(function, wrt=wrt)(*args)
    rng = np.random.default_rng(12)
    tangents = [rng.normal(size=np.shape(arg)) if np.ndim(arg) else float(rng.normal())
                if position in wrt else None for position, arg in enumerate(args)]
    tangents = [t if position in wrt else (np.zeros(np.shape(args[position]))
                                           if np.ndim(args[position]) else 0.0)
                for position, t in enumerate(tangents)]
    if not isinstance(args[-1], (float, np.ndarray)):  # a function: no tangent
        tangents[-1] = None
    _, forward = srcad.jvp(function, args, tangents)
    reverse = sum(float(np.sum(g * tangents[p])) for p, g in zip(wrt, gradients))
    np.testing.assert_allclose(forward, reverse, rtol=RTOL)


@pytest.mark.parametrize("name", list(CASES))
def test_hvp_against_differences_of_the_gradient(name):
    """Second order: forward mode over the adjoint sweep, in each differentiated argument
    (the tangents of the trajectory, the cotangents, the parameters and the times meet)."""
    function, args, wrt = CASES[name]
    rng = np.random.default_rng(7)
    step = 1e-4
    for position in wrt:
        direction = rng.normal(size=np.shape(args[position]))
        direction = float(direction) if np.ndim(direction) == 0 else direction
        product = srcad.hvp(function, wrt=position)(*args, direction)
        gradient = srcad.grad(function, wrt=position)
        ahead, behind = list(args), list(args)
        ahead[position] = args[position] + step * direction
        behind[position] = args[position] - step * direction
        expected = (np.asarray(gradient(*ahead)) - np.asarray(gradient(*behind))) / (2 * step)
        np.testing.assert_allclose(product, expected, rtol=1e-5, atol=1e-7)


def test_hessian_is_symmetric():
    hessian = srcad.hessian(oscillator, wrt=0)(np.array([1.0, -0.5]), 2.0, 0.3)
    np.testing.assert_allclose(hessian, hessian.T, rtol=1e-7)


def relaxation(y, t, k, c=0.3):
    return -k * y + c * np.sin(y)


def relaxed(y0, k):
    return np.sum(odeint(relaxation, y0, TIMES, args=(k,), rtol=TIGHT, atol=TIGHT)[-1] ** 2)


def test_right_side_with_defaults_beyond_args():
    """f(y, t, k, c=0.3) with args=(k,): srcad's derivatives of f take c too (it was a
    TypeError from the generated vjp, missing its cotangent)."""
    args = (np.array([1.0, 0.5]), 2.0)
    gradients = srcad.grad(relaxed, wrt=(0, 1))(*args)
    for position, gradient in enumerate(gradients):
        np.testing.assert_allclose(gradient, numeric_grad(relaxed, args, position, eps=1e-5),
                                   rtol=RTOL, atol=1e-9)
    _, forward = srcad.jvp(relaxed, args, (np.array([1.0, -1.0]), 0.5))
    np.testing.assert_allclose(forward, gradients[0][0] - gradients[0][1] + 0.5 * gradients[1],
                               rtol=RTOL)
    product = srcad.hvp(relaxed, wrt=1)(*args, 1.0)
    gradient = srcad.grad(relaxed, wrt=1)
    expected = (gradient(args[0], 2.0 + 1e-4) - gradient(args[0], 2.0 - 1e-4)) / 2e-4
    np.testing.assert_allclose(product, expected, rtol=1e-5)


RELAXATION_WITH_C = functools.partial(relaxation, c=0.2)


class Relaxation:
    def __init__(self, c):
        self.c = c

    def right_side(self, y, t, k):
        return -k * y + self.c * np.sin(y)


RELAXATION_MODEL = Relaxation(0.2)


def relaxed_partial(y0, k):
    return np.sum(odeint(RELAXATION_WITH_C, y0, TIMES, args=(k,), rtol=TIGHT, atol=TIGHT)[-1])


def relaxed_method(y0, k):
    return np.sum(odeint(RELAXATION_MODEL.right_side, y0, TIMES, args=(k,))[-1])


def test_partial_and_bound_method_right_sides():
    """A partial: its function, its bound values held; a method reading its object's
    attributes: an error (srcad would differentiate in self), never a number."""
    args = (np.array([1.0, 0.5]), 2.0)
    gradients = srcad.grad(relaxed_partial, wrt=(0, 1))(*args)
    for position, gradient in enumerate(gradients):
        np.testing.assert_allclose(
            gradient, numeric_grad(relaxed_partial, args, position, eps=1e-5), rtol=RTOL)
    with pytest.raises(srcad.SrcadError, match="attribute .c"):
        srcad.grad(relaxed_method, wrt=1)(*args)


def test_vjp_of_the_whole_trajectory():
    """A vector output: the trajectory itself, for a random cotangent of every sample."""
    def trajectory(y0, alpha):
        return odeint(lotka_volterra, y0, TIMES, args=(alpha, 0.4, GAMMA_DELTA), rtol=TIGHT,
                      atol=TIGHT)

    cotangent = np.random.default_rng(3).normal(size=(len(TIMES), 2))
    _, vjp_function = srcad.vjp(trajectory, Y0, 1.1)
    y0_bar, alpha_bar = vjp_function(cotangent)
    for position, value in ((0, y0_bar), (1, alpha_bar)):
        expected = numeric_grad(lambda *a: np.sum(trajectory(*a) * cotangent), (Y0, 1.1),
                                position, eps=1e-5)
        np.testing.assert_allclose(value, expected, rtol=RTOL, atol=1e-7)


def test_default_tolerances_give_a_looser_gradient():
    """The derivative's accuracy follows the call's rtol/atol (the module's documentation):
    at solve_ivp's defaults (rtol=1e-3) it is still a gradient, to a few digits."""
    def loose(y0, friction):
        return np.sum(solve_ivp(OSCILLATOR, (0.0, 2.0), y0, args=(friction,)).y[:, -1])

    def tight(y0, friction):
        return np.sum(solve_ivp(OSCILLATOR, (0.0, 2.0), y0, args=(friction,), rtol=TIGHT,
                                atol=TIGHT).y[:, -1])

    args = (np.array([1.0, -0.5]), 0.3)
    exact = srcad.grad(tight, wrt=(0, 1))(*args)
    approximate = srcad.grad(loose, wrt=(0, 1))(*args)
    for a, b in zip(approximate, exact):
        np.testing.assert_allclose(a, b, rtol=1e-2)


def second_order(y0, stiffness, friction):
    return oscillator(y0, stiffness, friction)


def dense(y0):
    return np.sum(solve_ivp(damped, (0.0, 1.0), y0, args=(2.0, 0.3), dense_output=True).y)


def with_events(y0):
    return np.sum(solve_ivp(damped, (0.0, 1.0), y0, args=(2.0, 0.3), events=None).y)


def moving_end(y0, end):
    return np.sum(solve_ivp(damped, (0.0, end), y0, args=(2.0, 0.3)).y[:, -1])


def nested(y0, friction):
    return np.sum(odeint(lambda y, t: -friction * y, y0, TIMES)[-1])


def built_inside(y0, friction):
    return np.sum(solve_ivp(make_oscillator(1.5), (0.0, 2.0), y0, args=(friction,)).y[:, -1])


def test_refusals_are_located_errors():
    """Never a number where srcad has no derivative: an error at the call."""
    y0 = np.array([1.0, -0.5])
    with pytest.raises(srcad.SrcadError, match="odeint_adjoint"):  # reverse over reverse
        srcad.grad(srcad.grad(second_order), wrt=1)(y0, 2.0, 0.3)
    with pytest.raises(srcad.SrcadError, match="dense output") as caught:
        srcad.grad(dense)(y0)
    assert "test_scipy_integrate.py" in str(caught.value)
    srcad.grad(with_events)(y0)  # events=None is the default: accepted
    with pytest.raises(srcad.SrcadError, match="not in t_span"):
        srcad.grad(moving_end, wrt=1)(y0, 1.0)
    with pytest.raises(srcad.SrcadError, match="nested function"):
        srcad.grad(nested, wrt=1)(y0, 0.3)
    # a closure built in the differentiated function: refused at the call (it was an
    # internal error, a name nothing binds, before to_anf checked the call's atoms)
    with pytest.raises(srcad.SrcadError, match="nested function") as caught:
        srcad.grad(built_inside)(y0, 0.3)
    assert "make_oscillator(1.5)" in str(caught.value)
