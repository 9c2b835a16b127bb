"""The kind ``Scalar("numpy")`` (analysis/shapes.py): a NumPy scalar or 0-d result, never a
Python float, kept apart from ``Scalar("scalar")``, a mix the kinds cannot tell from a Python
float. A rule claiming "numpy" where a Python float flows would give a gradient or tangent
the wrong type (specializers drop float() for it): these tests hold the claims to what NumPy
returns, and the types of what specialized code returns to what the generic code returns.
"""

from __future__ import annotations

import inspect
import math
import warnings
import zlib

import gast
import numpy as np
import pytest

import srcad
from srcad import registry
from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.analysis.shapes import ANY_SCALAR, FLOAT, NUMPY_SCALAR, Array, Known, Scalar
from tests.gradcheck import PATHS, check_gradient, reverse_gradient
from tests.test_template_combos import _generic_forward


def test_numpy_scalars_have_their_own_kind():
    assert shapes.of_value(np.float64(0.5)) == NUMPY_SCALAR
    assert shapes.of_value(np.float32(0.5)) == NUMPY_SCALAR
    assert shapes.of_value(np.int64(2)) == NUMPY_SCALAR
    assert shapes.of_value(0.5) == FLOAT
    assert shapes.of_value(0.5 + 1j) == ANY_SCALAR  # a Python number that is no float
    assert shapes.of_value(np.array(0.5)) == Array(())
    assert shapes.plain(Known(np.float64(0.5))) == NUMPY_SCALAR  # a module's constant


def test_join_of_numpy_and_python_scalars_is_the_mix():
    assert shapes.join(NUMPY_SCALAR, NUMPY_SCALAR) == NUMPY_SCALAR
    assert shapes.join(NUMPY_SCALAR, FLOAT) == ANY_SCALAR
    assert shapes.join(FLOAT, NUMPY_SCALAR) == ANY_SCALAR
    assert shapes.join(NUMPY_SCALAR, Scalar("int")) == ANY_SCALAR
    assert shapes.join(NUMPY_SCALAR, Known(1.0)) == ANY_SCALAR
    assert shapes.join(NUMPY_SCALAR, ANY_SCALAR) == ANY_SCALAR
    assert shapes.join(NUMPY_SCALAR, Array(())) == shapes.UNKNOWN


def _kind_of(expression, **env):
    def resolve(node):
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name):
            module = {"np": np, "math": math}.get(node.value.id)
            if module is not None:
                return getattr(module, node.attr)
        if isinstance(node, gast.Name):
            return {"max": max, "min": min, "sum": sum, "abs": abs, "float": float}.get(
                node.id, shapes.UNRESOLVED)
        return shapes.UNRESOLVED
    return shapes.evaluate(gast.parse(expression).body[0].value, env, resolve)


@pytest.mark.parametrize("expression, env, expected", [
    # x * x is np.square to differentiate, but a Python float's product is a Python float
    ("x * x", {"x": FLOAT}, FLOAT),
    ("x * x", {"x": NUMPY_SCALAR}, NUMPY_SCALAR),
    ("x * x - 1.0", {"x": FLOAT}, FLOAT),
    ("x + y", {"x": NUMPY_SCALAR, "y": FLOAT}, NUMPY_SCALAR),
    ("y - x", {"x": NUMPY_SCALAR, "y": Scalar("int")}, NUMPY_SCALAR),
    ("-x", {"x": NUMPY_SCALAR}, NUMPY_SCALAR),
    ("x ** y", {"x": Scalar("int"), "y": Scalar("int")}, ANY_SCALAR),
    ("x < y", {"x": NUMPY_SCALAR, "y": FLOAT}, NUMPY_SCALAR),
    ("np.sin(x)", {"x": FLOAT}, NUMPY_SCALAR),
    ("math.sin(x)", {"x": NUMPY_SCALAR}, FLOAT),
    ("np.sum(x)", {"x": Array((False,))}, NUMPY_SCALAR),
    ("x[0]", {"x": Array((False,))}, NUMPY_SCALAR),
    ("float(x)", {"x": NUMPY_SCALAR}, FLOAT),
    # a float's own attributes and methods: no NumPy scalar
    ("np.real(x)", {"x": FLOAT}, FLOAT),
    ("np.imag(x)", {"x": NUMPY_SCALAR}, NUMPY_SCALAR),
    ("x.conjugate()", {"x": FLOAT}, FLOAT),
    ("x.real", {"x": FLOAT}, FLOAT),
    # max and min give one of their operands: of a NumPy and a Python scalar, either
    ("max(x, y)", {"x": NUMPY_SCALAR, "y": FLOAT}, ANY_SCALAR),
    ("min(x, y)", {"x": NUMPY_SCALAR, "y": NUMPY_SCALAR}, NUMPY_SCALAR),
    ("max(x, y)", {"x": Scalar("int"), "y": FLOAT}, ANY_SCALAR),
    # sum() of a vector is its start (0) when the vector is empty
    ("sum(x)", {"x": Array((False,))}, ANY_SCALAR),
    ("sum(x)", {"x": Array((True,))}, NUMPY_SCALAR),
    ("sum([x, y])", {"x": FLOAT, "y": NUMPY_SCALAR}, NUMPY_SCALAR),
    ("sum([x, y])", {"x": FLOAT, "y": FLOAT}, FLOAT),
    ("sum([x, y], z)", {"x": FLOAT, "y": Array((False,)), "z": Array((True,))}, Array((False,))),
    ("x if c else y", {"x": NUMPY_SCALAR, "y": FLOAT, "c": Scalar("bool")}, ANY_SCALAR),
    ("x if c else y", {"x": FLOAT, "y": FLOAT, "c": Scalar("bool")}, FLOAT),
    ("np.ones_like(x)", {"x": FLOAT}, Array(())),
])
def test_rules_claim_a_numpy_scalar_only_where_numpy_gives_one(expression, env, expected):
    assert _kind_of(expression, **env) == expected


def _calls_on_python_scalars(function):
    """Calls of ``function`` on Python floats (and ints where it wants one), as many
    arguments as it takes."""
    for count in (1, 2, 3):
        for arguments in ((0.25,) * count, (0.25,) * (count - 1) + (2,), (2,) + (0.25,) * (
                count - 1)):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    yield arguments, function(*arguments)
                return
            except (TypeError, ValueError):
                continue


def test_every_function_of_the_elementwise_rule_gives_numpy_scalars_for_python_ones():
    # shapes.elementwise says "numpy" of scalar operands: a function under it returning a
    # Python float (as np.real does: 0.5.real) would get its tangents' float() dropped
    checked = 0
    for primitive in registry.registered():
        if primitive.shape_rule is not shapes.elementwise:
            continue
        for arguments, value in _calls_on_python_scalars(primitive.obj):
            assert isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0, (
                registry.describe(primitive.obj), arguments, type(value))
            checked += 1
    assert checked > 80


# ---- end to end: the specialized code returns what the generic code returns


def square_of_a_float(x):
    return np.sin(x * x - 1.0)


def max_of_mixed(x, y):
    return max(x, y) * 2.0


def real_part(x):
    return np.real(x) * x.conjugate()


def norm_of_scalars(x, y):
    return np.linalg.norm(np.array([x, y])) + np.sum(x) * y


@pytest.mark.parametrize("function, args", [
    (square_of_a_float, (0.7,)),
    (square_of_a_float, (np.float64(0.7),)),
    (max_of_mixed, (np.float64(0.7), 0.2)),
    (max_of_mixed, (0.1, np.float64(0.7))),
    (real_part, (0.6,)),
    (real_part, (np.float64(0.6),)),
    (norm_of_scalars, (0.3, np.float64(0.8))),
    (norm_of_scalars, (np.float64(0.3), 0.8)),
])
def test_specialized_gradients_and_tangents_have_the_generic_types(function, args):
    positions = tuple(range(len(args)))
    for path in PATHS:
        check_gradient(function, list(args), wrt=positions, path=path)
    specialized = reverse_gradient(function, args, positions, "specialized")
    generic = reverse_gradient(function, args, positions, "generic")
    assert [type(g) for g in specialized] == [type(g) for g in generic]
    rng = np.random.default_rng(zlib.crc32(function.__name__.encode()))
    tangents = tuple(type(a)(rng.normal()) for a in args)
    names = tuple(inspect.signature(function).parameters)
    value, tangent = srcad.jvp(function, args, tangents)
    expected_value, expected_tangent = _generic_forward(function, names)(*args, *tangents)
    assert type(value) is type(expected_value)
    assert type(tangent) is type(expected_tangent), (type(tangent), type(expected_tangent))
    assert np.allclose(tangent, expected_tangent)


# ---- values of no axes: a 0-d array is a scalar to helpers that branch on np.ndim

def _claim_holds(claim, value) -> bool:
    """Whether a value of the kind a rule claims is what the helper returned: an Array claim
    wants an ndarray of its rank and size-1 axes, FLOAT a Python float, NUMPY_SCALAR no
    Python float, any other scalar claim no axes."""
    claim = shapes.plain(claim)
    if isinstance(claim, Array):
        return type(value) is np.ndarray and value.ndim == claim.ndim and all(
            one is None or one == (n == 1) for one, n in zip(claim.ones, value.shape))
    if claim == FLOAT:
        return type(value) is float
    if claim == NUMPY_SCALAR:
        return type(value) is not float and np.ndim(value) == 0
    if isinstance(claim, Scalar):
        return np.ndim(value) == 0
    return True


ZERO_D = np.array(0.75)
VECTOR = np.array([0.5, 1.5])


@pytest.mark.parametrize("helper, args", [
    # found by the fuzzer (hvp of a function with np.tensordot(x, x, axes=2) of a matrix):
    # the output's seed is 1.0, and the seed's adjoint through 0.61 * s a Python float
    (rt.unit_seed, (ZERO_D,)),
    (rt.unbroadcast, (0.5, ZERO_D)),
    (rt.unbroadcast, (np.float64(0.5), ZERO_D)),
    (rt.unbroadcast, (ZERO_D, ZERO_D)),
    (rt.unbroadcast, (VECTOR, ZERO_D)),
    (rt.unbroadcast, (VECTOR, 0.5)),
    (rt.unbroadcast, (0.5, VECTOR)),
    (rt.log_of_base, (ZERO_D,)),
    (rt.times_log_of_base, (0.5, ZERO_D)),
    (rt.times_log_of_base, (0.5, np.float64(0.5))),
    (rt.times_log_of_base, (VECTOR, 0.5)),
    (rt.match_tangent, (0.5, ZERO_D)),
    (rt.match_tangent, (ZERO_D, ZERO_D)),
    (rt.match_tangent, (0.5, VECTOR)),
    (rt.expand_reduced, (0.5, ZERO_D)),
    (rt.weighted, (0.5, 2.0)),  # values * weights, a Python operator
    (rt.weighted, (0.5, None)),
    (rt.weighted, (VECTOR, np.float64(2.0))),
    (np.dot, (ZERO_D, np.ones((2, 3)))),  # a 0-d operand: np.dot multiplies
    (np.dot, (VECTOR, ZERO_D)),
    (max, (ZERO_D, 1)),  # one of the two: a 0-d array or an int
    (min, (ZERO_D, 1)),
    (rt.expand_reduced, (0.5, VECTOR)),
], ids=lambda value: getattr(value, "__name__", None))
def test_rules_claim_what_functions_return_for_values_of_no_axes(helper, args):
    rule = registry.lookup(helper).shape_rule
    claim = rule(*[shapes.of_value(a) for a in args])
    value = helper(*args)
    assert _claim_holds(claim, value), (claim, type(value), np.shape(value))


def contracted_behind_an_early_return(x):  # (fuzz seed 4096835429, reduced)
    if x[0, 0] > 5.0:
        return x[0, 0]
    s = np.tensordot(x, x, axes=2)  # every axis summed: a 0-d array
    return 0.61 * s


def zero_d_times_log(x, a):
    return np.sum(x ** np.array(1.5)) * a ** np.tensordot(x, x, axes=1)


@pytest.mark.parametrize("function, args", [
    (contracted_behind_an_early_return, (np.array([[0.37, 1.12, -0.6], [0.64, 1.04, -0.54]]),)),
    (zero_d_times_log, (np.array([0.4, 0.9]), 1.3)),
])
def test_gradients_and_hvps_through_zero_d_arrays(function, args):
    for path in PATHS:
        check_gradient(function, list(args), wrt=0, path=path)
    eps = 1e-6
    v = np.linspace(0.5, 1.0, args[0].size).reshape(args[0].shape)
    gradient = srcad.grad(function)
    expected = (gradient(args[0] + eps * v, *args[1:]) - gradient(args[0] - eps * v, *args[1:])
                ) / (2 * eps)
    assert np.allclose(srcad.hvp(function)(*args, v), expected, rtol=1e-5, atol=1e-6)
