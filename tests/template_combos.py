"""The case table of tests/test_template_combos.py: every template on broadcast combinations.

Each ``Case`` is a small module-level function applying one primitive (or one
runtime helper that generated code calls), the domain of each parameter, the
combinations of parameter shapes to try, and which parameters are
differentiable. The test module enumerates, for every case, every shape
combination and every non-empty subset of the differentiable parameters.

Shapes are written as tuples; ``()`` is a Python float, ``F64`` a NumPy
float64 scalar and ``ZERO_D`` a 0-d array. The five kinds an operand of an
elementwise primitive takes (``KINDS``): a scalar, a vector (3,), a row (1, 3),
a column (2, 1) and a full array (2, 3), so that every pair broadcasts.

Inputs stay inside each primitive's domain and away from its kinks and jumps
(``accept`` rejects draws too close to one); seeds come from ``zlib.crc32`` of
the case and combination, never from Python's salted ``hash``.
"""

from __future__ import annotations

import collections
import inspect
import itertools
import math
from dataclasses import dataclass

import numpy as np

from srcad import runtime as rt

F64 = "float64"
ZERO_D = "0-d"
SCALAR = ()
VECTOR = (3,)
ROW = (1, 3)
COLUMN = (2, 1)
FULL = (2, 3)
KINDS = (SCALAR, VECTOR, ROW, COLUMN, FULL)
ARRAYS = (VECTOR, ROW, COLUMN, FULL)


def shape_text(shape) -> str:
    if shape == ():
        return "float"
    if isinstance(shape, str):
        return shape
    if shape is None:
        return "-"
    return "x".join(map(str, shape)) if shape else "0d"


# ------------------------------------------------------------------ domains
# A domain draws a value of a given shape: domain(shape, rng).


def _typed(values, shape):
    """``values`` (an array of ``shape``'s size) as the kind ``shape`` names."""
    if shape == ():
        return float(values)
    if shape == F64:
        return np.float64(values)
    if shape == ZERO_D:
        return np.array(float(values))
    return values


def _draw(low, high):
    def draw(shape, rng):
        size = () if isinstance(shape, str) else shape
        return _typed(rng.uniform(low, high, size), shape)
    return draw


anything = _draw(-2.0, 2.0)
positive = _draw(0.5, 2.0)
unit = _draw(-0.8, 0.8)
above_one = _draw(1.5, 3.0)
small = _draw(-1.2, 1.2)
exponent = _draw(-1.5, 2.5)
wide = _draw(-5.0, 5.0)


def nonzero(shape, rng):
    """Magnitude in [0.5, 2], either sign: away from the kink of abs and the pole of 1/x."""
    size = () if isinstance(shape, str) else shape
    values = rng.uniform(0.5, 2.0, size) * rng.choice([-1.0, 1.0], size=size)
    return _typed(values, shape)


def spread(shape, rng):
    """Elements at least 0.2 apart (max and min over axes: no ties), in random order."""
    size = () if isinstance(shape, str) else shape
    count = int(np.prod(size))
    values = (rng.permutation(count) - count / 2) * 0.25 + rng.uniform(-0.02, 0.02, count)
    return _typed(np.reshape(values, size), shape)


Pair = collections.namedtuple("Pair", "w b")


@dataclass
class Layer:
    w: object
    b: float


def pair(shape, rng):
    """A namedtuple of an operand of ``shape`` and a vector."""
    return Pair(anything(shape, rng), anything(VECTOR, rng))


def layer(shape, rng):
    """A dataclass of an operand of ``shape`` and a Python float."""
    return Layer(anything(shape, rng), anything(SCALAR, rng))


def fixed(value):
    """A parameter that is not an array operand (an index, a list): always ``value``."""
    return lambda shape, rng: value


# -------------------------------------------------------------- acceptance

def far_apart(*positions, gap=0.1):
    """Operands at ``positions`` differ by at least ``gap`` everywhere (max, min, ties)."""
    def accept(args):
        a, b = (np.asarray(args[p], dtype=float) for p in positions)
        return np.min(np.abs(a - b)) > gap
    return accept


def away_from_jumps(args):
    """x % y and floor division: x / y at least 0.05 from every integer."""
    quotient = np.asarray(args[0], dtype=float) / np.asarray(args[1], dtype=float)
    return np.min(np.abs(quotient - np.round(quotient))) > 0.05


def away_from_origin(args):
    return np.min(np.asarray(args[0]) ** 2 + np.asarray(args[1]) ** 2) > 0.25


# -------------------------------------------------------------------- cases


@dataclass
class Case:
    name: str
    f: object
    domains: tuple  # one per parameter of f
    combos: list  # tuples of shapes, one per parameter
    differentiable: tuple = (0,)  # positions that carry derivatives
    accept: object = None  # accept(args) -> bool: redraw otherwise
    forward_only: bool = False  # in-place helpers reverse mode refuses on purpose
    wrap: str = "numpy"  # how the output is made scalar: "numpy" or "math" (Python floats)
    zero_derivative: tuple = ()  # positions whose derivative is 0 (wherever it is defined)
    second_order: str = ""  # why its second order is not checked (a helper of prod's adjoint)

    def subsets(self):
        """Every non-empty subset of the operands with a derivative; an operand whose
        derivative is zero (a helper reads only its shape) joins only the whole set."""
        positions = [p for p in self.differentiable if p not in self.zero_derivative]
        subsets = [subset for size in range(1, len(positions) + 1)
                   for subset in itertools.combinations(positions, size)]
        if tuple(positions) != self.differentiable:
            subsets.append(self.differentiable)
        return subsets


CASES: list[Case] = []


def case(f, domains, combos, differentiable=(0,), name=None, **options):
    name = name or f.__name__
    assert all(c.name != name for c in CASES), "duplicate case %s" % name
    if len(inspect.signature(f).parameters) == 1:  # each combination is one shape
        combos = [(c,) for c in combos]
    CASES.append(Case(name, f, tuple(domains), combos, tuple(differentiable), **options))


def pairs(left=KINDS, right=KINDS):
    return list(itertools.product(left, right))


# ------------------------------------------------------ operators: binary

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


def np_arctan2(y, x):
    return np.arctan2(y, x)


def np_hypot(x, y):
    return np.hypot(x, y)


def np_maximum(x, y):
    return np.maximum(x, y)


def np_minimum(x, y):
    return np.minimum(x, y)


# the operators also meet NumPy scalars and 0-d arrays
SCALAR_MIXES = [(F64, VECTOR), (FULL, F64), (ZERO_D, FULL), (COLUMN, ZERO_D), (F64, ZERO_D)]

for _f, _domains, _accept in [
        (add, (anything, anything), None), (sub, (anything, anything), None),
        (mul, (anything, anything), None), (truediv, (anything, nonzero), None),
        (power, (positive, exponent), None), (mod, (wide, nonzero), away_from_jumps)]:
    case(_f, _domains, pairs() + SCALAR_MIXES, (0, 1), accept=_accept)

# The NumPy twins share the operators' templates; only their shape rule differs (for
# two scalars: a NumPy scalar, not a Python float), so every kind is met, not every pair.
SOME_PAIRS = [(SCALAR, SCALAR), (SCALAR, FULL), (COLUMN, SCALAR), (VECTOR, FULL), (ROW, COLUMN),
              (FULL, ROW), (COLUMN, FULL), (FULL, FULL), (F64, VECTOR)]

for _f, _domains, _accept in [
        (np_add, (anything, anything), None), (np_subtract, (anything, anything), None),
        (np_multiply, (anything, anything), None), (np_divide, (anything, nonzero), None),
        (np_true_divide, (anything, nonzero), None), (np_power, (positive, exponent), None),
        (np_mod, (wide, nonzero), away_from_jumps),
        (np_remainder, (wide, nonzero), away_from_jumps),
        (np_arctan2, (anything, anything), away_from_origin),
        (np_hypot, (anything, anything), away_from_origin),
        (np_maximum, (anything, anything), far_apart(0, 1)),
        (np_minimum, (anything, anything), far_apart(0, 1))]:
    case(_f, _domains, SOME_PAIRS, (0, 1), accept=_accept)


def power_of_negative_base(x):
    return x ** 3


def power_by_float_constant(x):
    return x ** 2.0


def power_of_constant(x):
    return 2.0 ** x


def power_by_zero(x):
    return x ** 0.0


def power_by_one(x):
    return np.power(x, 1.0)


def power_by_int(x, n):
    return x ** n


for _f in (power_of_negative_base, power_by_float_constant, power_of_constant, power_by_one):
    case(_f, (anything,), KINDS)
case(power_by_zero, (anything,), KINDS, zero_derivative=(0,))
case(power_by_int, (anything, fixed(3)), [(k, None) for k in KINDS])


def constant_minus(x):
    return 2.0 - x


def constant_over(x):
    return 1.0 / x


def constant_mod(x):
    return 3.5 % x


case(constant_minus, (anything,), KINDS)
case(constant_over, (nonzero,), KINDS)
case(constant_mod, (_draw(1.2, 1.6),), KINDS)


# ------------------------------------------------------- operators: unary

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
    return y


for _f in (neg, pos, np_negative, np_positive, copy_by_assignment):
    case(_f, (anything,), KINDS + (F64, ZERO_D))


# ------------------------------------------------------ operators: matmul

def matmul(x, y):
    return x @ y


def np_matmul(x, y):
    return np.matmul(x, y)


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                 ((1, 3), (3, 1)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
                 ((5, 2, 3), (5, 3, 4)), ((5, 2, 3), (3,)), ((3,), (5, 3, 4)),
                 ((2, 1, 2, 3), (4, 3, 2)), ((1, 2, 3), (4, 3, 2))]

case(matmul, (anything, anything), MATMUL_SHAPES, (0, 1))
case(np_matmul, (anything, anything), MATMUL_SHAPES[:6], (0, 1))


# ---------------------------------------------------- operators: indexing

def item_int(x):
    return x[1]


def item_negative(x):
    return x[-1]


def item_slice(x):
    return x[1:]


def item_step(x):
    return x[::-2]


def item_element(x):
    return x[1, 2]


def item_column(x):
    return x[:, 0]


def item_block(x):
    return x[0:2, ::-1]


def item_ellipsis(x):
    return x[..., 1]


def item_new_axis(x):
    return x[None, :, 1]


def item_fancy(x, index):
    return x[index]


def item_mask(x, mask):
    return x[mask]


def item_pairs(x, rows, columns):
    return x[rows, columns]


def item_by_argument(x, i):
    return x[i]


def item_slice_by_argument(x, i, j):
    return x[i:j]


def item_of_list(x, y):
    items = [x, y * 2.0, x * y]
    return items[1] + items[-1]


THREE_D = (2, 3, 3)
case(item_int, (anything,), [VECTOR, FULL, COLUMN, THREE_D])
case(item_negative, (anything,), [VECTOR, FULL, THREE_D])
case(item_slice, (anything,), [VECTOR, FULL, COLUMN, THREE_D])
case(item_step, (anything,), [VECTOR, FULL, THREE_D])
case(item_element, (anything,), [FULL, THREE_D])
case(item_column, (anything,), [FULL, COLUMN, THREE_D])
case(item_block, (anything,), [FULL, THREE_D])
case(item_ellipsis, (anything,), [FULL, THREE_D])
case(item_new_axis, (anything,), [FULL, THREE_D])
case(item_fancy, (anything, fixed(np.array([0, 2, 0]))), [(VECTOR, None), ((3, 2), None)])
case(item_mask, (anything, fixed(np.array([True, False, True]))), [(VECTOR, None), ((3, 2), None)],
     name="item_mask[first axis]")
case(item_mask, (anything, fixed(np.array([[True, False, True], [False, True, True]]))),
     [(FULL, None)], name="item_mask[full]")
case(item_pairs, (anything, fixed(np.array([1, 0, 1])), fixed(np.array([2, 2, 0]))),
     [(FULL, None, None), (THREE_D, None, None)])
case(item_by_argument, (anything, fixed(2)), [(VECTOR, None), ((3, 3), None)])
case(item_slice_by_argument, (anything, fixed(0), fixed(2)), [(VECTOR, None, None),
                                                              (FULL, None, None)])
case(item_of_list, (anything, anything), SOME_PAIRS, (0, 1))


def set_item(x, v):
    y = x * 1.0
    y[1] = v
    return y


def set_slice(x, v):
    y = x * 1.0
    y[:, 1:] = v
    return y


def set_fancy(x, v):
    y = x * 1.0
    y[np.array([0, 2])] = v
    return y


def updated_directly(x, v):
    return rt.updated(x, (0, 1), v)


case(set_item, (anything, anything), [(VECTOR, SCALAR), (FULL, SCALAR), (FULL, VECTOR),
                                      (FULL, ROW), ((2, 3, 3), (3,)), ((2, 3, 3), (3, 1))],
     (0, 1))
case(set_slice, (anything, anything), [(FULL, SCALAR), (FULL, (2, 2)), (FULL, (1, 2)),
                                       (FULL, COLUMN), (THREE_D, (3,)), (THREE_D, (2, 1, 3))],
     (0, 1))
case(set_fancy, (anything, anything), [(VECTOR, SCALAR), (VECTOR, (2,)), ((3, 2), (2, 2)),
                                       ((3, 2), (1, 2))], (0, 1))
case(updated_directly, (anything, anything), [(FULL, SCALAR), (THREE_D, VECTOR),
                                              (THREE_D, (1, 3))], (0, 1))


# ----------------------------------------------- operators: builtins and lists

def builtin_max(x, y):
    return max(x, y)


def builtin_min(x, y):
    return min(x, y)


def builtin_sum(x):
    return sum(x)


def builtin_sum_start(x, s):
    return sum(x, s)


def builtin_sum_of_list(x, y):
    return sum([x, y, x * y])


case(builtin_max, (anything, anything), [(SCALAR, SCALAR), (F64, SCALAR)], (0, 1),
     accept=far_apart(0, 1), wrap="math")
case(builtin_min, (anything, anything), [(SCALAR, SCALAR), (F64, SCALAR)], (0, 1),
     accept=far_apart(0, 1))
case(builtin_sum, (anything,), ARRAYS + (THREE_D,))
case(builtin_sum_start, (anything, anything), [(VECTOR, SCALAR), (FULL, VECTOR),
                                                (FULL, SCALAR)], (0, 1))
case(builtin_sum_of_list, (anything, anything), SOME_PAIRS, (0, 1))


def append_items(x, y):
    items = [x * 2.0]
    items.append(y * x)
    return np.array(items)


def appended_directly(x, y):
    return np.array(rt.appended([x, y], x * y))


def pop_items(x, y):
    items = [x * 2.0, y * x, y]
    last = items.pop()
    return np.array(items) * last


def all_but_last_directly(x, y):
    items = rt.all_but_last([x, y, x * y])
    return items[0] * items[1]


def append_ragged(x, y):
    items = [x]
    items.append(y * 2.0)
    return items[0] * 3.0 + np.sum(items[1])


for _f in (append_items, appended_directly, pop_items):
    case(_f, (anything, anything), [(SCALAR, SCALAR), (VECTOR, VECTOR), (FULL, FULL)], (0, 1))
case(all_but_last_directly, (anything, anything), SOME_PAIRS, (0, 1))
case(append_ragged, (anything, anything), [(SCALAR, VECTOR), (VECTOR, FULL)], (0, 1))


def builtin_pow(x, y):
    return pow(x, y)


case(builtin_pow, (positive, exponent), [(SCALAR, SCALAR), (F64, SCALAR), (FULL, SCALAR),
                                         (VECTOR, COLUMN), (SCALAR, ROW)], (0, 1))

# ------------------------------------------------------- numpy_elementwise.py

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


def square_by_product(x):
    return x * x


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
    (np_log2, positive), (np_log10, positive), (np_log1p, _draw(-0.5, 2.0)),
    (np_sqrt, positive), (np_cbrt, nonzero), (np_square, anything), (square_by_product, anything),
    (np_reciprocal, nonzero), (np_abs, nonzero), (np_absolute, nonzero), (np_fabs, nonzero),
    (builtin_abs, nonzero),
]
for _f, _domain in UNARY:
    case(_f, (_domain,), KINDS + (F64,))


def to_float(x):
    return float(x)


def to_float_of_item(x):
    return float(x[0, 1])


def to_float_of_sum(x):
    return float(np.sum(x * x))


case(to_float, (anything,), [SCALAR, F64, ZERO_D], wrap="math")
case(to_float_of_item, (anything,), [FULL, (3, 2)], wrap="math")
case(to_float_of_sum, (anything,), [VECTOR, FULL], wrap="math")


def np_logaddexp(x, y):
    return np.logaddexp(x, y)


def np_logaddexp2(x, y):
    return np.logaddexp2(x, y)


def logaddexp_of_large(x, y):
    return np.logaddexp(x * 400.0, y * 400.0)


def np_fmax(x, y):
    return np.fmax(x, y)


def np_fmin(x, y):
    return np.fmin(x, y)


def np_fmod(x, y):
    return np.fmod(x, y)


def np_heaviside(x, h):
    return np.heaviside(x, h)


def heaviside_at_zero(x, h):
    return np.heaviside(x * 0.0, h) * x


def np_copysign(x, y):
    return np.copysign(x, y)


def np_float_power(x, y):
    return np.float_power(x, y)


def np_where(x, y):
    return np.where(x > 0.2, x, y)


def where_of_constant(x):
    return np.where(x > 0.0, x * x, 1.0)


def np_clip(x, low, high):
    return np.clip(x, low, high)


def clip_below(x, low):
    return np.clip(x, low, None)


def clip_above(x, high):
    return np.clip(x, None, high)


def clip_method(x, high):
    return x.clip(max=high)


def clip_constants(x):
    return np.clip(x, -0.5, 0.5)


def np_ldexp(x):
    return np.ldexp(x, np.array([1, -2, 3]))


def np_nan_to_num(x):
    return np.nan_to_num(x)


def np_real(x):
    return np.real(x)


def np_imag(x):
    return np.imag(x) + x


def np_conj(x):
    return np.conj(x)


def np_conjugate(x):
    return np.conjugate(x)


def real_attribute(x):
    return x.real * 2.0 + x.imag


def conj_method(x):
    return x.conj() + x.conjugate()


def np_sinc(x):
    return np.sinc(x)


def sinc_near_zero(x):
    """Both sides of the switch to sinc's series at |x| = 0.01."""
    return (np.sinc(x * 0.01) - 1.0) * 1e4


def np_rad2deg(x):
    return np.rad2deg(x)


def np_deg2rad(x):
    return np.deg2rad(x)


def np_degrees(x):
    return np.degrees(x)


def np_radians(x):
    return np.radians(x)


def away_from_bounds(args):
    """clip: x at least 0.05 from each bound given (and low + 0.1 <= high)."""
    x = np.asarray(args[0], dtype=float)
    bounds = [np.asarray(b, dtype=float) for b in args[1:]]
    if len(bounds) == 2 and np.min(bounds[1] - bounds[0]) < 0.1:
        return False
    return all(np.min(np.abs(x - b)) > 0.05 for b in bounds)


for _f, _domains, _accept in [
        (np_logaddexp, (anything, anything), None), (np_logaddexp2, (anything, anything), None),
        (logaddexp_of_large, (anything, anything), None),
        (np_fmax, (anything, anything), far_apart(0, 1)),
        (np_fmin, (anything, anything), far_apart(0, 1)),
        (np_fmod, (wide, nonzero), away_from_jumps),
        (np_copysign, (nonzero, nonzero), None),
        (np_float_power, (positive, exponent), None),
        (np_where, (anything, anything), None)]:
    case(_f, _domains, SOME_PAIRS, (0, 1), accept=_accept)
case(np_heaviside, (nonzero, anything), SOME_PAIRS, (0, 1), zero_derivative=(0, 1))
case(heaviside_at_zero, (nonzero, anything), SOME_PAIRS, (0, 1))
case(np_clip, (anything, _draw(-1.5, -0.2), _draw(0.2, 1.5)),
     [(FULL, SCALAR, SCALAR), (VECTOR, ROW, SCALAR), (FULL, COLUMN, VECTOR), (SCALAR, FULL, ROW),
      (COLUMN, ROW, FULL), (F64, SCALAR, VECTOR)], (0, 1, 2), accept=away_from_bounds)
case(clip_below, (anything, anything), SOME_PAIRS, (0, 1), accept=away_from_bounds)
case(clip_above, (anything, anything), SOME_PAIRS, (0, 1), accept=away_from_bounds)
case(clip_method, (anything, anything), [(VECTOR, SCALAR), (FULL, ROW), (COLUMN, FULL),
                                         (FULL, FULL)], (0, 1), accept=away_from_bounds)
case(clip_constants, (anything,), KINDS, accept=lambda args: np.min(
    np.abs(np.abs(np.asarray(args[0])) - 0.5)) > 0.05 and np.min(np.abs(args[0])) < 0.5)
case(where_of_constant, (anything,), KINDS, accept=lambda args: np.min(
    np.abs(np.asarray(args[0]))) > 0.05 and np.max(args[0]) > 0.0)
case(np_ldexp, (anything,), [SCALAR, VECTOR, ROW, FULL])
case(np_imag, (anything,), KINDS)
case(real_attribute, (anything,), ARRAYS)
case(conj_method, (anything,), ARRAYS)
for _f, _domain in [(np_nan_to_num, anything), (np_real, anything), (np_conj, anything),
                    (np_conjugate, anything), (np_sinc, wide), (sinc_near_zero, anything),
                    (np_rad2deg, anything), (np_deg2rad, anything), (np_degrees, anything),
                    (np_radians, anything)]:
    case(_f, (_domain,), KINDS + (F64,))

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


MATH_UNARY = [
    (math_sin, anything), (math_cos, anything), (math_tan, unit), (math_asin, unit),
    (math_acos, unit), (math_atan, anything), (math_sinh, anything), (math_cosh, anything),
    (math_tanh, anything), (math_asinh, anything), (math_acosh, above_one),
    (math_atanh, unit), (math_exp, anything), (math_expm1, anything), (math_log, positive),
    (math_log2, positive), (math_log10, positive), (math_log1p, _draw(-0.5, 2.0)),
    (math_sqrt, positive), (math_fabs, nonzero), (math_erf, anything), (math_erfc, anything),
    (math_degrees, anything), (math_radians, anything),
]
for _f, _domain in MATH_UNARY:
    case(_f, (_domain,), [SCALAR, F64], wrap="math")

case(math_log_base, (positive, _draw(1.5, 4.0)), [(SCALAR, SCALAR)], (0, 1), wrap="math")
case(math_log_base, (positive, _draw(0.3, 0.7)), [(SCALAR, SCALAR)], (0, 1), wrap="math",
     name="math_log_base[base<1]")
case(math_atan2, (anything, anything), [(SCALAR, SCALAR)], (0, 1), accept=away_from_origin,
     wrap="math")
case(math_pow, (positive, exponent), [(SCALAR, SCALAR)], (0, 1), wrap="math")
case(math_hypot, (anything, anything), [(SCALAR, SCALAR)], (0, 1), accept=away_from_origin,
     wrap="math")


def math_fsum(x, y):
    return math.fsum([x, y * x, math.sin(y)])


def math_fsum_of_array(x):
    return math.fsum(x * x)


case(math_fsum, (anything, anything), [(SCALAR, SCALAR), (F64, SCALAR)], (0, 1), wrap="math")
case(math_fsum_of_array, (anything,), [VECTOR, (4,)], wrap="math")


def math_lgamma(x):
    return math.lgamma(x)


def math_gamma(x):
    return math.gamma(x)


def negative_non_integer(shape, rng):
    """In (-2.8, -2.2): between the poles of gamma at -3 and -2."""
    return _draw(-2.8, -2.2)(shape, rng)


for _f in (math_lgamma, math_gamma):
    case(_f, (positive,), [SCALAR, F64], wrap="math")
    case(_f, (negative_non_integer,), [SCALAR], wrap="math", name=_f.__name__ + "[negative]")
case(math_lgamma, (_draw(20.0, 40.0),), [SCALAR], wrap="math", name="math_lgamma[large]")

# ------------------------------------------------------- numpy_reductions.py

def sum_all(x):
    return np.sum(x)


def sum_axis0(x):
    return np.sum(x, axis=0)


def sum_last_axis(x):
    return np.sum(x, -1)


def sum_axes_keepdims(x):
    return np.sum(x, axis=(0, -1), keepdims=True)


def sum_keepdims(x):
    return np.sum(x, axis=1, keepdims=True)


def sum_method(x):
    return x.sum()


def sum_method_axis(x):
    return x.sum(axis=1)


def mean_all(x):
    return np.mean(x)


def mean_axis0(x):
    return np.mean(x, axis=0)


def mean_axes(x):
    return np.mean(x, axis=(0, 1))


def mean_keepdims(x):
    return np.mean(x, axis=-1, keepdims=True)


def mean_method(x):
    return x.mean()


def mean_method_axis(x):
    return x.mean(0)


REDUCED = [VECTOR, ROW, COLUMN, FULL, THREE_D]
case(sum_all, (anything,), [SCALAR] + REDUCED)
case(sum_axis0, (anything,), REDUCED)
case(sum_last_axis, (anything,), REDUCED)
case(sum_axes_keepdims, (anything,), REDUCED[1:])
case(sum_keepdims, (anything,), REDUCED[1:])
case(sum_method, (anything,), REDUCED)
case(sum_method_axis, (anything,), REDUCED[1:])
case(mean_all, (anything,), [SCALAR] + REDUCED)
case(mean_axis0, (anything,), REDUCED)
case(mean_axes, (anything,), REDUCED[1:])
case(mean_keepdims, (anything,), REDUCED)
case(mean_method, (anything,), REDUCED)
case(mean_method_axis, (anything,), REDUCED)


def max_all(x):
    return np.max(x)


def max_axis(x):
    return np.max(x, axis=1)


def amax_keepdims(x):
    return np.amax(x, axis=0, keepdims=True)


def max_method(x):
    return x.max(axis=-1)


def min_all(x):
    return np.min(x)


def amin_axis(x):
    return np.amin(x, axis=1)


def min_method(x):
    return x.min()


def min_method_keepdims(x):
    return x.min(axis=(0, 1), keepdims=True)


for _f, _combos in [(max_all, [SCALAR] + REDUCED), (max_axis, REDUCED[1:]),
                    (amax_keepdims, REDUCED), (max_method, REDUCED), (min_all, REDUCED),
                    (amin_axis, REDUCED[1:]), (min_method, REDUCED),
                    (min_method_keepdims, REDUCED[1:])]:
    case(_f, (spread,), _combos)


def norm(x):
    return np.linalg.norm(x)


def norm_axis(x):
    return np.linalg.norm(x, axis=1)


def norm_axis_keepdims(x):
    return np.linalg.norm(x, axis=0, keepdims=True)


def norm_two(x):
    return np.linalg.norm(x, 2)


case(norm, (nonzero,), [VECTOR, FULL, THREE_D])
case(norm_axis, (nonzero,), [FULL, COLUMN, THREE_D])
case(norm_axis_keepdims, (nonzero,), [FULL, ROW, THREE_D])
case(norm_two, (nonzero,), [VECTOR])


def var_all(x):
    return np.var(x)


def var_axis_ddof(x):
    return np.var(x, axis=1, ddof=1)


def var_keepdims(x):
    return np.var(x, axis=(0, -1), keepdims=True)


def var_method(x):
    return x.var(0)


def std_all(x):
    return np.std(x)


def std_axis(x):
    return np.std(x, axis=0, ddof=1)


def std_keepdims(x):
    return np.std(x, axis=-1, keepdims=True)


def std_method(x):
    return x.std(axis=1, ddof=1, keepdims=True)


def std_of_equal_values(x):
    return np.std(x * 0.0 + 1.0) + x


def ptp_all(x):
    return np.ptp(x)


def ptp_axis(x):
    return np.ptp(x, axis=1)


def ptp_keepdims(x):
    return np.ptp(x, axis=0, keepdims=True)


def nanmax_axis(x):
    return np.nanmax(x, axis=1)


def nanmin_all(x):
    return np.nanmin(x)


def nanmax_of_nans(x):
    return np.nanmax(np.where(np.array([[True, False, False], [False, False, True]]), np.nan, x),
                     axis=0)


def nansum_all(x):
    return np.nansum(x)


def nansum_of_nans(x):
    return np.nansum(np.where(np.array([True, False, False]), np.nan, x), axis=-1)


def nanmean_axis(x):
    return np.nanmean(x, axis=0)


def nanmean_of_nans(x):
    return np.nanmean(np.where(np.array([[True, False, False], [False, False, True]]), np.nan, x),
                      axis=1, keepdims=True)


def cumsum_flat(x):
    return np.cumsum(x)


def cumsum_axis(x):
    return np.cumsum(x, axis=1)


def cumsum_method(x):
    return x.cumsum(0)


def diff_last(x):
    return np.diff(x)


def diff_twice(x):
    return np.diff(x, 2, axis=0)


def diff_keyword(x):
    return np.diff(x, n=1, axis=-2)


DIFFERENCED = [VECTOR, FULL, (4, 3), THREE_D]
case(var_all, (anything,), REDUCED)
case(var_axis_ddof, (anything,), [FULL, (2, 4), THREE_D])
case(var_keepdims, (anything,), REDUCED[1:])
case(var_method, (anything,), [VECTOR, COLUMN, FULL, THREE_D])
case(std_all, (anything,), [VECTOR, ROW, FULL, THREE_D])
case(std_axis, (anything,), [COLUMN, FULL, THREE_D])
case(std_keepdims, (anything,), [VECTOR, ROW, FULL, THREE_D])
case(std_method, (anything,), [FULL, THREE_D])
case(std_of_equal_values, (anything,), [VECTOR, FULL])
for _f, _combos in [(ptp_all, REDUCED), (ptp_axis, [ROW, FULL, THREE_D]),
                    (ptp_keepdims, [VECTOR, COLUMN, FULL, THREE_D]),
                    (nanmax_axis, REDUCED[1:]), (nanmin_all, REDUCED),
                    (nanmax_of_nans, [FULL])]:
    case(_f, (spread,), _combos)
case(nansum_all, (anything,), REDUCED)
case(nansum_of_nans, (anything,), [VECTOR, ROW, FULL])
case(nanmean_axis, (anything,), REDUCED)
case(nanmean_of_nans, (anything,), [FULL])
case(cumsum_flat, (anything,), [SCALAR] + REDUCED)
case(cumsum_axis, (anything,), REDUCED[1:])
case(cumsum_method, (anything,), REDUCED)


def with_zeros(shape, rng):
    """Like ``anything``, with one element exactly 0 in arrays of 3 or more (prod is a
    polynomial: smooth at its zeros, where dividing by x would fail; with two zeros in a
    slice its gradient is 0: tests/test_template_regressions.py checks those)."""
    values = anything(shape, rng)
    if isinstance(shape, tuple) and int(np.prod(shape)) >= 3:
        values.reshape(-1)[rng.integers(values.size)] = 0.0
    return values


def cumprod_flat(x):
    return np.cumprod(x)


def cumprod_axis(x):
    return np.cumprod(x, axis=1)


def cumprod_method(x):
    return x.cumprod(axis=0)


case(cumprod_flat, (anything,), [SCALAR] + REDUCED)
case(cumprod_flat, (with_zeros,), REDUCED, name="cumprod_flat[zeros]")
case(cumprod_axis, (with_zeros,), REDUCED[1:])
case(cumprod_method, (with_zeros,), REDUCED)
case(diff_last, (anything,), DIFFERENCED)
case(diff_twice, (anything,), [(4,), (4, 3), (4, 1), (4, 2, 3)])
case(diff_keyword, (anything,), [FULL, (4, 3), (3, 1), THREE_D])


def prod_all(x):
    return np.prod(x)


def prod_axis(x):
    return np.prod(x, axis=1)


def prod_keepdims(x):
    return np.prod(x, axis=(0, -1), keepdims=True)


def prod_method(x):
    return x.prod()


def prod_method_axis(x):
    return x.prod(axis=0)


case(prod_all, (anything,), [SCALAR] + REDUCED, name="prod_all")
case(prod_all, (with_zeros,), REDUCED, name="prod_all[zeros]")
case(prod_axis, (with_zeros,), REDUCED[1:])
case(prod_keepdims, (with_zeros,), REDUCED[1:])
case(prod_method, (with_zeros,), REDUCED)
case(prod_method_axis, (with_zeros,), REDUCED)


def average_all(x):
    return np.average(x)


def average_axis(x):
    return np.average(x, axis=1)


def average_weighted(x, w):
    return np.average(x, weights=w)


def average_weighted_axis(x, w):
    return np.average(x, axis=0, weights=w)


def average_weighted_keepdims(x, w):
    return np.average(x, 1, w, keepdims=True)


def average_weights_along_axis(x, w):
    return np.average(x, axis=-1, weights=w)


case(average_all, (anything,), REDUCED)
case(average_axis, (anything,), [ROW, FULL, THREE_D])
case(average_weighted, (anything, positive), [(VECTOR, VECTOR), (FULL, FULL), (THREE_D, THREE_D)],
     (0, 1))
case(average_weighted_axis, (anything, positive), [(FULL, FULL), (COLUMN, COLUMN),
                                                   (THREE_D, THREE_D)], (0, 1))
case(average_weighted_keepdims, (anything, positive), [(FULL, FULL), (THREE_D, THREE_D),
                                                       (FULL, VECTOR)], (0, 1))
case(average_weights_along_axis, (anything, positive), [(FULL, VECTOR), (THREE_D, VECTOR),
                                                        (COLUMN, (1,))], (0, 1))


def median_all(x):
    return np.median(x)


def median_axis(x):
    return np.median(x, axis=1)


def median_keepdims(x):
    return np.median(x, axis=0, keepdims=True)


def quantile_all(x):
    return np.quantile(x, 0.3)


def quantiles_axis(x):
    return np.quantile(x, np.array([0.1, 0.75, 1.0]), axis=-1)


def percentile_axis(x):
    return np.percentile(x, 40.0, axis=0)


def percentiles_keepdims(x):
    return np.percentile(x, [20, 90], axis=(0, -1), keepdims=True)


for _f, _combos in [(median_all, [SCALAR] + REDUCED), (median_axis, [ROW, FULL, THREE_D]),
                    (median_keepdims, [VECTOR, COLUMN, FULL, THREE_D]),
                    (quantile_all, REDUCED), (quantiles_axis, REDUCED),
                    (percentile_axis, [VECTOR, COLUMN, FULL, THREE_D]),
                    (percentiles_keepdims, REDUCED[1:])]:
    case(_f, (spread,), _combos)

# ----------------------------------------------------------- numpy_linalg.py

def dot(x, y):
    return np.dot(x, y)


def dot_method(x, y):
    return x.dot(y)


def outer(x, y):
    return np.outer(x, y)


DOT_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((), (3,)),
              ((3, 2), ()), ((), ()), ((2, 3, 4), (4, 5)), ((2, 3), (4, 3, 5)),
              ((2, 3, 4), (4,)), ((1, 3), (3, 1))]
case(dot, (anything, anything), DOT_SHAPES, (0, 1))
case(dot_method, (anything, anything), DOT_SHAPES[:4] + DOT_SHAPES[7:8], (0, 1))
case(outer, (anything, anything), [((3,), (4,)), ((2, 2), (3,)), ((), (3,)), ((), ()),
                                   ((1, 3), (2, 1))], (0, 1))


# ------------------------------------------------------------ numpy_shape.py

def reshape(x):
    return np.reshape(x, (3, 2))


def reshape_fortran(x):
    return np.reshape(x, (3, -1), order="F")


def reshape_method(x):
    return x.reshape(3, 2)


def reshape_method_tuple(x):
    return x.reshape((1, -1))


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


def transpose_method(x):
    return x.transpose()


def transpose_method_axes(x):
    return x.transpose(2, 0, 1)


def transpose_attribute(x):
    return x.T


def squeeze(x):
    return np.squeeze(x)


def squeeze_axis(x):
    return np.squeeze(x, axis=0)


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


def astype(x):
    return x.astype(np.float64)


def broadcast_to(x):
    return np.broadcast_to(x, (2, 3)) * 1.0  # a read-only view: multiplied, as user code would


case(broadcast_to, (anything,), [SCALAR, VECTOR, ROW, COLUMN, FULL, F64])


SIX = [(6,), FULL, (3, 2), (1, 6), (6, 1), (1, 2, 3)]
case(reshape, (anything,), SIX)
case(reshape_fortran, (anything,), SIX)
case(reshape_method, (anything,), SIX)
case(reshape_method_tuple, (anything,), SIX)
for _f in (ravel, ravel_method, flatten_method):
    case(_f, (anything,), [VECTOR, ROW, COLUMN, FULL, THREE_D])
case(transpose, (anything,), [VECTOR, ROW, COLUMN, FULL, THREE_D])
case(transpose_axes, (anything,), [THREE_D, (1, 2, 3)])
case(transpose_method, (anything,), [VECTOR, COLUMN, FULL, THREE_D])
case(transpose_method_axes, (anything,), [THREE_D, (3, 1, 2)])
case(transpose_attribute, (anything,), [VECTOR, ROW, COLUMN, FULL, THREE_D])
case(squeeze, (anything,), [ROW, COLUMN, (1, 3, 1), (2, 1, 3)])
case(squeeze_axis, (anything,), [ROW, (1, 2, 3), (1, 1)])
case(squeeze_method, (anything,), [ROW, COLUMN, (2, 1, 3)])
case(expand_dims, (anything,), [SCALAR, VECTOR, FULL])
case(expand_dims_last, (anything,), [VECTOR, ROW, FULL])
for _f in (copy_method, astype):
    case(_f, (anything,), ARRAYS + (ZERO_D, F64))
case(np_copy, (anything,), KINDS + (ZERO_D, F64))
for _f in (np_array, np_asarray):
    case(_f, (anything,), KINDS + (F64, ZERO_D))


def np_array_of_items(x, y):
    return np.array([x, y, x * y])


case(np_array_of_items, (anything, anything), [(SCALAR, SCALAR), (VECTOR, VECTOR),
                                               (FULL, FULL)], (0, 1))


# ----------------------------------------------------------- numpy_creation.py

def full_like(a, v):
    return np.full_like(a, v)


def full_like_of_ints(v):
    return np.full_like(np.arange(3), v) * v  # an integer array: v is rounded, derivative 0


def full(v):
    return np.full((2, 3), v)


def linspace(start, stop):
    return np.linspace(start, stop, 5)


def linspace_open(start, stop):
    return np.linspace(start, stop, 4, endpoint=False)


def linspace_axis(start, stop):
    return np.linspace(start, stop, 3, axis=-1)


def linspace_one(start, stop):
    return np.linspace(start, stop, 1)


def arange_from(start):
    return np.arange(start, 3.0)


def arange_by(start, step):
    return np.arange(start, 2.0, step)


def arange_to(stop):
    return np.arange(stop) * stop  # one argument: the stop, derivative 0 but in the product


case(full_like, (anything, anything), [(FULL, SCALAR), (FULL, VECTOR), (FULL, COLUMN),
                                       (VECTOR, SCALAR), (ROW, F64)], (0, 1),
     zero_derivative=(0,))
case(full_like_of_ints, (_draw(1.2, 1.8),), [SCALAR])
case(full, (anything,), [SCALAR, VECTOR, ROW, COLUMN, FULL])
LINSPACE = [(SCALAR, SCALAR), (SCALAR, VECTOR), (VECTOR, SCALAR), (VECTOR, FULL), (ROW, COLUMN),
            (F64, SCALAR)]
case(linspace, (anything, anything), LINSPACE, (0, 1))
case(linspace_open, (anything, anything), LINSPACE[:4], (0, 1))
case(linspace_axis, (anything, anything), LINSPACE[1:5], (0, 1))
case(linspace_one, (anything, anything), [(SCALAR, SCALAR), (VECTOR, VECTOR)], (0, 1),
     zero_derivative=(1,))
case(arange_from, (_draw(-0.95, 0.95),), [SCALAR, F64])
case(arange_by, (_draw(-0.9, -0.1), _draw(0.35, 0.45)), [(SCALAR, SCALAR)], (0, 1),
     accept=lambda args: abs((2.0 - args[0]) / args[1] % 1 - 0.5) < 0.4)
case(arange_to, (_draw(2.2, 2.8),), [SCALAR])


# np.r_, np.c_ (rt.concatenated), np.concatenate, np.stack: pieces of a list

def r_of(x, y):
    return np.r_[x, y, 2.0 * x]


def c_of(x, y):
    return np.c_[x, y]


def r_with_range(x):
    return np.r_[0:2, x]


def concatenate(x, y):
    return np.concatenate([x, y * 2.0])


def concatenate_axis(x, y):
    return np.concatenate([x, y], axis=-1)


def concatenate_flat(x, y):
    return np.concatenate([x, y], axis=None)


def stack(x, y):
    return np.stack([x, y * x])


def stack_axis(x, y):
    return np.stack([x, y], axis=-1)


case(r_of, (anything, anything), [(SCALAR, SCALAR), (VECTOR, SCALAR), (VECTOR, (2,)),
                                  (FULL, (1, 3)), (F64, VECTOR)], (0, 1))
case(c_of, (anything, anything), [(VECTOR, VECTOR), (FULL, COLUMN), (FULL, FULL),
                                  (SCALAR, SCALAR)], (0, 1))
case(r_with_range, (anything,), [SCALAR, VECTOR])
case(concatenate, (anything, anything), [(VECTOR, (2,)), (FULL, ROW), (THREE_D, (1, 3, 3))],
     (0, 1))
case(concatenate_axis, (anything, anything), [(FULL, COLUMN), (THREE_D, (2, 3, 1))], (0, 1))
case(concatenate_flat, (anything, anything), [(FULL, VECTOR), (COLUMN, ROW)], (0, 1))
case(stack, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1))
case(stack_axis, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1))


# np.split: a list result of unequal parts, each part's adjoint its own array
def split_unequal(x):
    first, rest = np.split(x, [1])
    return first * np.sum(rest ** 2)


def split_sections(x):
    left, right = np.split(x, 2, axis=-1)
    return np.sin(left) * right


def split_one_part_used(x):
    parts = np.split(x, [1, 2])
    return parts[2] ** 2


case(split_unequal, (anything,), [VECTOR, FULL, THREE_D])
case(split_sections, (anything,), [(2, 4), (3, 2)])
case(split_one_part_used, (anything,), [VECTOR, (4, 2)])  # the parts: 1, 1, the rest


def pieces_of(g):
    return rt.pieces_of(g, np.r_, [np.ones(2), 0.5, np.ones(3)])[2]


def pieces_of_columns(g):
    parts = rt.pieces_of(g, np.c_, [np.ones(2), np.ones((2, 3))])
    return parts[0] * parts[1][:, 1]


def split_along(g):
    return rt.split_along(g, [np.ones((2, 3)), np.ones((1, 3))], 0)[0]


def unstacked(g):
    parts = rt.unstacked(g, [np.ones(3), np.ones(3)], 1)
    return parts[0] * parts[1]


case(pieces_of, (anything,), [(6,)])
case(pieces_of_columns, (anything,), [(2, 4)])
case(split_along, (anything,), [(3, 3)])
case(unstacked, (anything,), [(3, 2)])


def copysign(x, y):
    return math.copysign(x, y)


case(copysign, (nonzero, nonzero), [(SCALAR, SCALAR)], (0, 1), zero_derivative=(1,),
     wrap="math")


# ------------------------------------------- records and loops (containers)

def attribute_of_pair(p):
    return p.w * p.b


def field_of_layer(layer):
    return np.sin(layer.w) * layer.b


def loop_over(x):
    s = 0.0
    for v in x:  # for v in rt.iterated(x)
        s = s + np.sin(v) * v
    return s


case(attribute_of_pair, (pair,), [SCALAR, VECTOR, FULL])
case(field_of_layer, (layer,), [SCALAR, VECTOR, COLUMN])
case(loop_over, (anything,), [VECTOR, FULL, COLUMN])


# -------------------------------------------- runtime helpers (generated code's)
# Generated code calls these; differentiating it again (hvp, grad of grad) uses
# their templates, so each is checked like any primitive, on the shapes it meets.

def unbroadcast(g, x):
    return rt.unbroadcast(g, x)


def _unbroadcast_shapes():
    combos = []
    for g, x in pairs():
        if np.broadcast_shapes(np.shape(np.zeros(g)), np.shape(np.zeros(x))) == g:
            combos.append((g, x))
    return combos + [(SCALAR, VECTOR), (SCALAR, FULL), (THREE_D, VECTOR), (THREE_D, (3, 1)),
                     (THREE_D, SCALAR)]


case(unbroadcast, (anything, anything), _unbroadcast_shapes(), (0, 1), zero_derivative=(1,))


def expand_reduced_all(g, x):
    return rt.expand_reduced(g, x)


def expand_reduced_axis(g, x):
    return rt.expand_reduced(g, x, 1)


def expand_reduced_keepdims(g, x):
    return rt.expand_reduced(g, x, (0, -1), True)


def _adjoint_shapes(primal, shapes):
    """(g, x) shapes: g shaped like primal(x), the adjoint a helper maps back to x's shape."""
    return [(np.shape(primal(np.zeros(x))), x) for x in shapes]


case(expand_reduced_all, (anything, anything), [(SCALAR, VECTOR), (SCALAR, FULL),
                                                (SCALAR, SCALAR)], (0, 1), zero_derivative=(1,))
case(expand_reduced_axis, (anything, anything),
     _adjoint_shapes(lambda x: np.sum(x, axis=1), [FULL, COLUMN, THREE_D]), (0, 1),
     zero_derivative=(1,))
case(expand_reduced_keepdims, (anything, anything),
     _adjoint_shapes(lambda x: np.sum(x, axis=(0, -1), keepdims=True), [FULL, THREE_D]),
     (0, 1), zero_derivative=(1,))


def unindex_int(g, x):
    return rt.unindex(g, x, 1)


def unindex_slice(g, x):
    return rt.unindex(g, x, (slice(None), slice(1, None)))


def unindex_fancy(g, x):
    return rt.unindex(g, x, np.array([0, 2, 0]))


case(unindex_int, (anything, anything), _adjoint_shapes(lambda x: x[1], [VECTOR, FULL, THREE_D]),
     (0, 1), zero_derivative=(1,))
case(unindex_slice, (anything, anything), _adjoint_shapes(lambda x: x[:, 1:], [FULL, THREE_D]),
     (0, 1), zero_derivative=(1,))
case(unindex_fancy, (anything, anything),
     _adjoint_shapes(lambda x: x[np.array([0, 2, 0])], [VECTOR, (4, 3)]), (0, 1),
     zero_derivative=(1,))


def without_int(g):
    return rt.without(g, 1)


def without_slice(g):
    return rt.without(g, (slice(None), slice(0, 2)))


case(without_int, (anything,), [VECTOR, FULL, THREE_D])
case(without_slice, (anything,), [FULL, THREE_D])


def match_type(g, x):
    return rt.match_type(g, x)


def owned(g):
    return rt.owned(g)


def match_tangent(t, value):
    return rt.match_tangent(t, value)


case(match_type, (anything, anything), [(SCALAR, SCALAR), (F64, SCALAR), (ZERO_D, SCALAR),
                                        (FULL, FULL), (VECTOR, VECTOR)], (0, 1),
     zero_derivative=(1,))
case(owned, (anything,), KINDS + (F64,))
case(match_tangent, (anything, anything), [(SCALAR, SCALAR), (F64, SCALAR), (SCALAR, VECTOR),
                                           (SCALAR, FULL), (VECTOR, FULL), (ROW, FULL),
                                           (COLUMN, FULL), (FULL, FULL)], (0, 1),
     zero_derivative=(1,))


def log_of_base(a):
    return rt.log_of_base(a)


case(log_of_base, (positive,), KINDS + (F64,))


def nonzero_or_one(a):
    return rt.nonzero(a)


case(nonzero_or_one, (positive,), KINDS + (F64,))


def times_log_of_base(h, a):
    return rt.times_log_of_base(h, a)


case(times_log_of_base, (anything, positive), pairs() + SCALAR_MIXES, (0, 1))


def field_of(t):
    return rt.field_of(t, PAIR, "b")


def unfield(g):
    return np.array(rt.unfield(g, PAIR, "b"))


def iterated(x):
    return rt.iterated(x)


def iterated_adjoint(g, x):
    return rt.iterated_adjoint(g, x)


def iterated_tangent(t, x):
    return rt.iterated_tangent(t, x)


def list_of_rows(x):
    return np.array(list(np.sin(x))) * 2.0  # list(x): the rows (or the elements) of x


def tuple_of_rows(x):
    return np.array(tuple(x * x))


def sequence_adjoint(g, x):
    return rt.sequence_adjoint(g, x)


def sequence_tangent(t, x):
    return np.array(rt.sequence_tangent(t, x))


PAIR = Pair(np.ones(3), np.ones(3))
case(list_of_rows, (anything,), [VECTOR, FULL])
case(tuple_of_rows, (anything,), [VECTOR, FULL])
case(sequence_adjoint, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1),
     zero_derivative=(1,))
case(sequence_tangent, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1),
     zero_derivative=(1,))
case(field_of, (pair,), [VECTOR])
case(unfield, (anything,), [VECTOR])
case(iterated, (anything,), [VECTOR, FULL])
case(iterated_adjoint, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1),
     zero_derivative=(1,))
case(iterated_tangent, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1),
     zero_derivative=(1,))


def power_derivative(x, y):
    return rt.power_derivative(x, y, 2)


def falling_factorial(y):
    return rt.falling_factorial(y, 3, 1)


def if_inexact(g):
    return rt.if_inexact(g, np.ones(3))


def check_scalar_output(x):
    return rt.check_scalar_output(x * 2.0, "here:1:0")


case(power_derivative, (positive, exponent), SOME_PAIRS, (0, 1))
case(falling_factorial, (anything,), KINDS + (F64,))
case(if_inexact, (anything,), KINDS)
case(check_scalar_output, (anything,), [SCALAR, F64, ZERO_D])


def extremum_adjoint_all(g, x):
    return rt.extremum_adjoint(g, x, np.max(x))


def extremum_adjoint_axis(g, x):
    return rt.extremum_adjoint(g, x, np.min(x, axis=1), 1)


def extremum_adjoint_keepdims(g, x):
    return rt.extremum_adjoint(g, x, np.max(x, axis=0, keepdims=True), 0, True)


case(extremum_adjoint_all, (anything, spread), [(SCALAR, VECTOR), (SCALAR, FULL)], (0, 1),
     zero_derivative=(1,))
case(extremum_adjoint_axis, (anything, spread),
     _adjoint_shapes(lambda x: np.min(x, axis=1), [FULL, THREE_D]), (0, 1),
     zero_derivative=(1,))
case(extremum_adjoint_keepdims, (anything, spread),
     _adjoint_shapes(lambda x: np.max(x, axis=0, keepdims=True), [FULL, THREE_D]), (0, 1),
     zero_derivative=(1,))


def norm_adjoint_all(g, x, y):
    return rt.norm_adjoint(g, x, y)


def norm_adjoint_axis(g, x, y):
    return rt.norm_adjoint(g, x, y, None, 1)


def norm_adjoint_keepdims(g, x, y):
    return rt.norm_adjoint(g, x, y, None, 0, True)


case(norm_adjoint_all, (anything, anything, positive), [(SCALAR, VECTOR, SCALAR),
                                                        (SCALAR, FULL, SCALAR)], (0, 1, 2))
case(norm_adjoint_axis, (anything, anything, positive),
     [(g, x, g) for g, x in _adjoint_shapes(lambda x: np.sum(x, axis=1), [FULL, THREE_D])],
     (0, 1, 2))
case(norm_adjoint_keepdims, (anything, anything, positive), [(ROW, FULL, ROW)], (0, 1, 2))


def dot_adjoint_left(g, a, b):
    return rt.dot_adjoint_left(g, a, b)


def dot_adjoint_right(g, a, b):
    return rt.dot_adjoint_right(g, a, b)


def matmul_adjoint_left(g, a, b):
    return rt.matmul_adjoint_left(g, a, b)


def matmul_adjoint_right(g, a, b):
    return rt.matmul_adjoint_right(g, a, b)


def _product_shapes(product, shapes):
    """(g, a, b) shapes: g shaped like product(a, b)."""
    out = []
    for a, b in shapes:
        g = np.shape(product(np.zeros(a), np.zeros(b)))
        out.append((g, a, b))
    return out


case(dot_adjoint_left, (anything, anything, anything), _product_shapes(np.dot, DOT_SHAPES),
     (0, 1, 2), zero_derivative=(1,))
case(dot_adjoint_right, (anything, anything, anything), _product_shapes(np.dot, DOT_SHAPES),
     (0, 1, 2), zero_derivative=(2,))
case(matmul_adjoint_left, (anything, anything, anything),
     _product_shapes(np.matmul, MATMUL_SHAPES), (0, 1, 2), zero_derivative=(1,))
case(matmul_adjoint_right, (anything, anything, anything),
     _product_shapes(np.matmul, MATMUL_SHAPES), (0, 1, 2), zero_derivative=(2,))


def added_at_int(x, g):
    return rt.added_at(x, 1, g)


def added_at_fancy(x, g):
    return rt.added_at(x, np.array([0, 2, 0]), g)


case(added_at_int, (anything, anything), [(VECTOR, SCALAR), (FULL, VECTOR), (FULL, SCALAR),
                                          (THREE_D, ROW)], (0, 1))
case(added_at_fancy, (anything, anything), [(VECTOR, VECTOR), (VECTOR, SCALAR),
                                            ((3, 2), (3, 2)), ((3, 2), (2,))], (0, 1))


# forward mode's in-place helpers: followed by forward mode only
def add_at_in_place(x, g):
    total = x * 1.0
    total = rt.add_at(total, 1, g)
    return total


def append_in_place(x, y):
    items = [x * 2.0]
    items = rt.append_in_place(items, y * x)
    return np.array(items)


def pop_in_place(x, y):
    items = [x * 2.0, y * x, y]
    items = rt.pop_in_place(items)
    return np.array(items)


case(add_at_in_place, (anything, anything), [(VECTOR, SCALAR), (FULL, VECTOR)], (0, 1),
     forward_only=True)
case(append_in_place, (anything, anything), [(SCALAR, SCALAR), (VECTOR, VECTOR)], (0, 1),
     forward_only=True)
case(pop_in_place, (anything, anything), [(SCALAR, SCALAR), (VECTOR, VECTOR)], (0, 1),
     forward_only=True)


# builtin sum of a list or tuple of items of different shapes, and its helpers
def sum_of_mixed_items(x, y):
    return sum((x, y * y, 2.0))


def sum_adjoint(g, x):
    return rt.sum_adjoint(g, [x, 1.0])[0] + rt.sum_adjoint(g[0], x)  # (g[0]: a row's shape)


def sum_tangent(t, x):
    return rt.sum_tangent([t, t * x], [x, x]) + rt.sum_tangent(t, x)


case(sum_of_mixed_items, (anything, anything), pairs(), (0, 1))
case(sum_adjoint, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1),
     zero_derivative=(1,))
case(sum_tangent, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1))


# dicts copied by unpacking ({**first, "b": v}) and the helpers of their derivatives
def merged_entries(x, y):
    entries = rt.merged({"a": x, "b": y}, {"b": y * x, "c": x})
    return entries["a"] * entries["b"] + entries["c"]


def entries_of(g, x):
    picked = rt.entries_of({"a": g * x, "b": x, "c": g}, {"a": x, "c": x}, {"c": 0.0})
    return picked["a"] + picked["c"]


def merged_tangent(t, x):
    made = rt.merged_tangent({"a": t, "b": x}, {"b": t * x}, {"a": x, "b": x}, {"b": x})
    return made["a"] + made["b"]


case(merged_entries, (anything, anything), pairs(), (0, 1))
case(entries_of, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1))
case(merged_tangent, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1))


# the scans' adjoints (numpy_reductions.py: cumsum, diff)
def reverse_cumsum_flat(g, x):
    return rt.reverse_cumsum(g, x)


def reverse_cumsum_axis(g, x):
    return rt.reverse_cumsum(g, x, 1)


def diff_adjoint(g):
    return rt.diff_adjoint(g)


def diff_adjoint_twice(g):
    return rt.diff_adjoint(g, 2, 0)


case(reverse_cumsum_flat, (anything, anything),
     _adjoint_shapes(lambda x: np.cumsum(x), [VECTOR, FULL, THREE_D]), (0, 1),
     zero_derivative=(1,))
case(reverse_cumsum_axis, (anything, anything),
     _adjoint_shapes(lambda x: np.cumsum(x, 1), [FULL, COLUMN, THREE_D]), (0, 1),
     zero_derivative=(1,))
case(diff_adjoint, (anything,), [VECTOR, FULL, (2, 1), THREE_D])
case(diff_adjoint_twice, (anything,), [(3,), FULL, (1, 2), THREE_D])


# prod's adjoint; its own second order (prod's third) is not supported
def product_of_others(x):
    return rt.product_of_others(x)


def product_of_others_axis(x):
    return rt.product_of_others(x, (0, 2))


_THIRD_ORDER = "prod's third derivatives: rt.product_of_others_tangent has no template"
case(product_of_others, (with_zeros,), [VECTOR, FULL, THREE_D],
     second_order=_THIRD_ORDER)
case(product_of_others_axis, (with_zeros,), [THREE_D, (2, 1, 4)], second_order=_THIRD_ORDER)


# np.average's weights laid over x, and back
def weights_along(w, x):
    return rt.weights_along(w, x, -1)


def weights_along_adjoint(g, w):
    return rt.weights_along_adjoint(g, w, 1)


case(weights_along, (anything, anything), [(VECTOR, FULL), (VECTOR, THREE_D), (FULL, FULL)],
     (0, 1), zero_derivative=(1,))
case(weights_along_adjoint, (anything, anything), [(FULL, VECTOR), (THREE_D, VECTOR),
                                                   (FULL, FULL)], (0, 1), zero_derivative=(1,))


# the quantiles' adjoint and tangent (median, quantile, percentile): transposes of each other
def quantile_adjoint(g, x):
    return rt.quantile_adjoint(g, x, np.array([0.25, 0.5]), 1)


def quantile_tangent(t, x):
    return rt.quantile_tangent(t, x, 0.4, None, True)


case(quantile_adjoint, (anything, spread), [((2, 2), FULL), ((2, 2, 3), THREE_D)], (0, 1),
     zero_derivative=(1,))
case(quantile_tangent, (anything, spread), [(FULL, FULL), (THREE_D, THREE_D), (VECTOR, FULL)],
     (0, 1), zero_derivative=(1,))


def math_polygamma(x):
    return rt.math_polygamma(1, x)


case(math_polygamma, (positive,), [SCALAR], wrap="math")
case(math_polygamma, (negative_non_integer,), [SCALAR], wrap="math",
     name="math_polygamma[negative]")


# cumprod's adjoint and tangent; their own second order (cumprod's third) is not supported
def cumprod_adjoint(g, x):
    return rt.cumprod_adjoint(g, x, 1)


def cumprod_tangent(t, x):
    return rt.cumprod_tangent(t, x)


_CUMPROD_THIRD_ORDER = ("cumprod's third derivatives: rt.cumprod_adjoint_tangent and "
                        "rt.cumprod_second have no templates")
case(cumprod_adjoint, (anything, with_zeros), [(FULL, FULL), (THREE_D, THREE_D)], (0, 1),
     second_order=_CUMPROD_THIRD_ORDER)
case(cumprod_tangent, (anything, with_zeros), [(FULL, FULL), (VECTOR, FULL), (THREE_D, THREE_D)],
     (0, 1), second_order=_CUMPROD_THIRD_ORDER)
# ---------------------- shape functions: flips, rolls, axis moves, copies, gathers, joins

def flip_all(x):
    return np.flip(x)


def flip_axis(x):
    return np.flip(x, axis=-1)


def flip_axes(x):
    return np.flip(x, (0, 1)) * x


def fliplr(x):
    return np.fliplr(x)


def flipud(x):
    return np.flipud(x) * x


def roll_flat(x):
    return np.roll(x, 2)


def roll_axis(x):
    return np.roll(x, -1, axis=1) * x


def roll_axes(x):
    return np.roll(x, (1, 2), axis=(0, 1))


def rot90(x):
    return np.rot90(x)


def rot90_k(x):
    return np.rot90(x, 3, axes=(1, 0))


def rot90_twice(x):
    return np.rot90(x, 2) * x


def swapaxes(x):
    return np.swapaxes(x, 0, -1)


def swapaxes_method(x):
    return x.swapaxes(1, 2)


def moveaxis(x):
    return np.moveaxis(x, 0, -1)


def moveaxis_several(x):
    return np.moveaxis(x, (0, 1), (2, 0))


def rollaxis(x):
    return np.rollaxis(x, 2)


def rollaxis_start(x):
    return np.rollaxis(x, 0, 2)


def atleast_1d(x):
    return np.atleast_1d(x)


def atleast_2d(x):
    return np.atleast_2d(x) * 2.0


def atleast_3d(x):
    return np.atleast_3d(x)


for _f in (flip_all, flip_axis, roll_flat):
    case(_f, (anything,), list(ARRAYS) + [THREE_D])
for _f in (flip_axes, fliplr, flipud, roll_axis, roll_axes, rot90, rot90_k, rot90_twice):
    case(_f, (anything,), [FULL, ROW, COLUMN, THREE_D])
case(swapaxes, (anything,), [VECTOR, FULL, THREE_D])
for _f in (swapaxes_method, moveaxis_several, rollaxis):
    case(_f, (anything,), [THREE_D, (2, 1, 3)])
case(moveaxis, (anything,), [VECTOR, FULL, THREE_D])
case(rollaxis_start, (anything,), [FULL, THREE_D])
for _f in (atleast_1d, atleast_2d, atleast_3d):
    case(_f, (anything,), [SCALAR, VECTOR, FULL, THREE_D])


def tile(x):
    return np.tile(x, 2)


def tile_reps(x):
    return np.tile(x, (2, 1, 3))


def repeat_flat(x):
    return np.repeat(x, 2)


def repeat_axis(x):
    return np.repeat(x, 3, axis=-1)


def repeat_each(x):
    return np.repeat(x, [2, 0, 1], axis=1)


def repeat_method(x):
    return x.repeat(2, axis=0)


def take_flat(x):
    return np.take(x, np.array([[0, 2], [2, 1]]))


def take_axis(x):
    return np.take(x, np.array([2, 0, 2, 1]), axis=1)


def take_wrap(x):
    return np.take(x, np.array([[-1, 4], [3, 0]]), axis=-1, mode="wrap")


def take_method(x):
    return x.take(np.array([1, 1]), axis=0)


def take_along_axis(x):
    return np.take_along_axis(x, np.array([[0, 2, 2, 1], [1, 0, 0, 0]]), axis=0)


def take_along_flat(x):
    return np.take_along_axis(x, np.array([5, 0, 0]), axis=None)


case(tile, (anything,), [SCALAR, VECTOR, FULL, COLUMN])
case(tile_reps, (anything,), [SCALAR, VECTOR, FULL, THREE_D])
case(repeat_flat, (anything,), [SCALAR, VECTOR, FULL])
case(repeat_axis, (anything,), [VECTOR, FULL, COLUMN])
case(repeat_each, (anything,), [FULL, THREE_D])
case(repeat_method, (anything,), [VECTOR, FULL])
case(take_flat, (anything,), [VECTOR, FULL])
case(take_axis, (anything,), [FULL, THREE_D])
case(take_wrap, (anything,), [VECTOR, FULL])
case(take_method, (anything,), [FULL, THREE_D])
case(take_along_axis, (anything,), [(3, 4), (3, 1)])  # (3, 1): broadcast to the indices
case(take_along_flat, (anything,), [FULL, (6,)])


def pad_constant(x):
    return np.pad(x, 1, constant_values=0.5)


def pad_widths(x):
    return np.pad(x, ((0, 2), (1, 1)))


def pad_edge(x):
    return np.pad(x, (1, 2), mode="edge")


def pad_reflect(x):
    return np.pad(x, ((1, 1), (2, 1)), mode="reflect")


case(pad_constant, (anything,), [VECTOR, FULL, THREE_D])
case(pad_widths, (anything,), [FULL, ROW])
case(pad_edge, (anything,), [VECTOR, FULL, COLUMN])
case(pad_reflect, (anything,), [FULL, (3, 4)])


def hstack(x, y):
    return np.hstack([x, y * x])


def hstack_unequal(x, y):
    return np.hstack((x, y))


def vstack(x, y):
    return np.vstack([x, 2.0 * y])


def dstack(x, y):
    return np.dstack([x, y])


def column_stack(x, y):
    return np.column_stack([x, y])


def append_flat(x, y):
    return np.append(x, y)


def append_axis(x, y):
    return np.append(x, y * 2.0, axis=0)


case(hstack, (anything, anything), [(SCALAR, SCALAR), (VECTOR, VECTOR), (FULL, FULL)], (0, 1))
case(hstack_unequal, (anything, anything), [(VECTOR, (2,)), (FULL, COLUMN), (SCALAR, VECTOR)],
     (0, 1))
case(vstack, (anything, anything), [(VECTOR, VECTOR), (FULL, ROW), (VECTOR, FULL)], (0, 1))
case(dstack, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL), (THREE_D, FULL)], (0, 1))
case(column_stack, (anything, anything), [(VECTOR, VECTOR), ((3, 2), VECTOR)], (0, 1))
case(append_flat, (anything, anything), [(VECTOR, SCALAR), (FULL, VECTOR), (SCALAR, FULL)],
     (0, 1))
case(append_axis, (anything, anything), [(VECTOR, VECTOR), (FULL, ROW), (FULL, (3, 3))],
     (0, 1))


def array_split(x):
    first, second, third = np.array_split(x, 3)
    return first * np.sum(second) - np.sum(third ** 2)


def array_split_axis(x):
    parts = np.array_split(x, [1], axis=-1)
    return parts[1] * np.sin(parts[0])


def hsplit(x):
    left, right = np.hsplit(x, 2)
    return left * right


def vsplit(x):
    top, bottom = np.vsplit(x, [1])
    return np.sum(top) * bottom


def dsplit(x):
    front, back = np.dsplit(x, [2])
    return front * np.sum(back)


case(array_split, (anything,), [(4,), (5, 2)])
case(array_split_axis, (anything,), [FULL, THREE_D])
case(hsplit, (anything,), [(4,), (3, 4)])
case(vsplit, (anything,), [FULL, THREE_D])
case(dsplit, (anything,), [THREE_D, (1, 2, 4)])


def sort(x):
    return np.sort(x) * x


def sort_axis(x):
    return np.sort(x, axis=0)


def sort_flat(x):
    return np.sort(x, axis=None)


def partition(x):
    return np.partition(x, 1) * x


def partition_axis(x):
    return np.partition(x, (0, 2), axis=0)


def searchsorted(x):
    return x * np.searchsorted(np.array([-1.0, 0.0, 1.0]), x)


case(sort, (spread,), [VECTOR, FULL, COLUMN])
case(sort_axis, (spread,), [FULL, THREE_D])
case(sort_flat, (spread,), [FULL, THREE_D])
case(partition, (spread,), [VECTOR, FULL, THREE_D])
case(partition_axis, (spread,), [(3, 2), (4, 3)])
case(searchsorted, (spread,), [VECTOR, FULL])


# the transposed maps of shape functions, as generated code calls them
def untiled(g):
    return rt.untiled(g, np.ones((1, 3)), (2, 2))


def unrepeated(g):
    return rt.unrepeated(g, np.ones((2, 3)), [1, 0, 2], 1) + rt.unrepeated(g[0], np.ones(3), 1)


def untaken(g):
    return rt.untaken(g, np.ones((2, 3)), np.array([[0, 2], [2, 2]]), 1, "raise")


def untaken_along_axis(g):
    return rt.untaken_along_axis(g, np.ones((2, 3)), np.array([[0, 0], [2, 1]]), 1)


def padded(x):
    return rt.padded(x, 1, "reflect") + rt.padded(x, 1)


def unpadded(g):
    return rt.unpadded(g, np.ones((2, 3)), 1, "symmetric") * rt.unpadded(g, np.ones((2, 3)), 1)


def joined(x, y):
    return rt.joined(np.column_stack, [x, y * x])


def unjoined(g):
    parts = rt.unjoined(g, np.hstack, [np.ones((2, 1)), np.ones((2, 3))])
    return parts[0] * parts[1]


case(untiled, (anything,), [(2, 6)])
case(joined, (anything, anything), [(VECTOR, VECTOR), (FULL, FULL)], (0, 1))
case(unrepeated, (anything,), [(2, 3)])
case(untaken, (anything,), [(2, 2, 2)])
case(untaken_along_axis, (anything,), [(2, 2)])
case(padded, (anything,), [FULL, (3, 4)])
case(unpadded, (anything,), [(4, 5)])
case(unjoined, (anything,), [(2, 4)])


def select(x, y):
    return np.select([x > 0.5, y < 0.0], [x * y, y], 0.25)


def select_default(x, y):
    return np.select([x > 0.0], [np.sin(x)], default=y)


def select_adjoint(g):
    parts = rt.select_adjoint(g, [g > 0.5, np.array([True, False, True])], [np.ones(3), 1.0])
    return parts[0] * parts[1]


def unselected(g):
    return rt.unselected(g, [np.array([[True], [False]]), g > 0.5])


case(select, (anything, anything), [(VECTOR, VECTOR), (FULL, ROW), (COLUMN, FULL),
                                    (SCALAR, VECTOR)], (0, 1),
     accept=lambda args: np.min(np.abs(np.asarray(args[0]) - 0.5)) > 0.05
     and np.min(np.abs(args[1])) > 0.05)
case(select_default, (anything, anything), [(VECTOR, VECTOR), (FULL, ROW), (VECTOR, SCALAR)],
     (0, 1), accept=lambda args: np.min(np.abs(args[0])) > 0.05)
case(select_adjoint, (anything,), [(2, 3)],
     accept=lambda args: np.min(np.abs(args[0] - 0.5)) > 0.05)
case(unselected, (anything,), [FULL], accept=lambda args: np.min(np.abs(args[0] - 0.5)) > 0.05)


def gradient(x):
    return np.gradient(x) * x


def gradient_spacing(x):
    return np.gradient(x, 0.5, edge_order=2)


def gradient_axes(x):
    along_rows, along_columns = np.gradient(x, 2.0)
    return along_rows * np.sin(along_columns)


def gradient_axis(x):
    return np.gradient(x, 0.5, 2.0, axis=(0, -1))[1] + np.gradient(x, axis=1, edge_order=2)


def gradient_adjoint(g):
    return rt.gradient_adjoint(g, np.ones((3, 4)), (0.5,), 1, 2) + rt.gradient_adjoint(
        [g, g * g], np.ones((3, 4)), (), None, 1)


def gradient_of(x):
    rows, columns = rt.gradient_of(x, (0.5, 2.0), None, 2)
    return rows * columns + rt.gradient_of(x, (), 0, 1)


case(gradient, (anything,), [(4,), (5,)])
case(gradient_spacing, (anything,), [(4,), (6,)])
case(gradient_axes, (anything,), [(3, 4), (4, 3)])
case(gradient_axis, (anything,), [(3, 4), (3, 3, 3)])
case(gradient_adjoint, (anything,), [(3, 4)])
case(gradient_of, (anything,), [(3, 4)])


def meshgrid(x, y):
    grid_x, grid_y = np.meshgrid(x, y)
    return grid_x * np.sin(grid_y)


def meshgrid_ij(x, y):
    grid_x, grid_y, grid_z = np.meshgrid(x, y, x * 2.0, indexing="ij")
    return grid_x * grid_y + grid_z ** 2


def meshgrid_sparse(x, y):
    grid_x, grid_y = np.meshgrid(x, y, sparse=True)
    return grid_x * grid_y


def meshgrid_one_used(x, y):
    return np.meshgrid(x, y)[1] ** 2


def meshgrid_adjoint(g):
    return rt.meshgrid_adjoint([g, g * g], np.ones(3), 0, "xy") * rt.meshgrid_adjoint(
        [g, g], np.ones(3), 1, "ij")


def meshgrid_part(h):
    parts = rt.meshgrid_part(h, [np.ones((2, 3)), np.ones((2, 3))], 0, "xy")
    return parts[0] * parts[0]


def meshgrid_tangent(x, y):
    grids = rt.meshgrid_tangent((x, 0.0, y * 2.0, 0.0), (x, None, y, None), False, "ij")
    return grids[0] * grids[1]


def meshgrid_tangent_adjoint(g):
    parts = rt.meshgrid_tangent_adjoint([g, g * g], (np.ones(2), 0.0, np.ones(3), 0.0),
                                        (np.ones(2), None, np.ones(3), None), False, "ij")
    return parts[0] * np.sum(parts[2])


case(meshgrid, (anything, anything), [(VECTOR, (2,)), (FULL, (4,)), (SCALAR, VECTOR)], (0, 1))
case(meshgrid_ij, (anything, anything), [(VECTOR, (2,)), ((2,), COLUMN)], (0, 1))
case(meshgrid_sparse, (anything, anything), [(VECTOR, (2,))], (0, 1))
case(meshgrid_one_used, (anything, anything), [(VECTOR, (2,))], (0, 1))
case(meshgrid_adjoint, (anything,), [(2, 3)])
case(meshgrid_part, (anything,), [VECTOR])
case(meshgrid_tangent, (anything, anything), [(VECTOR, VECTOR), ((2,), VECTOR)], (0, 1))
case(meshgrid_tangent_adjoint, (anything,), [(2, 3)])


def delete(x):
    return np.delete(x, [0, 2], axis=-1) * 2.0


def delete_flat(x):
    return np.delete(x, 1)


def insert(x, y):
    return np.insert(x, 1, y)


def insert_axis(x, y):
    return np.insert(x, [0, 2], y * x[:, :1], axis=1)


def compress(x):
    return np.compress([True, False, True], x, axis=-1) * x[..., :1]


def compress_method(x):
    return x.compress(np.array([False, True]), axis=0)


def extract(x):
    return np.extract(np.arange(np.size(x)).reshape(np.shape(x)) % 2 == 0, x)


def undeleted(g):
    return rt.undeleted(g, np.ones((2, 3)), 1, 1) * np.sum(
        rt.undeleted(g.ravel(), np.ones(5), 3) ** 2)


def insert_adjoint(g):
    first = rt.insert_adjoint(g, np.ones((2, 3)), [0, 2], np.ones((2, 1)), 1, 0)
    return first * np.sum(rt.insert_adjoint(g, np.ones((2, 3)), [0, 2], np.ones((2, 1)), 1, 1))


def inserted_part(h):
    return rt.inserted_part(h, np.ones(3), 1, 2.0, None, 0) * np.sum(rt.inserted_part(
        h[1], np.ones(3), 1, 2.0, None, 1))


case(delete, (anything,), [VECTOR, FULL, THREE_D])
case(delete_flat, (anything,), [VECTOR, FULL])
case(insert, (anything, anything), [(VECTOR, SCALAR), (FULL, (2,)), (VECTOR, (1,))], (0, 1))
case(insert_axis, (anything, anything), [(FULL, SCALAR), (FULL, COLUMN), (FULL, (1, 2))],
     (0, 1))
case(compress, (anything,), [VECTOR, FULL])
case(compress_method, (anything,), [FULL, (2, 1)])
case(extract, (anything,), [VECTOR, FULL])
case(undeleted, (anything,), [(2, 2)])
case(insert_adjoint, (anything,), [(2, 5)])
case(inserted_part, (anything,), [(3,)])


def choose(x, y):
    return np.choose(np.array([[0, 1, 2], [2, 0, 1]]), [x, y * x, 1.5])


case(choose, (anything, anything), [(VECTOR, VECTOR), (FULL, ROW), (COLUMN, SCALAR),
                                    (SCALAR, FULL)], (0, 1))


# ------------------------------------------------- numpy_linalg.py: np.linalg
# Matrices (stacks of them) well inside each function's domain: well conditioned, symmetric
# positive definite, eigenvalues (singular values) at least 0.5 apart.

def well_conditioned(shape, rng):
    """A random matrix (stack) plus three times the identity: far from singular."""
    return rng.uniform(-1.0, 1.0, shape) + 3.0 * np.eye(shape[-1])


def positive_definite(shape, rng):
    """Symmetric positive definite, eigenvalues spread over [1, 1 + n] at least 0.5 apart."""
    n = shape[-1]
    rotation = np.linalg.qr(rng.normal(size=shape))[0]
    eigenvalues = 1.0 + np.arange(n) + rng.uniform(0.0, 0.3, shape[:-1])
    return np.matmul(rotation * np.expand_dims(eigenvalues, -2), rt.matrix_transpose(rotation))


def solve(a, b):
    return np.linalg.solve(a, b)


def inv(a):
    return np.linalg.inv(a)


def det(a):
    return np.linalg.det(a)


def slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet


def cholesky(a):
    return np.linalg.cholesky(a)


def eigh(a):
    # eigenvectors' signs are arbitrary: products of a column's entries do not depend on them
    w, v = np.linalg.eigh(a)
    return np.expand_dims(w, -2) * v * v


def eigh_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return w * w + np.sum(v * v[..., :1, :], axis=-2)


SQUARE = [(3, 3), (2, 3, 3), (1, 1)]
case(solve, (well_conditioned, anything),
     [((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 1)),
      ((3, 3), (2, 3, 2)), ((2, 3, 3), (3, 4))], (0, 1))
case(inv, (well_conditioned,), SQUARE)
case(det, (well_conditioned,), SQUARE)
case(slogdet, (well_conditioned,), SQUARE)
case(cholesky, (positive_definite,), SQUARE)
case(eigh, (positive_definite,), SQUARE)
case(eigh_upper, (positive_definite,), [(3, 3), (2, 4, 4)])


def trace(x):
    return np.trace(x)


def trace_offset_axes(x):
    return np.trace(x, -1, 2, 0)


def trace_method(x):
    return x.trace(1)


case(trace, (anything,), [FULL, (3, 3), THREE_D])
case(trace_offset_axes, (anything,), [THREE_D, (3, 4, 3)])
case(trace_method, (anything,), [FULL, THREE_D])


# the runtime helpers of linear algebra's templates
def matrix_transpose(x):
    return rt.matrix_transpose(x)


def solve_columns(v, x):
    return rt.solve_columns(v, x, np.ones((3, 3)))


def from_triangle(x):
    return rt.from_triangle(x) + rt.from_triangle(x * x, "U")


def to_triangle(x):
    return rt.to_triangle(x) + rt.to_triangle(x * x, "U")


def diagonal_adjoint(g, x):
    return rt.diagonal_adjoint(g, x, 1, 0, 2)


case(matrix_transpose, (anything,), [FULL, THREE_D])
case(solve_columns, (anything, anything), [(VECTOR, VECTOR), (FULL, (2, 3)), (FULL, (3, 2, 3))],
     (0, 1), zero_derivative=(1,))
case(from_triangle, (anything,), [(3, 3), (2, 3, 3)])
case(to_triangle, (anything,), [(3, 3), (2, 3, 3)])
case(diagonal_adjoint, (anything, anything), [((4, 1), (2, 4, 3)), ((4, 2), (3, 4, 3))], (0, 1),
     zero_derivative=(1,))


def tril(x):
    return np.tril(x)


def triu_k(x):
    return np.triu(x, -1) + np.tril(x, 1)


def diagonal(x):
    return np.diagonal(x, 1) + np.sum(x.diagonal(0, 1, 2))


def diag_vector(x):
    return np.diag(x, 1) * np.sum(np.diag(x))


def diag_matrix(x):
    return np.diag(x) + np.diag(x, -1)[0]


case(tril, (anything,), [FULL, (3, 3), THREE_D, VECTOR])
case(triu_k, (anything,), [FULL, (3, 2), THREE_D])
case(diagonal, (anything,), [THREE_D, (3, 4, 2)])
case(diag_vector, (anything,), [VECTOR, (1,)])
case(diag_matrix, (anything,), [FULL, (3, 3), (4, 2)])


def diag_adjoint(g, x):
    return rt.diag_adjoint(g, x, 1) + rt.diag_adjoint(g, x, 1)


case(diag_adjoint, (anything, anything), [((4, 4), VECTOR), (VECTOR, (3, 4))], (0, 1),
     zero_derivative=(1,))


def tensordot(a, b):
    return np.tensordot(a, b)


def tensordot_pairs(a, b):
    return np.tensordot(a, b, axes=([0, 2], [2, 1]))


def tensordot_int_pair(a, b):
    return np.tensordot(a, b, (1, 0)) * np.sum(np.tensordot(a, b, 0))


def inner(a, b):
    return np.inner(a, b)


def vdot(a, b):
    return np.vdot(a, b)


def kron(a, b):
    return np.kron(a, b)


def cross(a, b):
    return np.cross(a, b)


def cross_axes(a, b):
    return np.cross(a, b, axis=0) + np.sum(np.cross(a, b[:, 0], axisa=0, axisc=0))


case(tensordot, (anything, anything), [((2, 3, 4), (3, 4, 2)), ((3, 4), (3, 4)),
                                       ((2, 3, 4), (3, 4))], (0, 1))
case(tensordot_pairs, (anything, anything), [((2, 3, 4), (3, 4, 2))], (0, 1))
case(tensordot_int_pair, (anything, anything), [(FULL, (3, 4)), ((3, 3), (3, 1))], (0, 1))
case(inner, (anything, anything), [(VECTOR, VECTOR), (FULL, (4, 3)), ((), FULL), (FULL, ()),
                                   ((2, 2, 3), VECTOR), ((), ())], (0, 1))
case(vdot, (anything, anything), [(VECTOR, VECTOR), (FULL, (3, 2)), ((1, 3), VECTOR)], (0, 1))
case(kron, (anything, anything), [(FULL, (3, 2)), (VECTOR, (2, 2)), ((), FULL), (FULL, ()),
                                  (VECTOR, VECTOR)], (0, 1))
case(cross, (anything, anything), [(VECTOR, VECTOR), (FULL, VECTOR), ((4, 1, 3), (2, 3))],
     (0, 1))
case(cross_axes, (anything, anything), [((3, 2), (3, 1)), ((3, 4), (3, 4))], (0, 1))


def separated_singular_values(shape, rng):
    """A matrix (stack) with singular values 1, 2, ... (plus up to 0.3): distinct, nonzero."""
    m, n = shape[-2:]
    k = min(m, n)
    left = np.linalg.qr(rng.normal(size=shape[:-2] + (m, k)))[0]
    right = np.linalg.qr(rng.normal(size=shape[:-2] + (n, k)))[0]
    values = 1.0 + np.arange(k) + rng.uniform(0.0, 0.3, shape[:-2] + (k,))
    return np.matmul(left * np.expand_dims(values, -2), rt.matrix_transpose(right))


def svd(a):
    # u's and vh's signs are arbitrary: products of one singular vector's entries are not
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.matmul(u * u * np.expand_dims(s, -2), vh * vh)


def svd_values(a):
    return np.linalg.svd(a, full_matrices=False)[1]


def qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(q, axis=-1, keepdims=True) * r[..., :1, :]


def pinv(a):
    return np.linalg.pinv(a)


def matrix_power(a):
    return np.linalg.matrix_power(a, 3) + np.linalg.matrix_power(a, 0)


def matrix_power_negative(a):
    return np.linalg.matrix_power(a, -2)


MATRICES = [(3, 3), (4, 2), (2, 4), (2, 3, 4), (1, 1)]
case(svd, (separated_singular_values,), MATRICES)
case(svd_values, (separated_singular_values,), [(3, 3), (2, 4, 3)])
case(qr, (well_conditioned,), [(3, 3), (2, 3, 3), (1, 1)], name="qr_square")
case(qr, (separated_singular_values,), MATRICES, name="qr_rectangular")
case(pinv, (separated_singular_values,), MATRICES)
case(matrix_power, (anything,), [(3, 3), (2, 3, 3), (1, 1)])
case(matrix_power_negative, (well_conditioned,), [(3, 3), (2, 3, 3)])


def block_upper(a, e):
    return rt.block_upper(a, e)


def block_diagonal_sum(g):
    return rt.block_diagonal_sum(g)


def upper_right_block(g):
    return rt.upper_right_block(g)


case(block_upper, (anything, anything), [((2, 2), (2, 2)), ((2, 3, 3), (3, 3)),
                                         ((3, 3), (2, 3, 3))], (0, 1))
case(block_diagonal_sum, (anything,), [(4, 4), (2, 6, 6)])
case(upper_right_block, (anything,), [(4, 4), (2, 6, 6)])


def einsum_matmul(a, b):
    return np.einsum("ij,jk->ik", a, b)


def einsum_implicit(a, b):
    return np.einsum("ij,jk", a, b) * np.einsum("Ba", a)[0, 0] + np.einsum("ba", a)[:, :1]


def einsum_diagonal(a):
    diagonal = np.einsum("iij->ji", np.expand_dims(a, -1))[0]
    return np.einsum("ii->i", a) * np.einsum("ii", a) + diagonal


def einsum_sums(a):
    return np.einsum("ij->j", a) + np.einsum("ij->", a)


def einsum_ellipsis(a, b):
    return np.einsum("...ij,...jk->...ik", a, b)


def einsum_broadcast(a, b):
    return np.einsum("ij,ij->ij", a, b)


def einsum_three(a, b, c):
    return np.einsum("ij,jk,k->i", a, b, c, optimize=True)


case(einsum_matmul, (anything, anything), [((2, 3), (3, 4)), ((1, 3), (3, 1))], (0, 1))
case(einsum_implicit, (anything, anything), [((3, 3), (3, 4))], (0, 1))
case(einsum_diagonal, (anything,), [(3, 3), (1, 1)])
case(einsum_sums, (anything,), [FULL, COLUMN])
case(einsum_ellipsis, (anything, anything), [((2, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
                                              ((1, 2, 3), (4, 3, 2))], (0, 1))
case(einsum_broadcast, (anything, anything), [(COLUMN, FULL), (ROW, FULL), (FULL, FULL)], (0, 1))
case(einsum_three, (anything, anything, anything), [((2, 3), (3, 4), (4,))], (0, 1, 2))


def contract(a, b):
    return rt.contract(("ij", None, "jk", None), "iik", (2, 2, 4), a, None, b)


def contract_broadcast(a, b, c):
    return rt.contract(("i", "ij", None, "j"), "jkj", (1, 2, 1), a, b, None, c)


case(contract, (anything, anything), [((2, 3), (3, 4))], (0, 1))
case(contract_broadcast, (anything, anything, anything), [((3,), (3, 1), (1,))], (0, 1, 2))


# ------------------------------------------------------------ scipy_linalg.py (if SciPy is)
try:
    import scipy.linalg as scipy_linalg
except ImportError:
    scipy_linalg = None

if scipy_linalg is not None:
    def scipy_solve(a, b):
        return scipy_linalg.solve(a, b)

    def scipy_inv(a):
        return scipy_linalg.inv(a)

    def scipy_det(a):
        return scipy_linalg.det(a)

    def solve_triangular(a, b):
        return scipy_linalg.solve_triangular(a, b)

    def solve_triangular_lower(a, b):
        return scipy_linalg.solve_triangular(a, b, lower=True)

    def expm(a):
        return scipy_linalg.expm(a)

    case(scipy_solve, (well_conditioned, anything), [((3, 3), (3,)), ((3, 3), (3, 2))], (0, 1))
    case(scipy_inv, (well_conditioned,), [(3, 3), (1, 1)])
    case(scipy_det, (well_conditioned,), [(3, 3), (1, 1)])
    case(solve_triangular, (well_conditioned, anything), [((3, 3), (3,)), ((3, 3), (3, 2))],
         (0, 1))
    case(solve_triangular_lower, (well_conditioned, anything), [((3, 3), (3, 2))], (0, 1))
    case(expm, (small,), [(3, 3), (2, 3, 3), (1, 1)])


def triangle(x):
    return rt.triangle(x) + rt.triangle(x * x, True)


case(triangle, (anything,), [(3, 3), FULL, (2, 3, 3)])


def lstsq(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b)
    return x


def lstsq_everything(a, b):
    x, residuals, rank, s = np.linalg.lstsq(a, b)
    return np.sum(residuals) + np.sum(s * s) * x[0]


LSTSQ_SHAPES = [((4, 2), (4,)), ((4, 2), (4, 3)), ((2, 4), (2,)), ((3, 3), (3, 2))]
case(lstsq, (separated_singular_values, anything), LSTSQ_SHAPES, (0, 1))
case(lstsq_everything, (separated_singular_values, anything), LSTSQ_SHAPES[:3], (0, 1))


def residual_weights(g, x):
    return rt.residual_weights(g, x) * 2.0 + rt.residual_weights(x[0, :2], x)


def residuals_like(row, like):
    return rt.residuals_like(row, like) + np.sum(rt.residuals_like(row, like[:0]))


case(residual_weights, (anything, anything), [((3,), (2, 3)), ((1,), (2, 1))], (0, 1),
     zero_derivative=(1,))
case(residuals_like, (anything, anything), [((1, 3), (3,)), ((1, 1), (1,))], (0, 1),
     zero_derivative=(1,))


def three_vectors(x):
    return rt.three_vectors(x) * rt.three_vectors(x, 0, -1)


case(three_vectors, (anything,), [VECTOR, (2, 3), (3, 3)])


# SciPy's functions (an optional dependency): their cases live in tests/scipy_combos.py,
# added to CASES only when SciPy imports
try:
    import scipy  # noqa: F401
except ImportError:
    pass
else:
    import tests.scipy_combos  # noqa: F401, E402


# ---------------------------------- numpy_reductions.py: np.linalg.norm of every ord and axis
# Inputs away from the kinks: no element near 0, distinct magnitudes (inf), distinct column
# and row sums (matrix 1, inf), distinct nonzero singular values (2, -2, 'nuc').

def distinct_magnitudes(shape, rng):
    """Magnitudes at least 0.1 apart in [0.5, ...), random signs: no |x| ties, no zeros."""
    count = int(np.prod(shape))
    magnitudes = 0.5 + rng.permutation(count) * 0.15 + rng.uniform(0.0, 0.03, count)
    return np.reshape(magnitudes * rng.choice([-1.0, 1.0], size=count), shape)


def distinct_sums(args):
    """The absolute column and row sums of each matrix (last two axes) at least 0.1 apart."""
    magnitudes = np.abs(args[0])
    for sums in (np.sum(magnitudes, axis=-2), np.sum(magnitudes, axis=-1)):
        ordered = np.sort(sums, axis=-1)
        if np.min(np.diff(ordered, axis=-1)) < 0.1:
            return False
    return True


def norm_vector_orders(x):
    return (np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) * np.linalg.norm(x, -np.inf)
            + np.linalg.norm(x, 0))


def norm_p_along_axis(x):
    return (np.linalg.norm(x, 3, axis=1) + np.linalg.norm(x, 0.5, axis=1)
            * np.linalg.norm(x, -1.5, axis=-1))


def norm_vector_keepdims(x):
    return (np.linalg.norm(x, ord=1, axis=0, keepdims=True)
            + np.linalg.norm(x, ord=-np.inf, axis=-1, keepdims=True)
            * np.linalg.norm(x, ord=2, axis=-1, keepdims=True))


def norm_matrix_sums(x):
    return (np.linalg.norm(x, 1) + np.linalg.norm(x, -1) * np.linalg.norm(x, np.inf)
            + np.linalg.norm(x, -np.inf))


def norm_matrix_sums_stacked(x):
    return (np.linalg.norm(x, 1, axis=(-2, -1)) * np.linalg.norm(x, -np.inf, axis=(2, 1))
            + np.linalg.norm(x, np.inf, axis=(1, 2), keepdims=True)[:, 0, 0])


def norm_singular(x):
    return np.linalg.norm(x, 2) + np.linalg.norm(x, -2) * np.linalg.norm(x, "nuc")


def norm_singular_stacked(x):
    return (np.linalg.norm(x, 2, axis=(-2, -1)) * np.linalg.norm(x, -2, axis=(-1, -2))
            + np.linalg.norm(x, "nuc", axis=(1, 2), keepdims=True)[:, 0, 0])


def norm_frobenius_axes(x):
    return (np.linalg.norm(x, "fro", axis=(0, 2)) + np.linalg.norm(x, axis=(2, 0), keepdims=True)
            [0, :, 0] * np.linalg.norm(x, "nuc", axis=(0, 2)))


def norm_gradient_orders(x):
    return (rt.norm_gradient(x) + rt.norm_gradient(x, 3, 1) * rt.norm_gradient(x, -1.5, 0)
            + rt.norm_gradient(x, "nuc") + rt.norm_gradient(x, 2, (1, 0)))


_NORM_THIRD_ORDER = "norm's third derivatives: rt.norm_hessian_product has no template"
case(norm_vector_orders, (distinct_magnitudes,), [(5,)])
case(norm_p_along_axis, (distinct_magnitudes,), [THREE_D])
case(norm_vector_keepdims, (distinct_magnitudes,), [FULL])
case(norm_matrix_sums, (distinct_magnitudes,), [(3, 3), (3, 4)], accept=distinct_sums)
case(norm_matrix_sums_stacked, (distinct_magnitudes,), [(2, 3, 4)], accept=distinct_sums)
case(norm_singular, (separated_singular_values,), [(3, 3), (4, 2)])
case(norm_singular_stacked, (separated_singular_values,), [(2, 3, 4), (2, 3, 3)])
case(norm_frobenius_axes, (distinct_magnitudes,), [(3, 2, 4)])
case(norm_gradient_orders, (distinct_magnitudes,), [(3, 4)],
     second_order=_NORM_THIRD_ORDER)


# ------------------------------------- scipy_linalg.py: the factorizations (if SciPy is)
def banded(shape, rng):
    """A band form (l + u + 1, n) with l = 1, u = 2, its diagonal (row u) far from zero."""
    ab = rng.uniform(-1.0, 1.0, shape)
    ab[2] += 4.0
    return ab


if scipy_linalg is not None:
    def scipy_cholesky(a):
        return scipy_linalg.cholesky(a)

    def scipy_cholesky_lower(a):
        return scipy_linalg.cholesky(a, lower=True)

    def cho_factor_solve(a, b):
        return scipy_linalg.cho_solve(scipy_linalg.cho_factor(a), b)

    def cho_factor_lower_solve(a, b):
        factor = scipy_linalg.cho_factor(a, lower=True)
        return scipy_linalg.cho_solve(factor, b)

    def cho_factor_whole(a):
        c, lower = scipy_linalg.cho_factor(a)
        return c

    def scipy_eigh(a):
        w, v = scipy_linalg.eigh(a)
        return np.expand_dims(w, -2) * v * v

    def scipy_eigh_upper_values(a):
        return scipy_linalg.eigh(a, lower=False, eigvals_only=True)

    def scipy_svd(a):
        u, s, vh = scipy_linalg.svd(a, full_matrices=False)
        return np.matmul(u * u * np.expand_dims(s, -2), vh * vh)

    def scipy_svd_values(a):
        return scipy_linalg.svd(a, compute_uv=False)

    def scipy_qr(a):
        q, r = scipy_linalg.qr(a, mode="economic")
        return np.sum(q, axis=-1, keepdims=True) * r[..., :1, :]

    def scipy_qr_r(a):
        (r,) = scipy_linalg.qr(a, mode="r")
        return r * r[..., :1, :]

    def solve_sylvester(a, b, q):
        return scipy_linalg.solve_sylvester(a, b, q)

    def solve_banded(ab, b):
        return scipy_linalg.solve_banded((1, 2), ab, b)

    case(scipy_cholesky, (positive_definite,), [(3, 3)])
    case(scipy_cholesky_lower, (positive_definite,), [(3, 3)])
    case(cho_factor_solve, (positive_definite, anything), [((3, 3), (3,))], (0, 1))
    case(cho_factor_lower_solve, (positive_definite, anything), [((3, 3), (3, 2))], (0, 1))
    case(cho_factor_whole, (positive_definite,), [(3, 3)])
    case(scipy_eigh, (positive_definite,), [(3, 3)])
    case(scipy_eigh_upper_values, (positive_definite,), [(3, 3)])
    case(scipy_svd, (separated_singular_values,), [(4, 2), (2, 4)])
    case(scipy_svd_values, (separated_singular_values,), [(3, 3), (4, 3)])
    case(scipy_qr, (separated_singular_values,), [(4, 2), (2, 4)])
    case(scipy_qr_r, (separated_singular_values,), [(4, 2), (2, 4)])
    case(solve_sylvester, (well_conditioned, well_conditioned, anything),
         [((3, 3), (2, 2), (3, 2))], (0, 1, 2))
    case(solve_banded, (banded, anything), [((4, 5), (5,))], (0, 1))


# their runtime helpers
def lower_factor(c):
    return rt.lower_factor(c, True) * rt.lower_factor(c, False)


def other_triangle(x):
    return rt.other_triangle(x, True) + rt.other_triangle(x * x, False)


def output_part(y0, y1):
    return (rt.output_part((y0, y1), 1) + rt.output_part(y1, 0, 0)
            * rt.output_part((y1,), 0, (1,), y0) + rt.output_part((y0,), 0, (0,)))


def output_part_adjoint(g):
    return (rt.output_part_adjoint(g, g, 0, 0) * rt.output_part_adjoint(g * g, (g, g), 1)[1]
            + rt.output_part_adjoint(g, g, 1, 0))


def if_output(term):  # a part returned (the whole tuple, that part alone, among parts), or not
    return (rt.if_output(None, 1, term) * rt.if_output(2, 2, term)
            + rt.if_output((0, 2), 2, term * term) + rt.if_output(1, 0, term))


def banded_dense(ab):
    return rt.banded_dense(ab, (1, 2))


def band_of(dense):
    return rt.band_of(dense, (2, 0))


case(lower_factor, (anything,), [(2, 3, 3)])
case(other_triangle, (anything,), [(2, 3, 3)])
case(output_part, (anything, anything), [((2, 3), (2, 3))], (0, 1))
case(output_part_adjoint, (anything,), [(2, 3)])
case(if_output, (anything,), [(2, 3)])
case(banded_dense, (anything,), [(4, 5)])
case(band_of, (anything,), [(4, 4)])
# np.convolve and np.correlate in each mode at once (their windows differ for even lengths,
# and with the longer operand second)
def np_convolve_and_correlate(a, v):
    return np.concatenate([np.convolve(a, v), np.convolve(a, v, "same"),
                           np.convolve(a, v, mode="valid"), np.correlate(a, v, "full"),
                           np.correlate(a, v, "same"), np.correlate(a, v)])


case(np_convolve_and_correlate, (anything, anything), [((4,), (3,)), ((2,), (5,))], (0, 1))


def np_polyval(p, x):
    return np.polyval(p, x)


case(np_polyval, (anything, anything), [((4,), FULL)], (0, 1))

INTERPOLATION_KNOTS = np.array([-1.5, -0.4, 0.3, 1.2])


def away_from_knots(args):
    """np.interp's kinks: x at least 0.05 from every knot."""
    x = np.reshape(np.asarray(args[0], dtype=float), (-1, 1))
    return np.min(np.abs(x - INTERPOLATION_KNOTS)) > 0.05


# with the values beyond the knots given and not (x spans more than the knots)
def np_interp(x, fp):
    return (np.interp(x, INTERPOLATION_KNOTS, fp)
            + np.interp(x, INTERPOLATION_KNOTS, fp, left=0.5, right=-1.0) * x)


case(np_interp, (anything, anything), [((2, 3), (4,))], (0, 1), accept=away_from_knots)


# samples along the last axis against their positions x (one for all rows, or one per
# row), and along the first at a constant spacing
def np_trapezoid(y, x):
    return np.concatenate([np.ravel(np.trapezoid(y, x)),
                           np.ravel(np.trapezoid(y * y, dx=0.5, axis=0))])


case(np_trapezoid, (anything, anything), [((2, 4), (4,))], (0, 1))


# np.interp's and np.trapezoid's helpers (their templates serve second order)
def interp_helpers(g, x, f):
    return np.concatenate([
        np.ravel(rt.interp_linear(x, INTERPOLATION_KNOTS, f, None, 0.5) * g),
        rt.interp_transpose(g, x, INTERPOLATION_KNOTS, 0.5, None),
        np.ravel(rt.interp_slope(x, INTERPOLATION_KNOTS, f) * g),
        rt.interp_slope_transpose(g, x, INTERPOLATION_KNOTS)])


def _x_away_from_knots(args):
    return away_from_knots(args[1:])


case(interp_helpers, (anything, anything, anything), [((2, 3), (2, 3), (4,))], (0, 1, 2),
     accept=_x_away_from_knots)


def trapezoid_helpers(x, c):
    samples = np.ones(np.shape(c))
    return np.concatenate([np.ravel(rt.trapezoid_weights(x, 1.0, samples, -1)),
                           np.ravel(rt.trapezoid_weights_transpose(c * c, x, samples, -1))])


case(trapezoid_helpers, (anything, anything), [((2, 3), (2, 3))], (0, 1))


def np_cov(m):
    return np.concatenate([np.ravel(np.cov(m)), np.ravel(np.cov(m, rowvar=False, bias=True)),
                           np.ravel(np.cov(m, ddof=0) * np.cov(m, rowvar=True, ddof=2))])


def np_corrcoef(x):
    return np.concatenate([np.ravel(np.corrcoef(x)), np.ravel(np.corrcoef(x, rowvar=False))])


def cov_helpers(m, g):
    return np.concatenate([np.ravel(rt.cov_variables(m, False) * g),
                           np.ravel(rt.cov_variables_adjoint(m * m, g, False))])


case(np_cov, (anything,), [(3, 4), VECTOR])
case(np_corrcoef, (anything,), [(3, 4)])
case(cov_helpers, (anything, anything), [((3, 4), (4, 3))], (0, 1))


def np_logspace(start, stop):
    return np.concatenate([np.ravel(np.logspace(start, stop, 4)),
                           np.ravel(np.logspace(start, stop, 3, False, 2.0, axis=-1)),
                           np.ravel(np.logspace(start, stop, 3, base=np.array([2.0, 3.0, 0.5])))])


case(np_logspace, (small, small), [(COLUMN, ROW)], (0, 1))


def polyval_adjoint(g, x, like):
    return rt.polyval_adjoint(g, x, like)


case(polyval_adjoint, (anything, anything, anything), [(FULL, FULL, (4,))], (0, 1, 2),
     zero_derivative=(2,))


# ---- nanvar, nanstd, nanprod, nancumsum, nancumprod (srcad/templates/numpy_reductions.py)

_NANS = np.array([[True, False, False], [False, False, True]])


def nanvar_of_nans(x):
    return np.nanvar(np.where(_NANS, np.nan, x), axis=1, ddof=1)


def nanvar_all(x):
    return np.nanvar(x)


def nanstd_of_nans(x):
    return np.nanstd(np.where(_NANS, np.nan, x), axis=0, keepdims=True)


def nanstd_all(x):
    return np.nanstd(x, ddof=1)


def nanprod_of_nans(x):
    return np.nanprod(np.where(_NANS, np.nan, x), axis=1)


def nanprod_all(x):
    return np.nanprod(x)


def nancumsum_of_nans(x):
    return np.nancumsum(np.where(_NANS, np.nan, x), axis=1)


def nancumsum_flat(x):
    return np.nancumsum(x)


def nancumprod_of_nans(x):
    return np.nancumprod(np.where(_NANS, np.nan, x), axis=0)


def nancumprod_flat(x):
    return np.nancumprod(x)


case(nanvar_of_nans, (anything,), [FULL])
case(nanvar_all, (anything,), [VECTOR, FULL])
case(nanstd_of_nans, (anything,), [FULL])
case(nanstd_all, (anything,), [VECTOR, FULL])
case(nanprod_of_nans, (with_zeros,), [FULL])
case(nanprod_all, (anything,), [VECTOR, FULL])
case(nancumsum_of_nans, (anything,), [FULL])
case(nancumsum_flat, (anything,), [VECTOR, FULL])
case(nancumprod_of_nans, (with_zeros,), [FULL])
case(nancumprod_flat, (anything,), [VECTOR, FULL])


# ---- x.item(...) (srcad/templates/numpy_shape.py)


def item_flat(x):
    return x.item(2) * x.item(-1)


def item_position(x):
    return x.item(1, 2) + x.item((0, 1)) ** 2


def item_of_one(x):
    return x.item() ** 3


case(item_flat, (anything,), [VECTOR, FULL], wrap="math")
case(item_position, (anything,), [FULL], wrap="math")
case(item_of_one, (anything,), [(1,), (1, 1)], wrap="math")


# ---- np.einsum of more than three operands: normalize/to_anf.einsum_in_steps chains einsums
# of two (each operand's derivative through the chain)


def einsum_chain_of_four(a, b, c, e):
    return np.einsum("ij,jk,kl,lm->im", a, b, c, e)


def einsum_implicit_of_four(a, b, c, e):
    return np.einsum("ij,jk,kl,li", a, b, c, e)


def einsum_ellipsis_of_five(a, b, c, e, f):
    return np.einsum("...i,i,ij,j,jj->...", a, b, c, e, f)


case(einsum_chain_of_four, (anything,) * 4, [((2, 3), (3, 3), (3, 2), (2, 2))],
     differentiable=(1, 3))
case(einsum_implicit_of_four, (anything,) * 4, [((2, 3), (3, 2), (2, 2), (2, 2))],
     differentiable=(0, 2))
case(einsum_ellipsis_of_five, (anything,) * 5, [((2, 3), (3,), (3, 2), (2,), (2, 2))],
     differentiable=(0, 4))


# ---- rt.reduced_kept (srcad/runtime.py): a reduction's result with the reduced axes back as
# size 1 (scipy.special.logsumexp's derivatives), linear in it; a and b tell the rank only
def reduced_kept_all(y, a):
    return rt.reduced_kept(y, a)


def reduced_kept_axis(y, a):
    return rt.reduced_kept(y, a, None, 1)


def reduced_kept_keepdims(y, a, b):
    return rt.reduced_kept(y, a, b, (0, -1), True)


case(reduced_kept_all, (anything, anything), [(SCALAR, FULL), (SCALAR, SCALAR)], (0,))
case(reduced_kept_axis, (anything, anything), [(VECTOR, (3, 2)), (FULL, THREE_D)], (0,))
# (a 0-d a with keepdims: SciPy's result has shape (1,), made 0-d)
case(reduced_kept_keepdims, (anything, anything, anything),
     [((1, 1), FULL, VECTOR), ((1, 3, 1), (3, 1), (2, 3, 3)), ((1,), SCALAR, SCALAR)], (0,))


# ---- rt.full_covariance / rt.covariance_part (scipy.stats.multivariate_normal's covariance
# made a matrix, and the transpose): linear in the covariance (a number, a vector, a matrix)
def full_covariance_of(cov):
    return rt.full_covariance(cov, 3)


def covariance_part_of(g, cov):
    return rt.covariance_part(g, cov)


case(full_covariance_of, (anything,), [SCALAR, VECTOR, (3, 3)])
case(covariance_part_of, (anything, anything), [((3, 3), SCALAR), ((3, 3), VECTOR),
                                                ((3, 3), (3, 3))], (0,))


# ------------------------------------------- numpy_shape.py: one array's rows joined (i12c)
def joined_rows_of_an_array(x):
    """np.hstack(x) of an array (not a list): its adjoint is g reshaped, not cut row by row."""
    return np.hstack(x) * np.ravel(np.vstack(x * x)) + np.ravel(np.column_stack(x))


case(joined_rows_of_an_array, (anything,), [VECTOR, FULL])
