"""Replace runtime helper calls by what they reduce to for the known argument kinds.

Generated code calls ``rt.unbroadcast``, ``rt.zeros_like``, ``rt.match_type``,
``rt.check_scalar_output`` and the dot/matmul adjoint helpers, which decide at
run time what to do from the shapes they see. When shape inference
(analysis/shapes.py) already knows those shapes, the decision is made here
instead::

    a_bar = rt.unbroadcast(mul_bar * b, a)     (a, b Python floats)
 -> a_bar = mul_bar * b

    b1_bar = rt.unbroadcast(add_bar, b1)       (add: rank 2, b1: rank 1)
 -> b1_bar = add_bar.sum(axis=0)

    h_bar = rt.dot_adjoint_left(dot_bar, h, W2)  (both rank 2)
 -> h_bar = np.dot(dot_bar, W2.T)

    rt.check_unshared(acc, None, x, ...)        (acc a float: never written in place)
 -> None

After this pass every remaining runtime call is one whose outcome depends on
something only known at run time.
"""

from __future__ import annotations

import gast
import numpy as np

from .. import runtime, syntax
from ..analysis import shapes
from ..analysis.shapes import Array, Scalar


def specialize_runtime_calls(tree: gast.FunctionDef, env: dict, resolve, aliases):
    _Specialize(env, resolve, aliases).visit(tree)
    return tree


def names_read_once_specialized(statements: list, env: dict, resolve, aliases) -> set:
    """The names ``statements`` read once this pass specialized them (they stay unchanged):
    what specialization removes (the shape argument of rt.unbroadcast...) is not read."""
    specialize = _Specialize(env, resolve, aliases)
    read = set()
    for statement in statements:
        if any(type(node) is gast.Call and specialize.rule_for(node) is not None
               for node in gast.walk(statement)):
            statement = specialize.visit(syntax.deepcopy(statement))
        read |= syntax.load_names(statement)
    return read


class _Specialize(gast.NodeTransformer):
    def __init__(self, env, resolve, aliases):
        self.env = env
        self.resolve = resolve
        self.aliases = aliases

    def rule_for(self, node):
        helper = self.resolve(node.func)
        return _RULES.get(getattr(helper, "__name__", None)) if _is_runtime(helper) else None

    def visit_Call(self, node):
        self.generic_visit(node)
        rule = self.rule_for(node)
        if rule is None or node.keywords:
            return node
        kinds = [shapes.plain(shapes.evaluate(a, self.env, self.resolve)) for a in node.args]
        replacement = rule(self, node.args, kinds)
        return node if replacement is None else gast.copy_location(replacement, node)

    def np(self, attr):
        return syntax.attribute(self.aliases.name_for(np), attr)


def _is_runtime(obj) -> bool:
    return getattr(obj, "__module__", None) == runtime.__name__


def _axes_constant(axes):
    return syntax.constant(axes[0] if len(axes) == 1 else tuple(axes))


def _unbroadcast(pass_, args, kinds):
    g, x = args
    g_kind, x_kind = kinds
    if isinstance(x_kind, Scalar) and isinstance(g_kind, Scalar):
        return g
    if isinstance(x_kind, Scalar) and isinstance(g_kind, Array):
        return syntax.call(pass_.np("sum"), g)
    if not (isinstance(x_kind, Array) and isinstance(g_kind, Array)):
        return None
    lead = g_kind.ndim - x_kind.ndim
    if lead < 0:
        return None
    kept = []
    for axis, x_one in enumerate(x_kind.ones):
        g_one = g_kind.ones[lead + axis]
        if x_one is g_one and x_one is not None:  # both 1, or both larger (equal: NumPy)
            continue
        if x_one is True and g_one is False:
            kept.append(axis)
            continue
        # g of size 1 where x is larger must be broadcast; an unknown size decides at run time
        return None
    # the array method: same result as np.sum, without np.sum's Python-level dispatch
    result = g
    if lead:
        result = syntax.call(syntax.attribute(result, "sum"), axis=_axes_constant(list(range(lead))))
    if kept:
        result = syntax.call(syntax.attribute(result, "sum"), axis=_axes_constant(kept),
                             keepdims=syntax.constant(True))
    return result


def _zeros_like(pass_, args, kinds):
    if isinstance(kinds[0], Scalar):
        return syntax.constant(0.0)
    return None


def _match_type(pass_, args, kinds):
    g, x = args
    g_kind, x_kind = kinds
    if isinstance(x_kind, Scalar) and x_kind.kind in ("float", "int", "bool"):
        if g_kind == shapes.FLOAT:
            return g
        if isinstance(g_kind, Scalar):
            return syntax.call(syntax.name("float"), g)
        return None
    if isinstance(x_kind, Array):
        return g
    return None  # a name that held a Python float at one point and a NumPy scalar at another


def _check_scalar_output(pass_, args, kinds):
    return args[0] if isinstance(kinds[0], Scalar) else None


def _expand_reduced(pass_, args, kinds):
    return args[0] if isinstance(kinds[1], Scalar) else None


def _transpose(node):
    return syntax.attribute(node, "T")


def _dot_adjoint_left(pass_, args, kinds):
    g, a, b = args
    _, a_kind, b_kind = kinds
    if not (isinstance(a_kind, Array) and isinstance(b_kind, Array)):
        return None
    if a_kind.ndim == 2 and b_kind.ndim == 2:
        return syntax.call(pass_.np("dot"), g, _transpose(b))
    if a_kind.ndim == 1 and b_kind.ndim == 2:
        return syntax.call(pass_.np("dot"), b, g)
    if a_kind.ndim == 2 and b_kind.ndim == 1:
        return syntax.call(pass_.np("outer"), g, b)
    if a_kind.ndim == 1 and b_kind.ndim == 1:
        return gast.BinOp(left=g, op=gast.Mult(), right=b)
    return None


def _dot_adjoint_right(pass_, args, kinds):
    g, a, b = args
    _, a_kind, b_kind = kinds
    if not (isinstance(a_kind, Array) and isinstance(b_kind, Array)):
        return None
    if a_kind.ndim == 2 and b_kind.ndim in (1, 2):
        return syntax.call(pass_.np("dot"), _transpose(a), g)
    if a_kind.ndim == 1 and b_kind.ndim == 2:
        return syntax.call(pass_.np("outer"), a, g)
    if a_kind.ndim == 1 and b_kind.ndim == 1:
        return gast.BinOp(left=g, op=gast.Mult(), right=a)
    return None


def _owned(pass_, args, kinds):
    return args[0] if isinstance(kinds[0], Scalar) else None


def _owned_tuple(pass_, args, kinds):
    if all(isinstance(k, Scalar) for k in kinds):
        return gast.Tuple(elts=list(args), ctx=gast.Load())
    return None


def _match_tangent(pass_, args, kinds):
    tangent, value = kinds
    if tangent == value and isinstance(value, Array) and None not in value.ones:
        return args[0]
    if isinstance(value, Scalar) and isinstance(tangent, Scalar):
        if value.kind == "float" and tangent.kind != "float":
            return syntax.call(syntax.name("float"), args[0])
        if value.kind != "scalar":
            return args[0]
    return None


def _check_unshared(pass_, args, kinds):
    # a scalar is never written in place, nor shares an array's memory: nothing to check
    if isinstance(kinds[0], Scalar) or isinstance(kinds[2], Scalar):
        return syntax.constant(None)
    return None


def _check_separate(pass_, args, kinds):
    if isinstance(kinds[0], Scalar) or isinstance(kinds[1], Scalar):
        return syntax.constant(None)
    return None


def _check_holds_nothing(pass_, args, kinds):
    return syntax.constant(None) if isinstance(kinds[0], (Array, Scalar)) else None


def _written_in_place(pass_, args, kinds):
    if isinstance(kinds[0], Scalar):
        return syntax.constant(False)
    if isinstance(kinds[0], Array):
        return syntax.constant(True)
    return None


def _writes_through(pass_, args, kinds):
    if isinstance(kinds[2], Scalar):  # a scalar part is a copy, never written in place
        return syntax.constant(False)
    return None


def _number(node):
    """The value of a numeric literal (``2.0``, ``-1``), or None."""
    sign = 1
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        sign, node = -1, node.operand
    if isinstance(node, gast.Constant) and type(node.value) in (int, float):
        return sign * node.value
    return None


def _power_derivative(pass_, args, kinds):
    """``rt.power_derivative(x, 3.0, 1)`` -> ``3.0 * x ** 2.0``, for a constant exponent.

    Kept as a call where the helper's care is needed: a zero coefficient (``x ** 0``),
    or a negative power of a Python float, which raises ZeroDivisionError at 0.
    """
    if len(args) not in (2, 3):
        return None
    exponent = _number(args[1])
    order = _number(args[2]) if len(args) == 3 else 1
    if exponent is None or type(order) is not int or order < 0:
        return None
    coefficient = 1
    for j in range(order):
        coefficient *= exponent - j
    power = exponent - order
    python_scalar = isinstance(kinds[0], Scalar) and kinds[0].kind in ("float", "int", "bool")
    if coefficient == 0 or (power < 0 and python_scalar) or not isinstance(
            kinds[0], (Scalar, Array)):
        return None
    return gast.BinOp(left=syntax.constant(coefficient), op=gast.Mult(), right=gast.BinOp(
        left=args[0], op=gast.Pow(), right=syntax.constant(power)))


def _iterated(pass_, args, kinds):
    """``rt.iterated(x)``, its adjoint and its tangent are x (or g, t) unless x is a dict."""
    return args[0] if isinstance(kinds[-1], (Array, Scalar)) else None


_RULES = {
    "check_unshared": _check_unshared,
    "check_separate": _check_separate,
    "check_holds_nothing": _check_holds_nothing,
    "check_not_written": lambda p, a, k: syntax.constant(None) if isinstance(k[0], Scalar)
    else None,
    "written_in_place": _written_in_place,
    "writes_through": _writes_through,
    "views_into": _writes_through,  # a scalar part is no view either
    "views_whole": lambda p, a, k: syntax.constant(False) if isinstance(k[1], Scalar)
    else None,
    "power_derivative": _power_derivative,
    "iterated": _iterated,
    "iterated_adjoint": _iterated,
    "iterated_tangent": _iterated,
    "match_tangent": _match_tangent,
    "owned": _owned,
    "owned_tuple": _owned_tuple,
    "unbroadcast": _unbroadcast,
    "zeros_like": _zeros_like,
    "match_type": _match_type,
    "check_scalar_output": _check_scalar_output,
    "expand_reduced": _expand_reduced,
    "dot_adjoint_left": _dot_adjoint_left,
    "dot_adjoint_right": _dot_adjoint_right,
    "matmul_adjoint_left": lambda p, a, k: _dot_adjoint_left(p, a, k)
    if all(isinstance(x, Array) and x.ndim == 2 for x in k[1:]) else None,
    "matmul_adjoint_right": lambda p, a, k: _dot_adjoint_right(p, a, k)
    if all(isinstance(x, Array) and x.ndim == 2 for x in k[1:]) else None,
}
