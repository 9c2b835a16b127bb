"""What operation an A-normal-form right-hand side performs, in one uniform shape.

``operation_of(value, resolve)`` maps each operation form to the primitive
object the registry knows it by, plus its argument nodes:

  ``a + b``          -> operator.add(a, b)
  ``a * a``          -> numpy.square(a)
  ``-a``             -> operator.neg(a)
  ``a < b``          -> operator.lt(a, b)
  ``np.sin(a)``      -> numpy.sin(a)           (the callee resolved statically)
  ``x.sum(axis=0)``  -> numpy.ndarray.sum(x, axis=0)
  ``x.T``            -> numpy.ndarray.T(x)
  ``x[i, :]``        -> operator.getitem(x, index)
  ``p.w``            -> ATTRIBUTE(p, "w")       (a field of a namedtuple or dataclass)
  ``a``              -> IDENTITY(a)
  ``(a, b)``         -> TUPLE(a, b)
  ``f"{a:.3f}"``     -> FORMATTED(a)            (text: never differentiable)

Activity analysis, shape inference and the transformers all read operations
through this one function, so they agree on what each statement does.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import gast
import numpy as np

from .. import syntax

BINARY_OPERATORS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
    gast.Pow: operator.pow, gast.MatMult: operator.matmul, gast.BitAnd: operator.and_,
    gast.BitOr: operator.or_, gast.BitXor: operator.xor, gast.LShift: operator.lshift,
    gast.RShift: operator.rshift,
}
UNARY_OPERATORS = {
    gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Not: operator.not_,
    gast.Invert: operator.invert,
}
COMPARISONS = {
    gast.Lt: operator.lt, gast.LtE: operator.le, gast.Gt: operator.gt, gast.GtE: operator.ge,
    gast.Eq: operator.eq, gast.NotEq: operator.ne, gast.Is: operator.is_,
    gast.IsNot: operator.is_not, gast.In: operator.contains, gast.NotIn: operator.contains,
}


def IDENTITY(x):  # noqa: N802 - a marker primitive, named like a constant
    """The primitive of a plain copy ``y = x``."""
    return x


def TUPLE(*items):  # noqa: N802
    """The primitive of a tuple literal ``(a, b)``."""
    return items


def ATTRIBUTE(x, name):  # noqa: N802
    """The primitive of ``x.name`` for a field of a record (a namedtuple, a dataclass)."""
    return getattr(x, name)


def FORMATTED(*values):  # noqa: N802
    """The primitive of an f-string ``f"{a} {b:.3f}"``: text, never differentiable."""
    return "".join(map(str, values))


UNRESOLVED = object()


@dataclass
class Operation:
    primitive: object  # the registry key, or UNRESOLVED (a call srcad could not resolve)
    args: list = field(default_factory=list)  # gast atom nodes (or an index node)
    keywords: dict = field(default_factory=dict)  # name -> gast atom node
    node: gast.AST | None = None
    description: str = ""  # how to name the operation in messages

    def argument_names(self) -> set[str]:
        return {n.id for n in syntax.names(list(self.args) + list(self.keywords.values()))}


def operation_of(value, resolve) -> Operation:
    """The Operation performed by ``value``; ``resolve`` maps a static callee node to its object."""
    if isinstance(value, gast.BinOp):
        if (isinstance(value.op, gast.Mult) and isinstance(value.left, gast.Name)
                and isinstance(value.right, gast.Name) and value.left.id == value.right.id):
            # x * x: one operand, so its derivative is one term (2 x), not two products
            return Operation(np.square, [value.left], node=value, description="a square")
        return Operation(BINARY_OPERATORS[type(value.op)], [value.left, value.right], node=value,
                         description="the operator %s" % type(value.op).__name__)
    if isinstance(value, gast.UnaryOp):
        return Operation(UNARY_OPERATORS[type(value.op)], [value.operand], node=value,
                         description="the unary operator %s" % type(value.op).__name__)
    if isinstance(value, gast.Compare):
        return Operation(COMPARISONS[type(value.ops[0])], [value.left, value.comparators[0]],
                         node=value, description="a comparison")
    if isinstance(value, gast.Call):
        keywords = {k.arg: k.value for k in value.keywords}
        func = value.func
        target = resolve(func)
        if target is not UNRESOLVED:
            return Operation(target, list(value.args), keywords, value,
                             description=_callee_text(func))
        if isinstance(func, gast.Attribute):  # method call on a value
            method = getattr(np.ndarray, func.attr, UNRESOLVED)
            return Operation(method, [func.value] + list(value.args), keywords, value,
                             description="the method .%s()" % func.attr)
        return Operation(UNRESOLVED, list(value.args), keywords, value,
                         description=_callee_text(func))
    if isinstance(value, gast.Attribute):
        target = resolve(value)
        if target is not UNRESOLVED:  # a static reference such as np.pi: a constant
            return Operation(IDENTITY, [], node=value, description="a constant")
        if hasattr(np.ndarray, value.attr):  # x.T, x.shape...
            return Operation(getattr(np.ndarray, value.attr), [value.value], node=value,
                             description="the attribute .%s" % value.attr)
        return Operation(ATTRIBUTE, [value.value, gast.Constant(value=value.attr, kind=None)],
                         node=value, description="the attribute .%s" % value.attr)
    if isinstance(value, gast.Subscript):
        return Operation(operator.getitem, [value.value, value.slice], node=value,
                         description="indexing")
    if isinstance(value, (gast.Tuple, gast.List)):
        return Operation(TUPLE, list(value.elts), node=value, description="a tuple")
    if isinstance(value, gast.Dict):
        return Operation(TUPLE, list(value.values), node=value, description="a dict")
    if isinstance(value, gast.Name):
        return Operation(IDENTITY, [value], node=value, description="a copy")
    if isinstance(value, gast.JoinedStr):
        return Operation(FORMATTED, [n for n in syntax.walk(value) if isinstance(n, gast.Name)],
                         node=value, description="an f-string")
    if isinstance(value, gast.Constant):
        return Operation(IDENTITY, [], node=value, description="a constant")
    return Operation(UNRESOLVED, [], node=value, description=type(value).__name__)


def operator_operation_of(value):
    """``(primitive, operand nodes)`` of an operator expression (``a + b``, ``-a``,
    ``a < b``) exactly as ``operation_of`` gives them, without building an Operation (the
    analyses ask for every statement); None for any other expression."""
    kind = type(value)
    if kind is gast.BinOp:
        left, right = value.left, value.right
        if (type(value.op) is gast.Mult and type(left) is gast.Name and type(right) is gast.Name
                and left.id == right.id):
            return np.square, (left,)
        return BINARY_OPERATORS[type(value.op)], (left, right)
    if kind is gast.UnaryOp:
        return UNARY_OPERATORS[type(value.op)], (value.operand,)
    if kind is gast.Compare:
        return COMPARISONS[type(value.ops[0])], (value.left, value.comparators[0])
    return None


def _callee_text(func) -> str:
    parts = []
    while isinstance(func, gast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, gast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts)) or "a call"
