"""scipy.integrate: odeint and solve_ivp, differentiated in the initial state, the parameters
passed through ``args`` and (odeint) the output times. Registered only when SciPy imports.

The right-hand side is the user's own Python function (a def or a lambda, module-level, or
a closure made outside the differentiated function and passed in): srcad generates its
vector-Jacobian product and its Jacobian-vector product (srcad/recursion.py, the driver's
hook, cached per function) and hands them to SciPy's solver:

* reverse mode, the adjoint method: from the last output time back to the first, SciPy
  integrates the augmented system ``y' = f(y, t, p)``, ``a' = -(df/dy)ᵀ a``,
  ``p̄' = -(df/dp)ᵀ a`` (one generated vjp of f per evaluation), restarting y at each output
  time from the forward solution and adding that output's cotangent to ``a``. Time
  gradients (odeint): ``t̄ᵢ = ȳᵢ · f(yᵢ, tᵢ)`` for i ≥ 1, ``t̄₀ = -a(t₀) · f(y₀, t₀)``.
* forward mode, the sensitivity equations: SciPy integrates ``y' = f``, ``s' = (df/dy) s +
  (df/dp) ṗ`` (one generated jvp of f per evaluation) from ``s(t₀) = ẏ₀ - f(y₀, t₀) ṫ₀``,
  and ``ẏᵢ = s(tᵢ) + f(yᵢ, tᵢ) ṫᵢ``.

Accuracy: the backward (and sensitivity) solve uses the solver settings of the call itself
(``rtol``, ``atol``, odeint's ``hmax``/``mxstep``, solve_ivp's ``method`` and ``max_step``)
on the augmented system, whose error control then covers the adjoint (or tangent)
components too: the user controls the derivative's accuracy with the same ``rtol``/``atol``
they give the call, and the derivative's relative error is of the order of those
tolerances. Measured (Lotka-Volterra with odeint, a damped oscillator with solve_ivp's RK45,
against central differences of a primal solved at 1e-13): odeint at rtol = atol = 1e-10 /
1.5e-8 (its default) / 1e-6 / 1e-4 gives relative errors 2e-10 / 3e-7 / 9e-6 / 3e-4;
solve_ivp at rtol 1e-10 / 1e-8 / 1e-6 / 1e-3 (its default; atol = rtol / 1000) gives
1e-10 / 7e-9 / 8e-7 / 7e-4. Use tight tolerances when the gradient feeds an optimizer that
needs many digits.

Second order (hvp, hessian: forward mode over the gradient): the gradient's adjoint sweep
(odeint_adjoint, solve_ivp_adjoint) has a tangent, the forward sensitivity of the augmented
backward system, ``ż' = dF·(ż, ṗ)`` with F = (f, -(df/dy)ᵀ a, -(df/dp)ᵀ a), using the
generated jvp of f's generated vjp; its accuracy again follows rtol/atol (at 1e-10, hvp
agrees with central differences of the gradient to ~1e-7 relative).

Not differentiated (srcad refuses at the call when a derivative would flow there, or when
the call asks for it): solve_ivp's ``t_span`` and ``t_eval`` (fixed times), its
``dense_output`` and ``events``, odeint's ``full_output``; reverse over reverse (grad of
grad: MissingTemplateError for odeint_adjoint at the gradient's line) and third order.
With ``t_eval=None`` the output times are the steps the solver chose; srcad differentiates
the solution at those times, held fixed (the choice of steps is not differentiable).

The right-hand side may also be a functools.partial (its bound values held constant) or a
bound method; a method reading its object's attributes raises UnsupportedOperationError
when the gradient runs (srcad differentiates f in all of its parameters, self included):
pass those values through ``args``.
"""

import functools
import inspect
import types

import gast
import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.recursion import jvp_of, vjp_of
from srcad.registry import adjoint, constraint, d, shape_rule, tangent

try:
    from scipy import integrate
except ImportError:  # SciPy is optional: without it this module registers nothing
    integrate = None


# ---- parameters passed through args: flattened into the augmented state


def _is_zero(value):
    """A scalar zero: srcad's zero derivative of a value that has none (an inactive one)."""
    if isinstance(value, (tuple, list, dict)):
        return False
    return np.ndim(value) == 0 and value == 0


def _parameters(args):
    """``args`` as a tuple (None and () mean no parameters; one value means a 1-tuple)."""
    if args is None:
        return ()
    return tuple(args) if isinstance(args, (tuple, list)) else (args,)


def _flat(values, like):
    """One float vector of ``values`` (each broadcast to the shape of its ``like``)."""
    pieces = [np.ravel(np.broadcast_to(np.asarray(value, dtype=float), np.shape(part)))
              for value, part in zip(values, like)]
    return np.concatenate(pieces) if pieces else np.zeros(0)


def _unflat(vector, like):
    """The inverse of ``_flat``: one adjoint per parameter, of its shape (rt.Parts)."""
    parts, start = [], 0
    for part in like:
        size = int(np.size(part))
        piece = vector[start:start + size]
        parts.append(float(piece[0]) if np.ndim(part) == 0 else np.reshape(piece, np.shape(part)))
        start += size
    return rt.Parts(parts)


def _tangents(tangent, like):
    """The tangents of the parameters: zeros where none is given (a scalar zero)."""
    if tangent is None or _is_zero(tangent):
        return tuple(np.zeros(np.shape(part)) for part in like)
    return tuple(np.zeros(np.shape(part)) if t is None else t for t, part in zip(tangent, like))


def _zero_if_none(tangent, like):
    if tangent is None or _is_zero(tangent):
        return np.zeros(np.shape(like))
    return np.broadcast_to(np.asarray(tangent, dtype=float), np.shape(like))


class _RightSide:
    """The user's right-hand side and srcad's generated derivatives of it, called as
    ``(y, t)`` with the parameters ``args`` whatever its own order (odeint's tfirst,
    solve_ivp's ``fun(t, y, ...)``); a bound method or a functools.partial is its function
    with the object or the bound arguments first, keyword ones and defaults after ``args``
    (the generated derivatives take every parameter of the plain function)."""

    def __init__(self, function, time_first, parameters):
        leading, keywords = (), {}
        while True:  # partial(method, a): method's function, with (self, a) first
            if isinstance(function, types.MethodType):
                leading, function = (function.__self__,) + leading, function.__func__
            elif type(function) is functools.partial:
                leading = tuple(function.args) + leading
                keywords = {**function.keywords, **keywords}
                function = function.func
            else:
                break
        self.function, self.time_first, self.leading = function, time_first, leading
        self.parameters = tuple(parameters)
        later = list(inspect.signature(function).parameters.values())[
            len(leading) + 2 + len(parameters):]
        self.later = tuple(keywords[p.name] if p.name in keywords else p.default
                           for p in later if p.name in keywords
                           or p.default is not inspect.Parameter.empty)
        self.arguments = self.parameters + self.later
        self.skipped = len(leading)  # adjoints of the leading arguments come first

    def _in_order(self, y, t, rest):
        return (t, y) + tuple(rest) if self.time_first else (y, t) + tuple(rest)

    def _from_order(self, values):
        """(of y, of t, of each parameter) from a tuple in the plain function's order."""
        values = tuple(values)[self.skipped:]
        values = (values[1], values[0]) + values[2:] if self.time_first else values
        return values[:2 + len(self.parameters)]

    def _tangents(self, parameter_tangents):
        """Tangents of every argument: zeros for the leading ones and the later ones."""
        zeros = tuple(np.zeros(np.shape(a)) for a in self.leading)
        return zeros, tuple(parameter_tangents) + tuple(np.zeros(np.shape(a))
                                                        for a in self.later)

    def value(self, y, t):
        return np.ravel(self.function(*self.leading, *self._in_order(y, t, self.arguments)))

    def pulled_back(self, y, t, a):
        """(dfᵀa wrt y, wrt t, wrt each parameter)."""
        derivative = vjp_of(self.function)
        return self._from_order(derivative(*self.leading, *self._in_order(y, t, self.arguments),
                                           a))

    def value_and_tangent(self, y, t, y_dot, t_dot, parameter_tangents):
        """(f, (df/dy) ẏ + (df/dt) ṫ + (df/dp) ṗ), flat."""
        leading_zeros, argument_tangents = self._tangents(parameter_tangents)
        value, tangent = jvp_of(self.function)(
            *self.leading, *self._in_order(y, t, self.arguments), *leading_zeros,
            *self._in_order(y_dot, t_dot, argument_tangents))
        return np.ravel(value), np.ravel(np.broadcast_to(tangent, np.shape(y)))

    def pulled_back_and_tangent(self, y, t, a, y_dot, a_dot, parameter_tangents):
        """``pulled_back(y, t, a)`` and its tangent along ẏ, ȧ and ṗ (t held)."""
        leading_zeros, argument_tangents = self._tangents(parameter_tangents)
        pulled, tangent = jvp_of(vjp_of(self.function))(
            *self.leading, *self._in_order(y, t, self.arguments), a, *leading_zeros,
            *self._in_order(y_dot, 0.0, argument_tangents), a_dot)
        return self._from_order(pulled), self._from_order(tangent)


# ---- the adjoint method


def _adjoint_sweep(function, time_first, solve, times, states, cotangents, parameters):
    """Integrate the augmented adjoint system from ``times[-1]`` back to ``times[0]``.

    ``solve(rhs, z0, t_from, t_to)`` integrates ``z' = rhs(z, t)`` and returns z at t_to;
    ``states[i]`` is the forward solution at ``times[i]``, ``cotangents[i]`` its adjoint.
    Returns (adjoint of the initial state, adjoint of each time, flat parameter adjoint).
    """
    size, count = np.size(states[0]), len(parameters)
    right_side = _RightSide(function, time_first, parameters)

    def augmented(z, t):
        y, a = z[:size], z[size:2 * size]
        adjoints = right_side.pulled_back(y, t, a)
        return np.concatenate([right_side.value(y, t),
                               -np.ravel(np.broadcast_to(adjoints[0], np.shape(y))),
                               -_flat(adjoints[2:2 + count], parameters)])

    flat_size = int(sum(np.size(p) for p in parameters))
    state_adjoint = np.array(cotangents[-1], dtype=float)
    parameter_adjoint = np.zeros(flat_size)
    time_adjoints = np.zeros(len(times))
    for i in range(len(times) - 1, 0, -1):
        time_adjoints[i] = np.dot(cotangents[i], right_side.value(states[i], times[i]))
        z = solve(augmented, np.concatenate([states[i], state_adjoint, parameter_adjoint]),
                  times[i], times[i - 1])
        state_adjoint = z[size:2 * size] + cotangents[i - 1]
        parameter_adjoint = z[2 * size:]
    time_adjoints[0] = -np.dot(state_adjoint - cotangents[0],
                               right_side.value(states[0], times[0]))
    return state_adjoint, time_adjoints, parameter_adjoint


def _zero_cotangent(g, shape):
    if _is_zero(g):
        return np.zeros(shape)
    return np.broadcast_to(np.asarray(g, dtype=float), shape)


def _solved_by_odeint(rhs, z0, times, rtol, atol, hmax, mxstep):
    """odeint's solution of a derivative's augmented system; an error where odeint only
    warns (too much work, tolerances too tight): its numbers would be no derivative."""
    solution, report = integrate.odeint(rhs, z0, times, rtol=rtol, atol=atol, hmax=hmax,
                                        mxstep=mxstep, full_output=True)
    if report["message"] != "Integration successful.":
        raise rt.UnsupportedOperationError(
            "scipy.integrate.odeint failed in the solve of a derivative of odeint: %s"
            % report["message"],
            hint="Raise mxstep, or loosen rtol/atol, in the call to odeint.")
    return solution


def odeint_adjoint(g, ys, func, y0, t, args, rtol, atol, hmax, mxstep, tfirst):
    """(ȳ₀, t̄, p̄) of ``ys = odeint(func, y0, t, args)`` for the cotangent ``g`` of ys."""
    parameters = _parameters(args)
    cotangents = _zero_cotangent(g, np.shape(ys))
    times = np.asarray(t, dtype=float)

    def solve(rhs, z0, t_from, t_to):
        return _solved_by_odeint(rhs, z0, np.array([t_from, t_to]), rtol, atol, hmax,
                                 mxstep)[-1]

    state_adjoint, time_adjoints, parameter_adjoint = _adjoint_sweep(
        func, tfirst, solve, times, ys, cotangents, parameters)
    return (np.reshape(state_adjoint, np.shape(y0)), np.reshape(time_adjoints, np.shape(t)),
            _unflat(parameter_adjoint, parameters))


# ---- second order: the tangent of the adjoint sweep (forward over reverse: hvp, hessian)


def _adjoint_sweep_tangent(function, time_first, solve, times, states, cotangents, parameters,
                           time_tangents, state_tangents, cotangent_tangents,
                           parameter_tangents):
    """The tangent of ``_adjoint_sweep``'s results along the tangents of its inputs.

    Each backward interval integrates the augmented system F(z, t) = (f, -(df/dy)ᵀ a,
    -(df/dp)ᵀ a) together with its tangent ż' = dF·(ż, ṗ) (the generated jvp of f and the
    jvp of f's generated vjp); an interval's moving ends add -F ṫᵢ at its start and
    F ṫᵢ₋₁ at its end.
    """
    size, count = np.size(states[0]), len(parameters)
    flat_size = int(sum(np.size(p) for p in parameters))
    half = 2 * size + flat_size
    right_side = _RightSide(function, time_first, parameters)

    def slope(y, t, y_dot, t_dot):
        """(f, its tangent (df/dy) ẏ + (df/dt) ṫ + (df/dp) ṗ) as flat vectors."""
        return right_side.value_and_tangent(y, t, y_dot, t_dot, parameter_tangents)

    def augmented(z, t):
        y, a = z[:size], z[size:2 * size]
        y_dot, a_dot = z[half:half + size], z[half + size:half + 2 * size]
        value, value_tangent = slope(y, t, y_dot, 0.0)
        pulled, pulled_tangent = right_side.pulled_back_and_tangent(y, t, a, y_dot, a_dot,
                                                                     parameter_tangents)
        return np.concatenate([
            value, -np.ravel(np.broadcast_to(pulled[0], np.shape(y))),
            -_flat(pulled[2:2 + count], parameters),
            value_tangent, -np.ravel(np.broadcast_to(pulled_tangent[0], np.shape(y))),
            -_flat(pulled_tangent[2:2 + count], parameters)])

    state_adjoint = np.array(cotangents[-1], dtype=float)
    state_adjoint_dot = np.array(cotangent_tangents[-1], dtype=float)
    parameter_adjoint, parameter_adjoint_dot = np.zeros(flat_size), np.zeros(flat_size)
    time_adjoints_dot = np.zeros(len(times))
    for i in range(len(times) - 1, 0, -1):
        value, value_tangent = slope(states[i], times[i], state_tangents[i], time_tangents[i])
        time_adjoints_dot[i] = (np.dot(cotangent_tangents[i], value)
                                + np.dot(cotangents[i], value_tangent))
        z = np.concatenate([states[i], state_adjoint, parameter_adjoint, state_tangents[i],
                            state_adjoint_dot, parameter_adjoint_dot])
        z[half:] -= augmented(z, times[i])[:half] * time_tangents[i]
        z = solve(augmented, z, times[i], times[i - 1])
        z[half:] += augmented(z, times[i - 1])[:half] * time_tangents[i - 1]
        state_adjoint = z[size:2 * size] + cotangents[i - 1]
        state_adjoint_dot = z[half + size:half + 2 * size] + cotangent_tangents[i - 1]
        parameter_adjoint, parameter_adjoint_dot = z[2 * size:half], z[half + 2 * size:]
    value, value_tangent = slope(states[0], times[0], state_tangents[0], time_tangents[0])
    time_adjoints_dot[0] = -(np.dot(state_adjoint_dot - cotangent_tangents[0], value)
                             + np.dot(state_adjoint - cotangents[0], value_tangent))
    return state_adjoint_dot, time_adjoints_dot, parameter_adjoint_dot


def odeint_adjoint_tangent(g, ys, func, y0, t, args, g_dot, ys_dot, t_dot, args_dot, rtol,
                           atol, hmax, mxstep, tfirst):
    """The tangent of ``odeint_adjoint``'s (ȳ₀, t̄, p̄) along those of g, ys, t and args."""
    parameters = _parameters(args)
    times = np.asarray(t, dtype=float)

    def solve(rhs, z0, t_from, t_to):
        return _solved_by_odeint(rhs, z0, np.array([t_from, t_to]), rtol, atol, hmax,
                                 mxstep)[-1]

    state_dot, times_dot, parameters_dot = _adjoint_sweep_tangent(
        func, tfirst, solve, times, ys, _zero_cotangent(g, np.shape(ys)), parameters,
        np.ravel(_zero_if_none(t_dot, times)), _zero_cotangent(ys_dot, np.shape(ys)),
        _zero_cotangent(g_dot, np.shape(ys)), _tangents(args_dot, parameters))
    return (np.reshape(state_dot, np.shape(y0)), np.reshape(times_dot, np.shape(t)),
            _unflat(parameters_dot, parameters))


# ---- the sensitivity equations


def _sensitivity_right_side(function, time_first, parameters, parameter_tangents, size):
    """``z' = (f, (df/dy) s + (df/dp) ṗ)`` for ``z = (y, s)``, called as (z, t)."""
    right_side = _RightSide(function, time_first, parameters)

    def augmented(z, t):
        y, s = z[:size], z[size:]
        return np.concatenate(right_side.value_and_tangent(y, t, s, 0.0, parameter_tangents))

    return augmented


def odeint_tangent(ys, func, y0, t, args, y0_dot, t_dot, args_dot, rtol, atol, hmax, mxstep,
                   tfirst):
    """The tangent of ``ys = odeint(func, y0, t, args)`` (shape of ys)."""
    parameters = _parameters(args)
    parameter_tangents = _tangents(args_dot, parameters)
    size = np.size(y0)
    times = np.asarray(t, dtype=float)
    time_tangents = np.ravel(_zero_if_none(t_dot, times))
    right_side = _RightSide(func, tfirst, parameters)
    start = np.ravel(_zero_if_none(y0_dot, y0)) - time_tangents[0] * right_side.value(
        np.ravel(ys[0]), times[0])
    augmented = _sensitivity_right_side(func, tfirst, parameters, parameter_tangents, size)
    z = _solved_by_odeint(augmented, np.concatenate([np.ravel(ys[0]), start]), times, rtol,
                          atol, hmax, mxstep)
    sensitivities = z[:, size:]
    if np.any(time_tangents != 0.0):
        slopes = np.array([right_side.value(ys[i], times[i]) for i in range(len(times))])
        sensitivities = sensitivities + time_tangents[:, None] * slopes
    return np.reshape(sensitivities, np.shape(ys))


# ---- solve_ivp: the same on its result's .y, at the times .t it returned


def _solved_by_solve_ivp(rhs, z0, t_span, t_eval, method, rtol, atol, max_step):
    """solve_ivp's solution (a result) of a derivative's system ``z' = rhs(z, t)``; an error
    when the solver fails (its numbers would be no derivative)."""
    solution = integrate.solve_ivp(lambda time, z: rhs(z, time), t_span, z0, method=method,
                                   t_eval=t_eval, rtol=rtol, atol=atol, max_step=max_step)
    if not solution.success:
        raise rt.UnsupportedOperationError(
            "scipy.integrate.solve_ivp failed in the solve of a derivative of solve_ivp: %s"
            % solution.message,
            hint="Loosen rtol/atol, or pick a method suited to a stiff system "
                 "(method='Radau' or 'BDF').")
    return solution


def _ivp_solver(method, rtol, atol, max_step):
    def solve(rhs, z0, t_from, t_to):
        return _solved_by_solve_ivp(rhs, z0, (t_from, t_to), [t_to], method, rtol, atol,
                                    max_step).y[:, -1]
    return solve


def _y_entry(result):
    """The "y" entry of a derivative of a solve_ivp result (a zero scalar: none)."""
    return result.get("y", 0.0) if isinstance(result, dict) else 0.0


def _samples(sol, t_span, y0, y0_row, *columns):
    """sol's times, then rows (one per time) of each of ``columns`` (arrays shaped like
    sol.y): the start of t_span is put first when sol.t does not begin there, with
    ``y0_row`` for the first column and zeros for the others."""
    times = np.asarray(sol.t, dtype=float)
    rows = [np.transpose(_zero_cotangent(column, np.shape(sol.y))) for column in columns]
    start = float(t_span[0])
    if not len(times) or times[0] != start:  # the initial state, with no cotangent of its own
        times = np.concatenate([[start], times])
        firsts = [np.ravel(y0_row)] + [np.zeros(np.size(y0))] * (len(rows) - 1)
        rows = [np.concatenate([first[None, :], row]) for first, row in zip(firsts, rows)]
    return times, rows


def solve_ivp_adjoint(g, sol, fun, t_span, y0, method, args, rtol, atol, max_step):
    """(ȳ₀, p̄) of ``sol = solve_ivp(fun, t_span, y0, ..., args=args)`` for ``g``, the
    adjoint of sol (whose entry "y" is the adjoint of ``sol.y``)."""
    parameters = _parameters(args)
    times, (states, cotangents) = _samples(sol, t_span, y0, np.asarray(y0, dtype=float),
                                           sol.y, _y_entry(g))
    state_adjoint, _, parameter_adjoint = _adjoint_sweep(
        fun, True, _ivp_solver(method, rtol, atol, max_step), times, states, cotangents,
        parameters)
    return np.reshape(state_adjoint, np.shape(y0)), _unflat(parameter_adjoint, parameters)


def solve_ivp_adjoint_tangent(g, sol, fun, t_span, y0, method, args, g_dot, sol_dot, y0_dot,
                              args_dot, rtol, atol, max_step):
    """The tangent of ``solve_ivp_adjoint``'s (ȳ₀, p̄) along those of g, sol, y0, args."""
    parameters = _parameters(args)
    times, (states, cotangents, state_tangents, cotangent_tangents) = _samples(
        sol, t_span, y0, np.asarray(y0, dtype=float), sol.y, _y_entry(g), _y_entry(sol_dot),
        _y_entry(g_dot))
    if len(times) > len(sol.t):  # the start, prepended: its tangent is y0's
        state_tangents[0] = np.ravel(_zero_if_none(y0_dot, y0))
    state_dot, _, parameters_dot = _adjoint_sweep_tangent(
        fun, True, _ivp_solver(method, rtol, atol, max_step), times, states, cotangents,
        parameters, np.zeros(len(times)), state_tangents, cotangent_tangents,
        _tangents(args_dot, parameters))
    return np.reshape(state_dot, np.shape(y0)), _unflat(parameters_dot, parameters)


def solve_ivp_tangent(sol, fun, t_span, y0, method, args, y0_dot, args_dot, rtol, atol,
                      max_step):
    """The tangent of ``sol``: entries of zeros but "y", the tangent of ``sol.y``."""
    parameters = _parameters(args)
    size = np.size(y0)
    augmented = _sensitivity_right_side(fun, True, parameters,
                                        _tangents(args_dot, parameters), size)
    start = np.concatenate([np.ravel(np.asarray(y0, dtype=float)),
                            np.ravel(_zero_if_none(y0_dot, y0))])
    times = np.asarray(sol.t, dtype=float)
    solution = _solved_by_solve_ivp(augmented, start, t_span, times, method, rtol, atol,
                                    max_step)
    tangent = rt.zeros_like(sol)  # an Entries: a zero for each entry but "y"
    tangent["y"] = solution.y[size:]
    return tangent


# ---- what srcad refuses at the call


def _refused_unless_constant(name, wanted, why):
    def check(arguments, carries, resolve):
        value = arguments.get(name)
        if value is None or (isinstance(value, gast.Constant) and value.value in wanted):
            return None
        return why, "Leave %s out (srcad differentiates the result without it)." % name
    return check


def _fixed(*names, function):
    def check(arguments, carries, resolve):
        for name in names:
            if name in arguments and carries(arguments[name]):
                return ("srcad differentiates %s in y0 and args (and odeint in t), not in %s"
                        % (function, name),
                        "Hold %s constant (srcad.stop_gradient)." % name)
        return None
    return check


if integrate is not None:
    # in y0, args and t: the adjoint method (backward solve) and the sensitivity equations,
    # at the call's rtol/atol; to second order (hvp, hessian)
    @adjoint(integrate.odeint)
    def odeint(ys, func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0, ml=None,
               mu=None, rtol=None, atol=None, tcrit=None, h0=0.0, hmax=0.0, hmin=0.0, ixpr=0,
               mxstep=0, mxhnil=0, mxordn=12, mxords=5, printmessg=0, tfirst=False):
        adjoints = odeint_adjoint(d[ys], ys, func, y0, t, args, rtol, atol, hmax, mxstep,
                                  tfirst)
        d[y0] += adjoints[0]
        d[t] += adjoints[1]
        d[args] += adjoints[2]

    @tangent(integrate.odeint)
    def odeint(ys, func, y0, t, args=(), Dfun=None, col_deriv=0, full_output=0,  # noqa: F811
               ml=None, mu=None, rtol=None, atol=None, tcrit=None, h0=0.0, hmax=0.0,
               hmin=0.0, ixpr=0, mxstep=0, mxhnil=0, mxordn=12, mxords=5, printmessg=0,
               tfirst=False):
        d[ys] = odeint_tangent(ys, func, y0, t, args, d[y0], d[t], d[args], rtol, atol, hmax,
                               mxstep, tfirst)

    # sol.y in y0 and args, at the times sol.t (held fixed), with the call's method and
    # rtol/atol; not in t_span or t_eval, no dense_output or events; to second order (hvp,
    # hessian)
    @adjoint(integrate.solve_ivp)
    def solve_ivp(sol, fun, t_span, y0, method="RK45", t_eval=None, dense_output=False,
                  events=None, vectorized=False, args=None, rtol=1e-3, atol=1e-6,
                  max_step=np.inf, first_step=None):
        adjoints = solve_ivp_adjoint(d[sol], sol, fun, t_span, y0, method, args, rtol, atol,
                                     max_step)
        d[y0] += adjoints[0]
        d[args] += adjoints[1]

    @tangent(integrate.solve_ivp)
    def solve_ivp(sol, fun, t_span, y0, method="RK45", t_eval=None,  # noqa: F811
                  dense_output=False, events=None, vectorized=False, args=None, rtol=1e-3,
                  atol=1e-6, max_step=np.inf, first_step=None):
        d[sol] = solve_ivp_tangent(sol, fun, t_span, y0, method, args, d[y0], d[args], rtol,
                                   atol, max_step)

    # the adjoint sweeps have a tangent only (tests/test_templates.py reads this)
    FORWARD_ONLY = (odeint_adjoint, solve_ivp_adjoint)

    def _odeint_shape(func, y0, t, *rest, full_output=shapes.Known(0), **kwargs):
        """odeint: a row per time of t (a vector), a column per component of y0 (one for a
        number); with full_output, a pair (unknown)."""
        if len(rest) > 3:
            full_output = rest[3]
        y0, t = shapes.plain(y0), shapes.plain(t)
        if not (isinstance(full_output, shapes.Known) and full_output.value in (0, False)):
            return shapes.UNKNOWN
        if isinstance(y0, shapes.Scalar):
            y0 = shapes.Array((True,))
        if not (isinstance(y0, shapes.Array) and y0.ndim == 1):
            return shapes.UNKNOWN
        times = t.ones[0] if isinstance(t, shapes.Array) and t.ndim == 1 else None
        return shapes.Array((times,) + y0.ones)

    shape_rule(_odeint_shape, integrate.odeint)
    # the tangent of odeint's result: its shape
    shape_rule(shapes.same_as_first, odeint_tangent)

    # hvp, hessian: forward mode over odeint's adjoint sweep in the gradient (the forward
    # sensitivity of the augmented backward system); no adjoint: no grad of grad
    @tangent(odeint_adjoint)
    def odeint_adjoint_forward(adjoints, g, ys, func, y0, t, args, rtol, atol, hmax, mxstep,
                               tfirst):
        d[adjoints] = odeint_adjoint_tangent(g, ys, func, y0, t, args, d[g], d[ys], d[t],
                                             d[args], rtol, atol, hmax, mxstep, tfirst)

    # hvp, hessian: forward mode over solve_ivp's adjoint sweep in the gradient (as
    # odeint_adjoint's); no adjoint: no grad of grad
    @tangent(solve_ivp_adjoint)
    def solve_ivp_adjoint_forward(adjoints, g, sol, fun, t_span, y0, method, args, rtol, atol,
                                  max_step):
        d[adjoints] = solve_ivp_adjoint_tangent(g, sol, fun, t_span, y0, method, args, d[g],
                                                d[sol], d[y0], d[args], rtol, atol, max_step)

    constraint(_refused_unless_constant(
        "full_output", (0, False),
        "srcad differentiates scipy.integrate.odeint with full_output=0 only"),
        integrate.odeint)
    constraint(_fixed("t_span", "t_eval", function="scipy.integrate.solve_ivp"),
               integrate.solve_ivp)
    constraint(_refused_unless_constant(
        "dense_output", (False,),
        "srcad differentiates scipy.integrate.solve_ivp's .y at its times, not a dense "
        "output"), integrate.solve_ivp)
    constraint(_refused_unless_constant(
        "events", (None,),
        "srcad differentiates scipy.integrate.solve_ivp without events (event times are "
        "not differentiated)"), integrate.solve_ivp)
