"""Python's arithmetic operators (and their NumPy function twins), and min/max/sum.

``binary(operator.mul, np.multiply, dx="g * y", dy="x * g")`` writes both adjoints
(summed back to each argument's shape by rt.unbroadcast) and the tangent
``d[x] * y + x * d[y]`` (srcad/vocabulary.py).
"""

import builtins
import math
import operator

import numpy as np

from srcad import runtime as rt
from srcad.analysis import shapes
from srcad.analysis.operations import ATTRIBUTE, FORMATTED, IDENTITY
from srcad.registry import (adjoint, constraint, d, facts, nondifferentiable, shape_rule,
                            tangent)
from srcad.vocabulary import binary, elementwise, linear


binary(operator.add, np.add, dx="g", dy="g")
binary(operator.sub, np.subtract, dx="g", dy="-g")
binary(operator.mul, np.multiply, dx="g * y", dy="x * g")
binary(operator.truediv, np.divide, np.true_divide, dx="g / y", dy="-g * z / y",
       tangent="(d[x] - z * d[y]) / y")
# d/dx x ** y is rt.power_derivative(x, y, 1), not y * x ** (y - 1): that is 0 * inf at
# x = 0 for y = 0 (ZeroDivisionError for Python floats), where x ** 0 has derivative 0
# x ** y's term for y is masked where nothing flows: log(x) is nan for x < 0
binary(operator.pow, np.power, math.pow, builtins.pow, dx="g * rt.power_derivative(x, y, 1)",
       dy="rt.times_log_of_base(g * z, x)")
# every tangent term has z's shape: optimize/simplify_zeros drops the product when y has no
# tangent, and what remains must still be the whole result's tangent
binary(operator.mod, np.mod, np.remainder, dx="g", dy="-g * np.floor_divide(x, y)",
       tangent="rt.match_tangent(d[x], z) - d[y] * np.floor_divide(x, y)")
binary(operator.matmul, np.matmul, dx="rt.matmul_adjoint_left(g, x, y)",
       dy="rt.matmul_adjoint_right(g, x, y)", tangent="d[x] @ y + x @ d[y]", unbroadcast=False)
elementwise(operator.neg, np.negative, derivative="-g")
elementwise(operator.pos, np.positive, IDENTITY, derivative="g")


linear(operator.getitem, parameters="y, x, index", transpose="rt.unindex(g, x, index)",
       tangent="d[x][index]")


# NumPy's index tricks: objects indexed with values to build an array (np.r_ and np.c_
# are rewritten to rt.concatenated by normalize/to_anf.py and never get here)
_INDEX_TRICKS = tuple({type(np.r_), type(np.r_).__mro__[1], type(np.c_), type(np.mgrid),
                       type(np.ogrid), type(np.s_)})


def _inactive_index(arguments, carries, resolve):
    """An index trick indexed with differentiated values: its derivative would be dropped
    (the index of an array never carries one; an integer index that activity analysis
    cannot tell from a float is harmless there)."""
    if not isinstance(resolve(arguments["x"]), _INDEX_TRICKS) or not carries(
            arguments["index"]):
        return None
    return ("srcad cannot differentiate through an index trick (np.mgrid, np.ogrid, np.s_, "
            "or np.r_/np.c_ with a string directive) indexed with values that carry a gradient",
            "Build the array with a differentiable function: np.linspace(start, stop, n) "
            "for np.mgrid[start:stop:nj], np.concatenate, np.stack, np.r_[a, b], np.c_[a, b].")


constraint(_inactive_index, operator.getitem)


nondifferentiable(
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
    operator.is_, operator.is_not, operator.contains, operator.not_, operator.invert,
    operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift,
    operator.floordiv, np.floor_divide,
)

shape_rule(shapes.add, operator.add)
shape_rule(shapes.operator_elementwise, operator.sub, operator.mul,
           operator.mod, operator.neg, operator.pos, operator.floordiv)
shape_rule(shapes.true_divide, operator.truediv)
shape_rule(shapes.power, operator.pow, builtins.pow)
shape_rule(shapes.comparison, operator.lt, operator.le, operator.gt, operator.ge,
           operator.eq, operator.ne)
shape_rule(shapes.elementwise, np.add, np.subtract, np.multiply, np.divide, np.true_divide,
           np.power, np.mod, np.remainder, np.negative, np.positive, np.floor_divide)
shape_rule(shapes.matmul, operator.matmul, np.matmul)
facts(np.matmul, linear_in=(0, 1), allocating=True)
facts(np.multiply, linear_in=(0, 1))
shape_rule(shapes.getitem, operator.getitem)


def _slice_value(*bounds):
    """``slice(None, None)`` written by generated code: a constant when its bounds are."""
    if all(isinstance(b, shapes.Known) for b in bounds):
        return shapes.Known(slice(*(b.value for b in bounds)))
    return shapes.SliceAbstract()


shape_rule(_slice_value, builtins.slice)


def _bitwise_shape(*args, **kwargs):
    """a | b, a & b, a ^ b (masks, most often): broadcast arrays; a Python bool of two
    bools, an int of Python ints."""
    result = shapes.comparison(*args)
    if result == shapes.Scalar("bool") and not all(
            shapes.plain(a) == shapes.Scalar("bool") for a in args):
        return shapes.Scalar("int")
    return result


shape_rule(_bitwise_shape, operator.and_, operator.or_, operator.xor)
shape_rule(shapes.same_as_first, IDENTITY)


@adjoint(rt.updated)
def updated(z, y, index, v):
    d[y] += rt.without(d[z], index)
    d[v] += rt.unbroadcast(d[z][index], v)


@tangent(rt.updated)
def updated(z, y, index, v):  # noqa: F811
    d[z] = rt.updated(d[y], index, d[v])


shape_rule(shapes.same_as_first, rt.updated)


binary(builtins.max, dx="g * (x >= y)", dy="g * (x < y)", tangent="d[x] if x >= y else d[y]",
       unbroadcast=False)
binary(builtins.min, dx="g * (x <= y)", dy="g * (x > y)", tangent="d[x] if x <= y else d[y]",
       unbroadcast=False)


@adjoint(builtins.sum)
def sum_of_items(y, items, start=0):
    d[items] += rt.sum_adjoint(d[y], items)
    d[start] += rt.unbroadcast(d[y], start)


@tangent(builtins.sum)
def sum_of_items(y, items, start=0):  # noqa: F811
    d[y] = rt.sum_tangent(d[items], items) + rt.match_tangent(d[start], y)




def _one_of_shape(*args, **kwargs):
    """max(a, b), min(a, b): one of the two itself, so of scalars the join of their kinds
    (a NumPy scalar and a Python float: either, as the values decide)."""
    result = shapes.operator_elementwise(*args)
    kinds = [shapes.plain(a) for a in args]
    if not all(isinstance(k, shapes.Scalar) for k in kinds):
        if result == shapes.Array(()) and any(isinstance(k, shapes.Scalar) for k in kinds):
            return shapes.ANY_SCALAR  # a 0-d array or a scalar, as the values decide
        return result
    if not isinstance(result, shapes.Scalar):
        return result
    if all(k.kind in ("int", "bool") for k in kinds):
        return shapes.Scalar("int")  # (True counts as the int 1 where it matters)
    joined = None
    for kind in kinds:
        joined = shapes.join(joined, kind)
    return joined


shape_rule(_one_of_shape, builtins.max, builtins.min)

# list(items) and tuple(items): the same elements in a new list or tuple (an array's rows,
# a dict's keys, which carry no derivative)
linear(builtins.list, builtins.tuple, parameters="y, items",
       transpose="rt.sequence_adjoint(g, items)", tangent="rt.sequence_tangent(d[items], items)")

# ranges and slices hold integers: no derivative (an int taped beside floats in generated
# code may look varied to forward mode over that code)
nondifferentiable(builtins.range, builtins.slice)
nondifferentiable(FORMATTED)  # an f-string is text (printed, logged, in a message)


def _sum_of_items_shape(items, start=None, **kwargs):
    """sum(items, start) adds items along the first axis to ``start`` (0): an array's row
    sum. Of a vector, a NumPy scalar, unless it has no element (then ``start`` itself,
    a Python int or float): the kinds say "not 1", never "not 0", so only a vector of one
    element is known to give a NumPy scalar. Of a list of known length, start + each item."""
    if start is None or start == shapes.Known(0):
        start = shapes.Scalar("int")
    if isinstance(items, shapes.IndexTuple) and not items.adds_items:
        if None in items.parts:
            return None  # an item not known yet
        total = start
        for item in items.parts:
            total = shapes.operator_elementwise(total, item)
        return total
    rows = shapes.reduction(items, shapes.Known(0))
    total = shapes.operator_elementwise(rows, start)
    if isinstance(total, shapes.Scalar) and shapes.plain(items) != shapes.Array((True,)):
        return shapes.join(total, shapes.plain(start))
    return total


shape_rule(_sum_of_items_shape, builtins.sum)


# A list's adjoint is an array stacking its elements' adjoints (lists of equal-shaped values).
@adjoint(rt.appended)
def appended(z, items, value):
    d[items] += d[z][:-1]
    d[value] += rt.unbroadcast(d[z][-1], value)


@tangent(rt.appended)
def appended(z, items, value):  # noqa: F811
    d[z] = rt.appended(d[items], d[value])


linear(rt.all_but_last, parameters="z, items", transpose="rt.unindex(g, items, slice(None, -1))")


# p.w for a namedtuple or dataclass p: its adjoint is a Parts (by position) or an Entries
linear(ATTRIBUTE, parameters="y, x, name", transpose="rt.unfield(g, x, name)",
       tangent="rt.field_of(d[x], x, name)")
