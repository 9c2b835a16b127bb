"""Every registered adjoint template, checked against finite differences and the dot-product test.

The corpus: small module-level functions, each using one primitive (or a few,
to exercise accumulation), with inputs inside the primitive's domain and away
from its kinks. Each case runs through both code paths of gradcheck.PATHS
(code specialized on the argument kinds, and the generic code):

* ``test_gradient``: srcad's gradient vs central finite differences, with the
  gradient's type (a Python float for a Python float argument) and shape
  (each operand's adjoint has that operand's shape, broadcasting undone).
  Array-valued functions are checked through ``sum(f(x) * c)``, c fixed.
* ``test_dot_product``: <J t, c> == <t, J^T c> for random t and c.

``test_corpus_covers_every_adjoint_template`` fails when a template is added
without a corpus case; ``test_every_template_body_parses`` when one is malformed.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
import zlib
from dataclasses import dataclass

import gast
import numpy as np
import pytest

from srcad import pipeline, registry
from srcad.analysis.operations import ATTRIBUTE, operation_of
from srcad.errors import TemplateError
from srcad.namespace import Aliases
from srcad.naming import Namer
from srcad.parse import parse_function
from srcad.registry import d
from srcad.resolve import Resolver
from tests.gradcheck import PATHS, check_gradient, contract, dot_product_test, reverse_gradient

TEMPLATE_MODULES = ("operators", "numpy_elementwise", "math_module", "numpy_reductions",
                    "numpy_linalg", "numpy_shape")

# ------------------------------------------------------------------- inputs

_rng = np.random.default_rng(20261130)


def uniform(low, high, shape=()):
    """Uniform in [low, high); a Python float for ``shape == ()``."""
    if shape == ():
        return float(_rng.uniform(low, high))
    return _rng.uniform(low, high, shape)


def anything(shape=()):
    return uniform(-2.0, 2.0, shape)


def positive(shape=()):
    return uniform(0.5, 2.0, shape)


def unit(shape=()):
    """Inside (-1, 1), away from the ends: arcsin, arccos, arctanh."""
    return uniform(-0.8, 0.8, shape)


def nonzero(shape=()):
    """Magnitude in [0.5, 2], either sign: away from the kink of abs and the pole of 1/x."""
    magnitude = uniform(0.5, 2.0, shape)
    sign = _rng.choice([-1.0, 1.0], size=shape) if shape != () else float(_rng.choice([-1, 1]))
    return magnitude * sign


def above_one(shape=()):
    return uniform(1.5, 3.0, shape)


def on_grid(offset):
    """Multiples of 0.1 plus ``offset``: two grids with different offsets never tie."""
    def sample(shape=()):
        value = _rng.integers(-15, 15, size=shape) * 0.1 + offset
        return float(value) if shape == () else value
    return sample


def resample(sample_pair, accept, tries=200):
    """Draw (x, y) with ``sample_pair`` until ``accept(x, y)``."""
    def sample(shape_x, shape_y):
        for _ in range(tries):
            x, y = sample_pair(shape_x, shape_y)
            if accept(np.asarray(x), np.asarray(y)):
                return x, y
        raise RuntimeError("could not draw acceptable inputs")
    return sample


def independent(sample_x, sample_y):
    return lambda shape_x, shape_y: (sample_x(shape_x), sample_y(shape_y))


def mod_inputs(shape_x, shape_y):
    """x % y away from its jumps: x / y at least 0.05 from every integer."""
    if np.broadcast_shapes(shape_x, shape_y) == shape_x:  # build x from y
        y = nonzero(shape_y)
        quotient = _rng.integers(-2, 2, size=shape_x) + uniform(0.1, 0.9, shape_x)
        x = y * quotient
        return (float(x) if shape_x == () else x), y

    def accept(x, y):
        q = x / y
        return np.min(np.abs(q - np.round(q))) > 0.05
    return resample(independent(lambda s: uniform(-3.0, 3.0, s), nonzero),
                    accept, tries=1000)(shape_x, shape_y)


def away_from_origin(shape_x, shape_y):
    return resample(independent(anything, anything),
                    lambda x, y: np.min(x * x + y * y) > 0.25)(shape_x, shape_y)


# -------------------------------------------------------------------- cases


@dataclass
class Case:
    id: str
    f: object
    args: tuple
    wrt: object = 0
    xfail: str | None = None  # a known bug outside the templates: the reason

    def __repr__(self):
        return self.id


CASES: list[Case] = []


def case(f, *args, wrt=0, id=None, xfail=None):  # noqa: A002
    name = id or f.__name__
    assert all(c.id != name for c in CASES), "duplicate case id %s" % name
    CASES.append(Case(name, f, args, wrt, xfail))


def shape_text(shape):
    return "float" if shape == () else "x".join(map(str, shape)) if shape else "0d"


# ----------------------------------------------------- operators.py: binary

def add(x, y):
    return x + y


def sub(x, y):
    return x - y


def mul(x, y):
    return x * y


def truediv(x, y):
    return x / y


def power(x, y):
    return x ** y


def mod(x, y):
    return x % y


def np_add(x, y):
    return np.add(x, y)


def np_subtract(x, y):
    return np.subtract(x, y)


def np_multiply(x, y):
    return np.multiply(x, y)


def np_divide(x, y):
    return np.divide(x, y)


def np_true_divide(x, y):
    return np.true_divide(x, y)


def np_power(x, y):
    return np.power(x, y)


def np_mod(x, y):
    return np.mod(x, y)


def np_remainder(x, y):
    return np.remainder(x, y)


# numpy_elementwise.py: binary
def np_arctan2(y, x):
    return np.arctan2(y, x)


def np_hypot(x, y):
    return np.hypot(x, y)


def np_maximum(x, y):
    return np.maximum(x, y)


def np_minimum(x, y):
    return np.minimum(x, y)


# Shapes of the two operands; () is a Python float. Each operand's adjoint must
# come back with its own shape.
BROADCASTS = [((), ()), ((3, 4), ()), ((), (3, 4)), ((3, 4), (3, 4)), ((3, 4), (4,)),
              ((4,), (3, 4)), ((3, 1), (1, 4)), ((3, 4), (3, 1)), ((2, 3, 4), (3, 1))]
SOME_BROADCASTS = [((), ()), ((3, 4), (4,)), ((3, 1), (1, 4))]

BINARY = [
    (add, independent(anything, anything), BROADCASTS),
    (sub, independent(anything, anything), BROADCASTS),
    (mul, independent(anything, anything), BROADCASTS),
    (truediv, independent(anything, nonzero), BROADCASTS),
    (power, independent(positive, lambda s=(): uniform(-1.5, 2.5, s)), BROADCASTS),
    (mod, mod_inputs, BROADCASTS),
    (np_add, independent(anything, anything), SOME_BROADCASTS),
    (np_subtract, independent(anything, anything), SOME_BROADCASTS),
    (np_multiply, independent(anything, anything), SOME_BROADCASTS),
    (np_divide, independent(anything, nonzero), SOME_BROADCASTS),
    (np_true_divide, independent(anything, nonzero), SOME_BROADCASTS[1:]),
    (np_power, independent(positive, lambda s=(): uniform(-1.5, 2.5, s)), SOME_BROADCASTS),
    (np_mod, mod_inputs, SOME_BROADCASTS),
    (np_remainder, mod_inputs, SOME_BROADCASTS[1:]),
    (np_arctan2, away_from_origin, BROADCASTS),
    (np_hypot, away_from_origin, BROADCASTS),
    (np_maximum, independent(on_grid(0.05), on_grid(0.0)), BROADCASTS),
    (np_minimum, independent(on_grid(0.05), on_grid(0.0)), BROADCASTS),
]

for _f, _sample, _shapes in BINARY:
    for _sx, _sy in _shapes:
        case(_f, *_sample(_sx, _sy), wrt=(0, 1),
             id="%s[%s,%s]" % (_f.__name__, shape_text(_sx), shape_text(_sy)))

# one operand only, by position and by name
case(mul, anything((3, 4)), anything((4,)), wrt=1, id="mul[wrt=1]")
case(power, positive((3,)), 2.5, wrt="y", id="power[wrt=y]")
case(truediv, anything((3, 4)), nonzero((3, 1)), wrt="x", id="truediv[wrt=x]")
# NumPy scalars and 0-d arrays as operands
case(mul, np.float64(1.5), anything((3,)), wrt=(0, 1), id="mul[float64,3]")
case(add, np.array(0.7), anything((2, 3)), wrt=(0, 1), id="add[0d,2x3]")
case(truediv, np.array(1.3), np.array(-0.6), wrt=(0, 1), id="truediv[0d,0d]")
# a Python int argument: its gradient is a Python float too
case(mul, 3, 2.5, wrt=(0, 1), id="mul[int,float]")


def square_by_power(x):
    return x ** 2


def cube_by_power(x):
    return x ** 3


def sqrt_by_power(x):
    return x ** 0.5


def power_of_constant(x):
    return 2.0 ** x


def power_by_int_argument(x, n):
    return x ** n


def power_of_itself(x):
    return x ** x


case(square_by_power, anything(), id="square_by_power[float]")
case(square_by_power, anything((3, 4)), id="square_by_power[3x4]")
case(cube_by_power, anything((5,)), id="cube_by_power[negative base]")
case(sqrt_by_power, positive((2, 3)))
case(power_of_constant, anything(), id="power_of_constant[float]")
case(power_of_constant, anything((3,)), id="power_of_constant[3]")
case(power_by_int_argument, anything((4,)), 3)
case(power_of_itself, positive(), id="power_of_itself[float]")
case(power_of_itself, positive((3,)), id="power_of_itself[3]")


def constant_minus(x):
    return 2.0 - x


def constant_over(x):
    return 1.0 / x


def constant_mod(x):
    return 3.5 % x


def over_int_constant(x):
    return x / 2


case(constant_minus, anything(), id="constant_minus[float]")
case(constant_minus, anything((3,)), id="constant_minus[3]")
case(constant_over, nonzero(), id="constant_over[float]")
case(constant_over, nonzero((3,)), id="constant_over[3]")
case(constant_mod, uniform(1.2, 1.6), id="constant_mod[float]")
case(constant_mod, uniform(1.2, 1.6, (3,)), id="constant_mod[3]")
case(over_int_constant, anything((3,)))


# ------------------------------------------------------ operators.py: unary

def neg(x):
    return -x


def pos(x):
    return +x


def np_negative(x):
    return np.negative(x)


def np_positive(x):
    return np.positive(x)


def copy_by_assignment(x):
    y = x
    return y * 3.0


for _f in (neg, pos, np_negative, np_positive, copy_by_assignment):
    case(_f, anything(), id="%s[float]" % _f.__name__)
    case(_f, anything((3, 4)), id="%s[3x4]" % _f.__name__)


# ------------------------------------------------ operators.py: matmul (@)

def matmul(x, y):
    return x @ y


def np_matmul(x, y):
    return np.matmul(x, y)


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                 ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((2, 1, 2, 3), (4, 3, 2))]

for _sx, _sy in MATMUL_SHAPES:
    case(matmul, anything(_sx), anything(_sy), wrt=(0, 1),
         id="matmul[%s,%s]" % (shape_text(_sx), shape_text(_sy)))
for _sx, _sy in MATMUL_SHAPES[1:5]:
    case(np_matmul, anything(_sx), anything(_sy), wrt=(0, 1),
         id="np_matmul[%s,%s]" % (shape_text(_sx), shape_text(_sy)))


# ------------------------------------------------ operators.py: getitem

def item_row(x):
    return x[1]


def item_column(x):
    return x[:, 0]


def item_rows(x):
    return x[1:3]


def item_last(x):
    return x[-1]


def item_element(x):
    return x[1, 2]


def item_step(x):
    return x[::2]


def item_ellipsis(x):
    return x[..., 1]


def item_reversed_block(x):
    return x[1:3, ::-1]


def item_new_axis(x):
    return x[None, :, 1]


def item_fancy(x, index):
    return x[index]


def item_mask(x, mask):
    return x[mask]


def item_by_argument(x, i):
    return x[i]


def item_slice_by_argument(x, i, j):
    return x[i:j, :2]


def item_tail(x):
    return x[1:]


def item_start_by_argument(x, i):
    return x[i:, 1]


def item_fancy_pairs(x, rows, columns):
    return x[rows, columns]


def item_column_fancy(x, columns):
    return x[:, columns]


def item_twice(x):
    return np.sum(x[:, 0] * x[1, :4])


def item_of_vector(x):
    return x[2]


case(item_row, anything((4, 5)))
case(item_column, anything((4, 5)))
case(item_rows, anything((4, 5)))
case(item_last, anything((4, 5)))
case(item_element, anything((4, 5)))
case(item_step, anything((5, 3)))
case(item_ellipsis, anything((2, 3, 4)))
case(item_reversed_block, anything((4, 5)))
case(item_new_axis, anything((4, 5)))
case(item_fancy, anything((4, 3)), np.array([0, 2, 0, 3]))
case(item_mask, anything((4, 3)), np.array([[True, False, True]] * 4))
case(item_by_argument, anything((4, 3)), 2)
case(item_slice_by_argument, anything((5, 3)), 1, 4)
case(item_tail, anything((4, 3)))


def set_row(x, v):
    y = x * 1.0
    y[1] = v
    return y


case(set_row, anything((3, 4)), anything((4,)), wrt=(0, 1))


def max_of_two(x, y):
    return max(x, y) * 2.0


def min_of_two(x, y):
    return min(x, y) * 2.0


def sum_builtin(x):
    return sum(x)


def list_and_tuple_of_rows(x):
    rows = list(x)  # the rows of an array, then the elements of a list
    return np.array(tuple(rows)) * np.array(list(tuple(rows)))


def reduce_max(x):
    return np.max(x, axis=1) + np.amax(x, axis=1) + x.max(axis=1)


def reduce_min(x):
    return np.min(x, axis=0, keepdims=True) + np.amin(x) + x.min()


def as_type(x):
    return x.astype(np.float64) * x


def vector_norm(x):
    return np.linalg.norm(x)


def row_norms(x):
    return np.linalg.norm(x, axis=1)


def append_items(x, y):
    items = [x * 2.0]
    items.append(y * x)
    return np.array(items)


case(append_items, anything((3,)), anything((3,)), wrt=(0, 1))


def pop_items(x, y):
    items = [x * 2.0, y * x, y]
    last = items.pop()
    return np.array(items) * last


case(pop_items, anything((3,)), anything((3,)), wrt=(0, 1))


def rows_of(x, w):  # for row in x: iterates over rt.iterated(x), x itself for an array
    total = 0.0
    for row in x:
        total = total + np.sum(row * w)
    return total


case(rows_of, anything((3, 4)), anything((4,)), wrt=(0, 1))
case(max_of_two, 0.7, -0.4, wrt=(0, 1))
case(max_of_two, -0.7, 0.4, wrt=(0, 1), id="max_of_two[second]")
case(min_of_two, 0.7, -0.4, wrt=(0, 1))
case(sum_builtin, anything((4, 3)))
case(list_and_tuple_of_rows, anything((4, 3)))
case(reduce_max, anything((3, 4)))
case(reduce_min, anything((3, 4)))
case(as_type, anything((3,)))
case(vector_norm, anything((5,)))
case(row_norms, anything((3, 4)))
case(item_start_by_argument, anything((5, 3)), 2)
case(item_fancy_pairs, anything((4, 3)), np.array([0, 3, 0]), np.array([1, 2, 1]))
case(item_column_fancy, anything((4, 3)), np.array([2, 0, 2]))
case(item_twice, anything((4, 5)))
case(item_of_vector, anything((4,)))


# ------------------------------------------------- numpy_elementwise.py: unary

def np_sin(x):
    return np.sin(x)


def np_cos(x):
    return np.cos(x)


def np_tan(x):
    return np.tan(x)


def np_arcsin(x):
    return np.arcsin(x)


def np_arccos(x):
    return np.arccos(x)


def np_arctan(x):
    return np.arctan(x)


def np_sinh(x):
    return np.sinh(x)


def np_cosh(x):
    return np.cosh(x)


def np_tanh(x):
    return np.tanh(x)


def np_arcsinh(x):
    return np.arcsinh(x)


def np_arccosh(x):
    return np.arccosh(x)


def np_arctanh(x):
    return np.arctanh(x)


def np_exp(x):
    return np.exp(x)


def np_exp2(x):
    return np.exp2(x)


def np_expm1(x):
    return np.expm1(x)


def np_log(x):
    return np.log(x)


def np_log2(x):
    return np.log2(x)


def np_log10(x):
    return np.log10(x)


def np_log1p(x):
    return np.log1p(x)


def np_sqrt(x):
    return np.sqrt(x)


def np_cbrt(x):
    return np.cbrt(x)


def np_square(x):
    return np.square(x)


def np_reciprocal(x):
    return np.reciprocal(x)


def np_abs(x):
    return np.abs(x)


def np_absolute(x):
    return np.absolute(x)


def np_fabs(x):
    return np.fabs(x)


def builtin_abs(x):
    return abs(x)


UNARY = [
    (np_sin, anything), (np_cos, anything), (np_tan, unit), (np_arcsin, unit),
    (np_arccos, unit), (np_arctan, anything), (np_sinh, anything), (np_cosh, anything),
    (np_tanh, anything), (np_arcsinh, anything), (np_arccosh, above_one), (np_arctanh, unit),
    (np_exp, anything), (np_exp2, anything), (np_expm1, anything), (np_log, positive),
    (np_log2, positive), (np_log10, positive), (np_log1p, lambda s=(): uniform(-0.5, 2.0, s)),
    (np_sqrt, positive), (np_cbrt, nonzero), (np_square, anything), (np_reciprocal, nonzero),
    (np_abs, nonzero), (np_absolute, nonzero), (np_fabs, nonzero), (builtin_abs, nonzero),
]

for _f, _sample in UNARY:
    case(_f, _sample(), id="%s[float]" % _f.__name__)
    case(_f, _sample((3, 4)), id="%s[3x4]" % _f.__name__)
case(np_sin, 2, id="np_sin[int]")


def to_float(x):
    return float(x) * 3.0


def to_float_of_item(x):
    return float(x[0, 1]) * 3.0


def to_float_of_sum(x):
    return float(np.sum(x * x))


case(to_float, anything(), id="to_float[float]")
case(to_float_of_item, anything((2, 3)))
case(to_float_of_sum, anything((2, 3)))


# ----------------------------------------------------------- math_module.py

from tests.math_functions import (  # noqa: E402
    math_sin,
    math_cos,
    math_tan,
    math_asin,
    math_acos,
    math_atan,
    math_sinh,
    math_cosh,
    math_tanh,
    math_asinh,
    math_acosh,
    math_atanh,
    math_exp,
    math_expm1,
    math_log,
    math_log2,
    math_log10,
    math_log1p,
    math_sqrt,
    math_fabs,
    math_erf,
    math_erfc,
    math_degrees,
    math_radians,
    math_log_base,
    math_atan2,
    math_pow,
    math_hypot,
)


def math_pow_constant(x):
    return math.pow(x, 3.0)


MATH_UNARY = [
    (math_sin, anything), (math_cos, anything), (math_tan, unit), (math_asin, unit),
    (math_acos, unit), (math_atan, anything), (math_sinh, anything), (math_cosh, anything),
    (math_tanh, anything), (math_asinh, anything), (math_acosh, above_one),
    (math_atanh, unit), (math_exp, anything), (math_expm1, anything), (math_log, positive),
    (math_log2, positive), (math_log10, positive), (math_log1p, lambda: uniform(-0.5, 2.0)),
    (math_sqrt, positive), (math_fabs, nonzero), (math_erf, anything), (math_erfc, anything),
    (math_degrees, anything), (math_radians, anything),
]

for _f, _sample in MATH_UNARY:
    case(_f, _sample())

case(math_log_base, positive(), uniform(1.5, 4.0), wrt=(0, 1))
case(math_log_base, positive(), uniform(0.3, 0.7), wrt="base", id="math_log_base[base<1]")
case(math_atan2, *away_from_origin((), ()), wrt=(0, 1))
case(math_pow, positive(), uniform(-1.5, 2.5), wrt=(0, 1))
case(math_hypot, *away_from_origin((), ()), wrt=(0, 1))
case(math_pow_constant, -positive())


# ------------------------------------------------------- numpy_reductions.py

def sum_all(x):
    return np.sum(x)


def sum_axis0(x):
    return np.sum(x, axis=0)


def sum_axis1(x):
    return np.sum(x, axis=1)


def sum_last_axis(x):
    return np.sum(x, axis=-1)


def sum_positional_axis(x):
    return np.sum(x, 0)


def sum_axes(x):
    return np.sum(x, axis=(0, 2))


def sum_keepdims(x):
    return np.sum(x, axis=1, keepdims=True)


def sum_axes_keepdims(x):
    return np.sum(x, axis=(0, -1), keepdims=True)


def sum_all_keepdims(x):
    return np.sum(x, keepdims=True)


def sum_method(x):
    return x.sum()


def sum_method_axis(x):
    return x.sum(0)


def sum_method_keepdims(x):
    return x.sum(axis=1, keepdims=True)


def sum_method_axes(x):
    return x.sum(axis=(0, 2))


def mean_all(x):
    return np.mean(x)


def mean_axis0(x):
    return np.mean(x, axis=0)


def mean_last_axis(x):
    return np.mean(x, axis=-1)


def mean_axes(x):
    return np.mean(x, axis=(0, 2))


def mean_keepdims(x):
    return np.mean(x, axis=0, keepdims=True)


def mean_axes_keepdims(x):
    return np.mean(x, axis=(1, 2), keepdims=True)


def mean_method(x):
    return x.mean()


def mean_method_axis(x):
    return x.mean(1)


def mean_method_keepdims(x):
    return x.mean(axis=-1, keepdims=True)


def sum_of_square(x):
    return np.sum(x * x)


def mean_of_sin(x):
    return np.mean(np.sin(x))


for _f, _shape in [(sum_all, (3, 4)), (sum_axis0, (3, 4)), (sum_axis1, (3, 4)),
                   (sum_last_axis, (2, 3, 4)), (sum_positional_axis, (3, 4)),
                   (sum_axes, (2, 3, 4)), (sum_keepdims, (3, 4)), (sum_axes_keepdims, (2, 3, 4)),
                   (sum_all_keepdims, (3, 4)), (sum_method, (3, 4)), (sum_method_axis, (3, 4)),
                   (sum_method_keepdims, (3, 4)), (sum_method_axes, (2, 3, 4)),
                   (mean_all, (3, 4)), (mean_axis0, (3, 4)), (mean_last_axis, (2, 3, 4)),
                   (mean_axes, (2, 3, 4)), (mean_keepdims, (3, 4)),
                   (mean_axes_keepdims, (2, 3, 4)), (mean_method, (3, 4)),
                   (mean_method_axis, (3, 4)), (mean_method_keepdims, (3, 4)),
                   (sum_of_square, (3, 4)), (mean_of_sin, (3, 4))]:
    case(_f, anything(_shape))

case(sum_all, anything((5,)), id="sum_all[5]")
case(sum_axis0, anything((5,)), id="sum_axis0[5]")
case(mean_axis0, anything((5,)), id="mean_axis0[5]")
case(sum_all, anything(), id="sum_all[float]")
case(mean_all, anything(), id="mean_all[float]")
case(sum_of_square, anything(), id="sum_of_square[float]")


# ----------------------------------------------------------- numpy_linalg.py

def dot(x, y):
    return np.dot(x, y)


def dot_method(x, y):
    return x.dot(y)


def outer(x, y):
    return np.outer(x, y)


DOT_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((), (3,)),
              ((3, 2), ()), ((2, 3, 4), (4, 5)), ((2, 3), (4, 3, 5)), ((2, 3, 4), (4,))]

for _sx, _sy in DOT_SHAPES:
    case(dot, anything(_sx), anything(_sy), wrt=(0, 1),
         id="dot[%s,%s]" % (shape_text(_sx), shape_text(_sy)))
for _sx, _sy in DOT_SHAPES[:4]:
    case(dot_method, anything(_sx), anything(_sy), wrt=(0, 1),
         id="dot_method[%s,%s]" % (shape_text(_sx), shape_text(_sy)))
for _sx, _sy in [((3,), (4,)), ((2, 2), (3,)), ((), (3,))]:
    case(outer, anything(_sx), anything(_sy), wrt=(0, 1),
         id="outer[%s,%s]" % (shape_text(_sx), shape_text(_sy)))


# products and np.linalg: the functions of tests/template_combos.py (which checks them on
# many more shapes, forward and to second order) on one input each, inside their domains
def _linalg_corpus():
    from tests import template_combos as combos

    rng = np.random.default_rng(20261201)
    matrix, square = (2, 3), (3, 3)
    for f, domains, shapes in [
            (combos.solve, (combos.well_conditioned, combos.anything), ((2, 3, 3), (3,))),
            (combos.inv, (combos.well_conditioned,), (square,)),
            (combos.det, (combos.well_conditioned,), ((2, 3, 3),)),
            (combos.slogdet, (combos.well_conditioned,), (square,)),
            (combos.cholesky, (combos.positive_definite,), (square,)),
            (combos.eigh, (combos.positive_definite,), (square,)),
            (combos.svd, (combos.separated_singular_values,), ((4, 2),)),
            (combos.qr, (combos.separated_singular_values,), ((2, 4),)),
            (combos.pinv, (combos.separated_singular_values,), ((2, 4),)),
            (combos.lstsq_everything, (combos.separated_singular_values, combos.anything),
             ((4, 2), (4,))),
            (combos.matrix_power, (combos.anything,), (square,)),
            (combos.trace, (combos.anything,), (matrix,)),
            (combos.trace_method, (combos.anything,), ((2, 3, 3),)),
            (combos.diagonal, (combos.anything,), ((2, 3, 3),)),
            (combos.diag_vector, (combos.anything,), ((3,),)),
            (combos.diag_matrix, (combos.anything,), (matrix,)),
            (combos.tril, (combos.anything,), (matrix,)),
            (combos.triu_k, (combos.anything,), (square,)),
            (combos.tensordot_pairs, (combos.anything, combos.anything), ((2, 3, 4), (3, 4, 2))),
            (combos.inner, (combos.anything, combos.anything), (matrix, (4, 3))),
            (combos.vdot, (combos.anything, combos.anything), (matrix, (3, 2))),
            (combos.kron, (combos.anything, combos.anything), (matrix, (3, 2))),
            (combos.cross, (combos.anything, combos.anything), (matrix, (3,))),
            (combos.einsum_three, (combos.anything, combos.anything, combos.anything),
             ((2, 3), (3, 4), (4,))),
            (combos.einsum_diagonal, (combos.anything,), (square,))]:
        args = [domain(shape, rng) for domain, shape in zip(domains, shapes)]
        case(f, *args, wrt=tuple(range(len(args))) if len(args) > 1 else 0,
             id="%s[%s]" % (f.__name__, ",".join(shape_text(s) for s in shapes)))


_linalg_corpus()


# ------------------------------------------------------------ numpy_shape.py

def reshape(x):
    return np.reshape(x, (4, 3))


def reshape_flat(x):
    return np.reshape(x, -1)


def reshape_fortran(x):
    return np.reshape(x, (2, 6), order="F")


def reshape_method(x):
    return x.reshape(4, 3)


def reshape_method_tuple(x):
    return x.reshape((2, -1))


def reshape_method_flat(x):
    return x.reshape(-1)


def ravel(x):
    return np.ravel(x)


def ravel_method(x):
    return x.ravel()


def flatten_method(x):
    return x.flatten()


def transpose(x):
    return np.transpose(x)


def transpose_axes(x):
    return np.transpose(x, (1, 2, 0))


def transpose_keyword(x):
    return np.transpose(x, axes=(2, 0, 1))


def transpose_method(x):
    return x.transpose()


def transpose_method_axes(x):
    return x.transpose(1, 0)


def transpose_method_tuple(x):
    return x.transpose((2, 0, 1))


def transpose_attribute(x):
    return x.T


def squeeze(x):
    return np.squeeze(x)


def squeeze_axis(x):
    return np.squeeze(x, axis=1)


def squeeze_method(x):
    return x.squeeze()


def expand_dims(x):
    return np.expand_dims(x, 0)


def expand_dims_last(x):
    return np.expand_dims(x, axis=-1)


def copy_method(x):
    return x.copy()


def np_copy(x):
    return np.copy(x)


def np_array(x):
    return np.array(x)


def np_asarray(x):
    return np.asarray(x)


for _f, _shape in [(reshape, (3, 4)), (reshape_flat, (3, 4)), (reshape_fortran, (3, 4)),
                   (reshape_method, (3, 4)), (reshape_method_tuple, (3, 4)),
                   (reshape_method_flat, (3, 4)), (ravel, (3, 4)), (ravel_method, (3, 4)),
                   (flatten_method, (3, 4)), (transpose, (3, 4)), (transpose_axes, (2, 3, 4)),
                   (transpose_keyword, (2, 3, 4)), (transpose_method_axes, (3, 4)),
                   (transpose_method_tuple, (2, 3, 4)), (transpose_attribute, (3, 4)),
                   (squeeze, (3, 1, 4)), (squeeze_axis, (3, 1, 4)), (squeeze_method, (1, 3)),
                   (expand_dims, (3, 4)), (expand_dims_last, (3,)), (copy_method, (3, 4)),
                   (np_copy, (3, 4)), (np_array, (3, 4)), (np_asarray, (3, 4))]:
    case(_f, anything(_shape))

case(transpose_method, anything((3, 4)))
case(transpose, anything((2, 3, 4)), id="transpose[2x3x4]")
case(transpose_attribute, anything((3,)), id="transpose_attribute[3]")
case(transpose_attribute, anything((2, 3, 4)), id="transpose_attribute[2x3x4]")
case(np_array, anything(), id="np_array[float]")


def rows_joined(x, y):
    return np.r_[x, y * 2.0]


def columns_joined(x, y):
    return np.c_[x, y]


def np_concatenate(x, y):
    return np.concatenate([x, y], axis=1)


def np_stack(x, y):
    return np.stack([x, y * x], axis=-1)


def np_split(x):
    head, tail = np.split(x, [1], axis=1)  # parts of unequal shapes
    return head * np.sum(tail ** 2, axis=1, keepdims=True)


def math_copysign(x, y):
    return math.copysign(x, y)


case(rows_joined, anything((3,)), anything(), wrt=(0, 1))
case(columns_joined, anything((3,)), anything((3, 2)), wrt=(0, 1))
case(np_concatenate, anything((2, 3)), anything((2, 1)), wrt=(0, 1))
case(np_stack, anything((2, 3)), anything((2, 3)), wrt=(0, 1))
case(np_split, anything((2, 3)))
case(math_copysign, nonzero(), nonzero(), wrt=(0, 1))


def broadcast_to(x):
    return np.broadcast_to(x, (2, 3)) * 1.0  # a view: multiplied, as user code would


case(broadcast_to, anything((3,)), id="broadcast_to[row]")
case(broadcast_to, anything((2, 1)), id="broadcast_to[column]")
case(broadcast_to, anything(), id="broadcast_to[float]")


# ------------------------------------- several templates accumulating into one x

def same_operand_product(x):
    return x * x


def same_operand_quotient(x):
    return x / (x * x + 1.0)


def same_operand_dot(x):
    return np.dot(x, x)


def gram(x):
    return x @ x.T


def redefinitions(x, y):
    x = x * y
    x = np.exp(x)
    x = x + y
    return np.sum(x)


def mlp_loss(x, w, b):
    h = np.tanh(x @ w + b)
    return np.mean(h ** 2)


def scalar_recurrence(x, a):
    y = a * x * (1.0 - x)
    y = a * y * (1.0 - y)
    return math.sin(y) + y / x


def unused_argument(x, y):
    return np.sum(x * 2.0)


def unused_float_argument(x, y):
    return x * 2.0


case(same_operand_product, anything(), id="same_operand_product[float]")
case(same_operand_product, anything((3, 4)), id="same_operand_product[3x4]")
case(same_operand_quotient, anything((5,)))
case(same_operand_dot, anything((4,)))
case(gram, anything((3, 4)))
case(redefinitions, unit((3, 4)), unit((4,)), wrt=(0, 1))
case(mlp_loss, anything((5, 3)), anything((3, 4)) / 2, anything((4,)), wrt=(0, 1, 2))
case(scalar_recurrence, uniform(0.2, 0.8), uniform(2.0, 3.5), wrt=(0, 1))
case(unused_argument, anything((3,)), anything((2,)), wrt=(0, 1))
case(unused_float_argument, anything(), anything(), wrt=(0, 1))



# ------------------------------ issue 12: more elementwise functions, reductions and scans
# The functions of tests/template_combos.py (where they are checked on broadcast combinations
# to second order), here once each on a 3x4 or 2x3 array; inputs from their own generator, so
# the cases above keep theirs.

def _issue12_cases():
    from tests import template_combos as combos

    rng = np.random.default_rng(zlib.crc32(b"issue 12: elementwise and reductions"))

    def draw(domain, shape=(3, 4)):
        return domain(shape, rng)

    spread_apart = combos.spread((3, 4), rng)
    nonzero_y = draw(combos.nonzero)
    for f in (combos.np_logaddexp, combos.np_logaddexp2, combos.np_copysign,
              combos.heaviside_at_zero):
        case(f, draw(combos.nonzero), draw(combos.anything, (4,)), wrt=(0, 1))
    case(combos.np_fmax, spread_apart, spread_apart[::-1, ::-1] + 0.1, wrt=(0, 1))
    case(combos.np_fmin, spread_apart, spread_apart[::-1, ::-1] + 0.1, wrt=(0, 1))
    quotient = rng.integers(-2, 2, size=(3, 4)) + rng.uniform(0.1, 0.9, (3, 4))
    case(combos.np_fmod, nonzero_y * quotient, nonzero_y, wrt=(0, 1))
    case(combos.np_float_power, draw(combos.positive), draw(combos.exponent), wrt=(0, 1))
    case(combos.np_where, draw(combos.anything), draw(combos.anything, (4,)), wrt=(0, 1))
    x = draw(combos.anything)
    low, high = -np.abs(x[:1]) * 0.5, np.abs(x[:1]) * 0.5 + 0.5
    case(combos.np_clip, x, low, high, wrt=(0, 1, 2))
    case(combos.clip_below, x, low[0], wrt=(0, 1))
    case(combos.clip_above, x, high, wrt=(0, 1))
    case(combos.clip_method, x, high, wrt=(0, 1))
    case(combos.np_ldexp, draw(combos.anything, (2, 3)))
    for f in (combos.np_nan_to_num, combos.np_real, combos.np_imag, combos.np_conj,
              combos.np_conjugate, combos.np_sinc, combos.np_rad2deg, combos.np_deg2rad,
              combos.np_degrees, combos.np_radians):
        case(f, draw(combos.anything))
    for f in (combos.var_all, combos.var_axis_ddof, combos.var_keepdims, combos.var_method,
              combos.std_all, combos.std_axis, combos.std_keepdims, combos.std_method,
              combos.nansum_all, combos.nanmean_axis, combos.cumsum_flat, combos.cumsum_axis,
              combos.cumsum_method, combos.diff_last, combos.diff_twice, combos.diff_keyword):
        case(f, draw(combos.anything))
    for f in (combos.ptp_all, combos.ptp_axis, combos.nanmax_axis, combos.nanmin_all):
        case(f, combos.spread((3, 4), rng))
    case(combos.nanmean_of_nans, combos.anything((2, 3), rng))
    for f in (combos.prod_all, combos.prod_axis, combos.prod_keepdims, combos.prod_method,
              combos.prod_method_axis, combos.product_of_others):
        case(f, combos.with_zeros((3, 4), rng))
    case(combos.average_all, draw(combos.anything))
    case(combos.real_attribute, draw(combos.anything))
    case(combos.conj_method, draw(combos.anything))
    for f in (combos.cumprod_flat, combos.cumprod_axis, combos.cumprod_method):
        case(f, combos.with_zeros((3, 4), rng))
    case(combos.cumprod_adjoint, draw(combos.anything), combos.with_zeros((3, 4), rng),
         wrt=(0, 1))
    case(combos.cumprod_tangent, draw(combos.anything), combos.with_zeros((3, 4), rng),
         wrt=(0, 1))
    for f in (combos.median_all, combos.quantiles_axis, combos.percentile_axis):
        case(f, combos.spread((3, 4), rng))
    for f in (combos.nanvar_of_nans, combos.nanstd_of_nans, combos.nanprod_of_nans,
              combos.nancumsum_of_nans, combos.nancumprod_of_nans, combos.item_position):
        case(f, draw(combos.anything, (2, 3)))
    for f in (combos.nanvar_all, combos.nanstd_all, combos.nanprod_all, combos.nancumsum_flat,
              combos.nancumprod_flat, combos.item_flat):
        case(f, draw(combos.anything))
    case(combos.item_of_one, draw(combos.anything, (1, 1)))
    case(combos.quantile_adjoint, draw(combos.anything, (2, 3)), combos.spread((3, 4), rng),
         wrt=(0, 1))
    case(combos.quantile_tangent, draw(combos.anything), combos.spread((3, 4), rng), wrt=(0, 1))
    case(combos.builtin_pow, draw(combos.positive), 1.7, wrt=(0, 1))
    case(combos.math_fsum, 0.3, -1.1, wrt=(0, 1))
    case(combos.math_lgamma, 3.7)
    case(combos.math_gamma, -2.4)
    case(combos.math_polygamma, 0.8)
    case(combos.average_weighted_axis, draw(combos.anything), draw(combos.positive), wrt=(0, 1))
    case(combos.average_weights_along_axis, draw(combos.anything), draw(combos.positive, (4,)),
         wrt=(0, 1))
    case(combos.weights_along, draw(combos.anything, (4,)), draw(combos.anything), wrt=(0, 1))
    case(combos.weights_along_adjoint, draw(combos.anything), draw(combos.anything, (4,)),
         wrt=(0, 1))


_issue12_cases()
# ------------------------------- shape functions: flips, moves, copies, gathers, joins

def shape_moves(x):
    y = np.flip(np.roll(x, (1, -1), axis=(0, 1)), axis=1) * np.fliplr(x) + np.flipud(x)
    z = np.rot90(y, 3) + np.swapaxes(y, 0, 1) + np.moveaxis(y, 0, 1) + np.rollaxis(y, 1)
    return np.atleast_3d(z) * np.atleast_2d(x[0]).T[:, :, None] + np.atleast_1d(x[0, 0])


def shape_methods(x):
    return x.swapaxes(0, 1).repeat(2, axis=0) * x.take([1, 0, 2], axis=1).T.repeat(2, axis=0)


def shape_copies(x):
    y = np.tile(x, (2, 1)) * np.repeat(x, [2, 0, 1], axis=1).sum()
    return np.take(y, [[0, 3], [3, 3]], axis=0) + np.take_along_axis(
        x, np.array([[0, 2, 1], [1, 1, 0]]), axis=1)


def shape_pads(x):
    return (np.pad(x, ((1, 1), (0, 2)), constant_values=0.5)
            * np.pad(x, (1, 1), mode="reflect") + np.pad(x, 1, mode="edge"))


def shape_joins(x, y):
    return (np.sum(np.hstack([x, y]) ** 2) + np.sum(np.vstack([x, x[:1] * y[0]]) ** 2)
            + np.sum(np.dstack([x, x]) * np.column_stack([y, y])[:, :1, None])
            + np.sum(np.vstack([x, x]) ** 3) + np.sum(np.append(x, y) ** 2))


def shape_splits(x):
    a, b, c = np.array_split(x, 3, axis=1)
    left, right = np.hsplit(x, [2])
    top, bottom = np.vsplit(x, 2)
    front, back = np.dsplit(x[:, :, None] * x[:, None, :], [1])
    return a * b * c + np.sum(left) * right + top * bottom + front[:, 0] * back[:, 0, :1]


def shape_orders(x):
    return np.sort(x, axis=0) * x + np.partition(x, 1, axis=1) ** 2


def shape_select(x):
    return np.select([x > 0.0, x < -1.0], [x * x, 1.0], default=-x)


def shape_gradient(x):
    rows, columns = np.gradient(x, 0.5)
    return rows * columns + np.gradient(x[0], edge_order=2)


def shape_meshgrid(x, y):
    grid_x, grid_y = np.meshgrid(x, y * 2.0)
    return grid_x * np.sin(grid_y)


def shape_removals(x, y):
    kept = np.delete(x, 1, axis=0) * np.compress([True, False, True], x, axis=1)[:1, :1]
    grown = np.insert(x, [0, 3], y, axis=1) + x.compress([False, True], axis=0)[0, 0]
    return np.sum(kept ** 2) + np.sum(grown * np.extract(x > 0.0, x)[0])


def shape_choose(x, y):
    return np.choose([[1, 0, 1], [0, 0, 1]], (x, y ** 2)) * x


case(shape_moves, anything((3, 3)))
case(shape_methods, anything((2, 3)))
case(shape_copies, anything((2, 3)))
case(shape_pads, anything((2, 3)))
case(shape_joins, anything((2, 3)), anything((2, 1)), wrt=(0, 1))
case(shape_splits, anything((2, 3)))
case(shape_orders, anything((3, 4)))
case(shape_select, nonzero((3, 4)))
case(shape_gradient, anything((3, 4)))
case(shape_meshgrid, anything((3,)), anything((2,)), wrt=(0, 1))
case(shape_removals, nonzero((2, 3)), anything((2, 1)), wrt=(0, 1))
case(shape_choose, anything((2, 3)), anything((3,)), wrt=(0, 1))


# --------------------------------------------------------------------- tests

def case_rng(case_):
    return np.random.default_rng(zlib.crc32(case_.id.encode()))


def scalar_valued(value):
    return np.ndim(value) == 0


def _params(cases):
    return [pytest.param(c, id=c.id, marks=[pytest.mark.xfail(strict=True, reason=c.xfail)]
                         if c.xfail else []) for c in cases]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case_", _params(CASES))
def test_gradient(case_, path):
    output = case_.f(*case_.args)
    if scalar_valued(output):
        numerics = check_gradient(case_.f, case_.args, case_.wrt, path)
    else:
        cotangent = case_rng(case_).standard_normal(np.shape(output))
        numerics = check_gradient(contract(case_.f), list(case_.args) + [cotangent],
                                  case_.wrt, path)
    # the case must test something: some gradient is visibly nonzero
    assert max(np.max(np.abs(n)) for n in numerics) > 1e-3, "vacuous case: all gradients zero"


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case_", _params(CASES))
def test_dot_product(case_, path):
    dot_product_test(case_.f, case_.args, case_.wrt, path=path, rng=case_rng(case_))


def test_python_float_arguments_give_python_float_gradients():
    # check_gradient asserts it for every case; make sure the corpus has such cases
    floats = [c for c in CASES if any(type(a) is float for a in c.args)]
    assert len(floats) > 50


# ------------------------------------------------------- returned gradients
# Generated code may reuse and share buffers internally, but what it returns
# belongs to the caller (DESIGN.md: reused buffers never alias a returned
# gradient): not a read-only np.broadcast_to view (the adjoint of np.sum), and
# not one array handed back for two operands (the adjoints of x + y).

def sin_of_sum(x, y):
    return np.sum(np.sin(x + y))


@pytest.mark.parametrize("path", PATHS)
def test_returned_gradient_is_writeable(path):
    gradient = reverse_gradient(sum_all, [np.ones((2, 3))], 0, path)
    assert gradient.flags.writeable
    gradient *= 2.0  # what an in-place optimizer step does
    np.testing.assert_array_equal(gradient, 2.0)


@pytest.mark.parametrize("path", PATHS)
def test_returned_gradients_do_not_share_memory(path):
    x, y = anything((2, 3)), anything((2, 3))
    gx, gy = reverse_gradient(sin_of_sum, [x, y], (0, 1), path)
    assert not np.shares_memory(gx, gy)


# -------------------------------------------------------------- the templates

def _template_modules():
    package = importlib.import_module("srcad.templates")
    names = sorted(info.name for info in pkgutil.iter_modules(package.__path__))
    return [importlib.import_module("srcad.templates." + name) for name in names]


def _registered():
    """Registry entries with a template from srcad.templates (other tests register their own)."""
    registry.load_templates()
    return [entry for entry in registry.registered()
            if any(t is not None and _template_module(t) is not None
                   for t in (entry.adjoint, entry.tangent))]


def _template_module(template):
    """The template's module name within srcad.templates, or None."""
    module = inspect.getmodule(template.function).__name__
    prefix = "srcad.templates."
    return module[len(prefix):] if module.startswith(prefix) else None


def test_every_template_module_is_loaded():
    names = {module.__name__.rsplit(".", 1)[1] for module in _template_modules()}
    assert set(TEMPLATE_MODULES) <= names


def test_every_template_body_parses():
    _template_modules()
    templates = [t for entry in _registered() for t in (entry.adjoint, entry.tangent)
                 if t is not None]
    assert len(templates) > 100
    for template in templates:
        body = template.body  # parses and checks every statement; raises TemplateError
        assert body, "template %s (%s) has an empty body" % (template.name, template.where)
        assert all(isinstance(s, (gast.Assign, gast.AugAssign)) for s in body)


def test_every_adjoint_sits_beside_a_tangent_with_the_same_parameters():
    # a module's FORWARD_ONLY: in place helpers (reverse mode refuses them on purpose), the
    # adjoint sweeps of scipy.integrate (a tangent for hvp; no grad of grad)
    forward_only = [obj for module in _template_modules()
                    for obj in getattr(module, "FORWARD_ONLY", ())]

    for entry in _registered():
        if entry.adjoint is None and entry.tangent is None:
            continue
        if any(entry.obj is obj for obj in forward_only):
            assert entry.adjoint is None and entry.tangent is not None, entry.name
            continue
        assert entry.adjoint is not None and entry.tangent is not None, entry.name
        adjoint_params = list(entry.adjoint.signature.parameters)
        tangent_params = list(entry.tangent.signature.parameters)
        assert adjoint_params == tangent_params, entry.name


def _malformed_template(y, x):
    if x:
        d[x] += d[y]


def test_a_malformed_template_is_rejected_at_the_statement():
    with pytest.raises(TemplateError) as info:
        registry.Template(_malformed_template, "adjoint").body
    lines, first = inspect.getsourcelines(_malformed_template)
    assert str(info.value).splitlines()[:3] == [
        "%s:%d:4: error: adjoint template _malformed_template has a statement srcad cannot "
        "paste" % (inspect.getsourcefile(_malformed_template), first + 1),
        "    if x:", "    ^"]


def _primitives_used(function):
    parsed = parse_function(function)
    namer = Namer(parsed.identifiers)
    aliases = Aliases(parsed, namer)
    tree = pipeline.normalize(parsed, namer, aliases)
    resolve = Resolver(parsed, aliases, namer)
    used = set()
    for statement in tree.body:
        if isinstance(statement, gast.Assign):
            used.add(id(operation_of(statement.value, resolve).primitive))
    return used


# Templates whose primitive needs arguments the corpus (arrays and floats) cannot give,
# and where they are checked instead (finite differences, dot-product test, hvp).
COVERED_ELSEWHERE = {
    id(ATTRIBUTE): "p.w needs a namedtuple or dataclass argument: "
                   "tests/test_container_arguments.py",
}


def test_corpus_covers_every_adjoint_template():
    used = set(COVERED_ELSEWHERE)
    for function in {c.f for c in CASES}:
        used |= _primitives_used(function)
    missing = []
    for entry in _registered():
        template = entry.adjoint
        if template is None:
            continue
        if _template_module(template) in TEMPLATE_MODULES and id(entry.obj) not in used:
            missing.append(entry.name)
    assert not missing, "no corpus case uses: %s" % ", ".join(sorted(missing))
